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
# OUTDIR/ipiwake-metadata.txt.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real-epyc-haltpoll}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -Wall -o "$TMP/ipiwake" "$HERE/workloads/ipiwake.c"
META="$OUT/ipiwake-metadata.txt"
{
	echo "# ipiwake fixture for schedlab (scripts/record-ipiwake.sh), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "cmdline (idle and scheduler parameters): $(tr ' ' '\n' < /proc/cmdline | grep -E '^(cpuidle|haltpoll|idle|nohz|isolcpus|sched|preempt)' | tr '\n' ' ')"
	for i in 1 2 3; do echo "without perf, run $i: $("$TMP/ipiwake" 0 2000)"; done
	echo "without perf, onto the idle CPU: $("$TMP/ipiwake" idle 2000)"
	cd "$TMP"
	echo "under perf sched record: $(perf sched record -q -o "$TMP/perf.data" -- "$TMP/ipiwake" 0 2000 2>/dev/null)"
} > "$META"
perf script -i "$TMP/perf.data" -F comm,tid,cpu,time,event,trace 2>/dev/null |
	grep -v sched_stat_runtime | gzip -9n > "$OUT/ipiwake-busy.perf-script.gz"
echo "record-ipiwake: wrote $OUT/ipiwake-busy.perf-script.gz and $META"
