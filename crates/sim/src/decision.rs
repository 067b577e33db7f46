//! Decision records: why the fair class did what it did, in fair.c's terms.
//!
//! Off by default (`SimConfig::record_decisions`); when off, nothing is built. Two kinds:
//!
//! - [`DecisionKind::Wakeup`]: every wakeup-preemption check that reached the fair class
//!   (`check_preempt_wakeup` in 6.1/6.6, `check_preempt_wakeup_fair` in 6.12/6.19; called
//!   `wakeup_preempt_fair` in later trees), with curr's and the wakee's state, the function
//!   and branch, and the outcome: the rule that made the wakee preempt, or the rule that kept
//!   curr running.
//! - [`DecisionKind::Preempt`]: every switch that takes the CPU from a runnable task (a
//!   `sched_switch` with `prev_state` R), with what raised TIF_NEED_RESCHED first
//!   (`resched_curr`): a wakeup and its rule, the tick (CFS `check_preempt_tick`'s two tests,
//!   EEVDF `update_deadline`), the hrtick, or the 2024 RESCHED_CURR_INELIGIBLE proposal.
//!   So every preemption in the trace has exactly one record.

use crate::trace::Pid;

/// What the fair class saw of one entity at a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityView {
    /// The task.
    pub pid: Pid,
    /// Its vruntime.
    pub vruntime: i64,
    /// Its virtual deadline (EEVDF; 0 under CFS).
    pub deadline: i64,
    /// V − vruntime (EEVDF lag in virtual time; under CFS, min_vruntime − vruntime).
    pub lag: i64,
    /// `entity_eligible` (EEVDF; always true under CFS).
    pub eligible: bool,
    /// Whether RUN_TO_PARITY's slice protection was in force for it (EEVDF curr only).
    pub protected: bool,
}

/// Why a wakee preempted curr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptRule {
    /// curr is SCHED_IDLE and the wakee is not (`se_is_idle(se) && !se_is_idle(pse)`).
    IdleCurr,
    /// CFS: `wakeup_preempt_entity` returned 1, curr's vruntime is more than the wakeup
    /// granularity ahead of the wakee's.
    WakeupGranularity,
    /// EEVDF: `pick_eevdf` chose the wakee because curr was not eligible (its vruntime past V).
    CurrIneligible,
    /// EEVDF: `pick_eevdf` chose the wakee, eligible with the earlier deadline, over an
    /// eligible curr with no protection in force.
    EarlierDeadline,
    /// 6.12+ PREEMPT_SHORT: a wakee with a shorter slice cancelled curr's protection.
    PreemptShort,
    /// 6.19 `preempt_sync`: a sync wakeup whose wakee has the earlier deadline, once curr ran
    /// `migration_cost_ns`.
    Sync,
    /// The 2024 RESCHED_CURR_INELIGIBLE proposal: curr was ineligible at the wakeup.
    ReschedIneligible,
}

/// Why a wakee did not preempt curr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepRule {
    /// TIF_NEED_RESCHED was already set (`test_tsk_need_resched(curr)`).
    AlreadyResched,
    /// NO_WAKEUP_PREEMPTION.
    WakeupPreemptionOff,
    /// The wakee is SCHED_BATCH or SCHED_IDLE (`p->policy != SCHED_NORMAL`), or one of the two
    /// is idle and the other not (`cse_is_idle != pse_is_idle`).
    Policy,
    /// The WAKEUP_DEADLINE proposal: curr's deadline is earlier than the wakee's.
    WakeupDeadline,
    /// CFS: curr is not more than the wakeup granularity ahead (`wakeup_preempt_entity` < 1).
    WakeupGranularity,
    /// EEVDF: curr was protected by RUN_TO_PARITY (`protect_slice`: its slice is not used up).
    Protected,
    /// EEVDF: `pick_eevdf` kept curr or chose another entity than the wakee (curr eligible with
    /// the earlier deadline, or a third task first).
    PickNotWakee,
    /// 6.19: a fork or a delayed wakee takes no part (`WF_FORK`, `sched_delayed`).
    ForkOrDelayed,
    /// 6.19: a sync wakeup before curr ran `migration_cost_ns` (`preempt_sync`).
    SyncTooSoon,
}

/// What raised TIF_NEED_RESCHED on the CPU first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A wakeup preemption: the wakee and the rule.
    Wakeup {
        /// The woken (or new) task.
        wakee: Pid,
        /// The rule that preempted.
        rule: PreemptRule,
    },
    /// The CPU was idle when a task was woken onto it (`resched_curr` on the idle task).
    IdleCpu,
    /// CFS `check_preempt_tick`: curr ran longer than its ideal slice.
    SliceUsed,
    /// CFS `check_preempt_tick`: curr's vruntime is more than a slice ahead of the leftmost.
    VruntimeAhead,
    /// EEVDF `update_deadline`: curr's vruntime reached its deadline (a new request).
    DeadlineReached,
    /// The hrtick fired at the end of the slice (HRTICK).
    Hrtick,
    /// The 2024 RESCHED_CURR_INELIGIBLE proposal at the tick.
    TickIneligible,
    /// Something outside the fair class's rules (a migration, the balancer's stopper).
    Other,
}

/// One decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Time in ns.
    pub t_ns: u64,
    /// The CPU whose run queue decided.
    pub cpu: u32,
    /// What was decided.
    pub kind: DecisionKind,
}

/// See [`Decision`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    /// A wakeup-preemption check.
    Wakeup {
        /// The kernel function and version whose branch decided.
        func: &'static str,
        /// The running task.
        curr: EntityView,
        /// The woken (or new) task.
        wakee: EntityView,
        /// V (EEVDF `avg_vruntime`; CFS `min_vruntime`).
        v: i64,
        /// `cfs_rq->nr_running` (with the wakee).
        nr_running: u32,
        /// The preempting rule, or the rule that kept curr.
        outcome: Result<PreemptRule, KeepRule>,
    },
    /// A switch away from a runnable task.
    Preempt {
        /// The task switched out (still runnable).
        prev: Pid,
        /// The task switched in (0: idle).
        next: Pid,
        /// What raised the reschedule.
        cause: Cause,
    },
}

impl PreemptRule {
    /// A short sentence in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            PreemptRule::IdleCurr => "curr is SCHED_IDLE and the wakee is not",
            PreemptRule::WakeupGranularity => {
                "curr's vruntime is more than the wakeup granularity ahead of the wakee's"
            }
            PreemptRule::CurrIneligible => {
                "curr was ineligible (its vruntime past V), so pick_eevdf chose the wakee"
            }
            PreemptRule::EarlierDeadline => {
                "the wakee is eligible with the earlier deadline and nothing protected curr"
            }
            PreemptRule::PreemptShort => {
                "PREEMPT_SHORT: the wakee's shorter slice cancelled curr's protection"
            }
            PreemptRule::Sync => "a sync wakeup with the earlier deadline (preempt_sync)",
            PreemptRule::ReschedIneligible => "RESCHED_CURR_INELIGIBLE: curr was ineligible",
        }
    }
}

impl KeepRule {
    /// A short sentence in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            KeepRule::AlreadyResched => "a reschedule was already pending",
            KeepRule::WakeupPreemptionOff => "NO_WAKEUP_PREEMPTION",
            KeepRule::Policy => "the policies (batch/idle) rule out preemption",
            KeepRule::WakeupDeadline => "WAKEUP_DEADLINE: curr's deadline is earlier",
            KeepRule::WakeupGranularity => {
                "curr is not more than the wakeup granularity ahead of the wakee"
            }
            KeepRule::Protected => "RUN_TO_PARITY protected curr until its slice ends",
            KeepRule::PickNotWakee => {
                "pick_eevdf did not choose the wakee (curr eligible with the earlier deadline, or another task first)"
            }
            KeepRule::ForkOrDelayed => "a new or delayed wakee does not preempt (6.19)",
            KeepRule::SyncTooSoon => "a sync wakeup before curr ran migration_cost_ns",
        }
    }
}

impl Cause {
    /// A short sentence in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            Cause::Wakeup { rule, .. } => rule.text(),
            Cause::IdleCpu => "a task was woken onto the idle CPU",
            Cause::SliceUsed => "the tick: curr ran its ideal slice (check_preempt_tick)",
            Cause::VruntimeAhead => {
                "the tick: curr's vruntime is a slice ahead of the leftmost (check_preempt_tick)"
            }
            Cause::DeadlineReached => {
                "curr's vruntime reached its deadline: a new request (update_deadline)"
            }
            Cause::Hrtick => "the hrtick at the end of the slice",
            Cause::TickIneligible => "RESCHED_CURR_INELIGIBLE at the tick: curr was ineligible",
            Cause::Other => "outside the fair class (migration)",
        }
    }
}
