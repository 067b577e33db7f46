#!/bin/sh
# Record how the machine balances its idle CPUs during hackbench: the NOHZ kick's IPI
# (`kick_ilb` queues `rq->nohz_csd` on the idle load balancer, `nohz_csd_func` runs when the
# IPI arrives), the idle CPUs' own ticks, and the migrations that follow.
#
# Run as root on an otherwise idle machine, with the build lock held so no build shares the
# CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-kicks.sh [OUTDIR]
# Writes OUTDIR/hackbench-kicks.perf-script.gz (default OUTDIR: tests/fixtures/real-epyc-haltpoll):
# `perf script` text (fields comm,tid,cpu,time,event,trace; gzip -9n) of
# `hackbench -g 2 --threads -l 2000` run from this shell (so in its autogroup session), with
# sched_switch, sched_waking, sched_migrate_task, the `csd` events of `nohz_csd_func` only (the
# wakeups' wakelist entries are dropped) and irq_vectors:local_timer_entry; then runs it twice
# more under the same events and appends each run's counts to kicks-metadata.txt. Needs perf
# with the csd and irq_vectors tracepoints (Linux 6.3+) and rt-tests (hackbench).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real-epyc-haltpoll}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
META="$OUT/kicks-metadata.txt"
FIELDS='comm,tid,cpu,time,event,trace'
EVENTS='-e sched:sched_switch -e sched:sched_waking -e sched:sched_migrate_task
	-e csd:csd_queue_cpu -e csd:csd_function_entry -e irq_vectors:local_timer_entry'
HB='hackbench -g 2 --threads -l 2000'
record() { # run N -> $TMP/N.txt
	# shellcheck disable=SC2086
	perf record -q -a -o "$TMP/$1.data" $EVENTS -- $HB > "$TMP/$1.out" 2>&1
	perf script -i "$TMP/$1.data" -F "$FIELDS" 2>/dev/null | awk '!/csd:csd_/ || /nohz_csd_func/' > "$TMP/$1.txt"
}
counts() { # what the run shows: kicks, their latency, the pulls to idle CPUs, ticks on idle CPUs
	awk '
	/sched:sched_switch:/ { split($0, a, "next_pid="); split(a[2], b, " "); cur[$3] = b[1] }
	/csd:csd_queue_cpu:.*nohz_csd_func/ { kicks++; match($0, /cpu=[0-9]+/); c = substr($0, RSTART + 4, RLENGTH - 4); q["[00" c "]"] = $4 + 0 }
	/csd:csd_function_entry:.*nohz_csd_func/ { ran++; if ($3 in q) { l = ($4 - q[$3]) * 1e6; s += l; if (l > mx) mx = l; if (mn == "" || l < mn) mn = l; delete q[$3] } }
	/irq_vectors:local_timer_entry:/ { if (cur[$3] == "0") itick++; else btick++ }
	END { printf "nohz kicks %d (handled %d, latency %.0f-%.0f us, mean %.0f); ticks on idle CPUs %d of %d\n", kicks, ran, mn, mx, ran ? s / ran : 0, itick, itick + btick }
	' "$1"
}
exec 3>"$META"
{
	echo "# NOHZ kick recordings for schedlab (scripts/record-kicks.sh), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "cmdline: $(tr ' ' '\n' < /proc/cmdline | grep -E '^(cpuidle|haltpoll|nohz|skew_tick|idle)' | tr '\n' ' ')"
	echo "config HZ: $(grep -E '^CONFIG_HZ=' "/boot/config-$(uname -r)" 2>/dev/null || echo 'not readable (250 by the tick rate)')"
	echo "command: perf record -a $(echo $EVENTS | tr '\n\t' '  ') -- $HB (from this shell: its autogroup session)"
} >&3
for run in 1 2 3; do
	record "$run"
	echo "run $run: $(tr '\n' ' ' < "$TMP/$run.out")| $(counts "$TMP/$run.txt")" >&3
done
gzip -9n < "$TMP/1.txt" > "$OUT/hackbench-kicks.perf-script.gz"
cat "$META"
