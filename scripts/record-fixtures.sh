#!/bin/sh
# Re-record the real-kernel fixtures of one machine (tests/fixtures/real/ by default).
#
# Run as root on an otherwise idle machine (the fixtures were recorded on a 2-CPU VM):
#   sh scripts/record-fixtures.sh [OUTDIR]
# Each workload runs unpinned (except where its name says so) under `perf sched record` on all
# CPUs for a few seconds; the `perf script` text is kept gzip-compressed (gzip -n: the test helper inflates it with miniz_oxide), with metadata.txt
# (kernel, HZ, tunables, perf version, the exact commands). Needs perf, gcc and rt-tests
# (hackbench).
set -eu
# ONLY="hogs3 pingpong-cross" re-records just those (metadata.txt is appended to, not rewritten).
# The parts: hogs3 hogs3-long hogs-nice hogs5 periodic periodic4 pingpong-cross pingpong-free pingpong-one pp2hog hackbench hackbench-pinned
# hackbench-pipe hackbench-root launcher-flips costs idlelat.
ONLY=${ONLY:-}
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -o "$TMP/periodic" "$HERE/workloads/periodic.c"
gcc -O2 -o "$TMP/pingpong" "$HERE/workloads/pingpong.c"
HOG='while :; do :; done'
META="$OUT/metadata.txt"

# The fields the test helper reads (crates/sim/tests/real_trace/mod.rs); keep them stable.
FIELDS='comm,tid,cpu,time,event,trace'

# sched_stat_runtime is dropped: every CLOCK_THREAD_CPUTIME_ID read calls update_curr, so the
# periodic task alone emits ~10^5 of them per second; the figures need none of them.
keep() { perf script -i "$1" -F "$FIELDS" 2>/dev/null | grep -v 'sched:sched_stat_runtime:' | gzip -9n > "$2"; }
record() { # name seconds -- workload is already running in the background
	name=$1; secs=$2
	perf sched record -q -o "$TMP/$name.data" -- sleep "$secs" >/dev/null 2>&1
	keep "$TMP/$name.data" "$OUT/$name.perf-script.gz"
}
# Wait (up to 10 min) until the machine has been idle (>= 95 % idle over 2 s) so that other
# work does not share the CPUs with the workload; the figure is logged either way.
idle_pct() { # over 2 s, both CPUs
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); i0=$1; t0=$2; sleep 2
	set -- $(awk '/^cpu / {print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); echo $(( 100 * ($1 - i0) / ($2 - t0) ))
}
# The machine may be shared: also wait until no build holds the shared build lock (checked,
# not taken).
lock_free() { [ ! -e /tmp/schedlab-build.lock ] || flock -n /tmp/schedlab-build.lock true; }
wait_quiet() {
	n=0; while { ! lock_free || [ "$(idle_pct)" -lt 97 ]; } && [ $n -lt 300 ]; do n=$((n + 1)); sleep 1; done
	echo "$1: machine idle before start: $(idle_pct) %" >> "$META"
}
stop() { for p in "$@"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }

[ -n "$ONLY" ] && [ -e "$META" ] && exec 3>>"$META" || exec 3>"$META"
{
	echo "# Real-kernel fixtures for schedlab (scripts/record-fixtures.sh), recorded $(date -u +%FT%TZ)"
	echo "uname -a: $(uname -a)"
	echo "perf: $(perf --version)"
	echo "cpus: $(nproc); cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)," \
		"governor: $(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo none);" \
		"idle states: $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name 2>/dev/null | tr '\n' ',')" \
		"exit latencies (us): $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/latency 2>/dev/null | tr '\n' ',')"
	echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo);" \
		"LLC (cpu0's last cache level) shared by CPUs: $(cat "$(ls -d /sys/devices/system/cpu/cpu0/cache/index* | tail -1)/shared_cpu_list" 2>/dev/null || echo unknown)"
	echo "cmdline: $(cat /proc/cmdline | tr ' ' '\n' | grep -E 'idle|halt|nohz|isolcpus|skew|preempt' | tr '\n' ' ')"
	echo "haltpoll: $(grep -H . /sys/module/haltpoll/parameters/* 2>/dev/null | sed 's|.*/||' | tr '\n' ' ')"
	# Scheduler sysctls that mainline does not have (e.g. a VM host's vCPU packing patch).
	echo "non-mainline sched sysctls: $(for f in /proc/sys/kernel/sched_*; do case ${f##*/} in sched_autogroup_enabled|sched_cfs_bandwidth_slice_us|sched_deadline_period_*|sched_rr_timeslice_ms|sched_rt_*|sched_child_runs_first|sched_energy_aware|sched_schedstats|sched_util_clamp_*) ;; *) echo "${f##*/}=$(cat "$f" 2>/dev/null)";; esac; done | tr '\n' ' ')"
	echo "config: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_(HZ|NO_HZ_IDLE|PREEMPT_DYNAMIC|PREEMPT_NONE|PREEMPT_VOLUNTARY|PREEMPT|PREEMPT_LAZY|IRQ_TIME_ACCOUNTING|FAIR_GROUP_SCHED|SCHED_AUTOGROUP)=' | tr '\n' ' ')"
	echo "preempt mode at boot: $(dmesg 2>/dev/null | grep -o 'Dynamic Preempt: .*' | head -1)"
	echo "autogroup: $(cat /proc/sys/kernel/sched_autogroup_enabled) (every workload started from this one shell: one group)"
	# debugfs is mounted if it is not. The files under sched/ may be locked down while
	# sched/debug is readable: its sysctl_sched section has the base slice and the feature
	# bitmask (bit i is the i-th SCHED_FEAT line of the kernel's features.h).
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
	for f in base_slice_ns migration_cost_ns nr_migrate tunable_scaling preempt features; do
		echo "debugfs sched/$f: $(cat /sys/kernel/debug/sched/$f 2>&1 | tr '\n' ' ')"
	done
	echo "debugfs sched/debug, sysctl_sched: $(sed -n '/^sysctl_sched/,/^$/p' /sys/kernel/debug/sched/debug 2>&1 | tr -s ' \n' ' ')"
	# HZ by measurement: local timer interrupts on a CPU kept busy for 2 s.
	taskset -c 1 sh -c "$HOG" & h=$!
	sleep 0.2
	l0=$(awk '/LOC:/ {print $3}' /proc/interrupts); sleep 2; l1=$(awk '/LOC:/ {print $3}' /proc/interrupts)
	stop $h
	echo "HZ (LOC interrupts/s on busy CPU 1 over 2 s): $(( (l1 - l0) / 2 ))"
	echo "perf script fields: $FIELDS"
	echo
} >&3

if want hogs3; then
wait_quiet hogs3
# 1. Three nice-0 hogs, unpinned, 5 s.
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!; sh -c "$HOG" & c=$!
sleep 1
record hogs3 5
stop $a $b $c
echo "hogs3: sh -c '$HOG' x3 unpinned; perf sched record -- sleep 5 (after 1 s warm-up); pids $a $b $c" >> "$META"

fi
if want hogs3-long; then
# 1b. The same three hogs, 10 s, three times (the spread of their shares over 10 s).
for i in 1 2 3; do
wait_quiet "hogs3-long-$i"
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!; sh -c "$HOG" & c=$!
sleep 1
record "hogs3-long-$i" 10
stop $a $b $c
echo "hogs3-long-$i: sh -c '$HOG' x3 unpinned; perf sched record -- sleep 10 (after 1 s warm-up); pids $a $b $c" >> "$META"
done

fi
if want hogs-nice; then
wait_quiet hogs-nice
# 1c. Two nice-0 hogs and a nice-5 hog, unpinned, 10 s: the balancer cannot even out 2 x 1024
# and 335 on two CPUs; the recorded kernel moves the nice-5 hog about 11 times a second.
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!; nice -n 5 sh -c "$HOG" & c=$!
sleep 1
record hogs-nice 10
stop $a $b $c
echo "hogs-nice: sh -c '$HOG' x2 + nice -n 5 sh -c '$HOG', unpinned; perf sched record -- sleep 10 (after 1 s warm-up); pids $a $b nice5=$c" >> "$META"

fi
if want hogs5; then
wait_quiet hogs5
# 1d. Five nice-0 hogs, unpinned, 10 s: three on one CPU, two on the other, and the balancer
# moving one across as the imbalance allows.
pids=""
for i in 1 2 3 4 5; do sh -c "$HOG" & pids="$pids $!"; done
sleep 1
record hogs5 10
stop $pids
echo "hogs5: sh -c '$HOG' x5 unpinned; perf sched record -- sleep 10 (after 1 s warm-up); pids$pids" >> "$META"

fi
if want periodic; then
wait_quiet periodic
# 2. Two hogs and a periodic task (1 ms of CPU, 9 ms sleep), unpinned, 5 s.
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!; "$TMP/periodic" 1000 9000 & p=$!
sleep 1
record periodic 5
stop $a $b $p
echo "periodic: sh -c '$HOG' x2 + periodic 1000 9000 (scripts/workloads/periodic.c) unpinned; perf sched record -- sleep 5 (after 1 s); pids $a $b periodic=$p" >> "$META"

fi
if want periodic4; then
wait_quiet periodic4
# 2b. Two hogs and four periodic tasks (1 ms of CPU, 4 ms sleep), unpinned, 10 s: wakeups
# onto busy CPUs, where the periodic tasks wait for a hog's slice or preempt it.
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!
pp=""; for i in 1 2 3 4; do "$TMP/periodic" 1000 4000 & pp="$pp $!"; done
sleep 1
record periodic4 10
stop $a $b $pp
echo "periodic4: sh -c '$HOG' x2 + periodic 1000 4000 x4 (scripts/workloads/periodic.c) unpinned; perf sched record -- sleep 10 (after 1 s); pids $a $b periodic=$pp" >> "$META"

fi
if want pingpong-cross; then
wait_quiet pingpong-cross
# 3. Ping-pong over two pipes, pinned to CPUs 0 and 1 (the pair's only work), 3 s; and the
#    rate without perf, which is the figure the model is held to.
"$TMP/pingpong" 3 0 1 > "$TMP/pp-cross.txt" &
p=$!; sleep 0.5
record pingpong-cross 2
wait $p || true
echo "pingpong-cross: pingpong 3 0 1 (parent on CPU 0, child on CPU 1) under perf sched record -- sleep 2: $(cat "$TMP/pp-cross.txt")" >> "$META"
for i in 1 2 3; do echo "pingpong-cross without perf, run $i: $("$TMP/pingpong" 2 0 1)" >> "$META"; done

fi
if want pingpong-free; then
wait_quiet pingpong-free
# 4. The same pair unpinned (sync wakeups pull it onto one CPU), 0.5 s recorded: ~10^5 switches/s.
"$TMP/pingpong" 1.5 > "$TMP/pp-free.txt" &
p=$!; sleep 0.5
record pingpong-free 0.5
wait $p || true
echo "pingpong-free: pingpong 1.5 unpinned under perf sched record -- sleep 0.5: $(cat "$TMP/pp-free.txt")" >> "$META"
for i in 1 2 3; do echo "pingpong-free without perf, run $i: $("$TMP/pingpong" 2)" >> "$META"; done

fi
if want pingpong-one; then
wait_quiet pingpong-one
# 4b. The same pair pinned to CPU 1 alone, 0.5 s recorded: who is switched out preempted (R)
#     and who blocked (S), and wakeups per round trip.
"$TMP/pingpong" 1.5 1 1 > "$TMP/pp-one.txt" &
p=$!; sleep 0.5
record pingpong-one 0.5
wait $p || true
echo "pingpong-one: pingpong 1.5 1 1 (both on CPU 1) under perf sched record -- sleep 0.5: $(cat "$TMP/pp-one.txt")" >> "$META"

fi
if want pp2hog; then
# 4c. Two hogs and the unpinned pair, 1 s after 3 s, three times: where the pair settles
#     beside the hogs (crates/cli/tests/real_pairs.rs; ~150 000 wakeups a second, so short).
for i in 1 2 3; do
wait_quiet "pp2hog-$i"
sh -c "$HOG" & a=$!; sh -c "$HOG" & b=$!; "$TMP/pingpong" 5 > "$TMP/pp2hog.txt" & p=$!
sleep 3
record "pp2hog-$i" 1
wait $p || true
stop $a $b
echo "pp2hog-$i: sh -c '$HOG' x2 + pingpong 5 unpinned; perf sched record -- sleep 1 (after 3 s): $(cat "$TMP/pp2hog.txt")" >> "$META"
done

fi
if want hackbench; then
wait_quiet hackbench
# 5. hackbench, 2 groups of 20+20 threads over socketpairs, short.
perf sched record -q -o "$TMP/hackbench.data" -- hackbench -g 2 --threads -l 2000 > "$TMP/hb.txt" 2>&1 || true
keep "$TMP/hackbench.data" "$OUT/hackbench.perf-script.gz"
echo "hackbench: perf sched record -- hackbench -g 2 --threads -l 2000: $(tr '\n' ' ' < "$TMP/hb.txt")" >> "$META"
for i in 1 2 3; do echo "hackbench without perf, run $i: $(hackbench -g 2 --threads -l 2000 2>&1 | tr '\n' ' ')" >> "$META"; done
fi
if want hackbench-pinned; then
wait_quiet hackbench-pinned
# 6. hackbench, 1 group of 20+20 threads over socketpairs, every thread pinned to CPU 1: the
# wakeup and preemption pattern of one run queue, with no balancing (crates/sim/tests/real_hackbench.rs).
perf sched record -q -o "$TMP/hackbench-pinned.data" -- taskset -c 1 hackbench -g 1 --threads -l 2000 > "$TMP/hbp.txt" 2>&1 || true
keep "$TMP/hackbench-pinned.data" "$OUT/hackbench-pinned.perf-script.gz"
echo "hackbench-pinned: perf sched record -- taskset -c 1 hackbench -g 1 --threads -l 2000: $(tr '\n' ' ' < "$TMP/hbp.txt")" >> "$META"
for i in 1 2 3; do echo "hackbench-pinned without perf, run $i: $(taskset -c 1 hackbench -g 1 --threads -l 2000 2>&1 | tr '\n' ' ')" >> "$META"; done
fi
if want hackbench-pipe; then
# 6b. hackbench over pipes, 4 groups, twice: where the threads are after main's start wakeup,
# and the share of wakeups on the waker's CPU, over pipes rather than socketpairs.
for i in 1 2; do
wait_quiet "hackbench-pipe-$i"
perf sched record -q -o "$TMP/hackbench-pipe.data" -- hackbench -p -g 4 --threads -l 1000 > "$TMP/hbpipe.txt" 2>&1 || true
keep "$TMP/hackbench-pipe.data" "$OUT/hackbench-pipe-$i.perf-script.gz"
echo "hackbench-pipe-$i: perf sched record -- hackbench -p -g 4 --threads -l 1000: $(tr '\n' ' ' < "$TMP/hbpipe.txt")" >> "$META"
done
for i in 1 2 3; do echo "hackbench-pipe without perf, run $i: $(hackbench -p -g 4 --threads -l 1000 2>&1 | tr '\n' ' ')" >> "$META"; done
fi
if want hackbench-root; then
# 6d. The same hackbench as part 5 in the root task group, three times: autogroup off for the
# runs (every other fixture ran in this shell's autogroup session), restored afterwards.
ag=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0)
if echo 0 > /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || [ "$ag" = 0 ]; then
	for i in 1 2 3; do
	wait_quiet "hackbench-root-$i"
	perf sched record -q -o "$TMP/hackbench-root.data" -- hackbench -g 2 --threads -l 2000 > "$TMP/hbroot.txt" 2>&1 || true
	keep "$TMP/hackbench-root.data" "$OUT/hackbench-root-$i.perf-script.gz"
	echo "hackbench-root-$i: sched_autogroup_enabled 0 (root group; $(grep -m1 '^1:cpu' /proc/self/cgroup 2>/dev/null || echo 'cgroup v2')); perf sched record -- hackbench -g 2 --threads -l 2000: $(tr '\n' ' ' < "$TMP/hbroot.txt")" >> "$META"
	done
	echo "$ag" > /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || true
else
	echo "hackbench-root: cannot turn autogroup off here, skipped" >> "$META"
fi
fi
if want launcher-flips; then
# 6c. The wakee_flips a workload inherits from the process that forks it (dup_task_struct
# copies them; __sched_fork does not reset them): the parent's at each sched_process_fork,
# for hackbench started from this shell (three times) and from perf record. Needs bpftrace.
if command -v bpftrace >/dev/null; then
	bpftrace -e 'tracepoint:sched:sched_process_fork /comm == "bash" || comm == "sh" || comm == "perf"/ { printf("fork by %s: wakee_flips %u\n", comm, curtask->wakee_flips); }' > "$TMP/flips.txt" 2>/dev/null &
	bt=$!; sleep 5
	for i in 1 2 3; do hackbench -g 1 -f 2 --threads -l 10 >/dev/null 2>&1; done
	perf sched record -q -o "$TMP/flips.data" -- hackbench -g 1 -f 2 --threads -l 10 >/dev/null 2>&1 || true
	sleep 1; kill $bt 2>/dev/null; wait $bt 2>/dev/null || true
	echo "launcher-flips (bpftrace, parent's wakee_flips at each fork; three hackbench runs from the shell, then one under perf record): $(grep '^fork' "$TMP/flips.txt" | tr '\n' ';')" >> "$META"
else
	echo "launcher-flips: bpftrace not installed, skipped" >> "$META"
fi
fi
if want costs; then
wait_quiet costs
# 7. The machine's costs (docs/measurements.md, "machine profiles"): a write + read alone, a
# ping-pong pair pinned to one CPU (two switches a round trip), a write that wakes a partner
# blocked on the other, idle CPU (an IPI), and one that wakes it onto the other CPU while a
# SCHED_FIFO task runs there (no IPI), and one that wakes a SCHED_IDLE partner blocked on the
# same CPU (the local wakeup, which that partner cannot preempt); three runs each.
gcc -O2 -o "$TMP/switchcost" "$HERE/workloads/switchcost.c"
for i in 1 2 3; do
	echo "costs, run $i: $("$TMP/switchcost" alone 200000 1) | $("$TMP/switchcost" pair 100000 1) | $("$TMP/switchcost" wake 50000 0 1) | $("$TMP/switchcost" busy 2000 0 1) | $("$TMP/switchcost" local 20000 1)" >> "$META"
done
fi
if want idlelat; then
wait_quiet idlelat
# 8. The cost of waking an idle CPU by how long it has been idle (scripts/workloads/idlelat.c).
gcc -O2 -o "$TMP/idlelat" "$HERE/workloads/idlelat.c"
for i in 1 2 3; do
	for gap in 0 50 100 150 200 300 500 1000 2000 5000; do
		echo "idle wakeup, run $i: $("$TMP/idlelat" 2000 "$gap")" >> "$META"
	done
done
fi
ls -l "$OUT" >&2
