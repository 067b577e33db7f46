#!/usr/bin/env bash
# Every check schedlab has: formatting, lints, all tests, and the core's wasm build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "tests"
cargo test --workspace --locked
step "the simulation core for wasm32 (no_std + alloc)"
cargo build -p schedlab-sim --target wasm32-unknown-unknown --locked
step "all checks passed"
