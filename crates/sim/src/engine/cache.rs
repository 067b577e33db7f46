//! The cache-warmth cost (`SimConfig::cache`, [`crate::CacheCost`]): a task that resumes with
//! what it cached displaced pays CPU time before it goes on.
//!
//! Not a kernel path: the kernel's own view of cache warmth is `task_hot()` (a task that ran
//! within `sysctl_sched_migration_cost` is not migrated by the balancer); the cost itself is
//! the machine's, and the model charges it where `__schedule` switches a task in. Each CPU
//! keeps the run time of the tasks switched in on it so far (wall time from switch-in to
//! switch-out; idle time displaces nothing); each task keeps where it last ran and that CPU's
//! count when it left. Switched in on the same CPU, the task pays [`crate::CacheCost::ramp`]
//! of the difference (what others ran there since); on another CPU, `migrate_ns`. The charge
//! lengthens the run it is switched in for, as `switch_cost_ns` does (`program.rs`).

use alloc::vec::Vec;

use crate::fair::Tid;

use super::{Burst, Simulator};

/// The warmth bookkeeping, empty when the cost is off.
#[derive(Default)]
pub(super) struct Warmth {
    /// Per CPU: run time of the tasks switched in on it so far, and when its current task was
    /// switched in.
    cpus: Vec<(u64, u64)>,
    /// Per task: the CPU it last ran on and that CPU's run-time count when it left.
    tasks: Vec<Option<(u32, u64)>>,
}

impl Warmth {
    pub(super) fn new(cfg: &crate::SimConfig) -> Warmth {
        if cfg.cache.is_none() {
            return Warmth::default();
        }
        Warmth {
            cpus: alloc::vec![(0, 0); cfg.cpus as usize],
            tasks: alloc::vec![None; cfg.tasks.len()],
        }
    }
}

impl Simulator {
    /// `__schedule` switches `prev` out and `next` in on `cpu` (`prev != next`): `prev`'s run
    /// joins the CPU's count and it notes where it left; `next` pays for what it finds.
    pub(super) fn cache_switch(&mut self, cpu: u32, prev: Option<Tid>, next: Option<Tid>) {
        let Some(cost) = self.cfg.cache else {
            return;
        };
        let now = self.now;
        let w = &mut self.warm;
        let c = &mut w.cpus[cpu as usize];
        if let Some(p) = prev {
            c.0 += now.saturating_sub(c.1);
            w.tasks[p] = Some((cpu, c.0));
        }
        let Some(n) = next else {
            return;
        };
        c.1 = now;
        let owed = match w.tasks[n] {
            None => 0,
            Some((last, mark)) if last == cpu => cost.ramp(c.0 - mark),
            Some(_) => cost.migrate_ns,
        };
        if owed == 0 {
            return;
        }
        self.tasks[n].stats.cache_cost_ns += owed;
        let t = &mut self.tasks[n];
        match t.burst {
            Burst::Until(end) => t.burst = Burst::Until(end + owed),
            Burst::Paying(end) => t.burst = Burst::Paying(end + owed),
            Burst::Forever | Burst::Spin => {}
            Burst::Idle => t.owed_ns += owed,
        }
    }
}
