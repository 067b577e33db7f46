//! The arithmetic of `sched_balance_rq` as pure functions of its inputs: the balance interval,
//! `task_hot`, `shr_bound`, group statistics and `group_classify`, and `find_busiest_group` with
//! `calculate_imbalance`. The balancer in `mod.rs` gathers the inputs from the runqueues.

/// `SCHED_CAPACITY_SCALE`: one CPU's capacity, and the unit of `util_avg`/`runnable_avg`.
pub(super) const CAPACITY: u64 = 1024;
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
    /// Σ `rq->nr_running` (= `sum_h_nr_running` with a flat hierarchy).
    pub sum_nr_running: u64,
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
    if sgs.sum_nr_running == 0 {
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
        if busiest.sum_nr_running == 1 {
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
            // with equal core counts: the difference of running tasks, halved).
            (
                MigrationType::Task,
                busiest.sum_nr_running.saturating_sub(local.sum_nr_running) >> 1,
            )
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
}
