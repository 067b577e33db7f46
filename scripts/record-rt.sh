#!/bin/sh
# Re-record tests/fixtures/real/rt-*.perf-script.gz: a SCHED_FIFO priority-1 hog beside nice-0
# hogs on one CPU, to see what the kernel leaves the fair hogs (RT throttling before 6.12,
# the deferred fair server from 6.12: how much per second, and in which windows).
#
# rt-rr: two SCHED_RR priority-1 hogs (`chrt -r 1`) beside one fair hog, to see the RR time
# slice's turns (and for `schedlab import` to tell RR from FIFO).
#
# Run as root with the build lock held, so no build shares the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-rt.sh [OUTDIR [FIXTURE...]]
# FIXTURE (rt-one, rt-two, rt-rr; all by default) re-records only those; their lines are then
# appended to rt-metadata.txt under a header of their own.
# Each fixture: the fair hogs pinned to CPU $CPU (taskset), 0.5 s later the RT hog(s)
# (chrt -f 1, or chrt -r 1) on the same CPU, 1 s of warm-up, then $SECS s of
# `perf sched record` on all CPUs,
# kept as gzip -9n'd `perf script` text (sched_stat_runtime lines dropped); metadata in
# rt-metadata.txt. Every hog runs under `timeout -s KILL`, so none can outlive the script by
# more than a few seconds even if the script itself is killed; afterwards each is killed by pid
# and checked gone.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real}
[ $# -gt 0 ] && shift
ONLY="$*"
for c in $ONLY; do
	case "$c" in rt-one|rt-two|rt-rr) ;;
	*) echo "record-rt: no fixture $c (rt-one, rt-two, rt-rr)" >&2; exit 2 ;;
	esac
done
CPU=${CPU:-1}
SECS=4
LIMIT=$((SECS + 4)) # timeout of every hog, s
mkdir -p "$OUT"
TMP=$(mktemp -d)
HOG='while :; do :; done'
META="$OUT/rt-metadata.txt"
FIELDS='comm,tid,cpu,time,event,trace'
# Each hog is /bin/sh under its own name, so its comm says which it is.
for n in rthog rrhog fair1 fair2; do ln -s /bin/sh "$TMP/$n"; done
PIDS=""
name=""
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
stop() { # the hogs, then their timeouts; each must be gone (or a zombie) within 2 s
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for p in $PIDS; do
		n=0; while alive "$p" && [ $n -lt 20 ]; do n=$((n + 1)); sleep 0.1; done
		if alive "$p"; then echo "record-rt: pid $p still alive" >&2; exit 1; fi
	done
	PIDS=""
}
trap 'stop; rm -rf "$TMP"' EXIT
idle_pct() { # all CPUs, over 1 s
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); i0=$1; t0=$2; sleep 1
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); echo $(( 100 * ($1 - i0) / ($2 - t0) ))
}
quiet() { # wait up to 60 s for >= 95 % idle; the figure is kept either way
	n=0; idle=$(idle_pct)
	while [ "$idle" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); idle=$(idle_pct); done
	echo "$1: machine idle before start: $idle %" >> "$META"
}
# spawn NAME [chrt args]: a hog pinned to $CPU; its pid (the hog itself: timeout forks it) in $PIDS.
spawn() {
	hog=$1; shift
	timeout -s KILL "$LIMIT" taskset -c "$CPU" "$@" "$TMP/$hog" -c "$HOG" &
	PIDS="$PIDS $!"
	sleep 0.05
	PIDS="$PIDS $(pgrep -P $! || true)"
}
dbg() { cat "/sys/kernel/debug/sched/$1" 2>&1 | tr '\n' ' '; }

wanted() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }
{
	echo "# RT fixtures for schedlab (scripts/record-rt.sh${ONLY:+ $ONLY}), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); hogs pinned to CPU $CPU; $SECS s recorded after 1 s with the RT hog"
	echo "config: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_(HZ|PREEMPT|PREEMPT_DYNAMIC|RT_GROUP_SCHED|SCHED_HRTICK|NO_HZ_FULL)=' | tr '\n' ' ')"
	echo "HZ: 250 by measurement (metadata.txt: LOC interrupts/s on a busy CPU)"
	echo "sched_rt_runtime_us: $(cat /proc/sys/kernel/sched_rt_runtime_us)"
	echo "sched_rt_period_us: $(cat /proc/sys/kernel/sched_rt_period_us)"
	echo "sched_rr_timeslice_ms: $(cat /proc/sys/kernel/sched_rr_timeslice_ms)"
	echo "fair_server cpu$CPU runtime: $(dbg fair_server/cpu$CPU/runtime)"
	echo "fair_server cpu$CPU period: $(dbg fair_server/cpu$CPU/period)"
	echo "sched features: $(dbg features)"
	echo "perf script fields: $FIELDS (sched_stat_runtime lines dropped)"
} > "$TMP/meta"
if [ -n "$ONLY" ]; then cat "$TMP/meta" >> "$META"; else mv "$TMP/meta" "$META"; fi

record() { # NAME RT-HOGS FAIR-HOG...: RT-HOGS is "fifo" (one rthog) or "rr" (two rrhogs)
	name=$1; rt=$2; shift 2
	wanted "$name" || return 0
	quiet "$name"
	for f in "$@"; do spawn "$f"; done
	sleep 0.5
	if [ "$rt" = rr ]; then spawn rrhog chrt -r 1; spawn rrhog chrt -r 1; else spawn rthog chrt -f 1; fi
	sleep 1
	echo "$name: pids (timeout, hog, ...) $PIDS; last RT hog's policy: $(chrt -p "$(echo $PIDS | awk '{print $NF}')" | tr '\n' ' ')" >> "$META"
	perf sched record -q -o "$TMP/$name.data" -- sleep "$SECS" >/dev/null 2>&1
	stop
	perf script -i "$TMP/$name.data" -F "$FIELDS" 2>/dev/null | grep -v 'sched:sched_stat_runtime:' |
		gzip -9n > "$OUT/$name.perf-script.gz"
}

# 1. One fair hog beside the RT hog.
record rt-one fifo fair1
# 2. Two fair hogs beside it: they share what the fair class gets.
record rt-two fifo fair1 fair2
# 3. Two SCHED_RR hogs of one priority beside a fair hog: they take turns of
#    sched_rr_timeslice_ms.
record rt-rr rr fair1
