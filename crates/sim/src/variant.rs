//! Kernel variants as data: a preset kernel version, its `sched_features` and its tunables.
//!
//! A variant string is what people already type into debugfs, after a preset name:
//! `eevdf-6.12:NO_DELAY_DEQUEUE,NO_WAKEUP_PREEMPTION` or `cfs-6.1:wakeup_granularity_ns=1000000`.
//! Features are `features.h` names (`NO_` turns one off); tunables are the debugfs file names
//! under `/sys/kernel/debug/sched/` and take the value written there (already scaled).
//!
//! Every feature a preset accepts changes what the model does; `features.h` entries that the
//! model does not implement are rejected with the reason instead of being silently accepted.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// Which scheduling algorithm the fair class runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Completely Fair Scheduler, as up to v6.5.
    Cfs,
    /// Earliest Eligible Virtual Deadline First, from v6.6.
    Eevdf,
}

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
    /// Proposal (seed 000, Peter Zijlstra, Aug 2023; never merged): after `update_curr` in the
    /// wakeup-preemption check, give up if the wakee's deadline is later than curr's.
    WakeupDeadline,
    /// Proposal (seed 003, May 2024, Chunxin Zang, "sched/fair: Reschedule the cfs_rq when current
    /// is ineligible", v1; never merged and never a feature upstream): at the end of the tick and
    /// on a wakeup (before the wakee is considered), reschedule curr whenever it is ineligible.
    ReschedIneligible,
}

/// All features, in `features.h` order.
pub const ALL_FEATURES: [Feature; 21] = [
    Feature::GentleFairSleepers,
    Feature::StartDebit,
    Feature::LastBuddy,
    Feature::NextBuddy,
    Feature::BaseSlice,
    Feature::PlaceLag,
    Feature::PlaceDeadlineInitial,
    Feature::PlaceRelDeadline,
    Feature::RunToParity,
    Feature::PreemptShort,
    Feature::PickBuddy,
    Feature::DelayDequeue,
    Feature::DelayZero,
    Feature::WakeupPreemption,
    Feature::Hrtick,
    Feature::DoubleTick,
    Feature::WaIdle,
    Feature::WaWeight,
    Feature::WaBias,
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
            Feature::WakeupDeadline => "WAKEUP_DEADLINE",
            Feature::ReschedIneligible => "RESCHED_CURR_INELIGIBLE",
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
            Feature::WakeupDeadline => {
                "proposal (2023): preempt on wakeup only if the wakee's deadline is earlier"
            }
            Feature::ReschedIneligible => {
                "proposal (2024): on wakeup, reschedule curr whenever it is ineligible"
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
    ("CACHE_HOT_BUDDY", "the balancer is modelled without task_hot's buddy heuristic: it never refuses to move a buddy"),
    ("NONTASK_CAPACITY", "CPU capacity is not modelled: IRQ time is charged to tasks (irq_ns) but never scales a CPU's capacity"),
    ("TTWU_QUEUE", "remote wakeups always go through the wake list and an IPI (its IRQ time is charged); the direct path is not modelled"),
    ("SIS_PROP", "the idle-CPU scan of the LLC is modelled without a scan limit"),
    ("SIS_UTIL", "the idle-CPU scan of the LLC is modelled without a scan limit (and PELT is not modelled)"),
    ("WARN_DOUBLE_CLOCK", "a debug check"),
    ("RT_PUSH_IPI", "RT tasks are not modelled"),
    ("RT_RUNTIME_SHARE", "RT tasks are not modelled"),
    ("LB_MIN", "the balancer uses queued weights, not PELT load, so this PELT-load filter has no input"),
    ("ATTACH_AGE_LOAD", "PELT is not modelled"),
    ("UTIL_EST", "PELT and util_est are not modelled"),
    ("UTIL_EST_FASTUP", "PELT and util_est are not modelled"),
    ("LATENCY_WARN", "a debug check"),
    ("HRTICK_DL", "deadline tasks are not modelled"),
    ("HZ_BW", "CFS bandwidth control is not modelled"),
    ("NI_RANDOM", "newidle balancing is modelled as always tried; its randomised throttling is not"),
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

/// How the pick protects curr under RUN_TO_PARITY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protect {
    /// 6.6–6.16: `set_next_entity` stashes the deadline in `vlag`; curr is protected while
    /// `vlag == deadline`.
    VlagMarker,
    /// 6.17+: `vprot`, limited by the shortest queued slice; resched when protection ends.
    Vprot,
}

/// The code-path differences between kernel versions (reference §11), as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionSwitches {
    /// CFS or EEVDF.
    pub class: Class,
    /// CFS 5.16+: SCHED_IDLE slices are clamped by `idle_min_granularity` (51ce83ed523b) and
    /// SCHED_IDLE sleepers get `min_granularity`, not `latency`, of sleeper credit (2cae3948edd4):
    /// the merged form of the seed-002 series.
    pub idle_min_granularity: bool,
    /// EEVDF 6.8+: the tree is ordered by deadline (ties between tree nodes go to the earlier
    /// inserted), a lone queued entity is picked without an eligibility test, and a tree node
    /// beats curr on equal deadlines. 6.6: ordered by vruntime, curr wins ties.
    pub deadline_tree: bool,
    /// 6.12+: `ENQUEUE_INITIAL` reaches `place_entity` at activation, so the half-slice first
    /// deadline really applies (6.6 re-places a new task with a full slice).
    pub initial_half_slice_effective: bool,
    /// 6.12+: `sched_attr.sched_runtime` sets a custom slice.
    pub custom_slice: bool,
    /// How curr's slice is protected: the vlag marker of RUN_TO_PARITY (6.6–6.16) or `vprot`
    /// (6.17+). `Vprot` also selects 6.19's wakeup preemption (`eevdf619_wakeup`: a non-idle
    /// wakee cancels an idle curr's protection, f553741ac8c0; fork and delayed wakees never
    /// preempt) and its pick (PICK_BUDDY in place of NEXT_BUDDY).
    pub protect: Protect,
    /// Normalised (unscaled) base slice: 0.75 ms before 6.15, 0.70 ms from 6.15 (2ae891b82695).
    pub base_slice_norm_ns: u64,
}

/// A named kernel version preset.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Name used in variant strings.
    pub name: &'static str,
    /// One line describing it.
    pub summary: &'static str,
    /// Code-path switches.
    pub switches: VersionSwitches,
    /// Features that exist in this version and that the model implements.
    pub available: &'static [Feature],
    /// Those of them on by default.
    pub defaults: &'static [Feature],
    /// Features that exist in this version's `features.h` but do nothing there, with why.
    pub inert: &'static [(Feature, &'static str)],
}

use Feature::*;

const CFS_AVAILABLE: &[Feature] = &[
    GentleFairSleepers,
    StartDebit,
    LastBuddy,
    NextBuddy,
    BaseSlice,
    WakeupPreemption,
    Hrtick,
    DoubleTick,
    WaIdle,
    WaWeight,
    WaBias,
];
const CFS_DEFAULTS: &[Feature] = &[
    GentleFairSleepers,
    StartDebit,
    LastBuddy,
    BaseSlice,
    WakeupPreemption,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF66_AVAILABLE: &[Feature] = &[
    PlaceLag,
    RunToParity,
    NextBuddy,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    ReschedIneligible,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF66_DEFAULTS: &[Feature] = &[
    PlaceLag,
    RunToParity,
    WakeupPreemption,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF612_AVAILABLE: &[Feature] = &[
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    NextBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    ReschedIneligible,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF612_DEFAULTS: &[Feature] = &[
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF619_AVAILABLE: &[Feature] = &[
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    NextBuddy,
    PickBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    ReschedIneligible,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF619_DEFAULTS: &[Feature] = &[
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    PickBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    WaIdle,
    WaWeight,
    WaBias,
];

const CFS_SWITCHES: VersionSwitches = VersionSwitches {
    class: Class::Cfs,
    idle_min_granularity: true,
    deadline_tree: false,
    initial_half_slice_effective: false,
    custom_slice: false,
    protect: Protect::VlagMarker,
    base_slice_norm_ns: 750_000,
};

/// The kernel versions schedlab models.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "cfs-5.14",
        summary: "CFS before the 2021 SCHED_IDLE series (merged for 5.16): idle tasks get min_granularity and full sleeper credit",
        switches: VersionSwitches {
            idle_min_granularity: false,
            ..CFS_SWITCHES
        },
        available: CFS_AVAILABLE,
        defaults: CFS_DEFAULTS,
        inert: &[],
    },
    Preset {
        name: "cfs-6.1",
        summary: "CFS as in v6.1, the last LTS with CFS",
        switches: CFS_SWITCHES,
        available: CFS_AVAILABLE,
        defaults: CFS_DEFAULTS,
        inert: &[],
    },
    Preset {
        name: "eevdf-6.6",
        summary: "EEVDF as merged in v6.6 (read in 6.6.9): vruntime-ordered tree, RUN_TO_PARITY",
        switches: VersionSwitches {
            class: Class::Eevdf,
            ..CFS_SWITCHES
        },
        available: EEVDF66_AVAILABLE,
        defaults: EEVDF66_DEFAULTS,
        inert: &[(
            PlaceDeadlineInitial,
            "wake_up_new_task re-places a new task without ENQUEUE_INITIAL, so the half-slice deadline is overwritten",
        )],
    },
    Preset {
        name: "eevdf-6.12",
        summary: "EEVDF as in v6.12: DELAY_DEQUEUE, DELAY_ZERO, PREEMPT_SHORT, custom slices",
        switches: VersionSwitches {
            class: Class::Eevdf,
            deadline_tree: true,
            initial_half_slice_effective: true,
            custom_slice: true,
            ..CFS_SWITCHES
        },
        available: EEVDF612_AVAILABLE,
        defaults: EEVDF612_DEFAULTS,
        inert: &[],
    },
    Preset {
        name: "eevdf-6.19",
        summary: "EEVDF as in v6.19: 0.70 ms base slice, vprot protection, zero_vruntime, fork never preempts",
        switches: VersionSwitches {
            class: Class::Eevdf,
            deadline_tree: true,
            initial_half_slice_effective: true,
            custom_slice: true,
            protect: Protect::Vprot,
            base_slice_norm_ns: 700_000,
            ..CFS_SWITCHES
        },
        available: EEVDF619_AVAILABLE,
        defaults: EEVDF619_DEFAULTS,
        inert: &[],
    },
];

/// Looks a preset up by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// A tunable, by its debugfs name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tunable {
    /// `tunable_scaling`: 0 none, 1 log (default), 2 linear.
    TunableScaling,
    /// CFS `latency_ns` (6 ms normalised).
    LatencyNs,
    /// CFS `min_granularity_ns` (0.75 ms normalised).
    MinGranularityNs,
    /// CFS 5.16+ `idle_min_granularity_ns` (0.75 ms, never scaled).
    IdleMinGranularityNs,
    /// CFS `wakeup_granularity_ns` (1 ms normalised).
    WakeupGranularityNs,
    /// EEVDF `base_slice_ns` (0.75 ms / 0.70 ms normalised).
    BaseSliceNs,
    /// `migration_cost_ns` (0.5 ms, never scaled).
    MigrationCostNs,
}

impl Tunable {
    /// The debugfs name.
    pub fn name(self) -> &'static str {
        match self {
            Tunable::TunableScaling => "tunable_scaling",
            Tunable::LatencyNs => "latency_ns",
            Tunable::MinGranularityNs => "min_granularity_ns",
            Tunable::IdleMinGranularityNs => "idle_min_granularity_ns",
            Tunable::WakeupGranularityNs => "wakeup_granularity_ns",
            Tunable::BaseSliceNs => "base_slice_ns",
            Tunable::MigrationCostNs => "migration_cost_ns",
        }
    }

    fn all() -> [Tunable; 7] {
        [
            Tunable::TunableScaling,
            Tunable::LatencyNs,
            Tunable::MinGranularityNs,
            Tunable::IdleMinGranularityNs,
            Tunable::WakeupGranularityNs,
            Tunable::BaseSliceNs,
            Tunable::MigrationCostNs,
        ]
    }

    fn exists_in(self, s: &VersionSwitches) -> bool {
        match self {
            Tunable::TunableScaling | Tunable::MigrationCostNs => true,
            Tunable::LatencyNs | Tunable::MinGranularityNs | Tunable::WakeupGranularityNs => {
                s.class == Class::Cfs
            }
            Tunable::IdleMinGranularityNs => s.class == Class::Cfs && s.idle_min_granularity,
            Tunable::BaseSliceNs => s.class == Class::Eevdf,
        }
    }
}

/// Tunable overrides; `None` means the kernel default for the machine's CPU count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tunables {
    /// `tunable_scaling` override.
    pub tunable_scaling: Option<u64>,
    /// `latency_ns` override.
    pub latency_ns: Option<u64>,
    /// `min_granularity_ns` override.
    pub min_granularity_ns: Option<u64>,
    /// `idle_min_granularity_ns` override.
    pub idle_min_granularity_ns: Option<u64>,
    /// `wakeup_granularity_ns` override.
    pub wakeup_granularity_ns: Option<u64>,
    /// `base_slice_ns` override.
    pub base_slice_ns: Option<u64>,
    /// `migration_cost_ns` override.
    pub migration_cost_ns: Option<u64>,
}

impl Tunables {
    fn slot(&mut self, t: Tunable) -> &mut Option<u64> {
        match t {
            Tunable::TunableScaling => &mut self.tunable_scaling,
            Tunable::LatencyNs => &mut self.latency_ns,
            Tunable::MinGranularityNs => &mut self.min_granularity_ns,
            Tunable::IdleMinGranularityNs => &mut self.idle_min_granularity_ns,
            Tunable::WakeupGranularityNs => &mut self.wakeup_granularity_ns,
            Tunable::BaseSliceNs => &mut self.base_slice_ns,
            Tunable::MigrationCostNs => &mut self.migration_cost_ns,
        }
    }
}

/// The tunables in force on a machine, after CPU-count scaling and overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedParams {
    /// The scaling factor (`1 + ilog2(min(ncpus, 8))` under LOG scaling).
    pub factor: u64,
    /// `sysctl_sched_latency`.
    pub latency_ns: u64,
    /// `sysctl_sched_min_granularity`.
    pub min_granularity_ns: u64,
    /// `sysctl_sched_idle_min_granularity` (never scaled).
    pub idle_min_granularity_ns: u64,
    /// `sysctl_sched_wakeup_granularity`.
    pub wakeup_granularity_ns: u64,
    /// `sched_nr_latency`: ⌈latency / min_granularity⌉ of the normalised defaults = 8; a debugfs
    /// write of either does not recompute it, so overrides leave it alone, as in the kernel.
    pub nr_latency: u64,
    /// `sysctl_sched_base_slice`.
    pub base_slice_ns: u64,
    /// `normalized_sysctl_sched_base_slice`: the unscaled base slice (a tuned value ÷ factor).
    pub base_slice_norm_ns: u64,
    /// `sysctl_sched_migration_cost`.
    pub migration_cost_ns: u64,
}

/// The scaling factor for `ncpus` online CPUs (`get_update_sysctl_factor`): capped at 8 CPUs.
pub fn scaling_factor(mode: u64, ncpus: u32) -> u64 {
    let cpus = core::cmp::min(ncpus.max(1), 8) as u64;
    match mode {
        0 => 1,
        2 => cpus,
        _ => 1 + (63 - cpus.leading_zeros() as u64),
    }
}

/// A kernel variant to run: a preset plus overrides.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The string it was parsed from, trimmed (used as its name in every output).
    pub name: String,
    /// The preset it derives from.
    pub preset: &'static Preset,
    /// Features in force.
    pub features: FeatureSet,
    /// Tunable overrides.
    pub tunables: Tunables,
}

/// Why a variant string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantError(pub String);

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Variant {
    /// Parses `preset[:ITEM,ITEM…]` where an item is `FEATURE`, `NO_FEATURE` or `tunable=value`.
    pub fn parse(s: &str) -> Result<Variant, VariantError> {
        let s = s.trim();
        let (pname, rest) = match s.split_once(':') {
            Some((p, r)) => (p.trim(), Some(r)),
            None => (s, None),
        };
        let preset = preset(pname).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            VariantError(format!(
                "unknown kernel variant `{pname}`: expected one of {}",
                names.join(", ")
            ))
        })?;
        let mut v = Variant {
            name: s.to_string(),
            preset,
            features: FeatureSet::of(preset.defaults),
            tunables: Tunables::default(),
        };
        let Some(rest) = rest else { return Ok(v) };
        for item in rest.split(',') {
            let item = item.trim();
            if item.is_empty() {
                return Err(VariantError(format!(
                    "`{s}`: empty item in the override list"
                )));
            }
            if let Some((k, val)) = item.split_once('=') {
                v.set_tunable(k.trim(), val.trim())?;
            } else {
                v.set_feature(item)?;
            }
        }
        Ok(v)
    }

    fn set_feature(&mut self, item: &str) -> Result<(), VariantError> {
        let (name, on) = match item.strip_prefix("NO_") {
            Some(n) => (n, false),
            None => (item, true),
        };
        let pname = self.preset.name;
        match Feature::from_name(name) {
            Some(f) if self.preset.available.contains(&f) => {
                self.features.set(f, on);
                Ok(())
            }
            Some(f) => {
                if let Some((_, why)) = self.preset.inert.iter().find(|(g, _)| *g == f) {
                    return Err(VariantError(format!(
                        "feature {name} has no effect in {pname}: {why}"
                    )));
                }
                let why = match (f, self.preset.switches.class) {
                    (Feature::DoubleTick, Class::Eevdf) => {
                        "it has no effect on the EEVDF fair class (nothing follows the check in entity_tick)"
                    }
                    (_, Class::Cfs) => "it is not a feature of the CFS kernels",
                    _ => "it does not exist in this kernel version",
                };
                Err(VariantError(format!(
                    "feature {name} is not available in {pname}: {why}; available: {}",
                    self.available_names()
                )))
            }
            None => {
                if let Some((_, why)) = UNMODELLED_FEATURES.iter().find(|(n, _)| *n == name) {
                    Err(VariantError(format!(
                        "feature {name} is a kernel feature that schedlab does not model ({why})"
                    )))
                } else {
                    Err(VariantError(format!(
                        "unknown feature `{name}` for {pname}; available: {}",
                        self.available_names()
                    )))
                }
            }
        }
    }

    fn available_names(&self) -> String {
        let names: Vec<&str> = self.preset.available.iter().map(|f| f.name()).collect();
        names.join(", ")
    }

    fn set_tunable(&mut self, key: &str, val: &str) -> Result<(), VariantError> {
        let pname = self.preset.name;
        let t = Tunable::all()
            .into_iter()
            .find(|t| t.name() == key)
            .ok_or_else(|| {
                let names: Vec<&str> = Tunable::all()
                    .into_iter()
                    .filter(|t| t.exists_in(&self.preset.switches))
                    .map(|t| t.name())
                    .collect();
                VariantError(format!(
                    "unknown tunable `{key}` for {pname}; available: {}",
                    names.join(", ")
                ))
            })?;
        if !t.exists_in(&self.preset.switches) {
            return Err(VariantError(format!(
                "tunable {key} does not exist in {pname}"
            )));
        }
        let n: u64 = val.parse().map_err(|_| {
            VariantError(format!(
                "tunable {key}: `{val}` is not a whole number of nanoseconds"
            ))
        })?;
        let (lo, hi) = match t {
            Tunable::TunableScaling => (0, 2),
            // debugfs accepts any value; these bounds keep the model meaningful.
            Tunable::MigrationCostNs => (0, 1_000_000_000),
            _ => (100_000, 1_000_000_000),
        };
        if n < lo || n > hi {
            return Err(VariantError(format!(
                "tunable {key}: {n} is out of range (allowed {lo}..={hi})"
            )));
        }
        *self.tunables.slot(t) = Some(n);
        Ok(())
    }

    /// The class (CFS or EEVDF).
    pub fn class(&self) -> Class {
        self.preset.switches.class
    }

    /// Whether feature `f` is on.
    pub fn has(&self, f: Feature) -> bool {
        self.features.has(f)
    }

    /// Resolves the tunables for a machine with `ncpus` online CPUs (`update_sysctl`).
    pub fn params(&self, ncpus: u32) -> SchedParams {
        let t = &self.tunables;
        let factor = scaling_factor(t.tunable_scaling.unwrap_or(1), ncpus);
        let norm = self.preset.switches.base_slice_norm_ns;
        SchedParams {
            factor,
            latency_ns: t.latency_ns.unwrap_or(6_000_000 * factor),
            min_granularity_ns: t.min_granularity_ns.unwrap_or(750_000 * factor),
            idle_min_granularity_ns: t.idle_min_granularity_ns.unwrap_or(750_000),
            wakeup_granularity_ns: t.wakeup_granularity_ns.unwrap_or(1_000_000 * factor),
            nr_latency: 8,
            base_slice_ns: t.base_slice_ns.unwrap_or(norm * factor),
            base_slice_norm_ns: t.base_slice_ns.map_or(norm, |b| b / factor),
            migration_cost_ns: t.migration_cost_ns.unwrap_or(500_000),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_debugfs_syntax() {
        let v = Variant::parse("eevdf-6.12:NO_DELAY_DEQUEUE,NO_WAKEUP_PREEMPTION").unwrap();
        assert!(!v.has(Feature::DelayDequeue));
        assert!(!v.has(Feature::WakeupPreemption));
        assert!(v.has(Feature::DelayZero));
        let v = Variant::parse("eevdf-6.6:base_slice_ns=3000000").unwrap();
        assert_eq!(v.params(1).base_slice_ns, 3_000_000);
    }

    #[test]
    fn rejects_with_reasons() {
        let e = Variant::parse("cfs-6.1:RUN_TO_PARITY").unwrap_err().0;
        assert!(e.contains("not available in cfs-6.1"), "{e}");
        let e = Variant::parse("eevdf-6.6:ALT_PERIOD").unwrap_err().0;
        assert!(e.contains("does not model"), "{e}");
        let e = Variant::parse("eevdf-6.6:DELAY_DEQUEUE").unwrap_err().0;
        assert!(e.contains("does not exist in this kernel version"), "{e}");
        let e = Variant::parse("eevdf-7.0").unwrap_err().0;
        assert!(e.contains("unknown kernel variant"), "{e}");
        let e = Variant::parse("cfs-6.1:base_slice_ns=1").unwrap_err().0;
        assert!(e.contains("does not exist"), "{e}");
        let e = Variant::parse("eevdf-6.6:base_slice_ns=abc").unwrap_err().0;
        assert!(e.contains("not a whole number"), "{e}");
    }
}
