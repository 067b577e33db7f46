#!/bin/sh
# Count hackbench's wakeups on the waker's CPU, its migrations and the switches without a
# trace buffer: `perf stat` counts filtered tracepoints per CPU, so no perf thread wakes up to
# drain buffers and share the CPUs with the workload (under `perf record` the same hackbench
# migrates about twice as often). For 2-CPU machines. A recording is one run of a workload
# whose counts vary widely from run to run (hackbench over pipes wakes 30 000 to 70 000
# times); these counts give the spread the model is held to.
#
# Run as root on an otherwise idle machine, with the build lock held so no build shares the
# CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-counts.sh [--root] [OUTFILE] [RUNS] [HACKBENCH ARGS...]
# Writes OUTFILE (default tests/fixtures/real-epyc-haltpoll/hackbench-counts.txt): a header
# with the machine and the command, then one line per run of `hackbench ARGS` (default `-g 2
# --threads -l 2000`; RUNS default 9) from this shell (so in its autogroup session; with
# --root, autogroup is turned off for the runs and restored after, so the threads are in the
# root task group):
#   run N: time S s, wakeups W, local L, migrations M, switches X
# Wakeups are `sched_waking` of hackbench's threads by (waker's CPU, previous CPU), and
# `sched_migrate_task` of them by (the CPU it fired on, from, to): a wakeup is local when the
# wakee's previous CPU is the waker's and it did not move away, or it moved to the waker's
# CPU there. (A balancer's pull fires on the puller and counts as a move there: a few hundred
# of some 60 000 wakeups.) Needs perf and rt-tests (hackbench).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=0
if [ "${1:-}" = --root ]; then ROOT=1; shift; fi
OUT=${1:-$HERE/../tests/fixtures/real-epyc-haltpoll/hackbench-counts.txt}
RUNS=${2:-9}
[ $# -gt 2 ] && shift 2 || set --
HB="hackbench ${*:--g 2 --threads -l 2000}"
[ "$(nproc)" = 2 ] || { echo "record-counts.sh: a 2-CPU machine only (this one has $(nproc))" >&2; exit 1; }
TMP=$(mktemp -d)
AG=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0)
trap 'rm -rf "$TMP"; [ "$ROOT" = 0 ] || echo "$AG" > /proc/sys/kernel/sched_autogroup_enabled' EXIT
GROUP="from this shell: its autogroup session"
if [ "$ROOT" = 1 ]; then
	echo 0 > /proc/sys/kernel/sched_autogroup_enabled || { echo "record-counts.sh: cannot turn autogroup off" >&2; exit 1; }
	GROUP="sched_autogroup_enabled 0: the root task group"
fi
F='&& comm == "hackbench"'
{
	echo "# hackbench counted without a trace buffer (scripts/record-counts.sh), $(date -u +%FT%TZ)"
	echo "# uname -a: $(uname -a)"
	echo "# perf: $(perf --version); cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "# command: perf stat -a -A (sched_waking by target_cpu, sched_migrate_task by orig/dest, sched_switch) -- $HB ($GROUP)"
} > "$OUT"
run=1
while [ "$run" -le "$RUNS" ]; do
	perf stat -a -A -x, \
		-e sched:sched_waking --filter "target_cpu == 0 $F" \
		-e sched:sched_waking --filter "target_cpu == 1 $F" \
		-e sched:sched_migrate_task --filter "orig_cpu == 0 && dest_cpu == 1 $F" \
		-e sched:sched_migrate_task --filter "orig_cpu == 1 && dest_cpu == 0 $F" \
		-e sched:sched_switch -- $HB > "$TMP/out" 2>&1
	# Per CPU, in the order of the -e options: v[1..10] = waking(cpu0,prev0), waking(cpu1,prev0),
	# waking(cpu0,prev1), waking(cpu1,prev1), move(cpu0,0->1), move(cpu1,0->1),
	# move(cpu0,1->0), move(cpu1,1->0), switches cpu0, cpu1.
	awk -F, -v run="$run" '
		/^Time:/ { t = $2 == "" ? substr($0, 7) : $2 }
		/^CPU[0-9]+,/ { v[++n] = $2 }
		END {
			w = v[1] + v[2] + v[3] + v[4]
			local = (v[1] - v[5] + v[7]) + (v[4] - v[8] + v[6])
			printf "run %d: time %s s, wakeups %d, local %d, migrations %d, switches %d\n", run, t + 0, w, local, v[5] + v[6] + v[7] + v[8], v[9] + v[10]
		}' "$TMP/out" >> "$OUT"
	run=$((run + 1))
done
cat "$OUT"
