//! Load balancing (`kernel/sched/fair.c`), to the depth that decides who moves:
//! - `trigger_load_balance` (`sched_balance_trigger` since 6.10) from a busy CPU's tick: the
//!   SCHED_SOFTIRQ when `jiffies ≥ rq->next_balance`, and the NOHZ kick
//!   (`nohz_balancer_kick`) that balances on behalf of idle CPUs;
//! - `rebalance_domains` (`sched_balance_domains`) with `get_sd_balance_interval`, each domain's
//!   `last_balance` and `balance_interval`, and `rq->next_balance`;
//! - `newidle_balance` (`sched_balance_newidle`);
//! - `load_balance` (`sched_balance_rq`): `should_we_balance`, `update_sd_lb_stats` with
//!   `group_classify` (has_spare, fully_busy, overloaded), `find_busiest_group`
//!   (`sched_balance_find_src_group`) and `calculate_imbalance` with its migration types
//!   (load, util, task), `find_busiest_queue` (`sched_balance_find_src_rq`), `detach_tasks`
//!   with `shr_bound(load, nr_balance_failed)`, `can_migrate_task` (pinned, running, delayed,
//!   `task_hot`, LBF_ALL_PINNED), and the bookkeeping after it: `nr_balance_failed` counting
//!   failures and reset on success or balance, the interval reset to `min_interval` when
//!   unbalanced and doubled up to `max_interval` while balanced;
//! - `detach_task` + `attach_task`.
//!
//! Ticks and lockstep: the kernel's `sched_skew_tick` is 0 unless `skew_tick=1` is on the
//! command line (it is not on the measured machine), so every CPU's tick expires at the same
//! jiffy edge (`tick_setup_sched_timer` → `tick_init_jiffy_update`) and their SCHED_SOFTIRQs do
//! run in the same jiffy, serialised by the runqueue locks (`double_rq_lock` around
//! detach/attach). The rule the model follows is what the machine shows
//! (tests/fixtures/real/hogs3, docs/measurements.md): the softirq's balance reads the source
//! CPU *after* the reschedule that the same tick edge raised there; of the tasks it moved at a
//! tick edge, the ones on a quiet machine had been switched out 5–26 µs before (so they were
//! cache hot and moved only once `nr_balance_failed` > `cache_nice_tries`). So the softirq
//! is an event δ after the tick (irq exit) ordered after every other event of its instant.
//! DEVIATION(kernel): on the balancing CPU itself the kernel runs the softirq before its own
//! reschedule (irq_exit, then the return to user); the model runs it after. Neither changes
//! what it pulls (`nr_running` and the load count curr either way).
//! What keeps the kernel out of the pull-and-pull-back lockstep is not an offset but
//! `calculate_imbalance` (a CPU with one task does not pull from one with two unless the load
//! fits), `shr_bound` with `nr_balance_failed`, `task_hot`, and the per-domain intervals, which
//! drift apart as each CPU's outcomes double or reset them.
//!
//! Loads are PELT's (`cpu_load` for a group's load and the busiest queue, `task_h_load` for
//! what `detach_tasks` moves; load.rs). DEVIATION(kernel): util and runnable are still
//! instantaneous (1024 per queued task for `runnable_avg`, 1024 for a CPU with a running task
//! for `util_avg`, 1024 for a task's util): with PELT util a donor CPU stays has_spare while
//! its util recovers, and in the noiseless model the tick parity then locks on moving the same
//! hog (ARCHITECTURE.md, "Compared with the machine"); capacities are 1024 per CPU (no RT/IRQ pressure);
//! no misfit, asym packing, group_imbalanced (LBF_SOME_PINNED/LBF_DST_PINNED's retarget),
//! CACHE_HOT_BUDDY, NUMA or SD_SERIALIZE; newidle balancing is not gated by `avg_idle`
//! against `max_newidle_lb_cost`; no active balance (since v5.11, e9b9734b7465, the kernel
//! pushes a running task only for migrate_task after `cache_nice_tries + 2` failures, for
//! asym packing, misfit, or reduced capacity: none of these arise in the modelled topologies
//! except the first, with pinned tasks). Listed in ARCHITECTURE.md.

use alloc::vec::Vec;

use crate::fair::Tid;
use crate::trace::EventKind;

use super::topology::Domain;
use super::Simulator;

mod arith;

pub use arith::*;
use arith::{CAPACITY, MAX_PINNED_INTERVAL_MS, NR_MIGRATE};

/// Per sched-domain level of a CPU: the domain's balancing state (`struct sched_domain`).
#[derive(Clone, Copy, Default)]
pub(super) struct LbState {
    /// `sd->last_balance`, in jiffies.
    pub(super) last_balance: u64,
    /// `sd->balance_interval` in ms; 0 until first used (then `min_interval` = `sd_weight`).
    pub(super) balance_interval_ms: u32,
    /// `sd->nr_balance_failed`.
    pub(super) nr_balance_failed: u32,
}

/// `enum cpu_idle_type` as `sched_balance_rq` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IdleType {
    /// `CPU_IDLE`: a tick-stopped idle CPU balanced by the NOHZ kick.
    Idle,
    /// `CPU_NOT_IDLE`: a busy CPU's periodic balance.
    NotIdle,
    /// `CPU_NEWLY_IDLE`: about to go idle.
    NewlyIdle,
}

impl Simulator {
    fn jiffies(&self) -> u64 {
        self.now / self.fair.tick_ns
    }

    fn interval_ms(&mut self, cpu: u32, level: usize, d: &Domain) -> u32 {
        let st = &mut self.cpus[cpu as usize].lb[level];
        if st.balance_interval_ms == 0 {
            // sd_init: balance_interval = min_interval = sd_weight.
            st.balance_interval_ms = d.weight();
        }
        st.balance_interval_ms
    }

    /// `trigger_load_balance` (`sched_balance_trigger` since 6.10) from a busy CPU's tick:
    /// SCHED_SOFTIRQ runs `rebalance_domains` when `jiffies ≥ rq->next_balance`; and the NOHZ
    /// kick that balances on behalf of idle CPUs (whose ticks are stopped) when this CPU has
    /// more than one task.
    pub(super) fn trigger_load_balance(&mut self, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        // sched_balance_update_blocked_averages(this CPU).
        self.pelt_cfs(cpu);
        if self.jiffies() >= self.cpus[cpu as usize].next_balance {
            let idle = if self.idle_cpu(cpu) {
                IdleType::Idle
            } else {
                IdleType::NotIdle
            };
            self.rebalance_domains(cpu, idle);
        }
        if self.cpus[cpu as usize].rq.nr_running >= 2 {
            for i in 0..self.cfg.cpus {
                if i != cpu
                    && self.idle_cpu(i)
                    && self.jiffies() >= self.cpus[i as usize].next_balance
                {
                    self.pelt_cfs(i);
                    self.rebalance_domains(i, IdleType::Idle);
                }
            }
        }
    }

    /// `rebalance_domains` (`sched_balance_domains` since 6.10): balance each domain whose
    /// interval has elapsed since its `last_balance`, then set `rq->next_balance` to the
    /// earliest next one.
    pub(super) fn rebalance_domains(&mut self, cpu: u32, mut idle: IdleType) {
        let (doms, n) = self.domains(cpu);
        let (hz, ncpus) = (self.cfg.hz, self.cfg.cpus);
        let jiffies = self.jiffies();
        let mut busy = idle == IdleType::NotIdle && !self.sched_idle_cpu(cpu);
        let mut next_balance = jiffies + 60 * hz as u64;
        for (level, d) in doms[..n].iter().enumerate() {
            let mut interval =
                balance_interval_jiffies(self.interval_ms(cpu, level, d), busy, hz, ncpus);
            if jiffies >= self.cpus[cpu as usize].lb[level].last_balance + interval {
                let (moved, go_on) = self.load_balance(cpu, level, d, idle);
                if moved > 0 {
                    // "The LBF_DST_PINNED logic could have changed env->dst_cpu, so we can't
                    // know our idle state even if we migrated tasks. Update it."
                    idle = if self.idle_cpu(cpu) {
                        IdleType::Idle
                    } else {
                        IdleType::NotIdle
                    };
                    busy = idle == IdleType::NotIdle && !self.sched_idle_cpu(cpu);
                }
                self.cpus[cpu as usize].lb[level].last_balance = jiffies;
                interval =
                    balance_interval_jiffies(self.interval_ms(cpu, level, d), busy, hz, ncpus);
                let last = self.cpus[cpu as usize].lb[level].last_balance;
                next_balance = next_balance.min(last + interval);
                if !go_on {
                    // should_we_balance() said another CPU of the group balances it: higher
                    // domains are left to that CPU too.
                    break;
                }
            } else {
                let last = self.cpus[cpu as usize].lb[level].last_balance;
                next_balance = next_balance.min(last + interval);
            }
        }
        self.cpus[cpu as usize].next_balance = next_balance;
    }

    /// `newidle_balance` (`sched_balance_newidle` since 6.10): about to go idle, try to pull,
    /// lowest domain first, until a task came.
    pub(super) fn newidle_balance(&mut self, cpu: u32) -> bool {
        if self.cfg.cpus == 1 {
            return false;
        }
        // sched_balance_update_blocked_averages before the newidle pull.
        self.pelt_cfs(cpu);
        let (doms, n) = self.domains(cpu);
        let (hz, ncpus) = (self.cfg.hz, self.cfg.cpus);
        // update_next_balance: the idle CPU's rq->next_balance moves forward to the domains'
        // idle intervals (the NOHZ kick balances it from then on).
        let mut next_balance = self.jiffies() + hz as u64;
        let mut update_next = |sim: &mut Simulator, level: usize, d: &Domain| {
            let i = balance_interval_jiffies(sim.interval_ms(cpu, level, d), false, hz, ncpus);
            next_balance = next_balance.min(sim.cpus[cpu as usize].lb[level].last_balance + i);
        };
        let mut pulled = false;
        // "if (!READ_ONCE(this_rq->rd->overloaded) ...)": no CPU has a waiting task.
        if !self.cpus.iter().any(|c| c.rq.nr_running >= 2) {
            if n > 0 {
                update_next(self, 0, &doms[0]);
            }
        } else {
            for (level, d) in doms[..n].iter().enumerate() {
                update_next(self, level, d);
                let (moved, go_on) = self.load_balance(cpu, level, d, IdleType::NewlyIdle);
                if moved > 0 {
                    self.cpus[cpu as usize].rq.stats.lb_newidle_pulled += 1;
                    pulled = true;
                    break;
                }
                if !go_on {
                    break;
                }
            }
        }
        let nb = &mut self.cpus[cpu as usize].next_balance;
        *nb = (*nb).min(next_balance);
        pulled
    }

    /// `should_we_balance`: of a group, only its first idle CPU (or, none idle, its first CPU)
    /// balances the domain periodically; every CPU may balance when newly idle.
    fn should_we_balance(&self, this: u32, group: (u32, u32), idle: IdleType) -> bool {
        if idle == IdleType::NewlyIdle {
            return self.cpus[this as usize].rq.nr_running == 0;
        }
        if let Some(first_idle) = (group.0..group.1).find(|&c| self.idle_cpu(c)) {
            return first_idle == this;
        }
        group.0 == this
    }

    /// `update_sg_lb_stats` over CPUs `lo..hi`.
    fn group_stats(&self, lo: u32, hi: u32, imbalance_pct: u64) -> GroupStats {
        let mut s = GroupStats {
            group_weight: (hi - lo) as u64,
            group_capacity: CAPACITY * (hi - lo) as u64,
            ..GroupStats::default()
        };
        for c in lo..hi {
            let rq = &self.cpus[c as usize].rq;
            s.group_load += self.cpu_load(c) as u64;
            s.group_util += if rq.curr.is_some() { CAPACITY } else { 0 };
            s.group_runnable += rq.nr_running as u64 * CAPACITY;
            s.sum_nr_running += rq.nr_running as u64;
            if rq.nr_running == 0 && self.idle_cpu(c) {
                s.idle_cpus += 1;
            }
        }
        s.group_type = group_classify(imbalance_pct, &s);
        if s.group_type == GroupType::Overloaded {
            s.avg_load = s.group_load * CAPACITY / s.group_capacity;
        }
        s
    }

    /// `load_balance` (`sched_balance_rq` since 6.10) of domain `d` (level `level`) into
    /// `this`. Returns (tasks moved, whether higher domains should be balanced too).
    pub(super) fn load_balance(
        &mut self,
        this: u32,
        level: usize,
        d: &Domain,
        idle: IdleType,
    ) -> (u32, bool) {
        // The domain's groups are its child's spans (single CPUs at the lowest level).
        let (doms, _) = self.domains(this);
        let group_size = if level == 0 {
            1
        } else {
            doms[level - 1].weight()
        };
        let prefer_sibling = level > 0;
        let llc_domain = d.weight() <= self.llc;
        let local_lo = d.lo + (this - d.lo) / group_size * group_size;
        let local_group = (local_lo, local_lo + group_size);
        self.interval_ms(this, level, d);
        if !self.should_we_balance(this, local_group, idle) {
            self.lb_balanced(this, level, d, idle, false);
            return (0, false);
        }
        let this_idle = idle != IdleType::NotIdle;
        let mut excluded: Vec<u32> = Vec::new();
        loop {
            // update_sd_lb_stats
            let local = self.group_stats(local_group.0, local_group.1, d.imbalance_pct);
            let (mut total_load, mut total_capacity) = (local.group_load, local.group_capacity);
            let mut busiest: Option<(GroupStats, u32)> = None;
            let mut lo = d.lo;
            while lo < d.hi {
                let hi = lo + group_size;
                if lo != local_group.0 {
                    let s = self.group_stats(lo, hi, d.imbalance_pct);
                    total_load += s.group_load;
                    total_capacity += s.group_capacity;
                    if pick_busiest(&s, busiest.as_ref().map(|b| &b.0)) {
                        busiest = Some((s, lo));
                    }
                }
                lo = hi;
            }
            let Some((bs, blo)) = busiest else {
                self.lb_balanced(this, level, d, idle, false);
                return (0, true);
            };
            let sds = DomainStats {
                total_load,
                total_capacity,
                imbalance_pct: d.imbalance_pct,
                this_idle,
                llc_domain,
                prefer_sibling,
            };
            let Some((mtype, imbalance)) = find_busiest_group(&local, &bs, &sds) else {
                self.lb_balanced(this, level, d, idle, false);
                return (0, true);
            };
            let Some(src) =
                self.find_busiest_queue(blo, blo + group_size, mtype, imbalance, &excluded)
            else {
                self.lb_balanced(this, level, d, idle, false);
                return (0, true);
            };
            let mut moved = 0;
            let mut all_pinned = false;
            if self.cpus[src as usize].rq.nr_running > 1 {
                let (m, pinned) = self.detach_tasks(src, this, level, d, idle, mtype, imbalance);
                moved = m;
                all_pinned = pinned;
            }
            if all_pinned {
                // "All tasks on this runqueue were pinned by CPU affinity": try another.
                excluded.push(src);
                if (d.lo..d.hi)
                    .any(|c| !excluded.contains(&c) && !(local_group.0..local_group.1).contains(&c))
                {
                    continue;
                }
                self.lb_balanced(this, level, d, idle, true);
                return (0, true);
            }
            let st = &mut self.cpus[this as usize];
            if moved == 0 {
                st.rq.stats.lb_failed += 1;
                if idle != IdleType::NewlyIdle {
                    st.lb[level].nr_balance_failed += 1;
                }
                // need_active_balance: not modelled (see the file's header).
            } else {
                st.lb[level].nr_balance_failed = 0;
                st.rq.stats.lb_pulled += moved as u64;
            }
            // "We were unbalanced, so reset the balancing interval."
            st.lb[level].balance_interval_ms = d.weight();
            return (moved, true);
        }
    }

    /// `out_balanced` / `out_all_pinned` / `out_one_pinned`: balanced, so the failure count
    /// resets and (not when newly idle) the interval doubles up to `max_interval` =
    /// 2 × `sd_weight` (`MAX_PINNED_INTERVAL` when every task was pinned).
    fn lb_balanced(&mut self, this: u32, level: usize, d: &Domain, idle: IdleType, pinned: bool) {
        let st = &mut self.cpus[this as usize].lb[level];
        st.nr_balance_failed = 0;
        if idle == IdleType::NewlyIdle {
            return;
        }
        let i = st.balance_interval_ms as u64;
        if (pinned && i < MAX_PINNED_INTERVAL_MS) || i < 2 * d.weight() as u64 {
            st.balance_interval_ms *= 2;
        }
    }

    /// `find_busiest_queue` (`sched_balance_find_src_rq`) among CPUs `lo..hi`.
    fn find_busiest_queue(
        &self,
        lo: u32,
        hi: u32,
        mtype: MigrationType,
        imbalance: u64,
        excluded: &[u32],
    ) -> Option<u32> {
        let mut best: Option<(u32, u64)> = None;
        for c in lo..hi {
            if excluded.contains(&c) {
                continue;
            }
            let rq = &self.cpus[c as usize].rq;
            let nr = rq.nr_running as u64;
            if nr == 0 {
                continue;
            }
            let key = match mtype {
                MigrationType::Load => {
                    let load = self.cpu_load(c) as u64;
                    // A lone task heavier than the imbalance stays (capacity is never reduced
                    // in the model, so check_cpu_capacity is false).
                    if nr == 1 && load > imbalance {
                        continue;
                    }
                    load
                }
                MigrationType::Util => {
                    if nr <= 1 {
                        continue;
                    }
                    if rq.curr.is_some() {
                        CAPACITY
                    } else {
                        0
                    }
                }
                MigrationType::Task => nr,
            };
            if best.is_none_or(|(_, k)| key > k) {
                best = Some((c, key));
            }
        }
        best.map(|(c, _)| c)
    }

    /// `detach_tasks` + `attach_tasks`: walk `src`'s `cfs_tasks` from its tail (least recently
    /// run first), at most `loop_max` = min(`nr_migrate`, nr_running) tasks, moving those that
    /// `can_migrate_task` allows and whose load, shifted right by `nr_balance_failed`, fits the
    /// imbalance. A task passed over goes to the list's head (`list_move`). Returns (tasks
    /// moved, LBF_ALL_PINNED).
    #[allow(clippy::too_many_arguments)]
    fn detach_tasks(
        &mut self,
        src: u32,
        this: u32,
        level: usize,
        d: &Domain,
        idle: IdleType,
        mtype: MigrationType,
        mut imbalance: u64,
    ) -> (u32, bool) {
        let failed = self.cpus[this as usize].lb[level].nr_balance_failed;
        let migration_cost = self.fair.p.migration_cost_ns;
        let bc = &self.cpus[src as usize];
        let clock = bc.clock_task.max(self.now.saturating_sub(bc.irq_ns));
        // cfs_tasks holds every queued task, curr included, ordered by mru.
        let mut list: Vec<Tid> = bc.rq.tree.iter().chain(bc.rq.curr).collect();
        list.sort_by_key(|&t| self.ents[t].mru);
        let loop_max = NR_MIGRATE.min(bc.rq.nr_running);
        let mut all_pinned = true;
        let mut moved = 0;
        let mut pos = 0;
        let mut looked = 0;
        while pos < list.len() {
            if idle != IdleType::NotIdle && self.cpus[src as usize].rq.nr_running <= 1 {
                break;
            }
            looked += 1;
            if looked > loop_max && !all_pinned {
                break;
            }
            if looked > loop_max.max(NR_MIGRATE) {
                break;
            }
            let t = list[pos];
            pos += 1;
            // can_migrate_task
            let ok = if !self.allowed(t, this) {
                false
            } else {
                all_pinned = false;
                let running = self.cpus[src as usize].rq.curr == Some(t);
                // DEVIATION(kernel): delayed tasks are never migrated (6.14 moves them for
                // migrate_load).
                let hot = d.imbalance_pct != 110 // SD_SHARE_CPUCAPACITY: siblings share cache
                    && !self.ents[t].idle()
                    && task_hot(clock, self.ents[t].exec_start, migration_cost);
                !running && !self.ents[t].sched_delayed && (!hot || failed > d.cache_nice_tries)
            };
            let fits = ok
                && match mtype {
                    MigrationType::Load => {
                        let load = (self.task_load(t) as u64).max(1);
                        if shr_bound(load, failed) > imbalance {
                            false
                        } else {
                            imbalance = imbalance.saturating_sub(load);
                            true
                        }
                    }
                    MigrationType::Util => {
                        if shr_bound(CAPACITY, failed) > imbalance {
                            false
                        } else {
                            imbalance = imbalance.saturating_sub(CAPACITY);
                            true
                        }
                    }
                    MigrationType::Task => {
                        imbalance = imbalance.saturating_sub(1);
                        true
                    }
                };
            if !fits {
                // next: list_move(&p->se.group_node, tasks), to the head.
                let rq = &mut self.cpus[src as usize].rq;
                rq.seq += 1;
                self.ents[t].mru = rq.seq;
                continue;
            }
            self.migrate_queued(t, src, this);
            moved += 1;
            // CONFIG_PREEMPTION: newidle balancing stops after the first task.
            if idle == IdleType::NewlyIdle || imbalance == 0 {
                break;
            }
        }
        (moved, moved == 0 && all_pinned)
    }

    /// `detach_task` + `attach_task`: move a queued, not running task between CPUs.
    pub(super) fn migrate_queued(&mut self, id: Tid, from: u32, to: u32) {
        self.pelt_update(id);
        self.pelt_detach(id, from);
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
        self.pelt_attach(id, to);
        self.with_rq(to, |f, c| f.enqueue_attach(c, id));
        self.check_preempt_curr(to, id, false, false);
        self.kick(to);
        self.kick(from);
    }
}
