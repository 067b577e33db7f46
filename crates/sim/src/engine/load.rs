//! PELT at the kernel's update points (`update_load_avg` and friends in fair.c), for the
//! decisions that read averaged loads (`cpu_load`, `task_h_load`, `cpu_util_cfs`):
//! - `update_load_avg(cfs_rq, se)` before a task starts or stops running (`set_next_entity`,
//!   `put_prev_entity`), at the tick (`entity_tick`), at a dequeue (sleep, exit) and an
//!   enqueue (wakeup, new task);
//! - `detach_entity_load_avg` / `attach_entity_load_avg` when a task migrates (the balancer's
//!   detach/attach, and a wakeup's `migrate_task_rq_fair`, whose `remove_entity_load_avg` the
//!   model applies at once instead of at the old CPU's next update);
//! - `update_blocked_averages` of a CPU when it balances (softirq, newly idle) and of each
//!   idle CPU with blocked load from the NOHZ stats kick (`update_nohz_stats`, balance/mod.rs),
//!   so an idle CPU's blocked load decays.
//!
//! A new task starts as `init_entity_runnable_average` and `post_init_entity_util_avg` start
//! it: load_avg = its weight, util_avg = its share of the CPU's util capped at half the spare
//! capacity. Time is `rq_clock_task` (the kernel's `rq_clock_pelt` equals it on a CPU at full
//! capacity and frequency). No util_est. Not kept on one CPU (nothing reads it there).

use crate::fair::Tid;
use crate::pelt::SchedAvg;

use super::Simulator;

/// `SCHED_CAPACITY_SCALE`: every modelled CPU has this capacity.
const CAPACITY: u64 = 1024;

impl Simulator {
    fn pelt_clock(&self, cpu: u32) -> u64 {
        let c = &self.cpus[cpu as usize];
        c.clock_task.max(self.now.saturating_sub(c.irq_ns))
    }

    /// `update_cfs_rq_load_avg` of `cpu`: its own sums with (Σ weights, runnable count,
    /// curr), the averages with weight 1 (`__update_load_avg_cfs_rq`).
    pub(super) fn pelt_cfs(&mut self, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        let now = self.pelt_clock(cpu);
        let c = &mut self.cpus[cpu as usize];
        let load = c.root_load.unwrap_or(c.rq.load) >> crate::weight::SCHED_FIXEDPOINT_SHIFT;
        let running = c.rq.curr.is_some();
        if c.avg
            .update_load_sum(now, load, c.rq.nr_running as u64, running)
        {
            c.avg.update_load_avg(1);
        }
    }

    /// `__update_load_avg_se` of task `id` on its CPU, in its current state.
    fn pelt_se(&mut self, id: Tid) {
        let cpu = self.tasks[id].cpu;
        let now = self.pelt_clock(cpu);
        let running = self.cpus[cpu as usize].rq.curr == Some(id);
        let on_rq = running || self.ents[id].on_rq;
        let weight = self.ents[id].h_user();
        self.tasks[id].avg.update(now, weight, on_rq, running);
    }

    /// `update_load_avg(cfs_rq, se)`: the task's and its CPU's averages, before a change.
    pub(super) fn pelt_update(&mut self, id: Tid) {
        if self.cfg.cpus == 1 {
            return;
        }
        self.pelt_se(id);
        self.pelt_cfs(self.tasks[id].cpu);
    }

    /// `detach_entity_load_avg` (or `remove_entity_load_avg` applied at once): the task's
    /// load, runnable and util leave `cpu`.
    pub(super) fn pelt_detach(&mut self, id: Tid, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        let se = self.tasks[id].avg;
        let w = self.ents[id].h_user();
        let c = &mut self.cpus[cpu as usize].avg;
        let min = crate::pelt::PELT_MIN_DIVIDER;
        c.load_avg = c.load_avg.saturating_sub(se.load_avg);
        c.load_sum = c.load_sum.saturating_sub(w * se.load_sum);
        c.runnable_avg = c.runnable_avg.saturating_sub(se.runnable_avg);
        c.runnable_sum = c.runnable_sum.saturating_sub(se.runnable_sum);
        c.util_avg = c.util_avg.saturating_sub(se.util_avg);
        c.util_sum = c.util_sum.saturating_sub(se.util_sum);
        // "See update_cfs_rq_load_avg()": keep each sum consistent with its average.
        c.load_sum = c.load_sum.max(c.load_avg * min);
        c.runnable_sum = c.runnable_sum.max(c.runnable_avg * min);
        c.util_sum = c.util_sum.max((c.util_avg * min) as u32);
    }

    /// `attach_entity_load_avg`: the task joins `cpu`'s PELT clock and adds its averages.
    pub(super) fn pelt_attach(&mut self, id: Tid, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        self.pelt_cfs(cpu);
        let w = self.ents[id].h_user().max(1);
        let c = self.cpus[cpu as usize].avg;
        let d = c.divider();
        let se = &mut self.tasks[id].avg;
        se.last_update_time = c.last_update_time;
        se.period_contrib = c.period_contrib;
        se.util_sum = (se.util_avg * d) as u32;
        se.runnable_sum = se.runnable_avg * d;
        let load_sum = se.load_avg * d;
        se.load_sum = if w < load_sum { load_sum / w } else { 1 };
        let se = *se;
        let c = &mut self.cpus[cpu as usize].avg;
        c.load_avg += se.load_avg;
        c.load_sum += w * se.load_sum;
        c.util_avg += se.util_avg;
        c.util_sum += se.util_sum;
        c.runnable_avg += se.runnable_avg;
        c.runnable_sum += se.runnable_sum;
    }

    /// A new task on `cpu`: `init_entity_runnable_average` (load_avg = weight) and
    /// `post_init_entity_util_avg` (util = the CPU's util per unit of load times the task's
    /// weight, at most half the spare capacity; runnable = util), then attached.
    pub(super) fn pelt_new(&mut self, id: Tid, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        self.pelt_cfs(cpu);
        let w = self.ents[id].h_user();
        let c = self.cpus[cpu as usize].avg;
        let cap = CAPACITY.saturating_sub(c.util_avg.min(CAPACITY)) / 2;
        let util = if c.util_avg != 0 {
            (c.util_avg * w / (c.load_avg + 1)).min(cap)
        } else {
            cap
        };
        self.tasks[id].avg = SchedAvg {
            load_avg: w,
            util_avg: util,
            runnable_avg: util,
            ..SchedAvg::default()
        };
        self.pelt_attach(id, cpu);
    }

    /// `cpu_load`: the CPU's PELT load average (`cfs_rq_load_avg` of its root cfs_rq), as
    /// last updated.
    pub(super) fn cpu_load(&self, cpu: u32) -> i64 {
        self.cpus[cpu as usize].avg.load_avg as i64
    }

    /// `task_h_load` in a flat hierarchy: the task's load average scaled by its cfs_rq's
    /// `h_load` (the root's own load average) over that load average + 1.
    pub(super) fn task_load(&self, id: Tid) -> i64 {
        let h = self.cpus[self.tasks[id].cpu as usize].avg.load_avg;
        (self.tasks[id].avg.load_avg * h / (h + 1)) as i64
    }
}
