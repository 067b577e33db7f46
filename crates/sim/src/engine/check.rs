//! The invariants the model promises, checked after every event by the property tests
//! (`crates/sim/tests/properties.rs`): the fair class's own (`fair/check.rs`), then those that
//! span CPUs: a task runs or is queued on one CPU only, the CPU it belongs to, within its
//! affinity; no CPU idles with queued work and no reschedule pending; no CPU stays idle beside
//! a waiting task that may run there for longer than the balancer's intervals allow; the event
//! queue is a heap that holds no void event.

use alloc::string::String;
use alloc::vec::Vec;

use crate::fair::Ctx;

use super::Simulator;

impl Simulator {
    /// Checks every invariant the model promises; `Err` says which one broke.
    pub fn check_invariants(&mut self) -> Result<(), String> {
        // The event queue: a heap with its slots, and nothing void in it.
        self.queue.check()?;
        if let Some((t, ev)) = self.queue.events().find(|&(_, ev)| !self.live(ev)) {
            return Err(alloc::format!(
                "a void event ({ev:?} at {t} ns) was left in the queue"
            ));
        }
        let mut running_on: Vec<Option<u32>> = alloc::vec![None; self.tasks.len()];
        for cpu in 0..self.cpus.len() {
            let prev = self.cpus[cpu].checked_min_vruntime;
            let r = {
                let Simulator {
                    fair,
                    cpus,
                    ents,
                    rec,
                    now,
                    ..
                } = self;
                let c = Ctx {
                    clock_task: cpus[cpu].clock_task,
                    rq: &mut cpus[cpu].rq,
                    ents,
                    now: *now,
                    cpu: cpu as u32,
                    out: rec,
                };
                fair.check(&c, prev.unwrap_or(c.rq.min_vruntime))
            };
            r?;
            let mv = self.cpus[cpu].rq.min_vruntime;
            self.cpus[cpu].checked_min_vruntime = Some(mv);
            let rq = &self.cpus[cpu].rq;
            if let Some(cu) = rq.curr {
                if let Some(other) = running_on[cu] {
                    return Err(alloc::format!(
                        "task {} runs on cpus {} and {}",
                        cu + 1,
                        other,
                        cpu
                    ));
                }
                running_on[cu] = Some(cpu as u32);
                if self.tasks[cu].cpu != cpu as u32 {
                    return Err(alloc::format!(
                        "task {} runs on cpu {} but belongs to {}",
                        cu + 1,
                        cpu,
                        self.tasks[cu].cpu
                    ));
                }
            }
            for t in rq.tree.iter() {
                if self.tasks[t].cpu != cpu as u32 {
                    return Err(alloc::format!(
                        "task {} queued on cpu {} but belongs to {}",
                        t + 1,
                        cpu,
                        self.tasks[t].cpu
                    ));
                }
            }
            // Work conservation: an idle CPU with queued tasks must have a reschedule pending.
            if rq.curr.is_none() && rq.nr_running > 0 && !rq.need_resched {
                return Err(alloc::format!(
                    "cpu {} idles with {} queued",
                    cpu,
                    rq.nr_running
                ));
            }
        }
        // Load balancing: no CPU stays idle beside a waiting task that may run on it for longer
        // than its idle balance intervals allow: the first attempt within the interval as doubled
        // while balanced (max_interval = 2 × sd_weight ms), then the failed attempts that
        // cache_nice_tries lets a cache-hot task win, each after the interval reset to
        // min_interval (2 more: 4 × sd_weight ms in all), the ticks that deliver the NOHZ kick,
        // and the softirq's δ after its tick.
        let max_weight = (0..self.cfg.cpus)
            .map(|c| {
                let (d, n) = self.domains(c);
                d[..n].iter().map(|d| d.weight()).max().unwrap_or(1)
            })
            .max()
            .unwrap_or(1) as u64;
        let bound = (4 * max_weight).div_ceil(1000 / self.cfg.hz as u64) * self.fair.tick_ns
            + 3 * self.fair.tick_ns
            + 2 * self.cfg.switch_delay_ns;
        for i in 0..self.cfg.cpus {
            let starving = self.idle_cpu(i)
                && self.cpus.iter().any(|c| {
                    c.rq.tree
                        .iter()
                        .any(|t| !self.ents[t].sched_delayed && self.allowed(t, i))
                });
            let now = self.now;
            let cp = &mut self.cpus[i as usize];
            if !starving {
                cp.starved_since = None;
            } else {
                let since = *cp.starved_since.get_or_insert(now);
                if now - since > bound {
                    return Err(alloc::format!(
                        "cpu {i} idle for {} ns beside a waiting task that may run there (bound {bound})",
                        now - since
                    ));
                }
            }
        }
        for (i, t) in self.tasks.iter().enumerate() {
            if !t.affinity.contains(&t.cpu) {
                return Err(alloc::format!(
                    "task {} on cpu {} outside its affinity",
                    i + 1,
                    t.cpu
                ));
            }
        }
        Ok(())
    }
}
