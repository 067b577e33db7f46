#!/bin/sh
# Re-record tests/fixtures/real/bw-*.perf-script.gz: CFS bandwidth control (cgroup v1 cpu
# controller: cpu.cfs_quota_us 50000 per cpu.cfs_period_us 100000, the cgroup v2 cpu.max
# "50000 100000") on hogs pinned to one CPU, to see when the kernel throttles and unthrottles
# the group and what cpu.stat counts.
#
# Run as root with the build lock held, so no build shares the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-bandwidth.sh [OUTDIR [CASE...]]
# Cases (each $SECS s of `perf sched record` on all CPUs after 1 s of warm-up, kept as gzip -9n'd
# `perf script` text, sched_stat_runtime lines dropped):
#   bw-alone   one hog "ct" in schedlab-ct (quota 50 ms / 100 ms) alone on CPU $CPU;
#   bw-beside  "ct" in schedlab-ct (cpu.shares 3072, quota 50 ms / 100 ms) beside "web" in
#              schedlab-web (cpu.shares 1024) on CPU $CPU: 75 % / 25 % by weight, capped to
#              50 % / 50 % by the quota.
#   bw-import  one hog "ct" in schedlab-ct (quota 30 ms / 50 ms) alone on CPU $CPU, and
#   bw-pair    two hogs "ct" in schedlab-ct (quota 60 ms / 100 ms), one on each of CPUs 0 and 1:
#              for `schedlab import`, which reads cpu.max off the throttles (recorded with
#              every idle-task line, which the first two lack on CPU 1).
# The group's cpu.stat is read just before and just after the recording (bw-metadata.txt).
# Every hog runs under `timeout -s KILL` and is killed by pid and checked gone afterwards.
# `sh scripts/record-bandwidth.sh OUTDIR CASE...` records only those cases and appends their
# lines to bw-metadata.txt.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real}
[ $# -gt 0 ] && shift
ONLY="$*"
for c in $ONLY; do
	case "$c" in bw-alone|bw-beside|bw-import|bw-pair) ;;
	*) echo "record-bandwidth: no case $c (bw-alone, bw-beside, bw-import, bw-pair)" >&2; exit 2 ;;
	esac
done
wanted() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }
CG=/sys/fs/cgroup/cpu
CPU=${CPU:-1}
SECS=4
LIMIT=$((SECS + 5)) # timeout of every hog, s
mkdir -p "$OUT"
TMP=$(mktemp -d)
HOG='while :; do :; done'
META="$OUT/bw-metadata.txt"
FIELDS='comm,tid,cpu,time,event,trace'
for n in ct web; do ln -s /bin/sh "$TMP/$n"; done
PIDS=""
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
stop() {
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for p in $PIDS; do
		n=0; while alive "$p" && [ $n -lt 20 ]; do n=$((n + 1)); sleep 0.1; done
		if alive "$p"; then echo "record-bandwidth: pid $p still alive" >&2; exit 1; fi
	done
	PIDS=""
}
cleanup() {
	stop
	for g in ct web; do [ -d "$CG/schedlab-$g" ] && rmdir "$CG/schedlab-$g" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
idle_pct() { # all CPUs, over 1 s
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); i0=$1; t0=$2; sleep 1
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); echo $(( 100 * ($1 - i0) / ($2 - t0) ))
}
quiet() { # wait up to 60 s for >= 95 % idle; the figure is kept either way
	n=0; idle=$(idle_pct)
	while [ "$idle" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); idle=$(idle_pct); done
	echo "$1: machine idle before start: $idle %" >> "$META"
}
mkgroup() { # name shares
	mkdir -p "$CG/schedlab-$1"
	echo "$2" > "$CG/schedlab-$1/cpu.shares"
}
# spawn NAME [CPU]: a hog pinned to CPU (default $CPU) in schedlab-NAME.
spawn() {
	timeout -s KILL "$LIMIT" taskset -c "${2:-$CPU}" "$TMP/$1" -c "$HOG" &
	t=$!
	PIDS="$PIDS $t"
	sleep 0.05
	h=$(pgrep -P $t || true)
	PIDS="$PIDS $h"
	echo "$h" > "$CG/schedlab-$1/cgroup.procs"
}
stat() { tr '\n' ' ' < "$CG/schedlab-ct/cpu.stat"; }

{
	echo "# CFS bandwidth fixtures for schedlab (scripts/record-bandwidth.sh${ONLY:+ $ONLY}), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); hogs pinned to CPU $CPU (bw-pair: one on each of CPUs 0 and 1); $SECS s recorded after 1 s of warm-up"
	echo "config: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_(HZ|CFS_BANDWIDTH|FAIR_GROUP_SCHED|SCHED_HRTICK|NO_HZ_FULL)=' | tr '\n' ' ')"
	echo "HZ: 250 by measurement (metadata.txt: LOC interrupts/s on a busy CPU)"
	echo "sched_cfs_bandwidth_slice_us: $(cat /proc/sys/kernel/sched_cfs_bandwidth_slice_us 2>/dev/null || echo '?')"
	echo "cgroup: v1 cpu controller at $CG"
	echo "perf script fields: $FIELDS (sched_stat_runtime lines dropped)"
} > "$TMP/meta"
if [ -n "$ONLY" ]; then cat "$TMP/meta" >> "$META"; else mv "$TMP/meta" "$META"; fi

record() { # NAME
	sleep 1
	echo "$1: schedlab-ct cpu.cfs_quota_us $(cat $CG/schedlab-ct/cpu.cfs_quota_us) cpu.cfs_period_us $(cat $CG/schedlab-ct/cpu.cfs_period_us) cpu.cfs_burst_us $(cat $CG/schedlab-ct/cpu.cfs_burst_us) cpu.shares $(cat $CG/schedlab-ct/cpu.shares); pids$PIDS" >> "$META"
	echo "$1: cpu.stat before: $(stat)" >> "$META"
	perf sched record -q -o "$TMP/$1.data" -- sleep "$SECS" >/dev/null 2>&1
	echo "$1: cpu.stat after: $(stat)" >> "$META"
	stop
	perf script -i "$TMP/$1.data" -F "$FIELDS" 2>/dev/null | grep -v 'sched:sched_stat_runtime:' | gzip -9n > "$OUT/$1.perf-script.gz"
}

limit() { # SHARES QUOTA PERIOD (µs) of schedlab-ct
	mkgroup ct "$1"
	echo "$3" > "$CG/schedlab-ct/cpu.cfs_period_us"
	echo "$2" > "$CG/schedlab-ct/cpu.cfs_quota_us"
}

# 1. One hog alone under 50 ms / 100 ms.
if wanted bw-alone; then
	limit 1024 50000 100000
	quiet bw-alone
	spawn ct
	record bw-alone
fi

# 2. Beside a lighter group: weights 3:1, quota 50 ms / 100 ms.
if wanted bw-beside; then
	limit 3072 50000 100000
	mkgroup web 1024
	quiet bw-beside
	spawn ct
	spawn web
	record bw-beside
fi

# 3. One hog alone under 30 ms / 50 ms.
if wanted bw-import; then
	limit 1024 30000 50000
	quiet bw-import
	spawn ct
	record bw-import
fi

# 4. Two hogs of one group, one per CPU, under 60 ms / 100 ms.
if wanted bw-pair; then
	limit 1024 60000 100000
	quiet bw-pair
	spawn ct 0
	spawn ct 1
	record bw-pair
fi
