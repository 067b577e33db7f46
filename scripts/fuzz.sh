#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/, cargo-fuzz + libFuzzer on a pinned nightly toolchain; the project
# itself builds on stable).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   build, then run each target (all by default) for
#                                           SECONDS (default 60), one after the other
#   scripts/fuzz.sh --build                 only build the targets
#   scripts/fuzz.sh --no-build SECONDS [TARGET...]   run without building first
#   scripts/fuzz.sh --list                  the targets
#
# Each target starts from its checked-in seeds (fuzz/seeds/TARGET) and grows a working corpus
# in fuzz/corpus/TARGET (not checked in). A new finding stops the script with status 1 and
# leaves the input in fuzz/artifacts/TARGET/; `scripts/fuzz.sh --no-build 0 TARGET FILE` replays
# one. libFuzzer's -timeout (10 s) and -rss_limit_mb (2048) catch hangs and memory; the
# targets' own time bounds are tighter (see ARCHITECTURE.md).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

# The pinned nightly (scripts/setup.sh installs the same one).
TOOLCHAIN=nightly-2026-05-19

TARGETS=(scenario link variant trace simulate)
build=1
case "${1:-}" in
  --list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
  --build) build=only; shift ;;
  --no-build) build=0; shift ;;
esac

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
triple=$(rustc +"$TOOLCHAIN" -vV | sed -n 's/^host: //p')
if [ "$build" != 0 ]; then
  cargo +"$TOOLCHAIN" fuzz build --target-dir "$target_dir" >&2
  [ "$build" = only ] && exit 0
fi

secs="${1:-60}"
shift || true
if [ $# -gt 0 ] && [ -f "${!#}" ]; then
  # Replay one input: scripts/fuzz.sh --no-build 0 TARGET FILE
  exec "$target_dir/$triple/release/$1" "$2"
fi
[ $# -gt 0 ] && TARGETS=("$@")

for t in "${TARGETS[@]}"; do
  bin="$target_dir/$triple/release/$t"
  [ -x "$bin" ] || { echo "fuzz: no target \`$t\` (built: $(ls "$target_dir/$triple/release" 2>/dev/null | tr '\n' ' '))" >&2; exit 2; }
  mkdir -p "corpus/$t" "artifacts/$t"
  before=$(ls "artifacts/$t" | wc -l)
  printf 'fuzz: %s for %s s\n' "$t" "$secs" >&2
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="artifacts/$t/" \
    "corpus/$t" "seeds/$t" 2>&1 | grep -E '^(#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|.*panicked|artifact_prefix|Test unit written|thread)' >&2 || true
  if [ "$(ls "artifacts/$t" | wc -l)" -gt "$before" ]; then
    echo "fuzz: $t found something: $(ls -t "artifacts/$t" | head -1) (in fuzz/artifacts/$t/)" >&2
    exit 1
  fi
done
