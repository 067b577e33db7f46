//! Interrupt load as a program (`SimConfig::irq_load`): hardirq and softirq handlers that run
//! on a CPU periodically or at random (Poisson) times, whatever runs there.
//!
//! A handler's time is IRQ time: at irq exit `irqtime_account_irq` adds it to the CPU's
//! `prev_irq_time`, and `update_rq_clock_task` leaves it out of `rq_clock_task`
//! (CONFIG_IRQ_TIME_ACCOUNTING). So the task that was running loses the wall time but is not
//! charged for it: its `sum_exec_runtime` and vruntime advance only by the time it ran, and a
//! CPU burst of it ends that much later in wall time (the burst end comes back for the rest).
//! The handler itself raises no reschedule, unless it queues a work item
//! (`IrqSource::queue_work`): then, as `queue_work_on` from a driver's handler, it sets the
//! item's pending bit, puts it on the CPU's workqueue channel and wakes the kworker waiting
//! there (`kick_pool` → `wake_up_process`), whose wakeup may preempt what runs. An item still
//! pending (queued, not yet taken by the kworker) is not queued again: `queue_work_on` returns
//! false when WORK_STRUCT_PENDING is already set. An event marks each handler's exit; the
//! handler ran for its cost just before.

use alloc::vec::Vec;

use crate::config::{IrqArrival, SimConfig};
use crate::rng::Rng;

use super::{Ev, Simulator};

/// Marks a workqueue channel's item as an interrupt source's work item (the source's index in
/// the low bits), where a block device's completions carry their device channel.
pub(super) const IRQ_WORK: u32 = 1 << 31;

/// The PRNG streams of the irq sources: after every task's stream (`Rng::new(seed, pid − 1)`),
/// so the tasks draw what they draw without interrupt load.
pub(super) fn rngs(cfg: &SimConfig) -> Vec<Rng> {
    (0..cfg.irq_load.len())
        .map(|k| Rng::new(cfg.seed, (1u64 << 40) + k as u64))
        .collect()
}

impl Simulator {
    /// Arms every source's first handler (arriving at t = 0 for a periodic source).
    pub(super) fn irq_load_start(&mut self) {
        for k in 0..self.cfg.irq_load.len() {
            let src = self.cfg.irq_load[k];
            let arrival = match src.arrival {
                IrqArrival::Every(_) => 0,
                IrqArrival::Poisson(mean) => self.irq_rng[k].exp(mean).max(1),
            };
            self.push(arrival + src.cost_ns, Ev::Irq(k as u32));
        }
    }

    /// A handler of source `k` exits: its time becomes the CPU's IRQ time, and the next one is
    /// armed.
    pub(super) fn irq_load_exit(&mut self, k: u32) {
        let src = self.cfg.irq_load[k as usize];
        let c = &mut self.cpus[src.cpu as usize];
        // rq_clock_task stops for the handler: bring it up to the handler's start first, so
        // the time before it stays the running task's.
        let start = self.now - src.cost_ns;
        c.clock_task = c.clock_task.max(start.saturating_sub(c.irq_ns));
        c.irq_ns += src.cost_ns;
        c.rq.stats.irq_time_ns += src.cost_ns;
        if let Some(w) = src.queue_work {
            if !self.irq_pending[k as usize] {
                self.irq_pending[k as usize] = true;
                let chan = &mut self.chans[w as usize];
                chan.count += 1;
                chan.payloads.push_back(IRQ_WORK | k);
                if let Some(t) = chan.readers.pop_front() {
                    self.try_to_wake_up(t, src.cpu, None, false);
                }
                self.kick(src.cpu);
            }
        }
        let gap = match src.arrival {
            IrqArrival::Every(p) => p,
            IrqArrival::Poisson(mean) => self.irq_rng[k as usize].exp(mean).max(1),
        };
        // The next arrival; one arriving while this handler ran starts when it ended.
        let arrival = (start + gap).max(self.now);
        self.push(arrival + src.cost_ns, Ev::Irq(k));
    }
}
