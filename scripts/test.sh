#!/usr/bin/env bash
# Every check schedlab has: formatting, lints, all native tests, the core's wasm build, the
# simulation in Node against the native one, a short run of every fuzz target, the static
# site's release build, the browser tests in headless Chromium, and the main command
# (scripts/run.sh) from a clean clone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"   # binaryen's wasm-opt, pinned in package-lock
export TRUNK_SKIP_VERSION_CHECK=true

step() { printf '\n== %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "tests"
cargo test --workspace --locked
step "the criterion benches, once each (smoke mode: they build and run, nothing is timed)"
cargo test --benches --locked -p schedlab-cli -p schedlab-report
step "the simulation core for wasm32 (no_std + alloc)"
cargo build -p schedlab-sim --target wasm32-unknown-unknown --locked
step "the trace importers for wasm32 (the page will read recordings)"
cargo build -p schedlab-trace --target wasm32-unknown-unknown --locked
step "native = wasm in Node: every preset's trace hashes (scripts/check-node.sh)"
scripts/check-node.sh
step "native against wasm, once (scripts/bench-wasm.sh smoke: it runs, nothing is judged)"
scripts/bench-wasm.sh --iterations 1
step "instructions per event, once (scripts/bench-instructions.sh smoke: it runs, nothing is judged)"
scripts/bench-instructions.sh --ms 20
step "fuzz smoke: each target for 5 s from its seeds (scripts/fuzz.sh, nightly)"
scripts/fuzz.sh 5
step "the page as a static site (scripts/build-site.sh: trunk build --release, relative URLs)"
scripts/build-site.sh
step "browser tests (headless Chromium): the page, and the site under a sub-path"
tests/e2e/run.sh
step "the main command from a clean clone (scripts/run.sh)"
scripts/check-run.sh
step "all checks passed"
