//! The `features.h` toggles the model implements, the ones it rejects with a reason, and the
//! bit set a variant keeps them in. Each toggle's doc says what it does and its default; which
//! kernel versions have it is in [`KERNEL_VERSIONS`](super::KERNEL_VERSIONS).

use core::fmt;

/// A `features.h` toggle (or a proposal from a seed thread, marked as such).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Feature {
    /// CFS: halve the sleeper credit (latency/2 instead of latency). Default on.
    GentleFairSleepers,
    /// CFS: a new task starts one vslice after min_vruntime. Default on.
    StartDebit,
    /// CFS: prefer re-running the task a wakeup preempted (only with ≥ sched_nr_latency queued). On.
    LastBuddy,
    /// Prefer the last-woken task (CFS: needs ≥ sched_nr_latency queued; EEVDF: must be eligible). Off.
    NextBuddy,
    /// CFS: clamp sched_slice from below by min_granularity (idle_min_granularity for idle). On.
    BaseSlice,
    /// EEVDF: keep lag across sleep and migration, with the (W + w)/W inflation. On.
    PlaceLag,
    /// EEVDF: a new task's first deadline is half a slice (ineffective in 6.6, see ARCHITECTURE.md). On.
    PlaceDeadlineInitial,
    /// EEVDF 6.12+: keep the deadline relative to vruntime over a non-sleep dequeue/enqueue. On.
    PlaceRelDeadline,
    /// EEVDF: no wakeup preemption of an eligible curr until its slice (6.17+: the shortest queued
    /// slice) is used up. On.
    RunToParity,
    /// EEVDF 6.12+: a wakee with a shorter slice may cancel curr's slice protection. On.
    PreemptShort,
    /// EEVDF 6.19: honour `cfs_rq->next` in the pick. On.
    PickBuddy,
    /// EEVDF 6.12+: ineligible sleepers stay queued until picked or woken. On.
    DelayDequeue,
    /// EEVDF 6.12+: clip positive lag to 0 when a delayed entity is dequeued or requeued. On.
    DelayZero,
    /// Allow wakeup preemption at all. On.
    WakeupPreemption,
    /// Enforce the slice with an hrtimer instead of the tick. Off.
    Hrtick,
    /// CFS: let the periodic tick check preemption while an hrtick is armed. Off.
    DoubleTick,
    /// `wake_affine_idle`: pull a wakee to an idle waker CPU, or keep it on an idle prev. On.
    WaIdle,
    /// `wake_affine_weight`: pull a wakee to the waker's CPU when that is less loaded. On.
    WaWeight,
    /// Bias `wake_affine_weight` toward prev by half the domain's imbalance_pct. On.
    WaBias,
    /// NI_RANDOM (6.19, 33cf66d88306): newidle balancing of a domain runs with a probability
    /// that follows its success rate (a 1024-sided die against `newidle_ratio`). On.
    NiRandom,
    /// SIS_UTIL (70fb5ccf2ebb, v6.0+): `select_idle_cpu` scans at most `nr_idle_scan` CPUs of
    /// the LLC, a number the periodic balance of the LLC domain derives from the LLC's PELT
    /// util (`update_idle_cpu_scan`): none once the LLC is ~85 % busy. On (6.1+).
    SisUtil,
    /// Proposal (seed 000, Peter Zijlstra, Aug 2023; never merged): after `update_curr` in the
    /// wakeup-preemption check, give up if the wakee's deadline is later than curr's.
    WakeupDeadline,
    /// Proposal (seed 003, May 2024, Chunxin Zang, "sched/fair: Reschedule the cfs_rq when current
    /// is ineligible", v1; never merged and never a feature upstream): at the end of the tick and
    /// on a wakeup (before the wakee is considered), reschedule curr whenever it is ineligible.
    ReschedIneligible,
    /// `task_hot`: a buddy (`cfs_rq->next`; CFS also `cfs_rq->last`) is cache hot to a balance
    /// onto a CPU that has tasks, so it moves only after `cache_nice_tries` failures. On.
    CacheHotBuddy,
    /// Proposal (seed 000, Aug 2023: Chen Yu's form of Mike Galbraith's RUN_TO_PARITY patch,
    /// the one the thread's RUN_TO_PARITY figures were measured with; never merged in this
    /// form): the wakeup-preemption check's `pick_eevdf(cfs_rq, 1)` returns curr whenever curr
    /// is queued and eligible, so a wakeup preempts only an ineligible curr; the pick at
    /// `schedule()` (`pick_eevdf(cfs_rq, 0)`) protects nothing. Off; with RUN_TO_PARITY off it is
    /// the thread's kernel.
    WakeupParity,
}

/// All features, in `features.h` order.
pub const ALL_FEATURES: [Feature; 25] = [
    Feature::GentleFairSleepers,
    Feature::StartDebit,
    Feature::LastBuddy,
    Feature::NextBuddy,
    Feature::CacheHotBuddy,
    Feature::BaseSlice,
    Feature::PlaceLag,
    Feature::PlaceDeadlineInitial,
    Feature::PlaceRelDeadline,
    Feature::RunToParity,
    Feature::WakeupParity,
    Feature::PreemptShort,
    Feature::PickBuddy,
    Feature::DelayDequeue,
    Feature::DelayZero,
    Feature::WakeupPreemption,
    Feature::Hrtick,
    Feature::DoubleTick,
    Feature::SisUtil,
    Feature::WaIdle,
    Feature::WaWeight,
    Feature::WaBias,
    Feature::NiRandom,
    Feature::WakeupDeadline,
    Feature::ReschedIneligible,
];

impl Feature {
    /// The `features.h` name.
    pub fn name(self) -> &'static str {
        match self {
            Feature::GentleFairSleepers => "GENTLE_FAIR_SLEEPERS",
            Feature::StartDebit => "START_DEBIT",
            Feature::LastBuddy => "LAST_BUDDY",
            Feature::NextBuddy => "NEXT_BUDDY",
            Feature::BaseSlice => "BASE_SLICE",
            Feature::PlaceLag => "PLACE_LAG",
            Feature::PlaceDeadlineInitial => "PLACE_DEADLINE_INITIAL",
            Feature::PlaceRelDeadline => "PLACE_REL_DEADLINE",
            Feature::RunToParity => "RUN_TO_PARITY",
            Feature::PreemptShort => "PREEMPT_SHORT",
            Feature::PickBuddy => "PICK_BUDDY",
            Feature::DelayDequeue => "DELAY_DEQUEUE",
            Feature::DelayZero => "DELAY_ZERO",
            Feature::WakeupPreemption => "WAKEUP_PREEMPTION",
            Feature::Hrtick => "HRTICK",
            Feature::DoubleTick => "DOUBLE_TICK",
            Feature::WaIdle => "WA_IDLE",
            Feature::WaWeight => "WA_WEIGHT",
            Feature::WaBias => "WA_BIAS",
            Feature::NiRandom => "NI_RANDOM",
            Feature::SisUtil => "SIS_UTIL",
            Feature::WakeupDeadline => "WAKEUP_DEADLINE",
            Feature::ReschedIneligible => "RESCHED_CURR_INELIGIBLE",
            Feature::CacheHotBuddy => "CACHE_HOT_BUDDY",
            Feature::WakeupParity => "WAKEUP_PARITY",
        }
    }

    /// One line on what the toggle does, for help texts and the page's checkboxes.
    pub fn summary(self) -> &'static str {
        match self {
            Feature::GentleFairSleepers => {
                "halve the sleeper credit (latency/2 instead of latency)"
            }
            Feature::StartDebit => "a new task starts one vslice after min_vruntime",
            Feature::LastBuddy => "prefer re-running the task a wakeup preempted (>= 8 queued)",
            Feature::NextBuddy => "prefer the last-woken task",
            Feature::BaseSlice => "clamp the slice from below by min_granularity",
            Feature::PlaceLag => "keep lag across sleep, inflated by (W + w)/W at placement",
            Feature::PlaceDeadlineInitial => "a new task's first deadline is half a slice",
            Feature::PlaceRelDeadline => "keep the deadline relative over a migration",
            Feature::RunToParity => "protect curr from wakeup preemption until its slice ends",
            Feature::PreemptShort => "a shorter-slice wakee may cancel curr's protection",
            Feature::PickBuddy => "honour the next buddy in the pick",
            Feature::DelayDequeue => "ineligible sleepers stay queued until their lag is burnt off",
            Feature::DelayZero => "clip positive lag to 0 when a delayed task leaves or wakes",
            Feature::WakeupPreemption => "allow wakeup preemption at all",
            Feature::Hrtick => "end slices with an hrtimer instead of the tick",
            Feature::DoubleTick => "let the tick check preemption while an hrtick is armed",
            Feature::WaIdle => "wake-affine: prefer an idle waker CPU or an idle previous CPU",
            Feature::WaWeight => "wake-affine: pull the wakee to the less loaded waker CPU",
            Feature::WaBias => "wake-affine: bias the load comparison toward the previous CPU",
            Feature::NiRandom => "newidle balancing runs in proportion to its success rate",
            Feature::SisUtil => "limit the idle-CPU scan of the LLC by the LLC's PELT util",
            Feature::WakeupDeadline => {
                "proposal (2023): preempt on wakeup only if the wakee's deadline is earlier"
            }
            Feature::ReschedIneligible => {
                "proposal (2024): on wakeup, reschedule curr whenever it is ineligible"
            }
            Feature::CacheHotBuddy => "the balancer treats the buddies as cache hot",
            Feature::WakeupParity => {
                "proposal (2023): a wakeup never preempts an eligible curr (seed 000's RUN_TO_PARITY)"
            }
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u8)
    }

    /// Looks a feature up by its `features.h` name.
    pub fn from_name(name: &str) -> Option<Feature> {
        ALL_FEATURES.iter().copied().find(|f| f.name() == name)
    }
}

/// `features.h` entries of the kernels modelled here that schedlab does not implement, with why.
/// Naming one in a variant is an error that gives this reason.
pub const UNMODELLED_FEATURES: &[(&str, &str)] = &[
    ("ALT_PERIOD", "it only differs from the plain period with task groups, and schedlab models a flat hierarchy"),
    ("NONTASK_CAPACITY", "CPU capacity is not modelled: IRQ time is charged to tasks (irq_ns) but never scales a CPU's capacity"),
    ("TTWU_QUEUE", "remote wakeups always go through the wake list and an IPI (its IRQ time is charged); the direct path is not modelled"),
    ("SIS_PROP", "the idle-CPU scan is limited only by SIS_UTIL (6.1+); SIS_PROP's avg_idle/avg_scan_cost limit is not modelled"),
    ("WARN_DOUBLE_CLOCK", "a debug check"),
    ("RT_PUSH_IPI", "RT tasks are not modelled"),
    ("RT_RUNTIME_SHARE", "RT tasks are not modelled"),
    ("LB_MIN", "off by default and not modelled: detach_tasks never passes over a task whose PELT load is below 16"),
    ("ATTACH_AGE_LOAD", "PELT is modelled without this option"),
    ("UTIL_EST", "util_est is not modelled: where the kernel reads it, the model reads PELT's util_avg"),
    ("UTIL_EST_FASTUP", "util_est is not modelled: where the kernel reads it, the model reads PELT's util_avg"),
    ("LATENCY_WARN", "a debug check"),
    ("HRTICK_DL", "deadline tasks are not modelled"),
    ("HZ_BW", "CFS bandwidth control is not modelled"),
];

/// A set of features (a bit set over [`Feature`]).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct FeatureSet(u32);

impl FeatureSet {
    /// Builds a set from a list.
    pub fn of(features: &[Feature]) -> FeatureSet {
        FeatureSet(features.iter().fold(0, |acc, f| acc | f.bit()))
    }
    /// Whether `f` is on.
    pub fn has(self, f: Feature) -> bool {
        self.0 & f.bit() != 0
    }
    /// Turns `f` on or off.
    pub fn set(&mut self, f: Feature, on: bool) {
        if on {
            self.0 |= f.bit();
        } else {
            self.0 &= !f.bit();
        }
    }
    /// The features that are on, in `features.h` order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        ALL_FEATURES.into_iter().filter(move |f| self.has(*f))
    }
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(Feature::name))
            .finish()
    }
}
