#!/bin/sh
# Re-record tests/fixtures/traces/duty.perf-script.txt.gz: three duty-cycled CPU loops on two
# CPUs (`stress-ng --cpu 3 --cpu-load 50 -t 4`: each worker computes for a slice, then sleeps
# on a timer for as long, so it wants half a CPU), recorded with `perf sched record`. Every
# wakeup of a worker is its timer's: it fires in an interrupt on the worker's CPU, where the
# current task (another worker, or the idle task) is what `sched_waking` names as the waker.
# `schedlab import` must not take those for messages between the workers
# (crates/trace/tests/derive.rs).
#
# Run as root on an otherwise idle 2-CPU machine, with the build lock held so no build shares
# the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-duty.sh [OUTDIR]
# Needs perf (Debian linux-perf) and stress-ng. Writes OUTDIR/duty.perf-script.txt.gz and
# OUTDIR/duty.txt (the kernel, HZ, perf and stress-ng versions, the command and how idle the
# machine was before it ran); OUTDIR defaults to tests/fixtures/traces.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/traces}
for c in perf stress-ng; do
	command -v "$c" >/dev/null || { echo "record-duty: needs $c" >&2; exit 2; }
done
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CMD="stress-ng --cpu 3 --cpu-load 50 -t 4"
# How idle the machine was in the second before (from /proc/stat: idle jiffies of all).
idle_before() {
	set -- $(head -1 /proc/stat); t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)); i1=$5
	sleep 1
	set -- $(head -1 /proc/stat); t2=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)); i2=$5
	echo $(((i2 - i1) * 100 / (t2 - t1)))
}
IDLE=$(idle_before)
perf sched record -o "$TMP/perf.data" -- $CMD > "$TMP/out.txt" 2>&1 || {
	cat "$TMP/out.txt" >&2; exit 1; }
perf script -i "$TMP/perf.data" 2>/dev/null | gzip -9n > "$OUT/duty.perf-script.txt.gz"
{
	echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/record-duty.sh"
	echo "kernel: $(uname -r) ($(uname -v))"
	echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	hz=$( (zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null) | grep '^CONFIG_HZ=' || true)
	echo "hz: ${hz#CONFIG_HZ=}"
	echo "perf: $(perf --version)"
	echo "stress-ng: $(stress-ng --version)"
	echo "command: perf sched record -- $CMD"
	echo "machine idle in the second before: $IDLE %"
	grep -i "base_slice\|sysctl_sched_features" /sys/kernel/debug/sched/debug 2>/dev/null | sed 's/^/sched debug: /' || true
} > "$OUT/duty.txt"
echo "record-duty: $(zcat "$OUT/duty.perf-script.txt.gz" | grep -c sched_switch) switches -> $OUT/duty.perf-script.txt.gz"
