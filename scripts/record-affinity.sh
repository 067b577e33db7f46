#!/bin/sh
# Re-record tests/fixtures/real/affinity.perf-script.gz: a pinned hog freed by sched_setaffinity
# and moved by the load balancer (active balance when it is running).
#
# Run as root on an otherwise idle 2-CPU machine, under the build lock so no build disturbs it:
#   flock /tmp/schedlab-build.lock sh scripts/record-affinity.sh [OUTDIR]
# Each of TRIALS trials: two nice-0 hogs pinned to CPU 0 (taskset -c 0) for 1 s, then
# `perf record` of sched_switch, sched_migrate_task and sched_process_exec on all CPUs for
# 2.2 s; 0.2 s into it the second hog is widened to CPUs 0-1 (`taskset -p 0x3 PID`). The time
# from taskset's exec to the hog's sched_migrate_task is what the test compares
# (crates/sim/tests/affinity.rs). A trial starts with the line "# trial N hog=PID idle=P"
# where P is the machine's idle % over the second before it (the machine may be shared: a
# trial waits up to 60 s for >= 95 % idle, and the figure is kept either way).
set -eu
TRIALS=${TRIALS:-12}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
HOG='while :; do :; done'
FIELDS='comm,tid,cpu,time,event,trace'
idle_pct() { # over 1 s, all CPUs
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); i0=$1; t0=$2; sleep 1
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); echo $(( 100 * ($1 - i0) / ($2 - t0) ))
}
{
	echo "# affinity: scripts/record-affinity.sh, recorded $(date -u +%FT%TZ)"
	echo "# uname -a: $(uname -a)"
	echo "# cpus: $(nproc); HZ: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_HZ=' || echo unknown)"
	echo "# cmdline: $(cat /proc/cmdline)"
	i=1
	while [ $i -le "$TRIALS" ]; do
		n=0; idle=$(idle_pct)
		while [ "$idle" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); idle=$(idle_pct); done
		taskset -c 0 sh -c "$HOG" & a=$!
		taskset -c 0 sh -c "$HOG" & b=$!
		sleep 1
		perf record -q -a -e sched:sched_switch -e sched:sched_migrate_task \
			-e sched:sched_process_exec -o "$TMP/t.data" -- sleep 2.2 >/dev/null 2>&1 & p=$!
		sleep 0.2
		taskset -p 0x3 "$b" >/dev/null
		wait $p || true
		kill $a $b; wait $a $b 2>/dev/null || true
		echo "# trial $i hog=$b idle=$idle"
		perf script -i "$TMP/t.data" -F "$FIELDS" 2>/dev/null
		i=$((i + 1))
	done
} | gzip -9n > "$OUT/affinity.perf-script.gz"
ls -l "$OUT/affinity.perf-script.gz" >&2
