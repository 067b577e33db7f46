//! Counters the kernel keeps: `/proc/<pid>/schedstat`, `/proc/<pid>/status`, `/proc/schedstat`.

/// Per-task counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TaskStats {
    /// `se.sum_exec_runtime`.
    pub sum_exec_runtime_ns: u64,
    /// `sched_info.run_delay`: time runnable but waiting, from enqueue (not from sched_waking).
    pub run_delay_ns: u64,
    /// `sched_info.pcount`: times it got a CPU.
    pub pcount: u64,
    /// `nvcsw`: switches out because it blocked.
    pub voluntary_switches: u64,
    /// `nivcsw`: switches out because it was preempted.
    pub involuntary_switches: u64,
    /// Wakeups (`nr_wakeups`).
    pub wakeups: u64,
    /// Migrations to another CPU (`nr_migrations`).
    pub migrations: u64,
    /// CPU time charged for cache warmth (`SimConfig::cache`); absent from serialized output
    /// when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::stats::is_zero")
    )]
    pub cache_cost_ns: u64,
    /// I/O completions it reaped from device channels (`io_getevents`); absent from
    /// serialized output when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::stats::is_zero")
    )]
    pub io_completions: u64,
    /// Messages it read from pipes, sockets and futex words (a poll takes none; a device's
    /// completions count in `io_completions`); absent from serialized output when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::stats::is_zero")
    )]
    pub reads: u64,
    /// CPU time charged for reads that had to wait (`Channel::wait_ns`); absent from
    /// serialized output when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::stats::is_zero")
    )]
    pub wait_cost_ns: u64,
    /// CPU time spent spinning on held per-CPU locks (`Op::LockCpu`); absent from serialized
    /// output when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::stats::is_zero")
    )]
    pub spin_ns: u64,
    /// Most recent `sched_info.last_queued` (0 = not queued); internal.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) last_queued_ns: u64,
    /// `sched_info.last_arrival`; internal.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) last_arrival_ns: u64,
}

/// Per-CPU counters: the `/proc/schedstat` fields plus the wakeup-preemption counters that the
/// seed-000 thread added (Chen Yu's instrumentation) and the reasons a wakee preempted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuStats {
    /// `sched_count`: calls to `__schedule()`.
    pub sched_count: u64,
    /// `sched_goidle`: schedules that picked the idle task.
    pub sched_goidle: u64,
    /// `ttwu_count`: wakeups done by this CPU.
    pub ttwu_count: u64,
    /// `ttwu_local`: wakeups by this CPU of a task on this CPU.
    pub ttwu_local: u64,
    /// `rq_cpu_time`: time tasks spent on this CPU (sched_info departures).
    pub rq_cpu_time_ns: u64,
    /// `rq_sched_info.run_delay`.
    pub run_delay_ns: u64,
    /// `rq_sched_info.pcount`.
    pub pcount: u64,
    /// `check_preempt_count`: calls of the fair wakeup-preemption check (seed 000).
    pub check_preempt_count: u64,
    /// `need_preempt_count`: of those, the ones that preempted (seed 000).
    pub need_preempt_count: u64,
    /// `curr_noeli_preempt_count`: wakeup picks that set curr aside, ineligible or off the queue
    /// (`!curr->on_rq`: a newidle pull's check before the switch) (EEVDF, seed 000).
    pub curr_noeli_preempt_count: u64,
    /// `curr_lowdl_preempt_count`: preemptions although curr's deadline was earlier (seed 000).
    pub curr_lowdl_preempt_count: u64,
    /// `curr_lowgran_preempt_count`: preemptions CFS would have refused
    /// (curr.vruntime < wakee.vruntime + wakeup_granularity) (seed 000).
    pub curr_lowgran_preempt_count: u64,
    /// `curr_lownr_preempt_count`: preemptions with nr_running ≤ 2 (seed 000).
    pub curr_lownr_preempt_count: u64,
    /// Preemptions because curr was SCHED_IDLE and the wakee was not.
    pub preempt_idle_curr: u64,
    /// CFS preemptions by the wakeup granularity rule (vdiff > gran).
    pub preempt_wakeup_gran: u64,
    /// EEVDF preemptions where the pick chose the wakee over an ineligible curr, or with curr off
    /// the queue (a newidle pull's check).
    pub preempt_curr_ineligible: u64,
    /// EEVDF preemptions where the pick chose the wakee over an eligible, unprotected curr (an
    /// earlier deadline).
    pub preempt_earlier_deadline: u64,
    /// EEVDF preemptions after PREEMPT_SHORT cancelled curr's protection.
    pub preempt_short: u64,
    /// Preemptions by RESCHED_CURR_INELIGIBLE (the 2024 proposal) on a wakeup.
    pub preempt_resched_ineligible: u64,
    /// Tasks the load balancer pulled to this CPU (periodic, NOHZ idle and newidle balancing).
    pub lb_pulled: u64,
    /// Pulls by newidle balancing.
    pub lb_newidle_pulled: u64,
    /// `lb_count[CPU_NEWLY_IDLE]` summed over this CPU's domains: newidle balance attempts
    /// (`sched_balance_rq` runs), after the `avg_idle` gate and NI_RANDOM. Not serialized.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub lb_newidle_count: u64,
    /// Balancing attempts that found an imbalance but could move nothing.
    pub lb_failed: u64,
    /// Time the interrupt-load sources (`SimConfig::irq_load`) took on this CPU.
    pub irq_time_ns: u64,
    /// `alb_count`: active balances run by a stopper for this CPU (schedstat's per-domain
    /// counter, summed over this CPU's domains).
    pub alb_count: u64,
    /// `alb_pushed`: of those, the ones that pushed a task here.
    pub alb_pushed: u64,
    /// `alb_failed`: of those, the ones that found no task to push.
    pub alb_failed: u64,
}

/// Whether a counter is 0 (serde's `skip_serializing_if`).
#[allow(dead_code)]
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One bandwidth-limited group's `cpu.stat` (cgroup v1 names; v2 shows `throttled_time` as
/// `throttled_usec`), as the kernel would show it at the end of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BandwidthStats {
    /// The group's path.
    pub path: alloc::string::String,
    /// `nr_periods`: period-timer expiries while the timer was active.
    pub nr_periods: u64,
    /// `nr_throttled`: periods whose timer found the group throttled on some CPU.
    pub nr_throttled: u64,
    /// `throttled_time`: ns the group's run queues spent throttled, summed over CPUs, counted
    /// at each unthrottle (a throttle still on at the end is not in it, as in the kernel).
    pub throttled_time_ns: u64,
    /// `nr_bursts`: periods that used burst runtime (`cpu.max.burst`).
    pub nr_bursts: u64,
    /// `burst_time`: ns of runtime used above the quota.
    pub burst_time_ns: u64,
}
