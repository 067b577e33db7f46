#!/bin/sh
# Re-record the task-group fixtures of tests/fixtures/real/ (groups-*.perf-script.gz): hogs
# pinned to one CPU in cgroups (v1 cpu controller: cpu.shares, cpu.idle) and in autogroup
# sessions, each 3 s under `perf sched record`, kept as gzip -9n'd `perf script` text with the
# fields crates/sim/tests/real_trace reads; metadata in groups-metadata.txt.
#
# Run as root with the build lock held, so no build shares the CPUs:
#   flock /tmp/schedlab-build.lock sh scripts/record-groups.sh [OUTDIR]
# Needs perf, taskset, setsid, the cgroup v1 cpu controller at /sys/fs/cgroup/cpu and
# sched_autogroup_enabled = 1.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real}
CG=/sys/fs/cgroup/cpu
CPU=${CPU:-1}
SECS=3
mkdir -p "$OUT"
TMP=$(mktemp -d)
HOG='while :; do :; done'
META="$OUT/groups-metadata.txt"
FIELDS='comm,tid,cpu,time,event,trace'
# Each hog is /bin/sh under its own name, so its comm says which it is.
for n in web db app batch nice19 nice0 sess19 sess0 in19 in0; do ln -s /bin/sh "$TMP/$n"; done
keep() { perf script -i "$1" -F "$FIELDS" 2>/dev/null | grep -v 'sched:sched_stat_runtime:' | gzip -9n > "$2"; }
record() {
	perf sched record -q -o "$TMP/$1.data" -- sleep "$SECS" >/dev/null 2>&1
	keep "$TMP/$1.data" "$OUT/$1.perf-script.gz"
}
stop() { for p in "$@"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
cleanup() {
	for g in web db app batch; do [ -d "$CG/schedlab-$g" ] && rmdir "$CG/schedlab-$g" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
idle_pct() { # all CPUs, over 1 s
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); i0=$1; t0=$2; sleep 1
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); echo $(( 100 * ($1 - i0) / ($2 - t0) ))
}
quiet() { echo "$1: machine idle before start: $(idle_pct) %" >> "$META"; }
mkgroup() { # name file value
	mkdir -p "$CG/schedlab-$1"; echo "$3" > "$CG/schedlab-$1/$2"
}

{
	echo "# Task-group fixtures for schedlab (scripts/record-groups.sh), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); hogs pinned to CPU $CPU; $SECS s each after 1 s warm-up"
	echo "config: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_(HZ|FAIR_GROUP_SCHED|SCHED_AUTOGROUP|CFS_BANDWIDTH)=' | tr '\n' ' ')"
	echo "HZ: 250 by measurement (metadata.txt: LOC interrupts/s on a busy CPU)"
	echo "sched_autogroup_enabled: $(cat /proc/sys/kernel/sched_autogroup_enabled)"
	echo "cgroup: v1 cpu controller at $CG (cpu.shares 1024 = cpu.weight 100)"
	echo "perf script fields: $FIELDS (sched_stat_runtime lines dropped)"
} > "$META"

# 1. cpu.shares 1024 vs 3072 (cpu.weight 100 vs 300): 25 % / 75 %.
mkgroup web cpu.shares 1024; mkgroup db cpu.shares 3072
quiet groups-weights
taskset -c "$CPU" "$TMP/web" -c "$HOG" & a=$!; echo $a > "$CG/schedlab-web/cgroup.procs"
taskset -c "$CPU" "$TMP/db" -c "$HOG" & b=$!; echo $b > "$CG/schedlab-db/cgroup.procs"
sleep 1; echo "groups-weights: web in schedlab-web (cpu.shares $(cat $CG/schedlab-web/cpu.shares), tasks $(cat $CG/schedlab-web/tasks)), db in schedlab-db (cpu.shares $(cat $CG/schedlab-db/cpu.shares), tasks $(cat $CG/schedlab-db/tasks)); pids $a $b" >> "$META"
record groups-weights; stop $a $b

# 2. cpu.idle = 1 beside a cpu.shares 1024 group: 3 / 1027 = 0.29 %.
mkgroup app cpu.shares 1024; mkgroup batch cpu.idle 1
quiet groups-idle
taskset -c "$CPU" "$TMP/app" -c "$HOG" & a=$!; echo $a > "$CG/schedlab-app/cgroup.procs"
taskset -c "$CPU" "$TMP/batch" -c "$HOG" & b=$!; echo $b > "$CG/schedlab-batch/cgroup.procs"
sleep 1; echo "groups-idle: app in schedlab-app (cpu.shares 1024, tasks $(cat $CG/schedlab-app/tasks)), batch in schedlab-batch (cpu.idle $(cat $CG/schedlab-batch/cpu.idle), tasks $(cat $CG/schedlab-batch/tasks)); pids $a $b" >> "$META"
record groups-idle; stop $a $b

# 3. Autogroup: nice 19 in one session, nice 0 in another: 50 / 50.
quiet groups-autogroup
setsid nice -n 19 taskset -c "$CPU" "$TMP/nice19" -c "$HOG" & a=$!
setsid taskset -c "$CPU" "$TMP/nice0" -c "$HOG" & b=$!
sleep 1
echo "groups-autogroup: nice19 (nice 19, $(cat /proc/$a/autogroup)), nice0 ($(cat /proc/$b/autogroup)); pids $a $b" >> "$META"
record groups-autogroup; stop $a $b

# 4. The session's autogroup nice (/proc/<pid>/autogroup = 19) against a session at 0:
#    15 / 1039 = 1.44 %.
quiet groups-agnice
setsid taskset -c "$CPU" "$TMP/sess19" -c "$HOG" & a=$!
setsid taskset -c "$CPU" "$TMP/sess0" -c "$HOG" & b=$!
sleep 0.2; echo 19 > /proc/$a/autogroup; sleep 1
echo "groups-agnice: sess19 ($(cat /proc/$a/autogroup)), sess0 ($(cat /proc/$b/autogroup)); pids $a $b" >> "$META"
record groups-agnice; stop $a $b

# 5. Nice inside one session: nice 19 vs nice 0 in the same autogroup: 15 / 1039 = 1.44 %.
quiet groups-insession
setsid sh -c "nice -n 19 taskset -c $CPU $TMP/in19 -c '$HOG' & taskset -c $CPU $TMP/in0 -c '$HOG' & wait" & s=$!
sleep 1
echo "groups-insession: in19 (nice 19) and in0 in one session ($(cat /proc/$s/autogroup)); session leader $s" >> "$META"
record groups-insession
pkill -P $s 2>/dev/null || true; stop $s
