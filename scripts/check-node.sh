#!/usr/bin/env bash
# Same scenario and seed, same trace, natively and in wasm: builds crates/node for wasm32
# (wasm-bindgen --target nodejs), runs every preset in Node and compares each variant's trace
# hash, event count and end with `schedlab run --preset NAME --format json`.
#
#   scripts/check-node.sh            build both, then compare
#   SCHEDLAB=path/to/schedlab scripts/check-node.sh   use that native binary
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -p schedlab-node --target wasm32-unknown-unknown
pkg="$target/node-pkg"
wasm-bindgen --target nodejs --out-dir "$pkg" "$target/wasm32-unknown-unknown/release/schedlab_node.wasm"
if [ -z "${SCHEDLAB:-}" ]; then
  cargo build --release --locked -p schedlab-cli
  SCHEDLAB="$target/release/schedlab"
fi
SCHEDLAB="$SCHEDLAB" node crates/node/tests/determinism.mjs "$pkg/schedlab_node.js"
