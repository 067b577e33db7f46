//! Decision records: why the fair class did what it did, in fair.c's terms.
//!
//! Off by default (`SimConfig::record_decisions`); when off, nothing is built. The kinds:
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
//! - [`DecisionKind::Pick`]: every pick of `__schedule` (`pick_next_task_fair` →
//!   `pick_next_entity`/`pick_eevdf`), with the rule that chose (curr kept under protection,
//!   the earliest eligible deadline, the CFS leftmost, a buddy, the only task, idle). Every
//!   `sched_switch` has exactly one, and a pick that keeps prev has none (`prev == next`).
//! - [`DecisionKind::Place`]: every `place_entity` at an enqueue, with the lag before and
//!   after PLACE_LAG's inflation, the deadline given and the features that applied (CFS: the
//!   sleeper credit and START_DEBIT).
//! - [`DecisionKind::Delay`] and [`DecisionKind::DelayEnd`] (6.12+ DELAY_DEQUEUE): a task that
//!   blocked while ineligible stays queued, until it is picked (and dequeued) or woken
//!   (`requeue_delayed_entity`).
//! - [`DecisionKind::Select`]: every CPU selection, `select_task_rq_fair` at a wakeup (with
//!   `wake_wide`, `wake_affine`'s result and `select_idle_sibling`'s) and `find_idlest_cpu` at
//!   a fork.
//! - [`DecisionKind::Move`]: every task the load balancer (periodic, NOHZ idle, newidle, the
//!   active balance's stopper) or an affinity change moves, with the imbalance and why this task.
//!
//! So every `sched_migrate_task` has exactly one [`DecisionKind::Select`] (a wakeup) or
//! [`DecisionKind::Move`] record.

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
    /// Whether it is queued (`on_rq`): curr is not once it blocked, until the switch.
    pub queued: bool,
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
    /// EEVDF: curr has left the queue (it blocked, and a newidle balance during its
    /// `__schedule` pulled the wakee: `attach_task` → `wakeup_preempt` before the switch), so
    /// `pick_eevdf` set it aside (`!curr->on_rq`) and chose the wakee.
    CurrDequeued,
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
    /// The WAKEUP_PARITY proposal (seed 000's RUN_TO_PARITY): curr is eligible.
    WakeupParity,
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

/// The rule by which `__schedule`'s pick chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickRule {
    /// Nothing runnable: the idle task.
    Idle,
    /// A class above fair (SCHED_FIFO/SCHED_RR) had a task: the fair class was not asked.
    HigherClass,
    /// One entity queued: 6.8+ `pick_eevdf` returns it without testing eligibility (CFS and
    /// 6.6: the lone runnable task).
    Only,
    /// EEVDF: curr is eligible and its slice protection holds (RUN_TO_PARITY: 6.6–6.16 the
    /// vlag == deadline marker, 6.17+ `protect_slice`), so `pick_eevdf` keeps it.
    Protected,
    /// The WAKEUP_PARITY proposal: the wakeup check's pick keeps an eligible curr.
    WakeupParity,
    /// EEVDF: the eligible entity with the earliest deadline (curr or a queued one).
    EarliestDeadline,
    /// EEVDF: no eligible entity ("EEVDF scheduling fail"): the leftmost.
    Fallback,
    /// CFS `pick_next_entity`: the leftmost, the smallest vruntime (curr included).
    Leftmost,
    /// The next buddy: CFS when not more than the wakeup granularity ahead of the leftmost,
    /// EEVDF NEXT_BUDDY (6.6–6.12) / PICK_BUDDY (6.19) when eligible.
    NextBuddy,
    /// CFS LAST_BUDDY: the task a wakeup preempted, not more than the wakeup granularity ahead
    /// of the leftmost.
    LastBuddy,
}

/// Why an entity was placed (the enqueue that called `place_entity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// A new task (`wake_up_new_task`, ENQUEUE_INITIAL in 6.12+).
    New,
    /// A wakeup on the CPU it slept on (ENQUEUE_WAKEUP).
    Wakeup,
    /// A wakeup onto another CPU (ENQUEUE_WAKEUP | ENQUEUE_MIGRATED).
    Migrated,
    /// The load balancer's `attach_task` (EEVDF re-places by lag).
    Attach,
    /// `requeue_delayed_entity` with DELAY_ZERO: a delayed task woken with positive lag is
    /// re-placed with lag 0.
    DelayZero,
    /// `reweight_entity`: a queued task's weight changed (its group's shares), and it is
    /// placed again with its lag scaled by old/new weight.
    Reweight,
}

/// Which `place_entity` rules applied (a set of bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaceRules(pub u8);

impl PlaceRules {
    /// EEVDF PLACE_LAG: vruntime = V − lag, the saved lag inflated by (W + w)/W.
    pub const PLACE_LAG: u8 = 1;
    /// EEVDF PLACE_DEADLINE_INITIAL: a new task's first deadline is half a slice away.
    pub const PLACE_DEADLINE_INITIAL: u8 = 2;
    /// EEVDF PLACE_REL_DEADLINE (6.12+): the deadline kept relative across a migration.
    pub const PLACE_REL_DEADLINE: u8 = 4;
    /// CFS: the sleeper credit (vruntime no less than min_vruntime − thresh).
    pub const SLEEPER_CREDIT: u8 = 8;
    /// CFS GENTLE_FAIR_SLEEPERS: the credit is half of sched_latency.
    pub const GENTLE_FAIR_SLEEPERS: u8 = 16;
    /// CFS START_DEBIT: a new task starts a vslice after min_vruntime.
    pub const START_DEBIT: u8 = 32;
    /// CFS: the task's own vruntime was larger and was kept ("never gain time by being placed
    /// backwards").
    pub const KEPT_OWN: u8 = 64;

    /// Whether `bit` is set.
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// The set rules by their fair.c names, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        const NAMES: [&str; 7] = [
            "PLACE_LAG",
            "PLACE_DEADLINE_INITIAL",
            "PLACE_REL_DEADLINE",
            "sleeper credit",
            "GENTLE_FAIR_SLEEPERS",
            "START_DEBIT",
            "own vruntime kept",
        ];
        (0..7)
            .filter(move |i| self.0 & (1 << i) != 0)
            .map(|i| NAMES[i])
    }
}

/// What `place_entity` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The task placed.
    pub pid: Pid,
    /// The enqueue that placed it.
    pub why: Enqueue,
    /// EEVDF: V (`avg_vruntime`) before the task joins; CFS: `min_vruntime`.
    pub v: i64,
    /// EEVDF: `se->vlag`, the lag the task left with; CFS: its vruntime before placement.
    pub vlag: i64,
    /// EEVDF: the lag placed (after inflation; vruntime = V − lag); CFS: the sleeper credit
    /// (positive, below min_vruntime) or START_DEBIT (negative, above it).
    pub lag: i64,
    /// EEVDF: W, the weight queued before it (curr included), of the (W + w)/W inflation.
    pub load: i64,
    /// The vruntime given.
    pub vruntime: i64,
    /// The deadline given (EEVDF; 0 under CFS).
    pub deadline: i64,
    /// EEVDF: `calc_delta_fair(se->slice, se)`, the virtual slice; CFS: 0.
    pub vslice: i64,
    /// The rules that applied.
    pub rules: PlaceRules,
}

/// How a delayed dequeue ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayEnd {
    /// `pick_next_entity` picked it while delayed: dequeued for good, the pick goes on.
    Picked,
    /// Woken while still queued: `ttwu_runnable` → `requeue_delayed_entity`.
    Woken,
    /// Its group was throttled (`throttle_cfs_rq` finishes the dequeue).
    Throttled,
}

/// `wake_affine`'s part of a wakeup's CPU selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Affine {
    /// Not tried: no `current` (an interrupt on an idle CPU), `wake_wide`, or the waker's
    /// CPU is not allowed (`want_affine` false).
    NotWanted,
    /// The waker runs on the wakee's previous CPU: nothing to choose.
    SameCpu,
    /// `wake_affine_idle`: the waker's CPU is idle and shares the cache (prev if idle too).
    IdleThis,
    /// `wake_affine_idle`: a sync wakeup and the waker alone on its CPU.
    Sync,
    /// `wake_affine_idle`: the previous CPU is idle.
    IdlePrev,
    /// `wake_affine_weight` (WA_WEIGHT, WA_BIAS): the waker's CPU is less loaded.
    Weight,
    /// Neither: the previous CPU.
    Prev,
}

/// `select_idle_sibling`'s answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sis {
    /// Not run (a fork, or one CPU).
    NotRun,
    /// The target is idle.
    Target,
    /// The previous CPU is idle and shares the cache.
    Prev,
    /// The waker is a per-CPU kthread alone on the wakee's previous CPU: stacked there.
    KthreadStack,
    /// `recent_used_cpu` is idle.
    Recent,
    /// An idle core (`select_idle_core`).
    IdleCore,
    /// An idle SMT sibling of prev (`select_idle_smt`).
    IdleSmt,
    /// An idle CPU found by the scan of the LLC (`select_idle_cpu`).
    Scan,
    /// Nothing idle: the target.
    Busy,
    /// SIS_UTIL limited the scan of the LLC to this many CPUs (`nr_idle_scan`), none of them
    /// idle: the target.
    SisUtil(u32),
    /// The target is not allowed: the first allowed CPU.
    Fallback,
}

/// The path of a CPU selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectPath {
    /// One CPU in the machine (or in the task's affinity): no choice.
    OnlyCpu,
    /// `find_idlest_cpu` (`sched_balance_find_dst_cpu`), a fork: the forking CPU's group kept
    /// unless `find_idlest_group` found an idler one; in the group the most recently idled CPU,
    /// else the least loaded; `idle`: the CPU chosen is idle.
    Fork {
        /// Whether it found an idle CPU.
        idle: bool,
    },
    /// `select_task_rq_fair`'s fast path at a wakeup.
    Wakeup {
        /// `wake_wide` said to spread out.
        wide: bool,
        /// A sync wakeup (WF_SYNC).
        sync: bool,
        /// `wake_affine`'s result.
        affine: Affine,
        /// The target `wake_affine` left (the waker's CPU or prev).
        target: u32,
        /// `select_idle_sibling`'s answer.
        sis: Sis,
        /// The `wakee_flips` `wake_wide` compared: the waker's (`current`'s: for a wakeup from
        /// an interrupt the task it came in on) and the wakee's; `[0, 0]` when there was no
        /// `current` (an idle CPU's interrupt).
        flips: [u32; 2],
        /// `wake_affine_weight`'s `this_eff_load` and `prev_eff_load`, when it compared them
        /// (the waker's CPU wins when the first is the smaller).
        eff_load: Option<[i64; 2]>,
    },
}

/// Which balance moved a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Balance {
    /// `sched_balance_rq` from a busy CPU's periodic softirq (CPU_NOT_IDLE).
    Periodic,
    /// `sched_balance_rq` for an idle CPU (CPU_IDLE) from its own softirq.
    Idle,
    /// `sched_balance_rq` for an idle CPU (CPU_IDLE) from the NOHZ kick: a busy CPU's tick
    /// sent `kick_ilb`'s IPI, whose handler (`nohz_csd_func`) raised the softirq that runs
    /// `_nohz_idle_balance`.
    Kick {
        /// The CPU whose tick kicked.
        from: u32,
        /// From the kick to its IPI's handler, in ns (the idle CPU's exit from idle).
        delay_ns: u32,
    },
    /// `sched_balance_newidle` (CPU_NEWLY_IDLE), a CPU about to go idle.
    Newidle,
    /// The active balance: the stopper pushes a task off the busiest CPU
    /// (`active_load_balance_cpu_stop`, `detach_one_task`).
    Active,
    /// An affinity change moved a running task (`migration_cpu_stop`).
    Affinity,
}

/// `calculate_imbalance`'s migration type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imbalance {
    /// migrate_load: move load (`task_h_load`).
    Load,
    /// migrate_util: move utilization.
    Util,
    /// migrate_task: move a number of tasks.
    Task,
}

/// What the balancer knew when it moved a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// Which balance.
    pub balance: Balance,
    /// The sched-domain level (0: the lowest) balanced.
    pub level: u8,
    /// The migration type and the imbalance left before this task (None: active/affinity).
    pub imbalance: Option<(Imbalance, u64)>,
    /// The task's load (`task_h_load`; migrate_util: its util) before `shr_bound`.
    pub load: u64,
    /// `sd->nr_balance_failed` (the shift of `shr_bound(load, nr_balance_failed)`).
    pub nr_balance_failed: u32,
    /// `task_hot` said cache hot, and it moved anyway (`nr_balance_failed` >
    /// `cache_nice_tries`).
    pub hot: bool,
    /// It was its run queue's buddy (`cfs_rq->next`, on CFS also `cfs_rq->last`) and the
    /// destination had tasks: with CACHE_HOT_BUDDY, `task_hot` calls it hot for that.
    pub buddy: bool,
    /// Tasks passed over before it: running, delayed, pinned, cache hot, too heavy or (6.14+)
    /// not eligible.
    pub skipped: u32,
    /// It was eligible on its source run queue (`entity_eligible`, curr as last accounted;
    /// always under CFS, which has no eligibility).
    /// 6.14+ `can_migrate_task` moves a task that is not only once the domain's balancing has
    /// failed, or to a CPU with none of its group's entities queued (873199d27bb2).
    pub eligible: bool,
    /// It was delayed (blocked, kept queued by DELAY_DEQUEUE): 6.14+ moves one for
    /// migrate_load only, and it stays delayed on its new run queue.
    pub delayed: bool,
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
    /// A pick of `__schedule`.
    Pick {
        /// The kernel function whose rule chose.
        func: &'static str,
        /// The task that ran before (0: idle).
        prev: Pid,
        /// The task chosen (0: idle); equal to `prev`, no switch follows.
        next: Pid,
        /// How.
        rule: PickRule,
        /// The chosen entity as the pick saw it (None: idle or a higher class).
        chosen: Option<EntityView>,
        /// prev when it was still queued (the pick weighed it against the others).
        curr: Option<EntityView>,
        /// V (EEVDF `avg_vruntime`; CFS `min_vruntime`).
        v: i64,
        /// `cfs_rq->nr_running` at the pick (delayed entities included).
        nr_running: u32,
    },
    /// `place_entity` at an enqueue.
    Place {
        /// The kernel function and version.
        func: &'static str,
        /// What it did.
        place: Placement,
    },
    /// DELAY_DEQUEUE: the task blocked while ineligible and stays queued (`sched_delayed`).
    Delay {
        /// The task.
        pid: Pid,
        /// V − vruntime at the dequeue (negative: ineligible).
        lag: i64,
    },
    /// A delayed dequeue ends.
    DelayEnd {
        /// The task.
        pid: Pid,
        /// How.
        how: DelayEnd,
        /// Its lag then (`se->vlag` after `update_entity_lag`, before DELAY_ZERO).
        lag: i64,
        /// DELAY_ZERO cleared a positive lag.
        zeroed: bool,
    },
    /// A CPU selection.
    Select {
        /// The task.
        pid: Pid,
        /// Its previous CPU (`task_cpu(p)`).
        prev_cpu: u32,
        /// The waker's CPU (None: a fork).
        waker_cpu: Option<u32>,
        /// The CPU chosen.
        cpu: u32,
        /// How.
        path: SelectPath,
    },
    /// The balancer (or an affinity change) moved a task.
    Move {
        /// The task.
        pid: Pid,
        /// From.
        src: u32,
        /// To.
        dst: u32,
        /// Why.
        why: Move,
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
            PreemptRule::CurrDequeued => {
                "curr has left the queue (it blocked; a newidle pull checks before the switch), so pick_eevdf set it aside"
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
            KeepRule::WakeupParity => "WAKEUP_PARITY: a wakeup does not preempt an eligible curr",
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

impl PickRule {
    /// A short sentence in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            PickRule::Idle => "nothing runnable: idle",
            PickRule::HigherClass => "a SCHED_FIFO/RR task first (the class above fair)",
            PickRule::Only => "the only queued entity",
            PickRule::Protected => "curr kept: eligible and protected by RUN_TO_PARITY",
            PickRule::WakeupParity => "curr kept: eligible, and WAKEUP_PARITY keeps it at a wakeup",
            PickRule::EarliestDeadline => "the earliest eligible deadline",
            PickRule::Fallback => "no eligible entity: the leftmost",
            PickRule::Leftmost => "the leftmost (smallest vruntime)",
            PickRule::NextBuddy => "the next buddy",
            PickRule::LastBuddy => "the last buddy",
        }
    }
}

impl Enqueue {
    /// The enqueue in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            Enqueue::New => "new task",
            Enqueue::Wakeup => "wakeup",
            Enqueue::Migrated => "wakeup, migrated",
            Enqueue::Attach => "attach (load balance)",
            Enqueue::DelayZero => "requeue_delayed_entity, DELAY_ZERO",
            Enqueue::Reweight => "reweight_entity",
        }
    }
}

impl DelayEnd {
    /// How it ended, in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            DelayEnd::Picked => "picked while delayed: dequeued (pick_next_entity)",
            DelayEnd::Woken => "woken while queued (requeue_delayed_entity)",
            DelayEnd::Throttled => "its group was throttled (throttle_cfs_rq)",
        }
    }
}

impl Affine {
    /// The result in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            Affine::NotWanted => {
                "no wake_affine (an idle CPU's interrupt, wake_wide, or the waker's CPU not allowed)"
            }
            Affine::SameCpu => "the waker runs on prev",
            Affine::IdleThis => "wake_affine_idle: the waker's CPU is idle",
            Affine::Sync => "wake_affine_idle: sync, the waker alone on its CPU",
            Affine::IdlePrev => "wake_affine_idle: prev is idle",
            Affine::Weight => "wake_affine_weight: the waker's CPU is less loaded",
            Affine::Prev => "wake_affine: prev",
        }
    }
}

impl Sis {
    /// The answer in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            Sis::NotRun => "no select_idle_sibling",
            Sis::Target => "select_idle_sibling: the target is idle",
            Sis::Prev => "select_idle_sibling: prev is idle",
            Sis::KthreadStack => {
                "select_idle_sibling: a per-CPU kthread alone on prev woke it: stacked on prev"
            }
            Sis::Recent => "select_idle_sibling: recent_used_cpu is idle",
            Sis::IdleCore => "select_idle_sibling: an idle core",
            Sis::IdleSmt => "select_idle_sibling: an idle SMT sibling",
            Sis::Scan => "select_idle_sibling: an idle CPU in the LLC",
            Sis::Busy => "select_idle_sibling: nothing idle, the target",
            Sis::SisUtil(0) => {
                "select_idle_sibling: SIS_UTIL: the LLC is too busy to scan (nr_idle_scan 0), the target"
            }
            Sis::SisUtil(_) => {
                "select_idle_sibling: SIS_UTIL: nothing idle in the nr_idle_scan CPUs scanned, the target"
            }
            Sis::Fallback => "the target is not allowed: the first allowed CPU",
        }
    }
}

impl Balance {
    /// The balance in fair.c's terms.
    pub fn text(self) -> &'static str {
        match self {
            Balance::Periodic => "periodic balance (sched_balance_rq, CPU_NOT_IDLE)",
            Balance::Idle => "idle balance (sched_balance_rq, CPU_IDLE)",
            Balance::Kick { .. } => "NOHZ idle balance (sched_balance_rq, CPU_IDLE)",
            Balance::Newidle => "newidle balance (sched_balance_newidle)",
            Balance::Active => "active balance (active_load_balance_cpu_stop)",
            Balance::Affinity => "affinity change (migration_cpu_stop)",
        }
    }
}

impl Imbalance {
    /// The migration type's name in fair.c.
    pub fn name(self) -> &'static str {
        match self {
            Imbalance::Load => "migrate_load",
            Imbalance::Util => "migrate_util",
            Imbalance::Task => "migrate_task",
        }
    }
}

impl DecisionKind {
    /// A short name of the kind.
    pub fn name(&self) -> &'static str {
        match self {
            DecisionKind::Wakeup { .. } => "wakeup",
            DecisionKind::Preempt { .. } => "preempt",
            DecisionKind::Pick { .. } => "pick",
            DecisionKind::Place { .. } => "place",
            DecisionKind::Delay { .. } => "delay",
            DecisionKind::DelayEnd { .. } => "delay-end",
            DecisionKind::Select { .. } => "select",
            DecisionKind::Move { .. } => "move",
        }
    }

    /// The tasks the record is about (0 left out).
    pub fn pids(&self) -> [Pid; 2] {
        match *self {
            DecisionKind::Wakeup { curr, wakee, .. } => [curr.pid, wakee.pid],
            DecisionKind::Preempt { prev, next, .. } | DecisionKind::Pick { prev, next, .. } => {
                [prev, next]
            }
            DecisionKind::Place { place, .. } => [place.pid, 0],
            DecisionKind::Delay { pid, .. }
            | DecisionKind::DelayEnd { pid, .. }
            | DecisionKind::Select { pid, .. }
            | DecisionKind::Move { pid, .. } => [pid, 0],
        }
    }
}
