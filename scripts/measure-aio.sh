#!/bin/sh
# The fio preset's measured costs (docs/measurements.md): one libaio job at iodepth 32 doing
# 4 KiB O_DIRECT random writes into a fallocated file on the root ext4, pinned to
# CPU 0, under `perf record` of the completion path's tracepoints. Prints, per run, the job's
# CPU per I/O, the device's issue-to-complete time, the completion interrupt and BLOCK softirq
# time per completion, and the dio kworker's iomap_dio_complete_work time. Needs root and perf.
set -eu
dir=$(mktemp -d)
gcc -O2 -Wall -o "$dir/aiowrite" "$(dirname "$0")/workloads/aiowrite.c"
file=${AIO_FILE:-/var/tmp/schedlab-aio.dat}
for rw in write; do
    for run in 1 2 3; do
        rm -f "$file"
        perf record -q -o "$dir/p" -a \
            -e workqueue:workqueue_execute_start -e workqueue:workqueue_execute_end \
            -e irq:irq_handler_entry -e irq:irq_handler_exit \
            -e irq:softirq_entry -e irq:softirq_exit \
            -e block:block_rq_issue -e block:block_rq_complete \
            -- taskset -c 0 "$dir/aiowrite" "$file" 1024 32 2 "$rw"
        perf script --ns -i "$dir/p" 2>/dev/null | python3 -c '
import re, sys
irq = {}; hi = []; sq = {}; sd = []; wq = {}; wd = []; iss = {}; dev = []; n = 0
for l in sys.stdin:
    m = re.match(r"\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)", l)
    if not m:
        continue
    _, _, cpu, t, ev, rest = m.groups()
    t = float(t) * 1e6
    if ev == "irq:irq_handler_entry" and "virtio" in rest and "req" in rest:
        irq[cpu] = t
    elif ev == "irq:irq_handler_exit" and cpu in irq:
        hi.append(t - irq.pop(cpu))
    elif ev == "irq:softirq_entry" and "vec=4" in rest:
        sq[cpu] = t
    elif ev == "irq:softirq_exit" and "vec=4" in rest and cpu in sq:
        sd.append(t - sq.pop(cpu))
    elif ev.endswith("execute_start") and "iomap_dio_complete_work" in rest:
        wq[cpu] = t
    elif ev.endswith("execute_end") and "iomap_dio_complete_work" in rest and cpu in wq:
        wd.append(t - wq.pop(cpu))
    elif ev == "block:block_rq_issue":
        s = re.search(r"\) (\d+) \+", rest)
        if s:
            iss[s.group(1)] = t
    elif ev == "block:block_rq_complete":
        n += 1
        s = re.search(r"\) (\d+) \+", rest)
        if s and s.group(1) in iss:
            dev.append(t - iss.pop(s.group(1)))
def q(x):
    x = sorted(x)
    if not x:
        return "none"
    k = len(x)
    return "mean %.1f p50 %.1f p90 %.1f us (n %d)" % (sum(x) / k, x[k // 2], x[9 * k // 10], k)
print("  device", q(dev))
print("  irq+softirq per completion %.2f us (hardirq %s; softirq %s)" % ((sum(hi) + sum(sd)) / max(n, 1), q(hi), q(sd)))
print("  dio kworker", q(wd))
'
    done
done
rm -rf "$dir" "$file"
