#!/bin/sh
# Records real schbench (v1.0, masoncl/schbench 48aed1d, built as record-schbench-real.sh says)
# under `perf sched record`, with and without its per-CPU lock (`-m 1 -t 4 -r 3`, two workers
# per CPU on a 2-CPU machine), keeping schbench's own report of each traced run beside its
# trace: what schbench measured and the scheduler events of the same run, so that reading
# schbench's latencies off a trace can be checked against schbench itself. Run it as root on a
# quiet machine (no builds).
#
#   sh scripts/record-schbench-traced.sh PATH/TO/schbench OUTDIR > OUTDIR/schbench-traced.txt
#
# writes OUTDIR/schbench-traced-lock.perf-script.gz and OUTDIR/schbench-traced-nolock.perf-script.gz
# (`perf script -F comm,tid,cpu,time,event,trace`, gzipped).
set -eu
SB=${1:?usage: record-schbench-traced.sh PATH/TO/schbench OUTDIR}
OUT=${2:?usage: record-schbench-traced.sh PATH/TO/schbench OUTDIR}
echo "# schbench v1.0 (48aed1d) on $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
echo "# HZ: $(grep -h '^CONFIG_HZ=' /boot/config-"$(uname -r)" 2>/dev/null || echo 'CONFIG_HZ=250 (by the LOC count)')"
echo "# perf: $(perf version 2>/dev/null)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
data=$(mktemp)
trap 'rm -f "$data" "$data.old"' EXIT
for mode in lock nolock; do
  if [ "$mode" = lock ]; then opt=""; else opt="-L"; fi
  echo "== traced run, $mode: perf sched record -- schbench -m 1 -t 4 -r 3 $opt"
  # shellcheck disable=SC2086
  perf sched record -o "$data" -- "$SB" -m 1 -t 4 -r 3 $opt 2>&1 |
    sed -n '/^Wakeup Latencies percentiles/,$p' | grep -v '^\[ perf record' | tail -n 24
  perf script -i "$data" -F comm,tid,cpu,time,event,trace 2> /dev/null |
    gzip -9 > "$OUT/schbench-traced-$mode.perf-script.gz"
done
