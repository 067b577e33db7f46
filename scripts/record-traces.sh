#!/usr/bin/env bash
# Re-records the real-kernel trace fixtures under tests/fixtures/traces/ (issue 12).
#
# Needs root, perf (Debian linux-perf), trace-cmd and rt-tests (hackbench, cyclictest):
#   apt-get install -y linux-perf trace-cmd rt-tests
# Each workload runs about two seconds and is recorded twice: once with `perf sched record`
# (then `perf script` in two layouts, `perf sched timehist` and `perf sched latency` are all
# derived from that one perf.data), once with `trace-cmd record -e sched` (`trace-cmd report`
# with and without the latency columns). One raw ftrace capture (/sys/kernel/tracing/trace)
# and one perf recording with callchains (-g) cover the remaining layouts.
# Writes tests/fixtures/traces/MACHINE.txt: kernel version, HZ, perf and trace-cmd versions and
# the scheduler tunables under /sys/kernel/debug/sched.
#
# Recordings are system-wide: whatever else runs on the machine appears in them (as in a real
# recording). Usage: sudo scripts/record-traces.sh [OUTDIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/tests/fixtures/traces}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# The workloads. Each prints nothing and ends by itself within about two seconds.
# hogs: three busy loops on two CPUs; one renames itself so the comm has a space, brackets and
# a colon (perf and ftrace print comms verbatim).
wl_hogs() {
    bash -c 'echo -n hog > /proc/$$/comm; end=$((SECONDS+2)); while ((SECONDS < end)); do :; done' &
    bash -c 'echo -n hog > /proc/$$/comm; end=$((SECONDS+2)); while ((SECONDS < end)); do :; done' &
    bash -c 'echo -n "my hog [a:1]" > /proc/$$/comm; end=$((SECONDS+2)); while ((SECONDS < end)); do :; done' &
    wait
}
# pipe: two threads bouncing a token through a pipe (perf's own ping-pong benchmark).
wl_pipe() { perf bench sched pipe -l 2000 >/dev/null; }
# periodic: cyclictest as SCHED_OTHER, a 4-ms period, 500 loops, beside one hog.
wl_periodic() {
    bash -c 'echo -n hog > /proc/$$/comm; end=$((SECONDS+2)); while ((SECONDS < end)); do :; done' &
    cyclictest -q --policy=other -i 4000 -l 500 >/dev/null
    wait
}
# hackbench: two groups of 20 senders and 20 receivers over pipes, 10 loops.
wl_hackbench() { hackbench -g 2 -l 10 -P >/dev/null; }

workloads=(hogs pipe periodic hackbench)

t=/sys/kernel/tracing
# `trace-cmd record -e sched` is the usual command. Under kernel lockdown (this VM) it fails
# ("Can't enable ftrace": it writes set_ftrace_filter and options it may not), so the events
# are enabled through tracefs directly and `trace-cmd extract` saves the buffers to the same
# .dat file `trace-cmd record` would write.
tracecmd_record() { # OUT.dat WORKLOAD-FUNCTION
    echo 0 >"$t/tracing_on"
    echo >"$t/trace"
    echo 20000 >"$t/buffer_size_kb"
    echo 1 >"$t/events/sched/enable"
    echo 1 >"$t/tracing_on"
    "$2"
    echo 0 >"$t/tracing_on"
    echo 0 >"$t/events/sched/enable"
    trace-cmd extract -o "$1" >/dev/null 2>&1
    echo >"$t/trace"
}

for w in "${workloads[@]}"; do
    echo "recording $w (perf)" >&2
    perf sched record -o "$work/$w.data" -- bash -c "$(declare -f "wl_$w"); wl_$w" 2>/dev/null
    perf script -i "$work/$w.data" 2>/dev/null | gzip -9n >"$out/$w.perf-script.txt.gz"
    perf script -i "$work/$w.data" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null |
        gzip -9n >"$out/$w.perf-script-fields.txt.gz"
    perf sched timehist -i "$work/$w.data" 2>/dev/null | gzip -9n >"$out/$w.timehist.txt.gz"
    # Both layouts' inputs: merged by comm (perf's default) and one row per pid (-p).
    perf sched latency -i "$work/$w.data" 2>/dev/null >"$out/$w.perf-latency.txt"
    perf sched latency -p -i "$work/$w.data" 2>/dev/null >"$out/$w.perf-latency-pids.txt"

    echo "recording $w (trace-cmd)" >&2
    tracecmd_record "$work/$w.dat" "wl_$w"
    # Cut to 20000 lines: a browser or a build running beside the workload can fill a lot.
    trace-cmd report -i "$work/$w.dat" >"$work/$w.report" 2>/dev/null
    head -n 20000 "$work/$w.report" | gzip -9n >"$out/$w.trace-cmd.txt.gz"
    trace-cmd report -l -i "$work/$w.dat" >"$work/$w.report" 2>/dev/null
    head -n 20000 "$work/$w.report" | gzip -9n >"$out/$w.trace-cmd-lat.txt.gz"
done

# perf script with callchains (a short recording: callchains make the text large).
echo "recording callchains (perf -g)" >&2
perf record -q -a -g -e sched:sched_switch -e sched:sched_waking -o "$work/cc.data" -- \
    bash -c "$(declare -f wl_pipe); wl_pipe" 2>/dev/null
perf script -i "$work/cc.data" >"$work/cc.txt" 2>/dev/null
head -n 20000 "$work/cc.txt" | gzip -9n >"$out/pipe.perf-script-callchain.txt.gz"

# Raw ftrace text from tracefs (the `trace` file, with its header).
echo "recording raw ftrace" >&2
echo 0 >"$t/tracing_on"
echo >"$t/trace"
echo nop >"$t/current_tracer" 2>/dev/null || true
for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task sched_process_exit sched_stat_runtime; do
    echo 1 >"$t/events/sched/$e/enable"
done
echo 20000 >"$t/buffer_size_kb"
echo 1 >"$t/tracing_on"
wl_periodic
echo 0 >"$t/tracing_on"
head -n 20000 "$t/trace" | gzip -9n >"$out/periodic.ftrace.txt.gz"
echo 0 >"$t/events/sched/enable"
echo >"$t/trace"
echo 1408 >"$t/buffer_size_kb"

{
    echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kernel: $(uname -r) ($(uname -v))"
    echo "cpus: $(nproc)"
    hz=$( (zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null) | grep '^CONFIG_HZ=' || true)
    echo "hz: ${hz#CONFIG_HZ=}"
    echo "perf: $(perf --version)"
    echo "trace-cmd: $( (trace-cmd --version 2>&1 || true) | grep -m1 version)"
    echo "sched tunables (/sys/kernel/debug/sched; under lockdown only the debug file reads):"
    for f in /sys/kernel/debug/sched/*; do
        [ -f "$f" ] || continue
        [ "$(basename "$f")" = debug ] && continue
        if v=$(tr '\n' ' ' <"$f" 2>/dev/null); then
            echo "  $(basename "$f"): $v"
        else
            echo "  $(basename "$f"): (not readable)"
        fi
    done
    echo "sysctl_sched lines of /sys/kernel/debug/sched/debug:"
    grep -E '^ *\.sysctl_sched' /sys/kernel/debug/sched/debug 2>/dev/null || echo "  (not readable)"
} >"$out/MACHINE.txt"
ls -l "$out" >&2
