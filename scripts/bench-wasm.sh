#!/usr/bin/env bash
# Native against wasm: builds the native CLI and crates/node for wasm32 (wasm-bindgen --target
# nodejs), then runs each scenario's variants both ways and prints events per second and the
# ratio (crates/node/bench/compare.mjs).
#
#   scripts/bench-wasm.sh [FILE.json]...            default: scenarios/bench/mixed-8cpu.json
#   scripts/bench-wasm.sh --schedlinsim DIR         also: ten hogs on one CPU in SchedLinSim
#                                                   (DIR: the simulator/ directory of a
#                                                   SchedLinSim checkout) against schedlab's wasm
#   scripts/bench-wasm.sh --iterations N ...        best of N runs (default 3)
#   SCHEDLAB=path/to/schedlab scripts/bench-wasm.sh use that native binary
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. scripts/node-build.sh
node crates/node/bench/compare.mjs "$pkg/schedlab_node.js" "$@"
