#!/bin/sh
# Re-record tests/fixtures/real-epyc/resched-pinned.txt.gz: `taskset -c 1 hackbench -g 1
# --threads -l 2000` with the fair class's own state read at every wakeup and switch on CPU 1
# (scripts/workloads/resched.bt: whether the wakeup left TIF_NEED_RESCHED on the waker, the
# entities' vruntime, deadline and vprot, the run queue's sums). `perf sched record` shows the
# switches but not why; this shows the reschedule a wakeup raises and when it is taken.
#
# Run as root on an otherwise idle 2-CPU machine with BTF (/sys/kernel/btf/vmlinux) and
# bpftrace (Debian: apt-get install bpftrace); kprobes are not needed. The header of the
# output (lines starting with #) records the kernel, its preemption model, HZ and the command.
#   sh scripts/record-resched.sh [OUT.txt.gz]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real-epyc/resched-pinned.txt.gz}
command -v bpftrace >/dev/null || { echo "record-resched: needs bpftrace" >&2; exit 2; }
command -v hackbench >/dev/null || { echo "record-resched: needs hackbench (rt-tests)" >&2; exit 2; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "record-resched: needs a kernel with BTF" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CMD="$(command -v taskset) -c 1 $(command -v hackbench) -g 1 --threads -l 2000"
bpftrace -c "$CMD" "$HERE/workloads/resched.bt" 1 > "$TMP/out.txt" 2> "$TMP/err.txt" || {
	cat "$TMP/err.txt" >&2; exit 1; }
{
	echo "# uname -r: $(uname -r)"
	echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	echo "# config: $( (zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null) | grep -E '^CONFIG_(HZ|PREEMPT_NONE|PREEMPT_VOLUNTARY|PREEMPT|PREEMPT_LAZY|PREEMPT_DYNAMIC)=' | tr '\n' ' ')"
	echo "# sched_autogroup_enabled: $(cat /proc/sys/kernel/sched_autogroup_enabled)"
	echo "# bpftrace: $(bpftrace --version)"
	echo "# command: $CMD"
	grep -v '^[US] ' "$TMP/out.txt" | grep -v '^$' | sed 's/^/# /'
	grep '^[US] ' "$TMP/out.txt"
} | gzip -9n > "$OUT"
echo "record-resched: $(zcat "$OUT" | grep -c '^U ') wakeups, $(zcat "$OUT" | grep -c '^S ') switches -> $OUT"
