#!/bin/sh
# Real tbench (dbench's tbench and tbench_srv over TCP loopback), one client stacked with its
# server on CPU 1 (seed 004's "tbench buddy pair ... pinned/stacked"), with the server at nice
# -6, -3, 0, 3 and 6 so that the pair runs in both of its regimes and between them, and once
# cross-CPU (server on CPU 0, client on CPU 1). Kept in
# tests/fixtures/real-epyc-haltpoll/tbench-stacked.txt and read by
# crates/cli/tests/real_tbench.rs.
#
# Run as root on an otherwise idle machine, with the build lock held so no build shares the
# CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-tbench-real.sh [OUTFILE] [RUNS]
# Needs perf and dbench (Debian: `apt-get install dbench perf`). For each run, over SECS
# seconds after a 3.5 s warm-up, it reads both processes' /proc/PID/schedstat (CPU time) and
# /proc/PID/status (voluntary and involuntary switches), and counts the client's `sendto`s
# (one request per round trip) with `perf stat` on the syscall tracepoint:
#   run LABEL nice N: secs S, round trips R, client cpu C ns vol V invol I, server cpu C ns vol V invol I
# A voluntary switch is a block (a read that waited); an involuntary one a preemption. Then one
# 0.5 s `perf record` of sched_waking and sched_switch per stacked nice level gives, for each
# request, the time from the client's wakeup of the server to the client's switch-out:
#   post-send nice N: preempted P times, p50 X us; blocked B times, p50 Y us
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real-epyc-haltpoll/tbench-stacked.txt}
RUNS=${2:-3}
SECS=${SECS:-8}
[ "$(nproc)" = 2 ] || { echo "record-tbench-real.sh: a 2-CPU machine only (this one has $(nproc))" >&2; exit 1; }
command -v tbench >/dev/null || { echo "record-tbench-real.sh: needs tbench (apt-get install dbench)" >&2; exit 1; }
TMP=$(mktemp -d)
stop() { pkill -x tbench 2>/dev/null || true; pkill -x tbench_srv 2>/dev/null || true; }
trap 'stop; rm -rf "$TMP"' EXIT

# start SRVCPU CLICPU NICE: sets C and S to the client's and the server's pids.
start() {
	stop
	sleep 0.5
	taskset -c "$1" nice -n "$3" tbench_srv > /dev/null 2>&1 &
	sleep 0.5
	taskset -c "$2" tbench -t $((SECS + 6)) 1 127.0.0.1 > "$TMP/tbench.out" 2>&1 &
	sleep 3
	C=$(pgrep -x tbench | tail -1)
	S=$(pgrep -x tbench_srv | tail -1)
	# tbench_srv forks a child per connection; the child inherits the nice level.
	renice -n "$3" -p "$S" > /dev/null
	sleep 0.5
}
finish() {
	while pgrep -x tbench > /dev/null; do sleep 0.2; done
	stop
}
snap() {
	for p in "$C" "$S"; do
		printf '%s %s\n' "$(cut -d' ' -f1 "/proc/$p/schedstat")" \
			"$(awk '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2} END {print v, n}' "/proc/$p/status")"
	done | tr '\n' ' '
}
# run LABEL SRVCPU CLICPU NICE
run() {
	start "$2" "$3" "$4"
	a=$(snap)
	perf stat -x, -e syscalls:sys_enter_sendto -p "$C" -- sleep "$SECS" 2> "$TMP/stat"
	b=$(snap)
	finish
	rt=$(awk -F, 'NR == 1 || /sendto/ {n = $1} END {print n}' "$TMP/stat")
	echo "$a $b" | awk -v l="$1" -v n="$4" -v s="$SECS" -v rt="$rt" '{
		printf "run %s nice %s: secs %s, round trips %s, client cpu %.0f ns vol %.0f invol %.0f, server cpu %.0f ns vol %.0f invol %.0f\n",
			l, n, s, rt, $7 - $1, $8 - $2, $9 - $3, $10 - $4, $11 - $5, $12 - $6 }'
}
# post NICE: the client's run from its wakeup of the server to its switch-out.
post() {
	start 1 1 "$1"
	perf record -q -o "$TMP/rec.data" -e sched:sched_waking -e sched:sched_switch -C 1 -- sleep 0.5 > /dev/null 2>&1
	finish
	perf script -i "$TMP/rec.data" -F pid,time,event,trace 2> /dev/null | awk -v c="$C" -v s="$S" -v n="$1" '
		function med(a, k,   i, j, t) {
			for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return k ? a[int((k + 1) / 2)] : -1
		}
		{ t = $2; sub(/:$/, "", t); t *= 1e6 }
		$3 == "sched:sched_waking:" && $1 == c && $0 ~ (" pid=" s " ") { w = t }
		$3 == "sched:sched_switch:" && $0 ~ ("prev_pid=" c " ") {
			if (w) { if ($0 ~ /prev_state=R/) p[++np] = t - w; else if ($0 ~ /prev_state=S/) q[++nq] = t - w }
			w = 0
		}
		END { printf "post-send nice %s: preempted %d times, p50 %.0f us; blocked %d times, p50 %.0f us\n", n, np, med(p, np), nq, med(q, nq) }'
}
{
	echo "# real tbench stacked on one CPU (scripts/record-tbench-real.sh), $(date -u +%FT%TZ)"
	echo "# uname -a: $(uname -a)"
	echo "# perf: $(perf --version); cpus: $(nproc); HZ: $(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p'); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "# preempt: $(cat /sys/kernel/debug/sched/preempt 2>/dev/null || echo unknown); dbench: $(dpkg-query -W -f '${Version}' dbench 2>/dev/null || echo unknown)"
	echo "# command: taskset -c 1 nice -n N tbench_srv; taskset -c 1 tbench -t $((SECS + 6)) 1 127.0.0.1 (the cross run: the server on CPU 0)"
	for i in $(seq "$RUNS"); do
		for n in -6 -3 0 3 6; do
			run "stacked$i" 1 1 "$n"
		done
	done
	run cross 0 1 0
	for n in -3 0 3; do
		post "$n"
	done
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
