//! The arithmetic of `sched_balance_rq` as pure functions of its inputs: the balance interval,
//! `task_hot`, `shr_bound`, group statistics and `group_classify`, and `find_busiest_group` with
//! `calculate_imbalance`. The balancer in `mod.rs` gathers the inputs from the runqueues.

/// `SCHED_CAPACITY_SCALE`: one CPU's capacity, and the unit of `util_avg`/`runnable_avg`.
pub(crate) const CAPACITY: u64 = 1024;
/// `sysctl_sched_nr_migrate` (32 on PREEMPT_RT-less kernels): `detach_tasks`'s `loop_max`.
pub(super) const NR_MIGRATE: u32 = 32;
/// `MAX_PINNED_INTERVAL`: the balance interval's cap when every task was pinned (ms).
pub(super) const MAX_PINNED_INTERVAL_MS: u64 = 512;

/// `get_sd_balance_interval`: `interval_ms` (the domain's `balance_interval`, which starts at
/// `sd_weight` ms) × `busy_factor` (16) when this CPU is busy, converted to jiffies (rounded
/// up), minus one jiffy when busy ("preventing their balancing periods from being multiples of
/// each other"), clamped to [1, `max_load_balance_interval` = HZ × ncpus / 10].
pub fn balance_interval_jiffies(interval_ms: u32, busy: bool, hz: u32, ncpus: u32) -> u64 {
    let mut ms = interval_ms as u64;
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

/// `need_active_balance` for the cases the model has (no asym packing, misfit or reduced
/// capacity): `imbalanced_active_balance`, a migrate_task imbalance after more than
/// `cache_nice_tries + 2` failed periodic balances.
pub fn need_active_balance(
    mtype: MigrationType,
    nr_balance_failed: u32,
    cache_nice_tries: u32,
) -> bool {
    mtype == MigrationType::Task && nr_balance_failed > cache_nice_tries + 2
}

/// `shr_bound`: `val >> shift`, the shift bounded by the type's width.
pub fn shr_bound(val: u64, shift: u32) -> u64 {
    val >> shift.min(63)
}

/// `update_avg` (core.c): `avg += (sample − avg) / 8`, in signed 64-bit arithmetic (the division
/// truncates toward zero, as C's does).
pub fn update_avg(avg: u64, sample: u64) -> u64 {
    let diff = sample as i64 - avg as i64;
    (avg as i64 + diff / 8) as u64
}

/// `rq->avg_idle` after a wakeup onto a CPU that went newly idle `idle_ns` before
/// (`ttwu_do_activate`; `ttwu_do_wakeup` in 6.1): `update_avg` of the idle duration, capped at
/// twice `rq->max_idle_balance_cost`.
pub fn avg_idle_after_wakeup(avg_idle: u64, idle_ns: u64, max_idle_balance_cost: u64) -> u64 {
    update_avg(avg_idle, idle_ns).min(2 * max_idle_balance_cost)
}

/// A sched domain's newidle bookkeeping (`struct sched_domain`): the largest measured cost of a
/// newidle balance of it, decayed by 253/256 once a second, and (6.19, NI_RANDOM) its success
/// statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewidleCost {
    /// `sd->max_newidle_lb_cost` (ns); 0 at `sd_init`.
    pub max_newidle_lb_cost: u64,
    /// `sd->last_decay_max_lb_cost` (jiffies); `jiffies` at `sd_init` (0 here).
    pub last_decay_max_lb_cost: u64,
    /// `sd->newidle_call` (6.19); 512 at `sd_init` ("50% success rate").
    pub newidle_call: u32,
    /// `sd->newidle_success` (6.19); 256 at `sd_init`.
    pub newidle_success: u32,
    /// `sd->newidle_ratio` (6.19): successes per 1024 attempts; 512 at `sd_init`.
    pub newidle_ratio: u32,
}

impl Default for NewidleCost {
    fn default() -> Self {
        NewidleCost {
            max_newidle_lb_cost: 0,
            last_decay_max_lb_cost: 0,
            newidle_call: 512,
            newidle_success: 256,
            newidle_ratio: 512,
        }
    }
}

impl NewidleCost {
    /// `update_newidle_stats` (6.19, 33cf66d88306): count an attempt and its (weighted)
    /// success; every 1024 attempts the ratio is the successes, and both counts halve.
    pub fn update_stats(&mut self, success: u32) {
        self.newidle_call += 1;
        self.newidle_success += success;
        if self.newidle_call >= 1024 {
            self.newidle_ratio = self.newidle_success;
            self.newidle_call /= 2;
            self.newidle_success /= 2;
        }
    }

    /// `update_newidle_cost`: a larger cost becomes the maximum (and restarts the decay
    /// clock); otherwise, more than HZ jiffies after the last decay, the maximum decays by
    /// 253/256 ("~1% per second") and this returns true. With `stats` (6.19) a non-zero cost
    /// also counts an attempt with `success` (`update_newidle_stats`).
    pub fn update(&mut self, cost: u64, jiffies: u64, hz: u64, stats: bool, success: u32) -> bool {
        if stats && cost != 0 {
            self.update_stats(success);
        }
        if cost > self.max_newidle_lb_cost {
            self.max_newidle_lb_cost = cost;
            self.last_decay_max_lb_cost = jiffies;
        } else if jiffies > self.last_decay_max_lb_cost + hz {
            self.max_newidle_lb_cost = self.max_newidle_lb_cost * 253 / 256;
            self.last_decay_max_lb_cost = jiffies;
            return true;
        }
        false
    }
}

/// `update_idle_cpu_scan` (SIS_UTIL, 70fb5ccf2ebb, v6.0+): how many CPUs `select_idle_cpu` may
/// scan in an LLC of `llc_weight` CPUs whose PELT util sums to `sum_util`:
/// x = sum_util / llc_weight, y = 1024 − min(x² · pct² / (10000 · 1024), 1024),
/// nr_idle_scan = y · llc_weight / 1024 — none once the LLC is ~85 % (100/117) busy.
pub fn nr_idle_scan(sum_util: u64, llc_weight: u64, imbalance_pct: u64) -> u32 {
    let x = sum_util / llc_weight.max(1);
    let tmp = (x * x * imbalance_pct * imbalance_pct / (10000 * CAPACITY)).min(CAPACITY);
    let y = CAPACITY - tmp;
    (y * llc_weight / CAPACITY) as u32
}

/// `enum group_type`, in the kernel's order (a higher value is busier); only the types the
/// modelled topologies produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupType {
    /// `group_has_spare`: the group has spare capacity (an idle CPU, or low util).
    #[default]
    HasSpare,
    /// `group_fully_busy`: no spare capacity, but no task waits either.
    FullyBusy,
    /// `group_overloaded`: more tasks than CPUs and the CPUs are saturated.
    Overloaded,
}

/// `enum migration_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrationType {
    /// `migrate_load`: move load (weights).
    Load,
    /// `migrate_util`: move utilisation.
    Util,
    /// `migrate_task`: move a number of tasks.
    Task,
}

/// `struct sg_lb_stats`, the part the decisions read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Σ `cpu_load`.
    pub group_load: u64,
    /// Σ `cpu_util_cfs`.
    pub group_util: u64,
    /// Σ `cpu_runnable`.
    pub group_runnable: u64,
    /// Σ `rq->nr_running`: queued tasks, delayed ones included.
    pub sum_nr_running: u64,
    /// Σ `rq->cfs.h_nr_running` (6.14+: `h_nr_runnable`, delayed tasks left out): the tasks
    /// there are to pull.
    pub sum_h_nr_running: u64,
    /// CPUs of the group that are idle.
    pub idle_cpus: u64,
    /// CPUs in the group.
    pub group_weight: u64,
    /// Σ `capacity_of`.
    pub group_capacity: u64,
    /// `group_load × SCHED_CAPACITY_SCALE / group_capacity`, computed only for an overloaded
    /// group (and for the local group in `calculate_imbalance`).
    pub avg_load: u64,
    /// `group_classify`.
    pub group_type: GroupType,
}

/// `group_is_overloaded`: more tasks than CPUs, and util or runnable beyond capacity by
/// `imbalance_pct`.
pub fn group_is_overloaded(imbalance_pct: u64, s: &GroupStats) -> bool {
    if s.sum_nr_running <= s.group_weight {
        return false;
    }
    s.group_capacity * 100 < s.group_util * imbalance_pct
        || s.group_capacity * imbalance_pct < s.group_runnable * 100
}

/// `group_has_capacity`: fewer tasks than CPUs, or runnable and util below capacity by
/// `imbalance_pct`.
pub fn group_has_capacity(imbalance_pct: u64, s: &GroupStats) -> bool {
    if s.sum_nr_running < s.group_weight {
        return true;
    }
    if s.group_capacity * imbalance_pct < s.group_runnable * 100 {
        return false;
    }
    s.group_capacity * 100 > s.group_util * imbalance_pct
}

/// `group_classify` for the types modelled.
pub fn group_classify(imbalance_pct: u64, s: &GroupStats) -> GroupType {
    if group_is_overloaded(imbalance_pct, s) {
        GroupType::Overloaded
    } else if !group_has_capacity(imbalance_pct, s) {
        GroupType::FullyBusy
    } else {
        GroupType::HasSpare
    }
}

/// `update_sd_pick_busiest` for the types modelled: the busier type wins; among overloaded
/// groups the higher `avg_load`; among fully busy ones the first (their `avg_load` is not
/// computed, so it is 0 for all); among groups with spare capacity the one with fewer idle
/// CPUs, then more tasks.
pub fn pick_busiest(sgs: &GroupStats, busiest: Option<&GroupStats>) -> bool {
    // "Make sure that there is at least one task to pull."
    if sgs.sum_h_nr_running == 0 {
        return false;
    }
    let Some(b) = busiest else {
        return true;
    };
    if sgs.group_type != b.group_type {
        return sgs.group_type > b.group_type;
    }
    match sgs.group_type {
        GroupType::Overloaded => sgs.avg_load > b.avg_load,
        GroupType::FullyBusy => sgs.avg_load > b.avg_load,
        GroupType::HasSpare => {
            sgs.idle_cpus < b.idle_cpus
                || (sgs.idle_cpus == b.idle_cpus && sgs.sum_nr_running > b.sum_nr_running)
        }
    }
}

/// The domain-wide part of `struct sd_lb_stats` and `struct lb_env` that the decision reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainStats {
    /// Σ `group_load` over the domain's groups.
    pub total_load: u64,
    /// Σ `group_capacity`.
    pub total_capacity: u64,
    /// `sd->imbalance_pct`.
    pub imbalance_pct: u64,
    /// `env->idle != CPU_NOT_IDLE`.
    pub this_idle: bool,
    /// `sd->flags & SD_SHARE_LLC`.
    pub llc_domain: bool,
    /// `sds->prefer_sibling`: the child domain has SD_PREFER_SIBLING (every non-NUMA level
    /// above the lowest).
    pub prefer_sibling: bool,
    /// 6.6+ (`VersionSwitches::sibling_imbalance`): a busy CPU's has-spare balance moves
    /// nothing through the prefer-sibling path.
    pub sibling_imbalance: bool,
}

/// What `find_busiest_group` + `calculate_imbalance` decide: `None` is `out_balanced`.
pub fn find_busiest_group(
    local: &GroupStats,
    busiest: &GroupStats,
    sds: &DomainStats,
) -> Option<(MigrationType, u64)> {
    let DomainStats {
        total_load,
        total_capacity,
        imbalance_pct,
        this_idle,
        llc_domain,
        prefer_sibling,
        sibling_imbalance,
    } = *sds;
    let mut local = *local;
    // "If the local group is busier than the selected busiest group don't try and pull any
    // tasks."
    if local.group_type > busiest.group_type {
        return None;
    }
    let avg = |s: &GroupStats| s.group_load * CAPACITY / s.group_capacity.max(1);
    let sds_avg_load = total_load * CAPACITY / total_capacity.max(1);
    if local.group_type == GroupType::Overloaded {
        // "When groups are overloaded, use the avg_load to ensure fairness between tasks."
        local.avg_load = avg(&local);
        if local.avg_load >= busiest.avg_load || local.avg_load >= sds_avg_load {
            return None;
        }
        if 100 * busiest.avg_load <= imbalance_pct * local.avg_load {
            return None;
        }
    }
    // (prefer_sibling with sibling_imbalance() > 1 goes straight to force_balance; the checks
    // it skips below never reject that case in the modelled topologies.)
    if busiest.group_type != GroupType::Overloaded {
        if !this_idle {
            // "If the busiest group is not overloaded (and as a result the local one too) but
            // this CPU is already busy, let another idle CPU try to pull task."
            return None;
        }
        if busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
            return None;
        }
        if busiest.sum_h_nr_running == 1 {
            // "busiest doesn't have any tasks waiting to run"
            return None;
        }
    }
    // calculate_imbalance
    let r = if local.group_type == GroupType::HasSpare {
        if busiest.group_type > GroupType::FullyBusy && !llc_domain {
            // Fill the local group's spare capacity with util.
            let imb = local.group_capacity.max(local.group_util) - local.group_util;
            if this_idle && imb == 0 {
                (MigrationType::Task, 1)
            } else {
                (MigrationType::Util, imb)
            }
        } else if busiest.group_weight == 1 || prefer_sibling {
            // "When prefer sibling, evenly spread running tasks on groups" (sibling_imbalance
            // with equal core counts: the difference of running tasks, halved). 6.6+:
            // sibling_imbalance "if (env->idle == CPU_NOT_IDLE || !busiest->sum_nr_running)
            // return 0;".
            let nr = if sibling_imbalance && !this_idle {
                0
            } else {
                busiest.sum_nr_running.saturating_sub(local.sum_nr_running)
            };
            (MigrationType::Task, nr >> 1)
        } else {
            // "If there is no overload, we just want to even the number of idle CPUs."
            (
                MigrationType::Task,
                local.idle_cpus.saturating_sub(busiest.idle_cpus) >> 1,
            )
        }
    } else {
        if local.group_type < GroupType::Overloaded {
            // "Local will become overloaded so the avg_load metrics are finally needed."
            local.avg_load = avg(&local);
            if local.avg_load >= busiest.avg_load || local.avg_load >= sds_avg_load {
                return None;
            }
        }
        // Bring both to the average, taking no more than either side can give or take.
        let a = (busiest.avg_load.saturating_sub(sds_avg_load)) * busiest.group_capacity;
        let b = (sds_avg_load.saturating_sub(local.avg_load)) * local.group_capacity;
        (MigrationType::Load, a.min(b) / CAPACITY)
    };
    (r.1 > 0).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(nr: u64, load: u64, running: bool) -> GroupStats {
        let mut s = GroupStats {
            group_load: load,
            group_util: if running { 1024 } else { 0 },
            group_runnable: nr * 1024,
            sum_nr_running: nr,
            sum_h_nr_running: nr,
            idle_cpus: u64::from(nr == 0),
            group_weight: 1,
            group_capacity: 1024,
            ..GroupStats::default()
        };
        s.group_type = group_classify(117, &s);
        if s.group_type == GroupType::Overloaded {
            s.avg_load = s.group_load * 1024 / s.group_capacity;
        }
        s
    }

    fn sds(total_load: u64, this_idle: bool) -> DomainStats {
        DomainStats {
            total_load,
            total_capacity: 2048,
            imbalance_pct: 117,
            this_idle,
            llc_domain: true,
            prefer_sibling: false,
            sibling_imbalance: true,
        }
    }

    /// Three nice-0 hogs on two CPUs: the CPU with one pulls from the CPU with two only the
    /// load that brings both to the average (imbalance = min(2048 − 1536, 1536 − 1024) = 512),
    /// so a 1024 hog fits only once `nr_balance_failed` ≥ 1 (1024 >> 1 = 512); the CPU with
    /// two never pulls from the one with one (its local group is busier).
    #[test]
    fn three_hogs_on_two_cpus() {
        let one = cpu(1, 1024, true);
        let two = cpu(2, 2048, true);
        assert_eq!(one.group_type, GroupType::FullyBusy);
        assert_eq!(two.group_type, GroupType::Overloaded);
        assert_eq!(
            find_busiest_group(&one, &two, &sds(3072, false)),
            Some((MigrationType::Load, 512))
        );
        assert_eq!(find_busiest_group(&two, &one, &sds(3072, false)), None);
        assert!(shr_bound(1024, 0) > 512 && shr_bound(1024, 1) <= 512);
    }

    /// `update_avg` from `sched_init`'s 1 ms toward 1 µs samples: 1_000_000 − 999_000/8 =
    /// 875_125, then 875_125 − 874_125/8 (= 109_265.6, truncated) = 765_860; a long sample
    /// is capped at 2 × `max_idle_balance_cost`.
    #[test]
    fn avg_idle_is_update_avg_capped() {
        assert_eq!(avg_idle_after_wakeup(1_000_000, 1_000, 500_000), 875_125);
        assert_eq!(avg_idle_after_wakeup(875_125, 1_000, 500_000), 765_860);
        assert_eq!(
            avg_idle_after_wakeup(1_000_000, 5_000_000, 500_000),
            1_000_000
        );
        // A rising sample: 1_000 + (9_000 / 8 = 1_125).
        assert_eq!(update_avg(1_000, 10_000), 2_125);
    }

    /// `update_newidle_cost`: a higher cost is the new maximum; otherwise, once more than HZ
    /// jiffies passed since the last decay, 5_000 · 253/256 = 4_941 (4_941.4) and "need decay".
    #[test]
    fn newidle_cost_tracks_the_maximum_and_decays_once_a_second() {
        let mut c = NewidleCost::default();
        assert!(!c.update(5_000, 10, 250, false, 0));
        assert_eq!(
            (c.max_newidle_lb_cost, c.last_decay_max_lb_cost),
            (5_000, 10)
        );
        assert!(!c.update(0, 260, 250, false, 0));
        assert!(c.update(0, 261, 250, false, 0));
        assert_eq!(
            (c.max_newidle_lb_cost, c.last_decay_max_lb_cost),
            (4_941, 261)
        );
        assert!(!c.update(3_000, 262, 250, false, 0));
        assert_eq!(c.max_newidle_lb_cost, 4_941);
    }

    /// 6.19's `update_newidle_stats` from `sd_init`'s 512 calls, 256 successes, ratio 512: 512
    /// failures reach 1024 calls, so ratio = 256 and both counts halve; a zero cost counts
    /// nothing (`if (cost) update_newidle_stats`).
    #[test]
    fn newidle_stats_follow_the_success_rate() {
        let mut c = NewidleCost::default();
        c.update(0, 0, 250, true, 0);
        assert_eq!(c.newidle_call, 512);
        for _ in 0..511 {
            c.update(5_000, 0, 250, true, 0);
        }
        assert_eq!((c.newidle_call, c.newidle_ratio), (1023, 512));
        c.update(5_000, 0, 250, true, 0);
        assert_eq!(
            (c.newidle_call, c.newidle_success, c.newidle_ratio),
            (512, 128, 256)
        );
        // A success at ratio 512 weighs (1024 + 513/2) / 513 = 2.
        assert_eq!((1024 + 513 / 2) / 513, 2);
    }

    /// `update_idle_cpu_scan`: an idle LLC scans all its CPUs; 8 CPUs at half util: x = 512,
    /// 512² · 117² / 10_240_000 = 350 (350.4), y = 674, 674 · 8 / 1024 = 5 (5.27); at 85 %
    /// (x = 875: 1023.5 → 1023, y = 1) 8/1024 rounds to 0; two CPUs, one busy: 2 · 674 /
    /// 1024 = 1.
    #[test]
    fn sis_util_scan_depth() {
        assert_eq!(nr_idle_scan(0, 8, 117), 8);
        assert_eq!(nr_idle_scan(8 * 512, 8, 117), 5);
        assert_eq!(nr_idle_scan(8 * 875, 8, 117), 0);
        assert_eq!(nr_idle_scan(8 * 1024, 8, 117), 0);
        assert_eq!(nr_idle_scan(1024, 2, 117), 1);
        assert_eq!(nr_idle_scan(0, 2, 117), 2);
    }

    /// 6.14+ counts the tasks there are to pull without the delayed ones (`h_nr_runnable` in
    /// `sum_h_nr_running`): a CPU whose one queued task is delayed (blocked, kept queued by
    /// DELAY_DEQUEUE) is no busiest group ("Make sure that there is at least one task to
    /// pull"), where 6.12 and 6.13 count it; one running task beside a delayed one is a lone
    /// task to an idle CPU that would even the idle CPUs ("busiest doesn't have any tasks
    /// waiting to run"), though the CPU counts two queued.
    #[test]
    fn delayed_tasks_are_not_there_to_pull_from_6_14() {
        let mut lone = cpu(1, 1024, false);
        assert!(pick_busiest(&lone, None));
        lone.sum_h_nr_running = 0;
        assert!(!pick_busiest(&lone, None));
        let idle = cpu(0, 0, false);
        let mut pair = GroupStats {
            group_load: 1024,
            group_util: 512,
            group_runnable: 512,
            sum_nr_running: 2,
            sum_h_nr_running: 2,
            group_weight: 1,
            group_capacity: 1024,
            ..GroupStats::default()
        };
        pair.group_type = group_classify(117, &pair);
        assert_eq!(pair.group_type, GroupType::HasSpare);
        let sds = sds(1024, true);
        assert!(find_busiest_group(&idle, &pair, &sds).is_some());
        pair.sum_h_nr_running = 1;
        assert_eq!(find_busiest_group(&idle, &pair, &sds), None);
    }

    /// An idle CPU beside one with two tasks takes one task (migrate_task, (2 − 0) >> 1), and
    /// nothing from a CPU with a single task.
    #[test]
    fn idle_cpu_takes_one_task() {
        let idle = cpu(0, 0, false);
        assert_eq!(idle.group_type, GroupType::HasSpare);
        assert_eq!(
            find_busiest_group(&idle, &cpu(2, 2048, true), &sds(2048, true)),
            Some((MigrationType::Task, 1))
        );
        assert_eq!(
            find_busiest_group(&idle, &cpu(1, 1024, true), &sds(1024, true)),
            None
        );
    }

    /// In an LLC domain whose groups are SMT pairs, a pair with one CPU busy (the balancing
    /// CPU) and one idle has spare capacity; the busiest pair runs six tasks. From the idle CPU (CPU_IDLE, CPU_NEWLY_IDLE)
    /// every version evens the running tasks: (6 − 1) >> 1 = 2. From the busy CPU's periodic
    /// balance (CPU_NOT_IDLE) 6.1 does the same, while 6.6+'s `sibling_imbalance` returns 0
    /// for CPU_NOT_IDLE: nothing to move, so the balance is out_balanced.
    #[test]
    fn a_busy_cpu_evens_sibling_groups_only_before_6_6() {
        let pair = |nr: u64, idle: u64| {
            let mut s = GroupStats {
                group_load: nr * 1024,
                group_util: (2 - idle) * 1024,
                group_runnable: nr * 1024,
                sum_nr_running: nr,
                sum_h_nr_running: nr,
                idle_cpus: idle,
                group_weight: 2,
                group_capacity: 2048,
                ..GroupStats::default()
            };
            s.group_type = group_classify(117, &s);
            if s.group_type == GroupType::Overloaded {
                s.avg_load = s.group_load * 1024 / s.group_capacity;
            }
            s
        };
        let (local, busiest) = (pair(1, 1), pair(6, 0));
        assert_eq!(local.group_type, GroupType::HasSpare);
        assert_eq!(busiest.group_type, GroupType::Overloaded);
        let domain = |this_idle: bool, sibling_imbalance: bool| DomainStats {
            total_load: 7 * 1024,
            total_capacity: 4096,
            imbalance_pct: 117,
            this_idle,
            llc_domain: true,
            prefer_sibling: true,
            sibling_imbalance,
        };
        for sibling_imbalance in [false, true] {
            assert_eq!(
                find_busiest_group(&local, &busiest, &domain(true, sibling_imbalance)),
                Some((MigrationType::Task, 2))
            );
        }
        assert_eq!(
            find_busiest_group(&local, &busiest, &domain(false, false)),
            Some((MigrationType::Task, 2))
        );
        assert_eq!(
            find_busiest_group(&local, &busiest, &domain(false, true)),
            None
        );
    }
}
