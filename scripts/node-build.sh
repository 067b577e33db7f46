# Sourced by scripts/check-node.sh and scripts/bench-wasm.sh: builds crates/node for wasm32 and
# turns it into a Node package (wasm-bindgen --target nodejs), and the native CLI unless
# $SCHEDLAB names one. Sets `pkg` (the package's directory) and exports SCHEDLAB.
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -p schedlab-node --target wasm32-unknown-unknown
pkg="$target/node-pkg"
wasm-bindgen --target nodejs --out-dir "$pkg" "$target/wasm32-unknown-unknown/release/schedlab_node.wasm"
if [ -z "${SCHEDLAB:-}" ]; then
  cargo build --release --locked -p schedlab-cli
  SCHEDLAB="$target/release/schedlab"
fi
export SCHEDLAB
