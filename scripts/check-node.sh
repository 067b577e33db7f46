#!/usr/bin/env bash
# Same scenario and seed, same trace, natively and in wasm: builds crates/node for wasm32
# (wasm-bindgen --target nodejs), runs every preset in Node and compares each variant's trace
# hash, event count and end with `schedlab run --preset NAME --format json`.
#
#   scripts/check-node.sh            build both, then compare
#   SCHEDLAB=path/to/schedlab scripts/check-node.sh   use that native binary
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node-build.sh
node crates/node/tests/determinism.mjs "$pkg/schedlab_node.js"
