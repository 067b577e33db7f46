//! Block I/O completion as the kernel delivers it (`IoDevice` on a channel): `io_submit`
//! puts an I/O in flight; after the device's latency its completion interrupt runs on a CPU
//! (hardirq time, as `irq.rs` charges it), `blk_mq_complete_request` completes the request
//! there or, by QUEUE_FLAG_SAME_COMP, on the submitting CPU; the bio's end_io then either wakes
//! the task in `io_getevents` at once (a read: `iomap_dio_bio_end_io` completes inline) or
//! queues a work item for the completing CPU's kworker (a direct write:
//! `queue_work(sb->s_dio_done_wq, …)`, whose `iomap_dio_complete_work` runs the filesystem's
//! end_io and `aio_complete`, which wakes the submitter from the kworker).
//!
//! DEVIATION(kernel): the device has no queue of its own (every I/O takes its latency
//! whatever else is in flight), and a completion moved to the submitting CPU pays the
//! interrupt's time again there for its softirq.

use crate::fair::Tid;

use super::{Ev, Simulator};

impl Simulator {
    /// `io_submit` of one I/O by `id` on `cpu` to device channel `c`: its completion interrupt
    /// ends after the device's latency and the handler's time.
    pub(super) fn io_submit(&mut self, id: Tid, c: u32, cpu: u32) {
        let Some(dev) = &self.cfg.channels[c as usize].device else {
            return;
        };
        let (latency, hardirq) = (dev.latency, dev.hardirq_ns);
        let n = latency.sample(&mut self.tasks[id].rng);
        self.push(self.now + n + hardirq, Ev::IoIrq(c, cpu));
    }

    /// The completion interrupt of an I/O on device channel `c` submitted from `submit` ends:
    /// its time becomes IRQ time, and the request completes on the CPU `blk_mq_complete_request`
    /// picks.
    pub(super) fn io_irq_exit(&mut self, c: u32, submit: u32) {
        let Some(dev) = &self.cfg.channels[c as usize].device else {
            return;
        };
        let (hardirq, rq_affinity) = (dev.hardirq_ns, dev.rq_affinity);
        let irq_cpu = dev.irq_cpu.unwrap_or(submit);
        self.charge_irq(irq_cpu, hardirq);
        // blk_mq_complete_request_remote → blk_mq_complete_need_ipi: QUEUE_FLAG_SAME_COMP
        // completes locally on the same CPU or a CPU sharing its cache, else IPIs the
        // submitter; QUEUE_FLAG_SAME_FORCE IPIs whenever the CPUs differ.
        let remote = match rq_affinity {
            0 => false,
            1 => irq_cpu != submit && !self.share_cache(irq_cpu, submit),
            _ => irq_cpu != submit,
        };
        let cpu = if remote {
            self.charge_irq(submit, hardirq);
            submit
        } else {
            irq_cpu
        };
        let wq = self.cfg.channels[c as usize]
            .device
            .as_ref()
            .and_then(|d| d.workqueue.get(cpu as usize).copied());
        match wq {
            // The bio's end_io completes inline: aio_complete wakes the waiter from the
            // interrupt (no waking task).
            None => self.io_deliver(c, cpu, None),
            Some(w) => {
                // queue_work on this CPU's bound workqueue: wake its kworker.
                let chan = &mut self.chans[w as usize];
                chan.count += 1;
                chan.payloads.push_back(c);
                if let Some(k) = chan.readers.pop_front() {
                    self.try_to_wake_up(k, cpu, None, false);
                }
            }
        }
        self.kick(cpu);
    }

    /// `aio_complete`: one more event in device channel `c`'s ring; the task waiting in
    /// `io_getevents` there is woken from `cpu` by `waker` (`None`: an interrupt), not
    /// WF_SYNC.
    pub(super) fn io_deliver(&mut self, c: u32, cpu: u32, waker: Option<Tid>) {
        let chan = &mut self.chans[c as usize];
        chan.count += 1;
        if let Some(r) = chan.readers.pop_front() {
            self.try_to_wake_up(r, cpu, waker, false);
        }
    }

    /// `ns` of interrupt time on `cpu` ending now (`irqtime_account_irq`): `rq_clock_task`
    /// leaves it out, so no task is charged for it.
    fn charge_irq(&mut self, cpu: u32, ns: u64) {
        let c = &mut self.cpus[cpu as usize];
        let start = self.now.saturating_sub(ns);
        c.clock_task = c.clock_task.max(start.saturating_sub(c.irq_ns));
        c.irq_ns += ns;
        c.rq.stats.irq_time_ns += ns;
    }
}
