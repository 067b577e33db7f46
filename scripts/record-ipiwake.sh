#!/bin/sh
# Re-record tests/fixtures/real-epyc-haltpoll/ipiwake-busy.perf-script.gz: a task on CPU 0
# wakes a partner blocked on CPU 1, where a nice-0 CPU loop runs, 2000 times 0.5 ms apart
# (scripts/workloads/ipiwake.c): when the partner runs after its waker's `sched_waking` (a
# wakeup that preempts a busy CPU's task, carried by an IPI), and how long the waker's
# write() took. Also runs it three times without perf, and once onto the idle CPU.
#
# Run as root with the build lock held, so no build shares the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-ipiwake.sh [OUTDIR]
# Needs cc and perf. Metadata (kernel, perf, cpuidle, the runs' lines) in
# OUTDIR/ipiwake-metadata.txt. Both files are written in a temporary directory and moved
# into OUTDIR only once every step succeeded.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real-epyc-haltpoll}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "record-ipiwake: run as root (perf sched record)" >&2; exit 2; }
command -v perf >/dev/null || { echo "record-ipiwake: needs perf" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cc -O2 -Wall -o "$TMP/ipiwake" "$HERE/workloads/ipiwake.c"
run() { # a run of ipiwake whose failure stops the script
	"$TMP/ipiwake" "$@" > "$TMP/line" || { echo "record-ipiwake: ipiwake $* failed" >&2; exit 1; }
	cat "$TMP/line"
}
META="$TMP/ipiwake-metadata.txt"
{
	echo "# ipiwake fixture for schedlab (scripts/record-ipiwake.sh), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "cmdline (idle and scheduler parameters): $(tr ' ' '\n' < /proc/cmdline | grep -E '^(cpuidle|haltpoll|idle|nohz|isolcpus|sched|preempt)' | tr '\n' ' ')"
} > "$META"
for i in 1 2 3; do echo "without perf, run $i: $(run 0 2000)" >> "$META"; done
echo "without perf, onto the idle CPU: $(run idle 2000)" >> "$META"
perf sched record -q -o "$TMP/perf.data" -- "$TMP/ipiwake" 0 2000 > "$TMP/line" 2> "$TMP/perf.err" ||
	{ cat "$TMP/perf.err" >&2; echo "record-ipiwake: perf sched record failed" >&2; exit 1; }
[ -s "$TMP/perf.data" ] || { echo "record-ipiwake: perf wrote no data" >&2; exit 1; }
echo "under perf sched record: $(cat "$TMP/line")" >> "$META"
perf script -i "$TMP/perf.data" -F comm,tid,cpu,time,event,trace > "$TMP/script.txt" 2> "$TMP/perf.err" ||
	{ cat "$TMP/perf.err" >&2; echo "record-ipiwake: perf script failed" >&2; exit 1; }
grep -v sched_stat_runtime "$TMP/script.txt" | gzip -9n > "$TMP/ipiwake-busy.perf-script.gz"
[ "$(grep -c sched_switch "$TMP/script.txt")" -ge 1000 ] ||
	{ echo "record-ipiwake: too few switches recorded" >&2; exit 1; }
mv "$TMP/ipiwake-busy.perf-script.gz" "$META" "$OUT/"
echo "record-ipiwake: wrote $OUT/ipiwake-busy.perf-script.gz and $OUT/ipiwake-metadata.txt"
