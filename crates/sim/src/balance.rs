//! Load-balancing arithmetic (`kernel/sched/fair.c`: `get_sd_balance_interval`, `task_hot`).
//!
//! Pure functions with the kernel's numbers, unit-tested here; the balancer in `engine.rs` uses
//! them for periodic and newidle balancing.

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
