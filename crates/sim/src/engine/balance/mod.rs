//! Load balancing (`kernel/sched/fair.c`), to the depth that decides who moves:
//! - `trigger_load_balance` (`sched_balance_trigger` since 6.10) from a busy CPU's tick: the
//!   SCHED_SOFTIRQ when `jiffies ≥ rq->next_balance`, and the NOHZ kick
//!   (`nohz_balancer_kick`'s conditions; `kick_ilb`'s IPI, handled by `nohz_csd_func` once the
//!   idle CPU is back from idle) that balances on behalf of idle CPUs as
//!   `_nohz_idle_balance` does, and its NOHZ_STATS_KICK, which only decays idle CPUs' blocked
//!   averages (`update_nohz_stats`; also from a newly idle CPU, `nohz_newidle_balance`);
//! - `rebalance_domains` (`sched_balance_domains`) with `get_sd_balance_interval`, each domain's
//!   `last_balance` and `balance_interval`, and `rq->next_balance`;
//! - `newidle_balance` (`sched_balance_newidle`) gated by `rq->avg_idle` against each domain's
//!   `max_newidle_lb_cost` (and 6.19's NI_RANDOM), `update_newidle_cost` and its decay in
//!   `rebalance_domains`, `rq->max_idle_balance_cost`;
//! - `load_balance` (`sched_balance_rq`): `should_we_balance`, `update_sd_lb_stats` with
//!   `group_classify` (has_spare, fully_busy, overloaded), `find_busiest_group`
//!   (`sched_balance_find_src_group`) and `calculate_imbalance` with its migration types
//!   (load, util, task), `find_busiest_queue` (`sched_balance_find_src_rq`), `detach_tasks`
//!   with `shr_bound(load, nr_balance_failed)`, `can_migrate_task` (pinned, running, delayed,
//!   `task_hot`, LBF_ALL_PINNED), and the bookkeeping after it: `nr_balance_failed` counting
//!   failures and reset on success or balance, the interval reset to `min_interval` when
//!   unbalanced and doubled up to `max_interval` while balanced;
//! - `detach_task` + `attach_task`;
//! - active balance: `need_active_balance` (`imbalanced_active_balance`), the stopper kicked
//!   once per busiest CPU (`rq->active_balance`), `active_load_balance_cpu_stop` with
//!   `detach_one_task` (LBF_ACTIVE_LB), and the stopper's preemption of the running task.
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
//! Loads, utils and runnable averages are PELT's (load.rs): `cpu_load` for a group's load and
//! the busiest queue, `task_h_load` for what `detach_tasks` moves, `cpu_util_cfs` and
//! `cpu_runnable` for a group's classification, `cpu_util_cfs_boost` (6.6+) for a
//! `migrate_util` busiest queue and the task's util for what it moves. A CPU that gave a hog
//! away stays has_spare while its util recovers (~57 ms), which sets the interval between a
//! hog's migrations; on a machine without housekeeping (no other task ever runs) the tick's
//! parity then picks the same hog every time, as it would on a kernel with nothing else to
//! run (ARCHITECTURE.md, "Housekeeping"). DEVIATION(kernel): no util_est; capacities are
//! 1024 per CPU (no RT/IRQ pressure);
//! no misfit, asym packing, group_imbalanced (LBF_SOME_PINNED/LBF_DST_PINNED's retarget),
//! NUMA or SD_SERIALIZE; a newidle balance takes no simulated time (its
//! cost is recorded as [`NEWIDLE_COST_NS`]); active balance only for migrate_task after
//! `cache_nice_tries + 2` failures (since v5.11, e9b9734b7465, the others are asym packing,
//! misfit and reduced capacity, which the modelled topologies do not have). Listed in
//! ARCHITECTURE.md.

use alloc::vec::Vec;

use crate::decision::{Balance, DecisionKind, Imbalance, Move};
use crate::fair::Tid;
use crate::trace::EventKind;
use crate::variant::{Class, Feature};

use super::queue::Ev;
use super::topology::Domain;
use super::Simulator;

mod arith;

pub use arith::*;
use arith::{MAX_PINNED_INTERVAL_MS, NR_MIGRATE};

/// `LOAD_AVG_PERIOD` as `_nohz_idle_balance` uses it: `nohz.next_blocked` moves on by
/// `msecs_to_jiffies(32)` after each stats update.
const LOAD_AVG_PERIOD_MS: u64 = 32;

/// `nohz_flags` bits: NOHZ_STATS_KICK (decay idle CPUs' blocked averages) and
/// NOHZ_BALANCE_KICK (balance on their behalf).
const NOHZ_STATS_KICK: u8 = 1;
const NOHZ_BALANCE_KICK: u8 = 2;

/// The cost one newidle balance of one domain is recorded as (`domain_cost`, from
/// `sched_clock_cpu` around `sched_balance_rq` in the kernel), in ns. Bounded on the 2-vCPU
/// VM (Linux 6.18, docs/measurements.md): from a blocking task's last `sched_stat_runtime`
/// (its dequeue) to its `sched_switch` to idle, the whole path that includes the newidle
/// balance takes 4.2 µs at p10 (5.5 µs at p50). See [`Simulator::newidle_balance`].
pub const NEWIDLE_COST_NS: u64 = 4_000;

/// Per sched-domain level of a CPU: the domain's balancing state (`struct sched_domain`).
#[derive(Clone, Copy, Default)]
pub(super) struct LbState {
    /// `sd->last_balance`, in jiffies.
    pub(super) last_balance: u64,
    /// `sd->balance_interval` in ms; 0 until first used (then `min_interval` = `sd_weight`).
    pub(super) balance_interval_ms: u32,
    /// `sd->nr_balance_failed`.
    pub(super) nr_balance_failed: u32,
    /// `sd->max_newidle_lb_cost` and its decay; 6.19's newidle success statistics.
    pub(super) newidle: NewidleCost,
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
    /// more than one task, or only updates their blocked averages (NOHZ_STATS_KICK) when
    /// `nohz.next_blocked` has passed and some idle CPU has blocked load.
    pub(super) fn trigger_load_balance(&mut self, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        // sched_balance_update_blocked_averages(this CPU).
        self.update_blocked_averages(cpu);
        if self.jiffies() >= self.cpus[cpu as usize].next_balance {
            // sched_balance_softirq: "enum cpu_idle_type idle = this_rq->idle_balance ?
            // CPU_IDLE : CPU_NOT_IDLE;", rq->idle_balance fixed by sched_tick as idle_cpu()
            // at the tick. The softirq runs at that interrupt's exit, before the interrupted
            // task goes on, and only a busy CPU's tick gets here: whatever its task did in
            // the δ the model puts between the tick and its softirq, it balances as a busy
            // CPU.
            self.rebalance_domains(cpu, IdleType::NotIdle);
        }
        // nohz_balancer_kick returns on rq->idle_balance, fixed at the tick; here a CPU whose
        // task blocked in δ does not kick either (it is the first idle CPU kick_ilb would
        // find, and with no task left it would not ask for a balance).
        if self.idle_cpu(cpu) {
            return;
        }
        // nohz_balancer_kick: "if (READ_ONCE(nohz.has_blocked) && time_after(now,
        // READ_ONCE(nohz.next_blocked))) flags = NOHZ_STATS_KICK;" and a balance kick is
        // NOHZ_KICK_MASK (balance and stats).
        let stats = self.nohz_has_blocked && self.jiffies() > self.nohz_next_blocked;
        let balance = self.nohz_balancer_kick(cpu);
        if !stats && !balance {
            return;
        }
        let flags = NOHZ_STATS_KICK | if balance { NOHZ_BALANCE_KICK } else { 0 };
        self.kick_ilb(cpu, flags);
    }

    /// `kick_ilb`: the first idle CPU (`find_new_ilb`) is sent the NOHZ kick's IPI, unless it
    /// already has this work pending (`nohz_flags` ⊇ `flags`) or an IPI on its way (whoever
    /// sets the first kick flag owns `rq->nohz_csd`). The IPI arrives when the idle CPU is
    /// back from its idle state (`idle_exit_ns`, as for a wakeup's IPI), and its handler
    /// decides ([`Simulator::nohz_csd_func`]).
    fn kick_ilb(&mut self, cpu: u32, flags: u8) {
        let n = self.cfg.cpus;
        let Some(ilb) = (0..n).find(|&i| self.idle_cpu(i)) else {
            return;
        };
        let pending = self.cpus[ilb as usize].nohz_flags;
        if pending & flags == flags {
            return;
        }
        self.cpus[ilb as usize].nohz_flags = pending | flags;
        if pending & (NOHZ_STATS_KICK | NOHZ_BALANCE_KICK) != 0 {
            return;
        }
        let t = self.now + self.idle_exit_ns(ilb) + self.cfg.switch_delay_ns;
        self.cpus[ilb as usize].nohz_kick_from = (cpu, self.now);
        self.push(t, Ev::NohzKick(ilb));
    }

    /// `nohz_csd_func`, the kick's IPI handler on the idle load balancer: it takes the pending
    /// flags and raises SCHED_SOFTIRQ only if the CPU is still idle (`idle_cpu`: no task
    /// queued, none on its way; a wakeup that reached it since the kick ends the kick there);
    /// the softirq then runs `nohz_idle_balance` → `_nohz_idle_balance` with those flags.
    pub(super) fn nohz_csd_func(&mut self, ilb: u32) {
        let flags = core::mem::take(&mut self.cpus[ilb as usize].nohz_flags);
        debug_assert!(flags != 0, "a kick's IPI with no work pending on cpu{ilb}");
        if !self.idle_cpu(ilb) {
            return;
        }
        let (from, sent) = self.cpus[ilb as usize].nohz_kick_from;
        let delay = u32::try_from(self.now - sent).unwrap_or(u32::MAX);
        self.nohz_kick = Some((from, delay));
        self.nohz_idle_balance(ilb, flags & NOHZ_BALANCE_KICK != 0, false);
        self.nohz_kick = None;
    }

    /// `_nohz_idle_balance(ilb, flags)` with NOHZ_STATS_KICK, and NOHZ_BALANCE_KICK when
    /// `balance`: walks the idle CPUs from the one after `ilb` (`for_each_cpu_wrap`), `ilb`
    /// last (or not at all when `skip_ilb`: a CPU on its way into idle is not yet in
    /// `nohz.idle_cpus_mask`), updating each one's blocked averages (`update_nohz_stats`) and,
    /// for a balance kick, balancing each whose `rq->next_balance` is due; then
    /// `nohz.next_blocked` is a PELT period (32 ms) on.
    fn nohz_idle_balance(&mut self, ilb: u32, balance: bool, skip_ilb: bool) {
        let n = self.cfg.cpus;
        // "We assume there will be no idle load after this update and clear the has_blocked
        // flag. If a cpu enters idle in the mean time, it will set the has_blocked flag and
        // trigger another update of idle load."
        self.nohz_has_blocked = false;
        let mut has_blocked = false;
        for k in 1..=n {
            let i = (ilb + k) % n;
            if !self.idle_cpu(i) || (skip_ilb && i == ilb) {
                continue;
            }
            has_blocked |= self.update_nohz_stats(i);
            if balance && self.jiffies() >= self.cpus[i as usize].next_balance {
                self.rebalance_domains(i, IdleType::Idle);
            }
        }
        self.nohz_next_blocked =
            self.jiffies() + (LOAD_AVG_PERIOD_MS * self.cfg.hz as u64).div_ceil(1000);
        if has_blocked {
            self.nohz_has_blocked = true;
        }
    }

    /// `update_nohz_stats`: an idle CPU's blocked averages, at most once a jiffy; whether it
    /// still has blocked load.
    fn update_nohz_stats(&mut self, cpu: u32) -> bool {
        let c = &self.cpus[cpu as usize];
        if !c.has_blocked_load {
            return false;
        }
        if self.jiffies() <= c.last_blocked_tick {
            return true;
        }
        self.update_blocked_averages(cpu);
        self.cpus[cpu as usize].has_blocked_load
    }

    /// `sched_balance_update_blocked_averages` (`update_blocked_averages` before 6.10): the
    /// CPU's PELT sums decayed to now, `rq->last_blocked_load_update_tick`, and
    /// `has_blocked_load` cleared once nothing is left to decay (`cfs_rq_has_blocked`: load
    /// and util averages at 0).
    pub(super) fn update_blocked_averages(&mut self, cpu: u32) {
        self.pelt_cfs(cpu);
        let jiffies = self.jiffies();
        let c = &mut self.cpus[cpu as usize];
        c.last_blocked_tick = jiffies;
        if c.avg.load_avg == 0 && c.avg.util_avg == 0 {
            c.has_blocked_load = false;
        }
    }

    /// `nohz_newidle_balance`, after a newidle balance that pulled nothing: if the CPU expects
    /// to stay idle a while (`avg_idle ≥ sysctl_sched_migration_cost`) and idle CPUs' blocked
    /// averages are due (`nohz.has_blocked`, `nohz.next_blocked` reached), the idle loop
    /// updates them (NOHZ_NEWILB_KICK → `nohz_run_idle_balance` → `_nohz_idle_balance(this,
    /// NOHZ_STATS_KICK)`).
    /// DEVIATION(kernel): run at once, where the kernel runs it from `do_idle` once the switch
    /// to idle is done (skipped if a wakeup came first).
    fn nohz_newidle_stats(&mut self, cpu: u32) {
        if self.cpus[cpu as usize].avg_idle < self.fair.p.migration_cost_ns
            || !self.nohz_has_blocked
            || self.jiffies() < self.nohz_next_blocked
        {
            return;
        }
        self.nohz_idle_balance(cpu, false, true);
    }

    /// `nohz_balancer_kick` (6.x) from a busy CPU's tick, for the cases the model has (no
    /// asym packing, misfit or reduced capacity): there are idle CPUs (tick stopped),
    /// `nohz.next_balance` (the earliest of theirs) is due, and this CPU has two or more tasks
    /// (`rq->nr_running >= 2`) or its LLC more than one busy CPU (`sds->nr_busy_cpus > 1`:
    /// "we may need to spread load within the current LLC domain").
    fn nohz_balancer_kick(&self, cpu: u32) -> bool {
        if self.idle_cpu(cpu) {
            return false;
        }
        let jiffies = self.jiffies();
        let next = (0..self.cfg.cpus)
            .filter(|&i| self.idle_cpu(i))
            .map(|i| self.cpus[i as usize].next_balance)
            .min();
        if next.is_none_or(|nb| jiffies < nb) {
            return false;
        }
        if self.cpus[cpu as usize].rq.nr_running >= 2 {
            return true;
        }
        let llc = cpu / self.llc * self.llc;
        let busy = (llc..(llc + self.llc).min(self.cfg.cpus))
            .filter(|&c| !self.idle_cpu(c))
            .count();
        busy > 1
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
        let ni_stats = self
            .fair
            .variant
            .version
            .available
            .contains(&Feature::NiRandom);
        let (mut need_decay, mut max_cost, mut continue_balancing) = (false, 0, true);
        for (level, d) in doms[..n].iter().enumerate() {
            // "Decay the newidle max times here because this is a regular visit to all the
            // domains" (update_newidle_cost(sd, 0)); need_decay keeps the last domain's answer.
            let st = &mut self.cpus[cpu as usize].lb[level].newidle;
            need_decay = st.update(0, jiffies, hz as u64, ni_stats, 0);
            max_cost += st.max_newidle_lb_cost;
            if !continue_balancing {
                // should_we_balance() said another CPU of the group balances it: higher
                // domains are left to that CPU too (but still decayed while they need it).
                if need_decay {
                    continue;
                }
                break;
            }
            let mut interval =
                balance_interval_jiffies(self.interval_ms(cpu, level, d), busy, hz, ncpus);
            if jiffies >= self.cpus[cpu as usize].lb[level].last_balance + interval {
                let (moved, go_on) = self.load_balance(cpu, level, d, idle);
                continue_balancing = go_on;
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
            } else {
                let last = self.cpus[cpu as usize].lb[level].last_balance;
                next_balance = next_balance.min(last + interval);
            }
        }
        let c = &mut self.cpus[cpu as usize];
        if need_decay {
            // "Ensure the rq-wide value also decays but keep it at a reasonable floor to avoid
            // funnies with rq->avg_idle."
            c.max_idle_balance_cost = max_cost.max(self.fair.p.migration_cost_ns);
        }
        c.next_balance = next_balance;
    }

    /// `newidle_balance` (`sched_balance_newidle` since 6.10): about to go idle, try to pull,
    /// lowest domain first, until a task came. The same in 6.1, 6.6, 6.12 and 6.19, but for
    /// 6.19's NI_RANDOM:
    /// - `rq->idle_stamp` is set first (ttwu's `avg_idle` measures from it);
    /// - nothing is tried when no CPU has a waiting task (`rd->overload`, 6.10+
    ///   `get_rd_overloaded`) or when `avg_idle` is below the lowest domain's
    ///   `max_newidle_lb_cost` (c5b0a7eefc70, v5.16: "the CPU will be idle for less time than
    ///   a newidle balance takes"), only `update_next_balance` of that domain;
    /// - else each domain in turn, stopping before one whose `max_newidle_lb_cost` added to
    ///   the cost spent so far exceeds `avg_idle`; each attempt's cost updates the domain's
    ///   `max_newidle_lb_cost` (`update_newidle_cost`) and the sum raises
    ///   `rq->max_idle_balance_cost`;
    /// - 6.19 NI_RANDOM: a domain is tried only when a 1024-sided die (`sched_rng`) does not
    ///   exceed 1 + `newidle_ratio`; a skip counts as a failed attempt, a success counts with
    ///   the weight 1024 / (1 + ratio) (rounded), so the ratio tracks the success rate.
    ///
    /// The 6.17/6.18 bump of the cost on failure (155213a2aed4: 3/2 × the maximum, capped at
    /// `sysctl_sched_migration_cost` + 200) is in none of the modelled versions (6.19 reverts
    /// it, d206fbad9328).
    ///
    /// DEVIATION(kernel): the kernel measures each attempt with `sched_clock_cpu`; the model's
    /// balancing takes no simulated time, and each attempt is recorded as costing
    /// [`NEWIDLE_COST_NS`] (it only feeds the gates above, it delays nothing).
    pub(super) fn newidle_balance(&mut self, cpu: u32) -> bool {
        if self.cfg.cpus == 1 {
            return false;
        }
        // "We must set idle_stamp _before_ calling idle_balance(), such that we measure the
        // duration of idle_balance() as idle time."
        self.cpus[cpu as usize].newidle_stamp = Some(self.now);
        let (doms, n) = self.domains(cpu);
        let (hz, ncpus) = (self.cfg.hz, self.cfg.cpus);
        let jiffies = self.jiffies();
        let ni_random = self.fair.variant.has(Feature::NiRandom);
        let ni_stats = self
            .fair
            .variant
            .version
            .available
            .contains(&Feature::NiRandom);
        // update_next_balance: the idle CPU's rq->next_balance moves forward to the domains'
        // idle intervals (the NOHZ kick balances it from then on).
        let mut next_balance = jiffies + hz as u64;
        let mut update_next = |sim: &mut Simulator, level: usize, d: &Domain| {
            let i = balance_interval_jiffies(sim.interval_ms(cpu, level, d), false, hz, ncpus);
            next_balance = next_balance.min(sim.cpus[cpu as usize].lb[level].last_balance + i);
        };
        let mut pulled = false;
        let avg_idle = self.cpus[cpu as usize].avg_idle;
        // "if (!READ_ONCE(this_rq->rd->overload) || this_rq->avg_idle <
        // sd->max_newidle_lb_cost)": no CPU has a waiting task, or no time to balance.
        let overloaded = self.cpus.iter().any(|c| c.rq.nr_running >= 2);
        if n == 0 {
        } else if !overloaded
            || avg_idle < self.cpus[cpu as usize].lb[0].newidle.max_newidle_lb_cost
        {
            update_next(self, 0, &doms[0]);
        } else {
            // sched_balance_update_blocked_averages before the newidle pull (its time is in
            // the first domain's cost).
            self.update_blocked_averages(cpu);
            let mut curr_cost = 0;
            for (level, d) in doms[..n].iter().enumerate() {
                update_next(self, level, d);
                let max_cost = self.cpus[cpu as usize].lb[level]
                    .newidle
                    .max_newidle_lb_cost;
                if avg_idle < curr_cost + max_cost {
                    break;
                }
                let mut weight = 1;
                if ni_random {
                    let c = &mut self.cpus[cpu as usize];
                    let d1k = c
                        .sched_rng
                        .as_mut()
                        .map_or(0, |r| r.next_u64() as u32 % 1024);
                    let w = 1 + c.lb[level].newidle.newidle_ratio;
                    if d1k > w {
                        c.lb[level].newidle.update_stats(0);
                        continue;
                    }
                    weight = (1024 + w / 2) / w;
                }
                self.cpus[cpu as usize].rq.stats.lb_newidle_count += 1;
                let (moved, _) = self.load_balance(cpu, level, d, IdleType::NewlyIdle);
                let success = weight * u32::from(moved > 0);
                let st = &mut self.cpus[cpu as usize].lb[level].newidle;
                st.update(NEWIDLE_COST_NS, jiffies, hz as u64, ni_stats, success);
                curr_cost += NEWIDLE_COST_NS;
                if moved > 0 {
                    self.cpus[cpu as usize].rq.stats.lb_newidle_pulled += 1;
                    pulled = true;
                }
                // "Stop searching for tasks to pull if there are now runnable tasks on this rq"
                // (6.10+ reads it from should_we_balance's continue_balancing, the same test).
                if pulled || self.cpus[cpu as usize].rq.nr_running > 0 {
                    break;
                }
            }
            let c = &mut self.cpus[cpu as usize];
            c.max_idle_balance_cost = c.max_idle_balance_cost.max(curr_cost);
        }
        let c = &mut self.cpus[cpu as usize];
        c.next_balance = c.next_balance.min(next_balance);
        if pulled {
            c.newidle_stamp = None;
        } else if n > 0 {
            self.nohz_newidle_stats(cpu);
        }
        pulled
    }

    /// `rq->avg_idle` at a wakeup onto `cpu` (`ttwu_do_activate`): if the CPU went newly idle
    /// since the last one, the time since then is a sample (capped at twice
    /// `max_idle_balance_cost`).
    /// DEVIATION(kernel): measured to the wakeup's enqueue, which the model does at once (the
    /// kernel enqueues a remote wakee when its IPI arrives).
    pub(super) fn ttwu_avg_idle(&mut self, cpu: u32) {
        let now = self.now;
        let c = &mut self.cpus[cpu as usize];
        if let Some(stamp) = c.newidle_stamp.take() {
            c.avg_idle = avg_idle_after_wakeup(c.avg_idle, now - stamp, c.max_idle_balance_cost);
        }
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

    /// `update_idle_cpu_scan`, from `update_sd_lb_stats` (SIS_UTIL): a periodic (not newly
    /// idle) balance of the LLC domain writes the LLC's `nr_idle_scan` from the sum of its
    /// CPUs' `cpu_util_cfs` (PELT util_avg capped at the capacity; no util_est).
    fn update_idle_cpu_scan(&mut self, this: u32, d: &Domain, idle: IdleType) {
        if !self.fair.variant.has(Feature::SisUtil)
            || idle == IdleType::NewlyIdle
            || d.weight() != self.llc
        {
            return;
        }
        let sum_util: u64 = (d.lo..d.hi).map(|c| self.cpu_util(c)).sum();
        let llc = (this / self.llc) as usize;
        self.nr_idle_scan[llc] = nr_idle_scan(sum_util, self.llc as u64, d.imbalance_pct);
    }

    /// `cpu_util_cfs` without util_est: the CPU's PELT util as last updated, capped at its
    /// capacity.
    fn cpu_util(&self, c: u32) -> u64 {
        self.cpus[c as usize].avg.util_avg.min(CAPACITY)
    }

    /// `task_util_est` without util_est: the task's PELT util as last updated.
    fn task_util(&self, t: Tid) -> u64 {
        self.tasks[t].avg.util_avg.min(CAPACITY)
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
            // cpu_util_cfs (without util_est) and cpu_runnable: the CPU's PELT averages as
            // last updated (its tick, an enqueue or dequeue, update_blocked_averages).
            s.group_util += self.cpu_util(c);
            s.group_runnable += self.cpus[c as usize].avg.runnable_avg;
            s.sum_nr_running += rq.nr_running as u64;
            s.sum_h_nr_running += self.nr_runnable(c) as u64;
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
        self.update_idle_cpu_scan(this, d, idle);
        let mut excluded: Vec<u32> = Vec::new();
        loop {
            // update_sd_lb_stats
            let local = self.group_stats(local_group.0, local_group.1, d.imbalance_pct);
            let (mut total_load, mut total_capacity) = (local.group_load, local.group_capacity);
            let mut busiest: Option<(GroupStats, u32)> = None;
            // sd->groups from the local group on: the first of equals stays busiest.
            for (lo, hi) in d.groups_from(this, group_size).skip(1) {
                let s = self.group_stats(lo, hi, d.imbalance_pct);
                total_load += s.group_load;
                total_capacity += s.group_capacity;
                if pick_busiest(&s, busiest.as_ref().map(|b| &b.0)) {
                    busiest = Some((s, lo));
                }
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
                sibling_imbalance: self.fair.sw.sibling_imbalance,
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
                // "Increment the failure counter only on periodic balance."
                if idle != IdleType::NewlyIdle {
                    st.lb[level].nr_balance_failed += 1;
                }
                let failed = st.lb[level].nr_balance_failed;
                if need_active_balance(mtype, failed, d.cache_nice_tries) {
                    // "Don't kick the active_load_balance_cpu_stop, if the curr task on
                    // busiest CPU can't be moved to this_cpu" (the idle task can't either).
                    let curr = self.cpus[src as usize].rq.curr;
                    if !curr.is_some_and(|c| self.allowed(c, this)) {
                        self.lb_one_pinned(this, level, d, idle, false);
                        return (0, true);
                    }
                    self.kick_active_balance(src, this);
                }
            } else {
                st.lb[level].nr_balance_failed = 0;
                st.rq.stats.lb_pulled += moved as u64;
            }
            // "We were unbalanced, so reset the balancing interval" (also after a kick of the
            // stopper: need_active_balance still holds).
            let st = &mut self.cpus[this as usize];
            st.lb[level].balance_interval_ms = d.weight();
            return (moved, true);
        }
    }

    /// `out_balanced` / `out_all_pinned` / `out_one_pinned`: balanced, so the failure count
    /// resets and (not when newly idle) the interval doubles up to `max_interval` =
    /// 2 × `sd_weight` (`MAX_PINNED_INTERVAL` when every task was pinned).
    fn lb_balanced(&mut self, this: u32, level: usize, d: &Domain, idle: IdleType, pinned: bool) {
        self.cpus[this as usize].lb[level].nr_balance_failed = 0;
        self.lb_one_pinned(this, level, d, idle, pinned);
    }

    /// `out_one_pinned`: the interval doubles (not when newly idle), the failure count stays.
    fn lb_one_pinned(&mut self, this: u32, level: usize, d: &Domain, idle: IdleType, pinned: bool) {
        let st = &mut self.cpus[this as usize].lb[level];
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
            let nr = self.nr_runnable(c) as u64;
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
                    // cpu_util_cfs_boost (6.6+) or cpu_util_cfs (6.1).
                    let util = self.cpu_util(c);
                    if self.fair.sw.runnable_boost {
                        util.max(self.cpus[c as usize].avg.runnable_avg.min(CAPACITY))
                    } else {
                        util
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
        let lb614 = self.fair.sw.balance_614;
        let migration_cost = self.fair.p.migration_cost_ns;
        let bc = &self.cpus[src as usize];
        let clock = bc.clock_task.max(self.now.saturating_sub(bc.irq_ns));
        let cache_hot_buddy = self.fair.variant.has(Feature::CacheHotBuddy);
        let dst_busy = self.cpus[this as usize].rq.nr_running > 0;
        let src_rq_next = bc.rq.next;
        // 6.6+ (EEVDF) dropped the last buddy and its test.
        let src_rq_last = bc.rq.last.filter(|_| self.fair.sw.class == Class::Cfs);
        // cfs_tasks holds every queued task, curr included, ordered by mru.
        let mut list: Vec<Tid> = bc.rq.tree.iter().chain(bc.rq.curr).collect();
        list.sort_by_key(|&t| self.ents[t].mru);
        let loop_max = NR_MIGRATE.min(bc.rq.nr_running);
        let mut all_pinned = true;
        let mut moved = 0;
        let mut pos = 0;
        let mut looked = 0;
        // Tasks passed over so far (decision records).
        let mut skipped = 0;
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
            // throttled_lb_pair: not to a CPU where the task's group is throttled.
            let mut hot = false;
            let mut buddy = false;
            // 6.14+: a delayed task only for migrate_load, and one not eligible on its run
            // queue only once the balancing has failed; both tests come before the affinity
            // test, so they leave LBF_ALL_PINNED set.
            let refused_614 = lb614
                && ((self.ents[t].sched_delayed && mtype != MigrationType::Load)
                    || (failed == 0 && self.ineligible_on_dst(t, src, this)));
            let ok = if refused_614 || !self.allowed(t, this) || self.bw_throttled_on(t, this) {
                false
            } else {
                all_pinned = false;
                let running = self.cpus[src as usize].rq.curr == Some(t);
                // A delayed task (6.12+) is a queued task here: 6.12 and 6.13 move it as any
                // other, and it stays delayed on its new queue until picked there.
                // task_hot: "Buddy candidates are cache hot" when the destination has tasks
                // (cfs_rq->next; CFS also cfs_rq->last), else by the time since it last ran.
                buddy = dst_busy && (src_rq_next == Some(t) || src_rq_last == Some(t));
                hot = d.imbalance_pct != 110 // SD_SHARE_CPUCAPACITY: siblings share cache
                    && !self.ents[t].idle()
                    && ((cache_hot_buddy && buddy)
                        || task_hot(clock, self.ents[t].exec_start, migration_cost));
                !running && (!hot || failed > d.cache_nice_tries)
            };
            let left = imbalance;
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
                        // task_util_est: the task's PELT util (no util_est); from 6.8
                        // relaxed with the failures as migrate_load is.
                        let util = self.task_util(t);
                        let bound = if self.fair.sw.util_shr_bound {
                            shr_bound(util, failed)
                        } else {
                            util
                        };
                        if bound > imbalance {
                            false
                        } else {
                            imbalance = imbalance.saturating_sub(util);
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
                skipped += 1;
                continue;
            }
            let why = Move {
                balance: match idle {
                    IdleType::NotIdle => Balance::Periodic,
                    IdleType::Idle => match self.nohz_kick {
                        Some((from, delay_ns)) => Balance::Kick { from, delay_ns },
                        None => Balance::Idle,
                    },
                    IdleType::NewlyIdle => Balance::Newidle,
                },
                level: level as u8,
                imbalance: Some((
                    match mtype {
                        MigrationType::Load => Imbalance::Load,
                        MigrationType::Util => Imbalance::Util,
                        MigrationType::Task => Imbalance::Task,
                    },
                    left,
                )),
                load: match mtype {
                    // Read again only for the record (nothing is computed when off).
                    MigrationType::Load if self.cfg.record_decisions => {
                        (self.task_load(t) as u64).max(1)
                    }
                    MigrationType::Load => 0,
                    MigrationType::Util => self.task_util(t),
                    MigrationType::Task => 1,
                },
                nr_balance_failed: failed,
                hot,
                buddy,
                skipped,
                eligible: self
                    .fair
                    .eligible_on(&self.cpus[src as usize].rq, &self.ents, t),
                delayed: self.ents[t].sched_delayed,
            };
            self.migrate_queued(t, src, this, why);
            moved += 1;
            // CONFIG_PREEMPTION: newidle balancing stops after the first task.
            if idle == IdleType::NewlyIdle || imbalance == 0 {
                break;
            }
        }
        (moved, moved == 0 && all_pinned)
    }

    /// `rq->cfs.h_nr_running` as the balancer counts it: the queued fair tasks, less the
    /// delayed ones from 6.14 (`h_nr_runnable`; 6.12 and 6.13 count them).
    pub(super) fn nr_runnable(&self, cpu: u32) -> u32 {
        let rq = &self.cpus[cpu as usize].rq;
        if self.fair.sw.balance_614 {
            rq.nr_running - rq.nr_delayed
        } else {
            rq.nr_running
        }
    }

    /// 6.14+ `task_is_ineligible_on_dst_cpu`: PLACE_LAG, the destination has entities of the
    /// task's group queued (`dst_cfs_rq->nr_queued`: for the root group any fair task, whose
    /// own group entity sits in the root), and the task is not eligible on `src` (read as the
    /// kernel last accounted curr: the balancer runs no `update_curr` on the source).
    fn ineligible_on_dst(&self, t: Tid, src: u32, dst: u32) -> bool {
        if !self.fair.variant.has(Feature::PlaceLag) {
            return false;
        }
        let d = &self.cpus[dst as usize].rq;
        let g = self.ents[t].group;
        let queued = d
            .tree
            .iter()
            .chain(d.curr.filter(|&c| self.ents[c].on_rq))
            .any(|o| g == 0 || self.ents[o].group == g);
        queued
            && !self
                .fair
                .eligible_on(&self.cpus[src as usize].rq, &self.ents, t)
    }

    /// `detach_task` + `attach_task`: move a queued, not running task between CPUs.
    pub(super) fn migrate_queued(&mut self, id: Tid, from: u32, to: u32, why: Move) {
        self.detach_task(id, from, to, to, why);
        self.attach_task(id, to);
        self.kick(from);
    }

    /// `detach_task`: `deactivate_task` (a dequeue that takes the averages along) and
    /// `set_task_cpu` (`sched_migrate_task`, traced on `trace_cpu`). The task is queued and
    /// not running on `from`.
    /// `why` is what the decision record says.
    pub(super) fn detach_task(&mut self, id: Tid, from: u32, to: u32, trace_cpu: u32, why: Move) {
        if self.cfg.record_decisions {
            let kind = DecisionKind::Move {
                pid: id as u32 + 1,
                src: from,
                dst: to,
                why,
            };
            self.rec.decide(self.now, trace_cpu, kind);
        }
        self.pelt_update(id);
        self.pelt_detach(id, from);
        self.with_rq(from, |f, c| f.dequeue_detach(c, id));
        self.group_update(from, None);
        self.bw_return_slack(from);
        self.emit(
            trace_cpu,
            EventKind::MigrateTask {
                pid: id as u32 + 1,
                orig_cpu: from,
                dest_cpu: to,
            },
        );
        // sched_info: the wait continues on the new CPU.
        self.tasks[id].cpu = to;
        self.tasks[id].stats.migrations += 1;
        // dequeue_task_fair ends in hrtick_update.
        self.clock_arm(from);
    }

    /// `attach_task`: `activate_task` on `to` and `wakeup_preempt` (`check_preempt_curr`).
    pub(super) fn attach_task(&mut self, id: Tid, to: u32) {
        self.pelt_attach(id, to);
        if self.bw_hold_attach(id, to) {
            // Its group is throttled on `to`: it waits there for the unthrottle.
            return;
        }
        self.group_update(to, Some(id));
        self.with_rq(to, |f, c| f.enqueue_attach(c, id));
        self.check_preempt_curr(to, id, false, false);
        // DEVIATION(kernel): no IPI or idle-exit delay for an idle target (`idle_wakeup_ns` is
        // applied to wakeups only).
        self.kick(to);
        // enqueue_task_fair ends in hrtick_update.
        self.clock_arm(to);
    }

    /// The end of `load_balance`'s failure path when `need_active_balance`: `busiest`'s
    /// stopper is queued (`stop_one_cpu_nowait`) to push a task to `this`, unless its work is
    /// queued already (`busiest->active_balance`). The stopper's wakeup preempts `busiest`'s
    /// task as a higher class does: it runs after the reschedule's δ.
    fn kick_active_balance(&mut self, busiest: u32, this: u32) {
        let c = &mut self.cpus[busiest as usize];
        if c.active_balance.is_none() {
            c.active_balance = Some(this);
            self.push(self.now + self.cfg.switch_delay_ns, Ev::Stopper(busiest));
        }
    }

    /// `active_load_balance_cpu_stop` on `busiest`'s stopper: `detach_one_task` walks
    /// `cfs_tasks` from its tail (least recently run first) for the first task that
    /// `can_migrate_task` allows with LBF_ACTIVE_LB (no cache-hot test; the task the stopper
    /// preempted is not running any more), detaches it and attaches it on the target. Counted
    /// as `alb_count`, `alb_pushed`, `alb_failed` of the target's domain (here the target
    /// CPU's counters); a push resets that domain's `nr_balance_failed`.
    pub(super) fn active_load_balance_cpu_stop(&mut self, busiest: u32) {
        let Some(target) = self.cpus[busiest as usize].active_balance.take() else {
            return;
        };
        // "Is there any task to move?": rq->nr_running counts the stopper itself.
        if self.cpus[busiest as usize].rq.nr_running == 0 {
            return;
        }
        let (doms, n) = self.domains(target);
        let Some(level) = doms[..n].iter().position(|d| d.contains(busiest)) else {
            return;
        };
        self.cpus[target as usize].rq.stats.alb_count += 1;
        let rq = &self.cpus[busiest as usize].rq;
        let mut list: Vec<Tid> = rq.tree.iter().chain(rq.curr).collect();
        list.sort_by_key(|&t| self.ents[t].mru);
        // A delayed task may go, as in detach_tasks (6.14+: the stopper's lb_env is
        // migrate_load, the enum's first value); 6.14+, one not eligible only once the
        // balancing has failed.
        let lb614 = self.fair.sw.balance_614;
        let failed = self.cpus[target as usize].lb[level].nr_balance_failed;
        let pick = list.into_iter().find(|&t| {
            self.allowed(t, target)
                && !(lb614 && failed == 0 && self.ineligible_on_dst(t, busiest, target))
                && !self.bw_throttled_on(t, target)
        });
        let Some(t) = pick else {
            self.cpus[target as usize].rq.stats.alb_failed += 1;
            return;
        };
        self.cpus[target as usize].rq.stats.alb_pushed += 1;
        let why = Move {
            balance: Balance::Active,
            level: level as u8,
            imbalance: None,
            load: if self.cfg.record_decisions {
                self.task_load(t) as u64
            } else {
                0
            },
            nr_balance_failed: self.cpus[target as usize].lb[level].nr_balance_failed,
            hot: false,
            buddy: false,
            skipped: 0,
            eligible: self
                .fair
                .eligible_on(&self.cpus[busiest as usize].rq, &self.ents, t),
            delayed: self.ents[t].sched_delayed,
        };
        self.cpus[target as usize].lb[level].nr_balance_failed = 0;
        if self.cpus[busiest as usize].rq.curr == Some(t) {
            // The stopper preempted it: __schedule puts it back and pushes it (stopper_push).
            self.stop_running(busiest, target, why);
        } else {
            // DEVIATION(kernel): the task the stopper preempted and that resumes after it is
            // not switched out and back in (no put_prev/set_next pair, no switch events).
            self.detach_task(t, busiest, target, busiest, why);
            self.attach_task(t, target);
        }
    }

    /// The stopper preempts `cpu`'s running task to push it to `target`: `__schedule` runs
    /// at once (the stopper's own δ has passed) and calls [`Simulator::stopper_push`].
    /// `why` is what the move's decision record says.
    pub(super) fn stop_running(&mut self, cpu: u32, target: u32, why: Move) {
        let rq = &mut self.cpus[cpu as usize].rq;
        if !rq.need_resched {
            rq.resched_cause = Some(crate::decision::Cause::Other);
        }
        rq.need_resched = true;
        self.cpus[cpu as usize].stop_push = Some((target, why));
        self.schedule(cpu);
    }

    /// In `__schedule` before the pick: if the stopper preempted `prev` to push it, put it
    /// back (`put_prev_task`), detach it and attach it on the target. Returns whether `prev`
    /// is gone from this CPU (then `__schedule` must not put it back again).
    pub(super) fn stopper_push(&mut self, cpu: u32, prev: Option<Tid>) -> bool {
        let Some((target, why)) = self.cpus[cpu as usize].stop_push.take() else {
            return false;
        };
        let Some(p) = prev else { return false };
        if self.cpus[cpu as usize].rq.curr != Some(p) || !self.ents[p].on_rq {
            return false;
        }
        self.with_rq(cpu, |f, c| f.put_prev(c, p));
        self.detach_task(p, cpu, target, cpu, why);
        self.attach_task(p, target);
        true
    }
}
