#!/usr/bin/env bash
# Runs schedlab on a bundled scenario (the SCHED_IDLE pair of the 2021 LKML thread) under the
# kernel variants it compares. Extra arguments go to `schedlab run`, e.g. --variant eevdf-6.12.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --quiet --release --locked -p schedlab-cli -- run scenarios/sched-idle-pair.json "$@"
