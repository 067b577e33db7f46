//! Load balancing (`kernel/sched/fair.c`), to the scope of reference §6.5:
//! - `trigger_load_balance` (`sched_balance_trigger` since 6.10) from a busy CPU's tick, with
//!   the NOHZ kick (`nohz_balancer_kick`) that balances on behalf of idle CPUs;
//! - `rebalance_domains` (`sched_balance_domains` since 6.10) with `get_sd_balance_interval`;
//! - `newidle_balance` (`sched_balance_newidle` since 6.10);
//! - `load_balance` (`sched_balance_rq` since 6.10), CPU by CPU, with `task_hot`'s time rule
//!   and `cache_nice_tries`;
//! - `detach_task` + `attach_task`.
//!
//! The arithmetic (`balance_interval_jiffies`, `task_hot`) is public and unit-tested with the
//! kernel's numbers in `tests/kernel_checks.rs`. Loads are instantaneous runnable weights, not
//! PELT averages, and there is no group classification, misfit or active balance
//! (DEVIATION(kernel), listed in ARCHITECTURE.md).

use alloc::vec::Vec;

use crate::fair::Tid;
use crate::trace::EventKind;

use super::topology::Domain;
use super::Simulator;

/// `get_sd_balance_interval`: a domain of `sd_weight` CPUs balances every `sd_weight` ms when
/// this CPU is idle, `sd_weight × busy_factor (16)` ms − 1 jiffy when it is busy, converted to
/// jiffies (rounded up) and clamped to [1, `max_load_balance_interval` = HZ × ncpus / 10].
pub fn balance_interval_jiffies(sd_weight: u32, busy: bool, hz: u32, ncpus: u32) -> u64 {
    let mut ms = sd_weight as u64;
    if busy {
        ms *= 16;
    }
    // msecs_to_jiffies rounds up.
    let mut j = (ms * hz as u64).div_ceil(1000);
    if busy {
        j = j.saturating_sub(1);
    }
    let max = (hz as u64 * ncpus as u64 / 10).max(1);
    j.clamp(1, max)
}

/// `task_hot` (time part): a task that ran within `migration_cost_ns` is cache hot.
pub fn task_hot(now_ns: u64, exec_start_ns: u64, migration_cost_ns: u64) -> bool {
    now_ns.saturating_sub(exec_start_ns) < migration_cost_ns
}

/// Per sched-domain level of a CPU: last balance time and `sd->nr_balance_failed`.
#[derive(Clone, Copy, Default)]
pub(super) struct LbState {
    pub(super) last_balance_ns: u64,
    pub(super) nr_balance_failed: u32,
}

impl Simulator {
    /// `trigger_load_balance` (`sched_balance_trigger` since 6.10) from a busy CPU's tick: its own periodic balance, and the NOHZ
    /// kick that balances on behalf of idle CPUs (whose ticks are stopped) when this CPU has
    /// more than one task.
    pub(super) fn trigger_load_balance(&mut self, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        self.rebalance_domains(cpu, false);
        if self.cpus[cpu as usize].rq.nr_running >= 2 {
            for i in 0..self.cfg.cpus {
                if i != cpu && self.idle_cpu(i) {
                    self.rebalance_domains(i, true);
                }
            }
        }
    }

    /// `rebalance_domains` (`sched_balance_domains` since 6.10): balance each domain whose
    /// interval has elapsed.
    pub(super) fn rebalance_domains(&mut self, cpu: u32, idle: bool) {
        let (doms, n) = self.domains(cpu);
        let hz = self.cfg.hz;
        let tick = self.fair.tick_ns;
        for (level, d) in doms[..n].iter().enumerate() {
            let jiffies = balance_interval_jiffies(d.weight(), !idle, hz, self.cfg.cpus);
            let last = self.cpus[cpu as usize].lb[level].last_balance_ns;
            if self.now < last + jiffies * tick {
                continue;
            }
            self.cpus[cpu as usize].lb[level].last_balance_ns = self.now;
            let moved = self.load_balance(cpu, level, d, false);
            if moved && idle {
                // An idle CPU that got work stops balancing on this pass (it is busy now).
                break;
            }
        }
    }

    /// `newidle_balance` (`sched_balance_newidle` since 6.10): about to go idle, try to pull one task, lowest domain first.
    pub(super) fn newidle_balance(&mut self, cpu: u32) -> bool {
        if self.cfg.cpus == 1 {
            return false;
        }
        let (doms, n) = self.domains(cpu);
        for (level, d) in doms[..n].iter().enumerate() {
            if self.load_balance(cpu, level, d, true) {
                self.cpus[cpu as usize].rq.stats.lb_newidle_pulled += 1;
                return true;
            }
        }
        false
    }

    /// `load_balance` (`sched_balance_rq` since 6.10), CPU-level: the busiest CPU of the domain (most
    /// queued, then most load) gives tasks to `this` when `this` is idle and it has a waiting
    /// task, or when its load exceeds this CPU's by `imbalance_pct`; tasks go least recently run
    /// first, never the running one, never a delayed one, never outside the affinity, and not
    /// cache hot (ran within `migration_cost_ns`) unless balancing failed more than
    /// `cache_nice_tries` times. Returns whether it moved anything.
    pub(super) fn load_balance(
        &mut self,
        this: u32,
        level: usize,
        d: &Domain,
        newidle: bool,
    ) -> bool {
        let this_idle = self.idle_cpu(this) || newidle;
        let this_load = self.cpu_load(this);
        let mut busiest_order: Vec<u32> = (d.lo..d.hi)
            .filter(|&c| c != this && self.cpus[c as usize].rq.nr_running >= 2)
            .collect();
        busiest_order.sort_by_key(|&c| {
            (
                core::cmp::Reverse(self.cpus[c as usize].rq.nr_running),
                core::cmp::Reverse(self.cpu_load(c)),
                c,
            )
        });
        let failed = self.cpus[this as usize].lb[level].nr_balance_failed;
        let migration_cost = self.fair.p.migration_cost_ns;
        for busiest in busiest_order {
            let busiest_load = self.cpu_load(busiest);
            let mut imbalance = if this_idle {
                // Spare capacity here: move one task whatever its weight.
                i64::MAX
            } else {
                if busiest_load * 100 <= this_load * d.imbalance_pct as i64 {
                    continue;
                }
                (busiest_load - this_load) / 2
            };
            let bc = &self.cpus[busiest as usize];
            let clock = bc.clock_task.max(self.now.saturating_sub(bc.irq_ns));
            let movable: Vec<Tid> = bc
                .rq
                .tree
                .iter()
                .copied()
                .filter(|&t| !self.ents[t].sched_delayed && self.allowed(t, this))
                .collect();
            if movable.is_empty() {
                // LBF_ALL_PINNED: nothing there may run here; try the next busiest.
                continue;
            }
            let mut cands: Vec<Tid> = movable
                .into_iter()
                .filter(|&t| {
                    failed > d.cache_nice_tries
                        || !task_hot(clock, self.ents[t].exec_start, migration_cost)
                })
                .collect();
            cands.sort_by_key(|&t| self.ents[t].mru);
            let mut moved = 0;
            for t in cands.into_iter().take(32) {
                let load = self.task_load(t);
                if !this_idle && load / 2 > imbalance {
                    continue;
                }
                self.migrate_queued(t, busiest, this);
                moved += 1;
                imbalance -= load;
                if this_idle || imbalance <= 0 {
                    break;
                }
            }
            let st = &mut self.cpus[this as usize];
            if moved == 0 {
                st.lb[level].nr_balance_failed += 1;
                st.rq.stats.lb_failed += 1;
                return false;
            }
            st.lb[level].nr_balance_failed = 0;
            st.rq.stats.lb_pulled += moved;
            return true;
        }
        false
    }

    /// `detach_task` + `attach_task`: move a queued, not running task between CPUs.
    pub(super) fn migrate_queued(&mut self, id: Tid, from: u32, to: u32) {
        self.with_rq(from, |f, c| f.dequeue_detach(c, id));
        self.emit(
            to,
            EventKind::MigrateTask {
                pid: id as u32 + 1,
                orig_cpu: from,
                dest_cpu: to,
            },
        );
        // sched_info: the wait continues on the new CPU.
        self.tasks[id].cpu = to;
        self.tasks[id].stats.migrations += 1;
        self.with_rq(to, |f, c| f.enqueue_attach(c, id));
        self.check_preempt_curr(to, id, false, false);
        self.kick(to);
        self.kick(from);
    }
}
