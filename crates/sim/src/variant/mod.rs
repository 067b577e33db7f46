//! Kernel variants as data: a kernel version, its `sched_features` and its tunables.
//!
//! A variant string is what people already type into debugfs, after a kernel version's name:
//! `eevdf-6.12:NO_DELAY_DEQUEUE,NO_WAKEUP_PREEMPTION` or `cfs-6.1:wakeup_granularity_ns=1000000`.
//! Features are `features.h` names (`NO_` turns one off); tunables are the debugfs file names
//! under `/sys/kernel/debug/sched/` and take the value written there (already scaled).
//!
//! Every feature a kernel version accepts changes what the model does; `features.h` entries that the
//! model does not implement are rejected with the reason instead of being silently accepted.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

mod feature;

pub use feature::{Feature, FeatureSet, ALL_FEATURES, UNMODELLED_FEATURES};

/// Which scheduling algorithm the fair class runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Completely Fair Scheduler, as up to v6.5.
    Cfs,
    /// Earliest Eligible Virtual Deadline First, from v6.6.
    Eevdf,
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
    /// 6.12+: `requeue_delayed_entity` (a delayed task woken, `ttwu_runnable`) takes the
    /// wakee's lag and placement without `update_curr`, against curr's vruntime as the kernel
    /// last accounted it; the wakeup check's `update_curr` then charges curr's run since.
    pub requeue_stale_curr: bool,
    /// Normalised (unscaled) base slice: 0.75 ms before 6.15, 0.70 ms from 6.15 (2ae891b82695).
    pub base_slice_norm_ns: u64,
    /// 6.12+: the deferred deadline server for fair tasks (`rq->fair_server`, 50 ms / 1 s)
    /// in place of default RT throttling (5f6bd380c7bd, "sched/rt: Remove default bandwidth
    /// control"); before, `sched_rt_runtime_us` throttles RT tasks.
    pub fair_server: bool,
    /// 6.6+: a throttled group's `throttled_clock` (cpu.stat `throttled_time`) runs only while
    /// the group has a task queued on the CPU (677ea015f231, "sched: add throttled time stat
    /// for throttled children"); 6.1 counts from the throttle, queued tasks or not.
    pub throttled_clock_queued: bool,
    /// 6.6+: `calculate_imbalance`'s prefer-sibling path for a local group with spare
    /// capacity goes through `sibling_imbalance` (7ff1693236f5), which gives a busy CPU's
    /// periodic balance (CPU_NOT_IDLE) nothing to move; 6.1 evens the running tasks from any
    /// CPU.
    pub sibling_imbalance: bool,
    /// 6.6+ (v6.5's "runnable boosting", 7d0583cf9ec7): `find_busiest_queue` picks the
    /// busiest queue of a `migrate_util` balance by `cpu_util_cfs_boost`, the CPU's PELT util
    /// or its runnable average if that is higher; 6.1 by `cpu_util_cfs`.
    pub runnable_boost: bool,
    /// 6.8+ (3af7524b1419, "sched/fair: Use all little CPUs for CPU-bound workloads"):
    /// `detach_tasks` lets a `migrate_util` balance move a task whose util exceeds the
    /// imbalance once `shr_bound(util, nr_balance_failed)` fits, as `migrate_load` does; 6.1 as
    /// released and 6.6.9 move it only if `util <= imbalance`.
    pub util_shr_bound: bool,
    /// 6.14+'s balancer: `can_migrate_task` moves a delayed task for migrate_load only (6.12
    /// and 6.13 move one as any queued task; Vincent Guittot, "Migrating a delayed dequeued
    /// task doesn't help in balancing the number of runnable tasks"), and moves a task not
    /// eligible on its run queue only once the domain's balancing has failed or to a CPU with
    /// none of its group's entities queued (873199d27bb2, "Prioritize migrating eligible tasks
    /// in sched_balance_rq()"); both tests come before the affinity test, so a task they refuse
    /// leaves LBF_ALL_PINNED set. And the tasks there are to pull are counted without the
    /// delayed ones (`h_nr_runnable` in `update_sg_lb_stats`' `sum_h_nr_running` and
    /// `sched_balance_find_src_rq`).
    pub balance_614: bool,
}

/// A modelled kernel version: its code-path switches and the features it has.
#[derive(Clone, Copy, Debug)]
pub struct KernelVersion {
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
    CacheHotBuddy,
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
    CacheHotBuddy,
    BaseSlice,
    WakeupPreemption,
    WaIdle,
    WaWeight,
    WaBias,
];
const CFS61_AVAILABLE: &[Feature] = &[
    GentleFairSleepers,
    StartDebit,
    LastBuddy,
    NextBuddy,
    CacheHotBuddy,
    BaseSlice,
    WakeupPreemption,
    Hrtick,
    DoubleTick,
    SisUtil,
    WaIdle,
    WaWeight,
    WaBias,
];
const CFS61_DEFAULTS: &[Feature] = &[
    GentleFairSleepers,
    StartDebit,
    LastBuddy,
    CacheHotBuddy,
    BaseSlice,
    WakeupPreemption,
    SisUtil,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF66_AVAILABLE: &[Feature] = &[
    PlaceLag,
    RunToParity,
    NextBuddy,
    CacheHotBuddy,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    WakeupParity,
    ReschedIneligible,
    SisUtil,
    WaIdle,
    WaWeight,
    WaBias,
];
const EEVDF66_DEFAULTS: &[Feature] = &[
    PlaceLag,
    RunToParity,
    CacheHotBuddy,
    WakeupPreemption,
    SisUtil,
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
    CacheHotBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    ReschedIneligible,
    SisUtil,
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
    CacheHotBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    SisUtil,
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
    CacheHotBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    Hrtick,
    WakeupDeadline,
    ReschedIneligible,
    SisUtil,
    WaIdle,
    WaWeight,
    WaBias,
    NiRandom,
];
const EEVDF619_DEFAULTS: &[Feature] = &[
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    PickBuddy,
    CacheHotBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    SisUtil,
    WaIdle,
    WaWeight,
    WaBias,
    NiRandom,
];

const CFS_SWITCHES: VersionSwitches = VersionSwitches {
    class: Class::Cfs,
    idle_min_granularity: true,
    deadline_tree: false,
    initial_half_slice_effective: false,
    custom_slice: false,
    protect: Protect::VlagMarker,
    requeue_stale_curr: false,
    base_slice_norm_ns: 750_000,
    fair_server: false,
    throttled_clock_queued: false,
    sibling_imbalance: false,
    runnable_boost: false,
    util_shr_bound: false,
    balance_614: false,
};

/// The kernel versions schedlab models.
pub const KERNEL_VERSIONS: &[KernelVersion] = &[
    KernelVersion {
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
    KernelVersion {
        name: "cfs-6.1",
        summary: "CFS as in v6.1, the last LTS with CFS",
        switches: CFS_SWITCHES,
        available: CFS61_AVAILABLE,
        defaults: CFS61_DEFAULTS,
        inert: &[],
    },
    KernelVersion {
        name: "eevdf-6.6",
        summary: "EEVDF as merged in v6.6 (read in 6.6.9): vruntime-ordered tree, RUN_TO_PARITY",
        switches: VersionSwitches {
            class: Class::Eevdf,
            throttled_clock_queued: true,
            sibling_imbalance: true,
            runnable_boost: true,
            util_shr_bound: false,
            ..CFS_SWITCHES
        },
        available: EEVDF66_AVAILABLE,
        defaults: EEVDF66_DEFAULTS,
        inert: &[(
            PlaceDeadlineInitial,
            "wake_up_new_task re-places a new task without ENQUEUE_INITIAL, so the half-slice deadline is overwritten",
        )],
    },
    KernelVersion {
        name: "eevdf-6.12",
        summary: "EEVDF as in v6.12: DELAY_DEQUEUE, DELAY_ZERO, PREEMPT_SHORT, custom slices",
        switches: VersionSwitches {
            class: Class::Eevdf,
            deadline_tree: true,
            initial_half_slice_effective: true,
            custom_slice: true,
            requeue_stale_curr: true,
            fair_server: true,
            throttled_clock_queued: true,
            sibling_imbalance: true,
            runnable_boost: true,
            util_shr_bound: true,
            ..CFS_SWITCHES
        },
        available: EEVDF612_AVAILABLE,
        defaults: EEVDF612_DEFAULTS,
        inert: &[],
    },
    KernelVersion {
        name: "eevdf-6.19",
        summary: "EEVDF as in v6.19: 0.70 ms base slice, vprot protection, zero_vruntime, fork never preempts, the balancer moves eligible tasks first",
        switches: VersionSwitches {
            class: Class::Eevdf,
            deadline_tree: true,
            initial_half_slice_effective: true,
            custom_slice: true,
            protect: Protect::Vprot,
            requeue_stale_curr: true,
            base_slice_norm_ns: 700_000,
            fair_server: true,
            throttled_clock_queued: true,
            sibling_imbalance: true,
            runnable_boost: true,
            util_shr_bound: true,
            balance_614: true,
            ..CFS_SWITCHES
        },
        available: EEVDF619_AVAILABLE,
        defaults: EEVDF619_DEFAULTS,
        inert: &[],
    },
];

/// Looks a kernel version up by name.
pub fn kernel_version(name: &str) -> Option<&'static KernelVersion> {
    KERNEL_VERSIONS.iter().find(|p| p.name == name)
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

    /// Every tunable the model knows, in debugfs order.
    pub fn all() -> [Tunable; 7] {
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

/// A kernel variant to run: a kernel version plus overrides.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The string it was parsed from, trimmed (used as its name in every output).
    pub name: String,
    /// The kernel version it derives from.
    pub version: &'static KernelVersion,
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
    /// Parses `version[:ITEM,ITEM…]` where an item is `FEATURE`, `NO_FEATURE` or `tunable=value`.
    pub fn parse(s: &str) -> Result<Variant, VariantError> {
        let s = s.trim();
        let (pname, rest) = match s.split_once(':') {
            Some((p, r)) => (p.trim(), Some(r)),
            None => (s, None),
        };
        let version = kernel_version(pname).ok_or_else(|| {
            let names: Vec<&str> = KERNEL_VERSIONS.iter().map(|p| p.name).collect();
            VariantError(format!(
                "unknown kernel variant `{pname}`: expected one of {}",
                names.join(", ")
            ))
        })?;
        let mut v = Variant {
            name: s.to_string(),
            version,
            features: FeatureSet::of(version.defaults),
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
        let pname = self.version.name;
        match Feature::from_name(name) {
            Some(f) if self.version.available.contains(&f) => {
                self.features.set(f, on);
                Ok(())
            }
            Some(f) => {
                if let Some((_, why)) = self.version.inert.iter().find(|(g, _)| *g == f) {
                    return Err(VariantError(format!(
                        "feature {name} has no effect in {pname}: {why}"
                    )));
                }
                let why = match (f, self.version.switches.class) {
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
        let names: Vec<&str> = self.version.available.iter().map(|f| f.name()).collect();
        names.join(", ")
    }

    fn set_tunable(&mut self, key: &str, val: &str) -> Result<(), VariantError> {
        let pname = self.version.name;
        let t = Tunable::all()
            .into_iter()
            .find(|t| t.name() == key)
            .ok_or_else(|| {
                let names: Vec<&str> = Tunable::all()
                    .into_iter()
                    .filter(|t| t.exists_in(&self.version.switches))
                    .map(|t| t.name())
                    .collect();
                VariantError(format!(
                    "unknown tunable `{key}` for {pname}; available: {}",
                    names.join(", ")
                ))
            })?;
        if !t.exists_in(&self.version.switches) {
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
        self.version.switches.class
    }

    /// Whether feature `f` is on.
    pub fn has(&self, f: Feature) -> bool {
        self.features.has(f)
    }

    /// Resolves the tunables for a machine with `ncpus` online CPUs (`update_sysctl`).
    pub fn params(&self, ncpus: u32) -> SchedParams {
        let t = &self.tunables;
        let factor = scaling_factor(t.tunable_scaling.unwrap_or(1), ncpus);
        let norm = self.version.switches.base_slice_norm_ns;
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
