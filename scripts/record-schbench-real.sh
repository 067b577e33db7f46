#!/bin/sh
# Records real schbench (v1.0, masoncl/schbench 48aed1d, built with its Makefile's flags:
# gcc -Wall -O2 -g -W -D_GNU_SOURCE schbench.c -lpthread -lm) on this machine: the CPU time of
# one request (one worker alone, perf stat) and its spread (-C, the math alone), then `-m 1 -t 4 -r 10` (two workers per CPU on a
# 2-CPU machine) three times with the per-CPU lock and three times without it (-L), with the
# kernel, HZ and scheduler tunables. Run it on a quiet machine (no builds).
#
#   sh scripts/record-schbench-real.sh PATH/TO/schbench [OUT.perf-script.gz] > OUT.txt
set -eu
SB=${1:?usage: record-schbench-real.sh PATH/TO/schbench}
echo "# schbench v1.0 (48aed1d) on $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
echo "# HZ: $(grep -h '^CONFIG_HZ=' /boot/config-"$(uname -r)" 2>/dev/null || echo 'CONFIG_HZ=250 (by the LOC count)')"
for f in base_slice_ns migration_cost_ns; do
  [ -r /sys/kernel/debug/sched/$f ] && echo "# $f: $(cat /sys/kernel/debug/sched/$f)"
done
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== calibrate: perf stat -e task-clock -- schbench -m 1 -t 1 -r 5"
perf stat -e task-clock -- "$SB" -m 1 -t 1 -r 5 2>&1 | grep -E 'average rps|task-clock'
# -C (calibrate: no lock, and the request is timed from after the usleep): each request's
# latency is then one do_work alone, its math's spread on this CPU.
echo "== request math alone: schbench -C -m 1 -t 1 -r 5"
"$SB" -C -m 1 -t 1 -r 5 2>&1 | awk '/^Request Latencies percentiles/ { n = 0; buf = "" } { buf = buf $0 "\n"; n++ } /min=/ && buf ~ /Request Latencies/ { last = buf; buf = "" } END { printf "%s", last }'
for run in 1 2 3; do
  for opt in lock -L; do
    echo "== run $run: schbench -m 1 -t 4 -r 10 $( [ "$opt" = -L ] && echo -L )"
    if [ "$opt" = -L ]; then "$SB" -m 1 -t 4 -r 10 -L 2>&1; else "$SB" -m 1 -t 4 -r 10 2>&1; fi |
      sed -n '/^Wakeup Latencies percentiles/,$p' | tail -n 24
  done
done
# With a second argument: `perf sched record` of one 3-s run with the lock, its `perf script`
# gzipped there (who wakes whom and where: the message thread's placement).
if [ -n "${2:-}" ]; then
  data=$(mktemp)
  perf sched record -o "$data" -- "$SB" -m 1 -t 4 -r 3 > /dev/null 2>&1
  perf script -i "$data" -F comm,tid,cpu,time,event,trace 2> /dev/null | gzip -9 > "$2"
  rm -f "$data"
  echo "== perf sched record of schbench -m 1 -t 4 -r 3: $2"
fi
