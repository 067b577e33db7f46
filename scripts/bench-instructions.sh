#!/usr/bin/env bash
# Instructions per event: runs `schedlab bench` under valgrind's callgrind (instruction counts
# do not depend on the machine's load, which moves wall times by up to 2x on a shared VM) and
# prints the instructions of the whole process, the engine's events and their ratio.
#
#   scripts/bench-instructions.sh [FILE.json]        default: scenarios/bench/mixed-8cpu.json
#   scripts/bench-instructions.sh --ms N ...         simulate the first N ms only (default: 1000)
#   scripts/bench-instructions.sh --trace T ...      full, switches or counters (default: counters)
#   SCHEDLAB=path/to/schedlab scripts/...            use that binary (e.g. an older build)
set -euo pipefail
cd "$(dirname "$0")/.."
ms=1000
trace=counters
file=scenarios/bench/mixed-8cpu.json
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --ms) ms="${2:?--ms needs a number of milliseconds}"; shift 2 ;;
    --trace) trace="${2:?--trace needs full, switches or counters}"; shift 2 ;;
    -*) echo "bench-instructions: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) file="$1"; shift ;;
  esac
done
case "$ms" in ''|*[!0-9]*) echo "bench-instructions: --ms wants a whole number, not '$ms'" >&2; exit 2 ;; esac
[ -r "$file" ] || { echo "bench-instructions: cannot read $file" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
if [ -z "${SCHEDLAB:-}" ]; then
  cargo build --release --locked -q -p schedlab-cli
  SCHEDLAB="${CARGO_TARGET_DIR:-$PWD/target}/release/schedlab"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The scenario cut to its first N ms (the page's and the CLI's parser take the same JSON).
python3 - "$file" "$ms" > "$tmp/scenario.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["duration_ms"] = min(d.get("duration_ms", int(sys.argv[2])), int(sys.argv[2]))
json.dump(d, sys.stdout)
EOF
valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$tmp/vg.log" \
  "$SCHEDLAB" bench "$tmp/scenario.json" --trace "$trace" > "$tmp/bench.txt"
instr=$(sed -n 's/.*I *refs: *//p' "$tmp/vg.log" | tr -d ,)
awk -v instr="$instr" -v file="$file" -v ms="$ms" -v trace="$trace" '
  NR == 1 { next }
  { events += $3 }
  END {
    printf "%s, first %s ms, --trace %s: %d events, %.1f M instructions, %.0f per event\n",
      file, ms, trace, events, instr / 1e6, instr / events
  }' "$tmp/bench.txt"
