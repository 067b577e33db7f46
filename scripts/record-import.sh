#!/bin/sh
# Re-record the fixtures that hold `schedlab import` to what it must read from a recording
# (crates/trace/tests/derive.rs), each with `perf sched record` into
# OUTDIR/NAME.perf-script.txt.gz and a description (kernel, HZ, versions, the command, how
# idle the machine was before) into OUTDIR/NAME.txt:
#   duty        stress-ng --cpu 3 --cpu-load 50 -t 4: three workers that each compute for a
#               slice and sleep on a timer for as long; every worker wakeup is an interrupt's,
#               fired while another worker or the idle task ran.
#   pipe-exits  two CPU loops (stress-ng --cpu 2 -t 3) and perf bench sched pipe -l 6000: a
#               ping-pong pair that ends a third of the way through the recording.
#   switch      stress-ng --switch 1 -t 1: a pipe ping-pong of two processes, 45 000 round
#               trips a second, where perf wakes itself often and records none of its own
#               wakeups (it drops the events it causes).
#   nice        stress-ng --cpu 2 -t 3 beside nice -n 5 stress-ng --cpu 1 -t 3: three CPU
#               loops of one name at two nice levels.
#   messaging   perf bench sched messaging -g 2 -l 100: two groups of 20 senders writing
#               20 receivers over unix sockets, forked 0.2 ms apart, in a short recording.
#   hackbench3  hackbench -g 3 -l 400: three groups of 20 sender and 20 receiver processes
#               over unix sockets, in a recording so short that in a group a sender may wake
#               no receiver more than a few times.
#   mixed       stress-ng --cpu 2 -t 3 beside stress-ng --cpu 1 --cpu-load 10 -t 3: workers of
#               one name, two CPU loops and a 10 % duty cycle; the two stress-ng parents
#               wake each other a few dozen times at their start, then wait on their workers.
#   threads     scripts/workloads/threads.c 2 1000 9000 3: two CPU-loop threads and a
#               periodic thread (1 ms of CPU, then 9 ms asleep) of one process, so of one
#               name.
#
# Run as root on an otherwise idle 2-CPU machine, with the build lock held so no build shares
# the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-import.sh [OUTDIR [NAME...]]
# Needs perf (Debian linux-perf), stress-ng, hackbench (rt-tests) and gcc. OUTDIR defaults to
# tests/fixtures/traces; the names to all eight.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/traces}
[ $# -gt 0 ] && shift
NAMES=${*:-duty pipe-exits switch nice messaging hackbench3 mixed threads}
for c in perf stress-ng hackbench; do
	command -v "$c" >/dev/null || { echo "record-import: needs $c" >&2; exit 2; }
done
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -pthread -o "$TMP/threads" "$HERE/workloads/threads.c"
# How idle the machine was in the second before (from /proc/stat: idle jiffies of all).
idle_before() {
	set -- $(head -1 /proc/stat); t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)); i1=$5
	sleep 1
	set -- $(head -1 /proc/stat); t2=$(($2 + $3 + $4 + $5 + $6 + $7 + $8)); i2=$5
	echo $(((i2 - i1) * 100 / (t2 - t1)))
}
for name in $NAMES; do
	case $name in
	duty) CMD="stress-ng --cpu 3 --cpu-load 50 -t 4" ;;
	pipe-exits) CMD="stress-ng --cpu 2 -t 3 & perf bench sched pipe -l 6000; wait" ;;
	switch) CMD="stress-ng --switch 1 -t 1" ;;
	nice) CMD="stress-ng --cpu 2 -t 3 & nice -n 5 stress-ng --cpu 1 -t 3; wait" ;;
	messaging) CMD="perf bench sched messaging -g 2 -l 100" ;;
	hackbench3) CMD="hackbench -g 3 -l 400" ;;
	mixed) CMD="stress-ng --cpu 2 -t 3 & stress-ng --cpu 1 --cpu-load 10 -t 3; wait" ;;
	threads) CMD="$TMP/threads 2 1000 9000 3" ;;
	*) echo "record-import: no workload '$name' (duty, pipe-exits, switch, nice, messaging, hackbench3, mixed, threads)" >&2; exit 2 ;;
	esac
	IDLE=$(idle_before)
	perf sched record -o "$TMP/perf.data" -- sh -c "$CMD" > "$TMP/out.txt" 2>&1 || {
		cat "$TMP/out.txt" >&2; exit 1; }
	perf script -i "$TMP/perf.data" 2>/dev/null | gzip -9n > "$OUT/$name.perf-script.txt.gz"
	{
		echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/record-import.sh"
		echo "kernel: $(uname -r) ($(uname -v))"
		echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
		hz=$( (zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null) | grep '^CONFIG_HZ=' || true)
		echo "hz: ${hz#CONFIG_HZ=}"
		echo "perf: $(perf --version)"
		echo "stress-ng: $(stress-ng --version)"
		echo "command: perf sched record -- sh -c '$(echo "$CMD" | sed "s|$TMP/threads|threads|")'"
		if [ "$name" = threads ]; then echo "threads: scripts/workloads/threads.c, gcc -O2 -pthread"; fi
		echo "machine idle in the second before: $IDLE %"
		grep -i "base_slice\|sysctl_sched_features" /sys/kernel/debug/sched/debug 2>/dev/null | sed 's/^/sched debug: /' || true
	} > "$OUT/$name.txt"
	echo "record-import: $name: $(zcat "$OUT/$name.perf-script.txt.gz" | grep -c sched_switch) switches -> $OUT/$name.perf-script.txt.gz"
done
