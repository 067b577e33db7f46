//! # schedlab-scenario
//!
//! The scenario format: one versioned JSON document that the CLI reads from a file and the page
//! carries in its links ([`link`]). Version 1:
//!
//! ```json
//! {"version": 1, "name": "SCHED_IDLE hog vs nice-0 hog", "description": "seed 002",
//!  "cpus": 16, "hz": 1000, "duration_ms": 3000, "seed": 1,
//!  "variants": ["cfs-5.14", "cfs-6.1"],
//!  "tasks": [
//!    {"name": "hog", "nice": 0, "affinity": [0], "program": [{"run": "forever"}]},
//!    {"name": "idle", "policy": "idle", "affinity": [0], "program": [{"run": "forever"}]}
//!  ]}
//! ```
//!
//! Beyond plain task groups, a document may use:
//!
//! - program steps `{"loop": N, "steps": [...]}` (a counted loop, nestable) and
//!   `{"wait_period_us": P}` (sleep until the next multiple of P since the task started);
//! - `"topology": {"llc_size": L, "smt": S}` (CPUs per LLC, threads per core);
//! - `"workloads": [{"hackbench": {"groups": 8}}, {"massive_intr": {}}, ...]`: benchmark
//!   generators ([`Workload`]) that expand into ordinary task groups after `tasks`
//!   ([`Scenario::expanded`] shows them as text, [`Scenario::workloads`] says which group plays
//!   which [`Role`]).
//!
//! [`presets`] bundles the LKML experiments schedlab replays.
//!
//! Parsing never panics and never stops at the first problem: [`Scenario::from_json`] returns
//! every error it finds, each naming the field (`tasks[2].nice`) and what is allowed. A
//! [`Scenario`] that parsed is valid: [`Scenario::sim_config`] and [`Scenario::variants`] cannot
//! fail on it. [`Scenario::to_json`] writes the canonical form, which parses back to an equal
//! scenario; numbers keep the form they were given in (`1000` stays `1000`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod link;
mod parse;
pub mod presets;
mod strict;
pub mod sweep;
mod workload;

use core::fmt;

use schedlab_sim::{CacheCost, Dist, Op, SchedPolicy, SimConfig, TaskSpec, Variant};
use serde_json::{Map, Number, Value};

pub use parse::cgroups::{CgroupSpec, CgroupWeight, Cgroups, Membership, MAX_CGROUPS};
pub use parse::MAX_SCENARIO_BYTES;
pub use strict::parse_json;
pub use workload::{
    FioLike, Hackbench, MassiveIntr, ParamSpec, Periodic, PipePair, Placement, Role, Schbench,
    Workload, WorkloadInfo, WorkloadKind, SCHBENCH_MADD_PS,
};

/// The format version this crate writes. Every version it ever wrote stays readable.
pub const FORMAT_VERSION: u64 = 1;
/// Most variants one scenario may compare.
pub const MAX_VARIANTS: usize = 8;
/// Most tasks one group may expand to.
pub const MAX_COUNT: u64 = 10_000;
/// Most program steps of all tasks together (each task's program counted once per task, loops
/// expanded), so that a short document (a workload line) cannot ask for gigabytes of programs.
pub const MAX_TOTAL_OPS: u64 = 4_000_000;
/// Default δ, the switch-in delay after an interrupt (ns).
pub const DEFAULT_SWITCH_DELAY_NS: u64 = 5_000;
/// Default hardirq time of one timer interrupt (ns).
pub const DEFAULT_IRQ_NS: u64 = 5_000;
/// Default cost of a wakeup onto an idle CPU from another CPU, IPI and idle exit (ns):
/// measured on Linux 6.18, 2-vCPU VM (the `xeon-vm` machine; docs/measurements.md;
/// `SimConfig::idle_wakeup_ns`).
pub const DEFAULT_IDLE_WAKEUP_NS: u64 = 17_000;
/// Default `wakee_flips` of the process that starts the tasks: an interactive shell's,
/// measured on Linux 6.18 (the EPYC VM) as the flips `hackbench` had at its fork from `bash`
/// in three runs (4 each; a script's `sh` 1–2, `perf record` 3–5: docs/measurements.md;
/// `SimConfig::launcher_wakee_flips`).
pub const DEFAULT_LAUNCHER_WAKEE_FLIPS: u32 = 4;
/// Default housekeeping of a scenario that names no machine, where a task may move between
/// CPUs (see [`HousekeepingSetting`]): the median
/// of the measured machines' (13, 15 and 28 runs a second per CPU; 51, 69 and 114 µs), which
/// is the quiet `epyc-vm`'s. Every machine runs some; without it the balancer meets every tick
/// edge in the same state and identical hogs lock onto fixed shares (ARCHITECTURE.md,
/// "Housekeeping").
pub const DEFAULT_HOUSEKEEPING: schedlab_sim::Housekeeping = schedlab_sim::Housekeeping {
    runs_per_s: 15,
    run_ns: 69_000,
};
/// Per-switch CPU cost measured on Linux 6.18, 2-vCPU VM, with a ping-pong pair pinned to one
/// CPU (docs/measurements.md; `SimConfig::switch_cost_ns`). Not the default: a scenario sets
/// `switch_cost_ns` to use it.
pub const MEASURED_SWITCH_COST_NS: u64 = 960;
/// The waker's CPU cost of a wakeup onto another CPU measured on the same VM (the VM's IPI,
/// 7–12 µs; docs/measurements.md; `SimConfig::wakeup_cost_ns`). Not the default.
pub const MEASURED_WAKEUP_COST_NS: u64 = 9_000;

/// The scenario key `"cache"`: the cache-warmth cost (`SimConfig::cache`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CacheSetting {
    /// `"measured"`: [`schedlab_sim::MEASURED_CACHE_COST`].
    Measured,
    /// `"off"`: no cost (the default).
    Off,
    /// `{"refill_ns", "migrate_ns", "hot_ns", "cold_ns"}`.
    Custom(CacheCost),
}

impl CacheSetting {
    /// The engine's setting.
    pub fn cost(self) -> Option<CacheCost> {
        match self {
            CacheSetting::Measured => Some(schedlab_sim::MEASURED_CACHE_COST),
            CacheSetting::Off => None,
            CacheSetting::Custom(c) => Some(c),
        }
    }
}

/// The scenario key `"housekeeping"`: the machine's other work on each CPU
/// ([`schedlab_sim::Housekeeping`]). Without the key, where a task may run on more than one
/// CPU and no task is in a group, the named machine's own or [`DEFAULT_HOUSEKEEPING`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HousekeepingSetting {
    /// `"off"`: no other work, whatever the machine.
    Off,
    /// `{"runs_per_s": N, "run_us": M}`.
    Custom(schedlab_sim::Housekeeping),
}

/// One problem in a scenario: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenarioError {
    /// JSON path of the field, e.g. `tasks[2].program[0].run_us`; empty for the document.
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every problem found in a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

/// A duration as written: a number of the op's unit, or a distribution.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Duration {
    /// Always this long.
    Fixed(Number),
    /// `{"exp": mean}`.
    Exp(Number),
    /// `{"uniform": [lo, hi]}`.
    Uniform(Number, Number),
    /// `{"normal": [mean, stddev]}`.
    Normal(Number, Number),
}

/// The unit of a `run_*`/`sleep_*` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Unit {
    /// Nanoseconds (`_ns`).
    Ns,
    /// Microseconds (`_us`).
    Us,
    /// Milliseconds (`_ms`).
    Ms,
}

impl Unit {
    fn ns(self) -> f64 {
        match self {
            Unit::Ns => 1.0,
            Unit::Us => 1e3,
            Unit::Ms => 1e6,
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "us",
            Unit::Ms => "ms",
        }
    }
}

/// One step of a behaviour program, as written.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Step {
    /// `{"run": "forever"}`.
    RunForever,
    /// `{"run_us": …}` (or `_ns`, `_ms`): use the CPU this long.
    Run(Duration, Unit),
    /// `{"sleep_us": …}`: block this long.
    Sleep(Duration, Unit),
    /// `{"send": "chan"}`: write a message; `{i}` in the name is the task's index in its group.
    Send(String),
    /// `{"recv": "chan"}`: read a message, blocking while there is none.
    Recv(String),
    /// `{"exit": true}`: the task exits (otherwise the program repeats).
    Exit,
    /// `{"loop": N, "steps": [...]}`: run the nested steps N times (1..=1 000 000). Becomes the
    /// nested ops followed by `Op::Loop { start: <first nested op>, times: N }`.
    Loop(u64, Vec<Step>),
    /// `{"wait_period_us": P}` (or `_ns`, `_ms`): sleep until the next multiple of P since the
    /// task started (an absolute timer, like cyclictest's).
    WaitPeriod(Number, Unit),
    /// `{"affinity": [2, 3]}`: the task's allowed CPUs become these (`sched_setaffinity` on
    /// itself, taking no time); they must be a contiguous range.
    Affinity(Vec<u64>),
    /// `{"complete": "wq"}`: a kworker finishes the work item it read from workqueue channel
    /// `wq`: the I/O completion it carries is delivered to its device channel, waking the task
    /// waiting there (see [`DeviceSpec`]). Takes no time.
    Complete(String),
    /// `{"lock_cpu": "name"}`: take the lock of the CPU the task is on, from the array of
    /// per-CPU locks called `name`, spinning (burning CPU) while another task holds it, as
    /// schbench's `lock_this_cpu` does (see `Op::LockCpu`).
    LockCpu(String),
    /// `{"unlock_cpu": "name"}`: release the lock of array `name` the task holds. Takes no time.
    UnlockCpu(String),
    /// `{"send": "chan", "reply_to": "answers{i}"}`: write a message to `chan` that names
    /// channel `answers{i}` for its answer (see [`Step::Reply`]); a channel written this way
    /// is written no other way.
    Request(String, String),
    /// `{"reply": true}`: write a message to the channel named by the request this task last
    /// read (`reply_to`); after a read of anything else, nothing.
    Reply,
}

/// The machine's cache and SMT layout (`"topology": {"llc_size": L, "smt": S}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Topology {
    /// CPUs per last-level cache; 0 (default) = all CPUs share one LLC.
    pub llc_size: u64,
    /// SMT threads per core (default 1); consecutive CPU numbers are siblings.
    pub smt: u64,
}

impl Default for Topology {
    fn default() -> Self {
        Topology {
            llc_size: 0,
            smt: 1,
        }
    }
}

/// A group of identical tasks.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TaskGroup {
    /// comm of its tasks (perf merges them as `name:(count)`); 1–15 bytes.
    pub name: String,
    /// How many tasks (default 1).
    pub count: u64,
    /// Nice value (default 0).
    pub nice: i64,
    /// Policy (default normal).
    pub policy: SchedPolicy,
    /// Allowed CPUs (default all).
    pub affinity: Option<Vec<u64>>,
    /// Custom slice (`sched_attr.sched_runtime`) in µs, honoured from 6.12.
    pub slice_us: Option<Number>,
    /// Creation time in ms (default 0).
    pub start_ms: Option<Number>,
    /// The behaviour program.
    pub program: Vec<Step>,
    /// SCHED_FIFO / SCHED_RR (`"policy": "fifo"` or `"rr"`, with `"rt_priority"`); `policy`
    /// is then `Normal` and unused.
    pub rt: Option<RtSpec>,
    /// `create_every_us`: the tasks are created one after another, this far apart (task i at
    /// `start_ms` + i × this), as a main thread creates its workers; default all at once.
    pub create_every_us: Option<Number>,
    /// `"kthread": true`: kernel threads (a bound `kworker` when allowed one CPU), whose
    /// wakeups of a task that last ran on their CPU keep it there (`select_idle_sibling`).
    pub kthread: bool,
    /// `"cpu_clock": true`: the program reads its own CPU clock while it works (a loop on
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), and each read calls the kernel's
    /// `update_curr`: its slice ends where it runs out, not at the next tick
    /// ([`schedlab_sim::TaskSpec::cpu_clock`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub cpu_clock: bool,
}

/// A task group's RT policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RtSpec {
    /// SCHED_RR (else SCHED_FIFO).
    pub rr: bool,
    /// `rt_priority`, 1..=99.
    pub priority: u64,
}

/// How many messages a channel holds before its writers block.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChannelSpec {
    /// The channel's name as the steps write it; `{i}` matches any task index.
    pub name: String,
    /// Messages it holds (1..=1000000; 0, no `"capacity"`: unbounded).
    pub capacity: u64,
    /// A read wakes a writer blocked on the full channel once at most this many messages are
    /// left (`None`: as soon as there is room, as a pipe; a unix socket wakes it at a quarter).
    pub wake_writer_at: Option<u64>,
    /// `"futex": true`: a futex word rather than a pipe; a send wakes a waiting reader without
    /// WF_SYNC, as `FUTEX_WAKE` does (default false, a pipe's WF_SYNC wakeup).
    pub futex: bool,
    /// `"poll": true`: its readers wait in `poll()`, not `read()`: a send wakes every waiting
    /// reader, the latest to wait first, and a read takes no message (default false).
    #[cfg_attr(feature = "serde", serde(default))]
    pub poll: bool,
    /// `"device": {...}`: the channel is an asynchronous I/O context on a block device
    /// (libaio): a send submits an I/O, a read waits for a completion.
    pub device: Option<DeviceSpec>,
    /// `"wait_ns"`: CPU time a read that had to wait costs its reader beyond a read that finds
    /// a message (the fd's wait path), paid when the woken reader runs again (default 0).
    #[cfg_attr(feature = "serde", serde(default))]
    pub wait_ns: u64,
    /// `"page_msgs"`: a pipe's ring of pages (`schedlab_sim::Channel::page_msgs`): its
    /// capacity is `capacity / page_msgs` slots of `page_msgs` messages; a writer blocked on
    /// the full ring is woken when a read frees a slot (default 0: a writer is woken on any
    /// room).
    #[cfg_attr(feature = "serde", serde(default))]
    pub page_msgs: u64,
}

/// A block device behind a channel (`"device"` of a channel): how its completions reach the
/// task that submitted (`schedlab_sim::IoDevice`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DeviceSpec {
    /// `"latency_us"`: submission to completion interrupt (a duration, as `run_us` takes).
    pub latency_us: Duration,
    /// `"hardirq_ns"`: the completion interrupt handler's time (IRQ time).
    pub hardirq_ns: u64,
    /// `"irq_cpu"`: the CPU the completion interrupt arrives on (absent: the submitting CPU).
    pub irq_cpu: Option<u64>,
    /// `"rq_affinity"`: 0, 1 (default: complete on the submitting CPU when the interrupt's CPU
    /// does not share its LLC) or 2 (whenever they differ).
    pub rq_affinity: u64,
    /// `"workqueue"`: the per-CPU workqueue channels, `{cpu}` standing for the CPU (absent:
    /// the completion wakes the submitter from the interrupt).
    pub workqueue: Option<String>,
}

impl DeviceSpec {
    fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("latency_us".into(), self.latency_us.to_value());
        o.insert("hardirq_ns".into(), self.hardirq_ns.into());
        if let Some(c) = self.irq_cpu {
            o.insert("irq_cpu".into(), c.into());
        }
        if self.rq_affinity != 1 {
            o.insert("rq_affinity".into(), self.rq_affinity.into());
        }
        if let Some(w) = &self.workqueue {
            o.insert("workqueue".into(), w.clone().into());
        }
        Value::Object(o)
    }
}

impl ChannelSpec {
    /// Whether this spec applies to the concrete channel `name`.
    pub fn matches(&self, name: &str) -> bool {
        match self.name.split_once("{i}") {
            None => self.name == name,
            Some((pre, post)) => {
                name.len() > pre.len() + post.len()
                    && name.starts_with(pre)
                    && name.ends_with(post)
                    && name[pre.len()..name.len() - post.len()]
                        .bytes()
                        .all(|b| b.is_ascii_digit())
            }
        }
    }
}

/// A source of interrupt load on one CPU (`"irq": [{"cpu": 0, "every_ns": 1000000,
/// "cost_ns": 100000}]`): periodic (`every_ns`) or Poisson (`mean_interval_ns`, drawn from the
/// scenario seed). Its time is IRQ time, charged to no task.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IrqSpec {
    /// The CPU it interrupts.
    pub cpu: u64,
    /// Periodic: one handler every this many ns.
    pub every_ns: Option<u64>,
    /// Poisson: the mean interval between handlers, ns.
    pub mean_interval_ns: Option<u64>,
    /// Each handler's time, ns.
    pub cost_ns: u64,
    /// `"queue_work": "events0"`: the handler queues its work item on this workqueue channel
    /// (`schedule_work` from a driver's interrupt handler), for the kworker that reads it; an
    /// item still pending is not queued again (WORK_STRUCT_PENDING). Absent: no work item.
    pub queue_work: Option<String>,
}

/// A whole scenario. Every value here passed validation.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Scenario {
    /// Format version.
    pub version: u64,
    /// Title.
    pub name: String,
    /// Free text: what it shows, where it comes from.
    pub description: String,
    /// Online CPUs.
    pub cpus: u64,
    /// CONFIG_HZ.
    pub hz: u64,
    /// Simulated time, ms.
    pub duration_ms: Number,
    /// PRNG seed.
    pub seed: u64,
    /// δ in ns (default [`DEFAULT_SWITCH_DELAY_NS`]).
    pub switch_delay_ns: Option<u64>,
    /// IRQ time per timer interrupt in ns (default: [`DEFAULT_IRQ_NS`], or δ if smaller).
    pub irq_ns: Option<u64>,
    /// The measured machine whose costs fill in `idle_wakeup_ns`, `idle_states`,
    /// `switch_cost_ns`, `wakeup_cost_ns` and `ipi_cost_ns` where the scenario does not give
    /// them (a name in [`schedlab_sim::MACHINES`]; none by default).
    pub machine: Option<String>,
    /// IPI + idle-exit latency of a remote wakeup onto an idle CPU, in ns (default: the
    /// machine's, else [`DEFAULT_IDLE_WAKEUP_NS`]).
    pub idle_wakeup_ns: Option<u64>,
    /// Deeper idle states, `[{"after_ns": …, "wakeup_ns": …}]` (default: the machine's, else
    /// none).
    pub idle_states: Option<Vec<schedlab_sim::IdleState>>,
    /// CPU time a context switch costs the task switched in, in ns (default: the machine's,
    /// else 0).
    pub switch_cost_ns: Option<u64>,
    /// CPU time a wakeup onto another CPU costs the waker, in ns (default: the machine's, else
    /// 0).
    pub wakeup_cost_ns: Option<u64>,
    /// CPU time the waker pays more when that wakeup sends an IPI (an idle or preempted
    /// target), in ns (default: the machine's, else 0); a preempted target switches δ after
    /// the waker has paid it and `wakeup_cost_ns`.
    pub ipi_cost_ns: Option<u64>,
    /// CPU time a wakeup on its own CPU costs the waker, in ns, paid before its system call
    /// returns (`SimConfig::local_wakeup_ns`; default 0: the measured machines' switch costs
    /// include it).
    pub local_wakeup_ns: Option<u64>,
    /// The spread of those costs: each charge is drawn about its mean with this standard
    /// deviation, in millionths of the mean (`SimConfig::cost_spread_ppm`; default: the
    /// machine's, else 0).
    pub cost_spread_ppm: Option<u32>,
    /// The `wakee_flips` every task copies from the process that starts it
    /// (`SimConfig::launcher_wakee_flips`; default [`DEFAULT_LAUNCHER_WAKEE_FLIPS`]).
    pub launcher_wakee_flips: Option<u32>,
    /// The cache-warmth cost (default off).
    pub cache: Option<CacheSetting>,
    /// The other work of each CPU (default: where a task may run on more than one CPU and
    /// no task is in a group, the machine's, else [`DEFAULT_HOUSEKEEPING`]).
    pub housekeeping: Option<HousekeepingSetting>,
    /// Kernel variants to compare, parsed (each keeps the string it was written as in its
    /// `name`).
    pub variants: Vec<Variant>,
    /// CPU topology (default: one LLC, no SMT).
    pub topology: Topology,
    /// Task groups.
    pub tasks: Vec<TaskGroup>,
    /// Channel capacities (`"channels": [{"name": "p0", "capacity": 640}]`); a channel not
    /// listed is unbounded. A name may contain `{i}`, matching any index.
    pub channels: Vec<ChannelSpec>,
    /// Workload generators, expanded into task groups after `tasks`.
    pub workloads: Vec<Workload>,
    /// Interrupt load (`"irq"`), none by default.
    pub irq: Vec<IrqSpec>,
    /// Task groups: `"cgroups"`, `"autogroup"` and the task groups' memberships (default: none).
    pub cgroups: Cgroups,
    /// `sched_rt_runtime_us` (−1: no throttling; default 950000).
    pub sched_rt_runtime_us: Option<i64>,
    /// `sched_rt_period_us` (default 1000000).
    pub sched_rt_period_us: Option<u64>,
    /// The fair server's `runtime` and `period` in ns (`"fair_server": {"runtime": 50000000,
    /// "period": 1000000000}`, the defaults).
    pub fair_server: Option<(u64, u64)>,
}

fn num_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

fn to_ns(n: &Number, unit: Unit) -> u64 {
    // Integers convert exactly; fractions round to the nearest ns.
    match n.as_u64() {
        Some(v) => v.saturating_mul(unit.ns() as u64),
        None => (num_f64(n) * unit.ns()).round() as u64,
    }
}

impl Duration {
    /// The mean, in the unit of its numbers.
    pub fn mean(&self) -> f64 {
        match self {
            Duration::Fixed(v) | Duration::Exp(v) | Duration::Normal(v, _) => num_f64(v),
            Duration::Uniform(a, b) => (num_f64(a) + num_f64(b)) / 2.0,
        }
    }

    fn dist(&self, unit: Unit) -> Dist {
        match self {
            Duration::Fixed(v) => Dist::Fixed(to_ns(v, unit)),
            Duration::Exp(m) => Dist::Exp(to_ns(m, unit)),
            Duration::Uniform(a, b) => Dist::Uniform(to_ns(a, unit), to_ns(b, unit)),
            Duration::Normal(m, s) => Dist::Normal(to_ns(m, unit), to_ns(s, unit)),
        }
    }

    fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
            Duration::Fixed(v) => return Value::Number(v.clone()),
            Duration::Exp(v) => {
                m.insert("exp".into(), Value::Number(v.clone()));
            }
            Duration::Uniform(a, b) => {
                m.insert(
                    "uniform".into(),
                    Value::Array(vec![Value::Number(a.clone()), Value::Number(b.clone())]),
                );
            }
            Duration::Normal(a, b) => {
                m.insert(
                    "normal".into(),
                    Value::Array(vec![Value::Number(a.clone()), Value::Number(b.clone())]),
                );
            }
        }
        Value::Object(m)
    }
}

impl Scenario {
    /// Parses and validates a scenario document.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioErrors> {
        parse::parse(text)
    }

    /// Validates a scenario document that is already a JSON value (the page's form builds one
    /// on every edit): the same checks and messages as [`Scenario::from_json`], without the
    /// text.
    pub fn from_value(value: Value) -> Result<Scenario, ScenarioErrors> {
        parse::parse_value(value)
    }

    /// The canonical JSON form (pretty-printed), which parses back to an equal scenario.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_value()).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The canonical JSON value.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("version".into(), self.version.into());
        m.insert("name".into(), self.name.clone().into());
        if !self.description.is_empty() {
            m.insert("description".into(), self.description.clone().into());
        }
        m.insert("cpus".into(), self.cpus.into());
        m.insert("hz".into(), self.hz.into());
        m.insert(
            "duration_ms".into(),
            Value::Number(self.duration_ms.clone()),
        );
        m.insert("seed".into(), self.seed.into());
        if let Some(d) = self.switch_delay_ns {
            m.insert("switch_delay_ns".into(), d.into());
        }
        if let Some(d) = self.irq_ns {
            m.insert("irq_ns".into(), d.into());
        }
        if let Some(name) = &self.machine {
            m.insert("machine".into(), name.clone().into());
        }
        if let Some(d) = self.idle_wakeup_ns {
            m.insert("idle_wakeup_ns".into(), d.into());
        }
        if let Some(states) = &self.idle_states {
            let v: Vec<Value> = states
                .iter()
                .map(|s| {
                    let mut o = Map::new();
                    o.insert("after_ns".into(), s.after_ns.into());
                    o.insert("wakeup_ns".into(), s.wakeup_ns.into());
                    Value::Object(o)
                })
                .collect();
            m.insert("idle_states".into(), Value::Array(v));
        }
        if let Some(d) = self.switch_cost_ns {
            m.insert("switch_cost_ns".into(), d.into());
        }
        if let Some(d) = self.wakeup_cost_ns {
            m.insert("wakeup_cost_ns".into(), d.into());
        }
        if let Some(d) = self.ipi_cost_ns {
            m.insert("ipi_cost_ns".into(), d.into());
        }
        if let Some(d) = self.local_wakeup_ns {
            m.insert("local_wakeup_ns".into(), d.into());
        }
        if let Some(d) = self.cost_spread_ppm {
            m.insert("cost_spread_ppm".into(), d.into());
        }
        if let Some(d) = self.launcher_wakee_flips {
            m.insert("launcher_wakee_flips".into(), d.into());
        }
        if let Some(c) = self.cache {
            let v = match c {
                CacheSetting::Measured => Value::from("measured"),
                CacheSetting::Off => Value::from("off"),
                CacheSetting::Custom(c) => {
                    let mut o = Map::new();
                    o.insert("refill_ns".into(), c.refill_ns.into());
                    o.insert("migrate_ns".into(), c.migrate_ns.into());
                    o.insert("hot_ns".into(), c.hot_ns.into());
                    o.insert("cold_ns".into(), c.cold_ns.into());
                    Value::Object(o)
                }
            };
            m.insert("cache".into(), v);
        }
        if let Some(h) = self.housekeeping {
            let v = match h {
                HousekeepingSetting::Off => Value::from("off"),
                HousekeepingSetting::Custom(h) => {
                    let mut o = Map::new();
                    o.insert("runs_per_s".into(), h.runs_per_s.into());
                    o.insert("run_us".into(), (h.run_ns / 1000).into());
                    Value::Object(o)
                }
            };
            m.insert("housekeeping".into(), v);
        }
        m.insert(
            "variants".into(),
            Value::Array(
                self.variants
                    .iter()
                    .map(|v| v.name.clone().into())
                    .collect(),
            ),
        );
        let tasks = self
            .tasks
            .iter()
            .map(|t| {
                let mut o = Map::new();
                o.insert("name".into(), t.name.clone().into());
                if t.count != 1 {
                    o.insert("count".into(), t.count.into());
                }
                if t.nice != 0 {
                    o.insert("nice".into(), t.nice.into());
                }
                if let Some(rt) = t.rt {
                    o.insert("policy".into(), if rt.rr { "rr" } else { "fifo" }.into());
                    o.insert("rt_priority".into(), rt.priority.into());
                } else if t.policy != SchedPolicy::Normal {
                    o.insert("policy".into(), t.policy.name().into());
                }
                if let Some(a) = &t.affinity {
                    o.insert(
                        "affinity".into(),
                        Value::Array(a.iter().map(|&c| c.into()).collect()),
                    );
                }
                if let Some(s) = &t.slice_us {
                    o.insert("slice_us".into(), Value::Number(s.clone()));
                }
                if let Some(s) = &t.start_ms {
                    o.insert("start_ms".into(), Value::Number(s.clone()));
                }
                if let Some(s) = &t.create_every_us {
                    o.insert("create_every_us".into(), Value::Number(s.clone()));
                }
                if t.kthread {
                    o.insert("kthread".into(), true.into());
                }
                if t.cpu_clock {
                    o.insert("cpu_clock".into(), true.into());
                }
                let prog = t.program.iter().map(Step::to_value).collect();
                o.insert("program".into(), Value::Array(prog));
                Value::Object(o)
            })
            .collect();
        if self.topology != Topology::default() {
            let mut t = Map::new();
            if self.topology.llc_size != 0 {
                t.insert("llc_size".into(), self.topology.llc_size.into());
            }
            if self.topology.smt != 1 {
                t.insert("smt".into(), self.topology.smt.into());
            }
            m.insert("topology".into(), Value::Object(t));
        }
        if !self.tasks.is_empty() {
            m.insert("tasks".into(), Value::Array(tasks));
        }
        if !self.workloads.is_empty() {
            m.insert(
                "workloads".into(),
                Value::Array(self.workloads.iter().map(Workload::to_value).collect()),
            );
        }
        if !self.channels.is_empty() {
            let cs = self
                .channels
                .iter()
                .map(|c| {
                    let mut o = Map::new();
                    o.insert("name".into(), c.name.clone().into());
                    if c.capacity > 0 {
                        o.insert("capacity".into(), c.capacity.into());
                    }
                    if let Some(n) = c.wake_writer_at {
                        o.insert("wake_writer_at".into(), n.into());
                    }
                    if c.futex {
                        o.insert("futex".into(), true.into());
                    }
                    if c.poll {
                        o.insert("poll".into(), true.into());
                    }
                    if let Some(d) = &c.device {
                        o.insert("device".into(), d.to_value());
                    }
                    if c.wait_ns > 0 {
                        o.insert("wait_ns".into(), c.wait_ns.into());
                    }
                    if c.page_msgs > 0 {
                        o.insert("page_msgs".into(), c.page_msgs.into());
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("channels".into(), Value::Array(cs));
        }
        if !self.irq.is_empty() {
            let qs = self
                .irq
                .iter()
                .map(|q| {
                    let mut o = Map::new();
                    o.insert("cpu".into(), q.cpu.into());
                    if let Some(n) = q.every_ns {
                        o.insert("every_ns".into(), n.into());
                    }
                    if let Some(n) = q.mean_interval_ns {
                        o.insert("mean_interval_ns".into(), n.into());
                    }
                    o.insert("cost_ns".into(), q.cost_ns.into());
                    if let Some(w) = &q.queue_work {
                        o.insert("queue_work".into(), w.clone().into());
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("irq".into(), Value::Array(qs));
        }
        self.cgroups.write(&mut m);
        if let Some(r) = self.sched_rt_runtime_us {
            m.insert("sched_rt_runtime_us".into(), r.into());
        }
        if let Some(p) = self.sched_rt_period_us {
            m.insert("sched_rt_period_us".into(), p.into());
        }
        if let Some((r, p)) = self.fair_server {
            let mut o = Map::new();
            o.insert("runtime".into(), r.into());
            o.insert("period".into(), p.into());
            m.insert("fair_server".into(), Value::Object(o));
        }
        Value::Object(m)
    }

    /// Simulated time in ns.
    pub fn duration_ns(&self) -> u64 {
        to_ns(&self.duration_ms, Unit::Ms)
    }

    /// The scenario's variants.
    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// The variants as written (`eevdf-6.6:NO_RUN_TO_PARITY`).
    pub fn variant_names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }

    /// The workloads' task groups, numbered after `tasks`, and what each workload became.
    fn expand_workloads(&self) -> (Vec<TaskGroup>, Vec<WorkloadInfo>) {
        workload::expand(self.cpus, &self.workloads, self.tasks.len())
    }

    /// A copy with the workloads turned into plain task groups (appended after `tasks`) and no
    /// workloads left: what the generators stand for, as text a user can read and edit. It
    /// gives the same [`Scenario::sim_config`], and its JSON parses back to it.
    pub fn expanded(&self) -> Scenario {
        let mut s = self.clone();
        let members = self.memberships();
        s.cgroups.members = if members.iter().all(|m| *m == Membership::default()) {
            vec![]
        } else {
            members
        };
        s.cgroups.workloads.clear();
        s.tasks.extend(self.expand_workloads().0);
        for c in workload::channel_specs(self.cpus, &self.workloads) {
            if !s.channels.iter().any(|x| x.name == c.name) {
                s.channels.push(c);
            }
        }
        s.workloads.clear();
        s
    }

    /// Each task group's cgroup or session in the expanded scenario: the entries of `"tasks"`,
    /// then the workloads' groups, each with its workload's.
    pub fn memberships(&self) -> Vec<Membership> {
        let mut m = self.cgroups.members.clone();
        m.resize(self.tasks.len(), Membership::default());
        let (generated, infos) = self.expand_workloads();
        let first = m.len();
        m.resize(first + generated.len(), Membership::default());
        for (info, wm) in infos.iter().zip(&self.cgroups.workloads) {
            for (_, groups) in &info.roles {
                for &g in groups {
                    m[g as usize] = wm.clone();
                }
            }
        }
        m
    }

    /// What each workload expands to: its kind, a label, and the groups of each role (indices
    /// into the expanded task list, i.e. `TaskSpec.group`).
    pub fn workloads(&self) -> Vec<WorkloadInfo> {
        self.expand_workloads().1
    }

    /// The engine's config: workloads expanded after the task groups, groups expanded into tasks
    /// (pid order = group order), loops flattened into `Op::Loop`, channel names resolved (`{i}`
    /// replaced by the task's index in its group).
    pub fn sim_config(&self) -> SimConfig {
        let specs: Vec<ChannelSpec> = self
            .channels
            .iter()
            .cloned()
            .chain(workload::channel_specs(self.cpus, &self.workloads))
            .collect();
        let mut channels: Vec<schedlab_sim::Channel> = Vec::new();
        // Channel numbers by name: a map, so that set-up stays O(n log n) in the channels.
        let mut index: std::collections::BTreeMap<String, u32> = Default::default();
        let cpus = self.cpus;
        fn resolve(
            name: String,
            cpus: u64,
            specs: &[ChannelSpec],
            index: &mut std::collections::BTreeMap<String, u32>,
            channels: &mut Vec<schedlab_sim::Channel>,
        ) -> u32 {
            if let Some(&i) = index.get(&name) {
                return i;
            }
            let spec = specs.iter().find(|s| s.matches(&name));
            let (capacity, wake_writer_at, futex, poll, wait_ns, page_msgs) =
                spec.map_or((0, None, false, false, 0, 0), |s| {
                    (
                        s.capacity,
                        s.wake_writer_at,
                        s.futex,
                        s.poll,
                        s.wait_ns,
                        s.page_msgs,
                    )
                });
            let device = spec.and_then(|s| s.device.clone());
            let i = channels.len() as u32;
            index.insert(name.clone(), i);
            channels.push(schedlab_sim::Channel {
                name,
                capacity,
                wake_writer_at,
                futex,
                poll,
                device: None,
                wait_ns,
                page_msgs,
            });
            if let Some(d) = device {
                // The workqueue channels, one per CPU, after the device's own.
                let workqueue = match &d.workqueue {
                    None => vec![],
                    Some(w) => (0..cpus)
                        .map(|c| {
                            let n = w.replace("{cpu}", &c.to_string());
                            resolve(n, cpus, specs, index, channels)
                        })
                        .collect(),
                };
                channels[i as usize].device = Some(schedlab_sim::IoDevice {
                    latency: d.latency_us.dist(Unit::Us),
                    hardirq_ns: d.hardirq_ns,
                    irq_cpu: d.irq_cpu.map(|c| c as u32),
                    rq_affinity: d.rq_affinity as u8,
                    workqueue,
                });
            }
            i
        }
        let mut chan =
            |name: String| -> u32 { resolve(name, cpus, &specs, &mut index, &mut channels) };
        let generated = self.expand_workloads().0;
        let mut tasks = Vec::new();
        let mut rt_tasks = Vec::new();
        let mut locks: Vec<String> = Vec::new();
        for (g, t) in self.tasks.iter().chain(generated.iter()).enumerate() {
            let affinity: Vec<u32> = match &t.affinity {
                Some(a) => {
                    let mut a: Vec<u32> = a.iter().map(|&c| c as u32).collect();
                    a.sort_unstable();
                    a
                }
                None => (0..self.cpus as u32).collect(),
            };
            for i in 0..t.count {
                if let Some(rt) = t.rt {
                    rt_tasks.push(schedlab_sim::RtTask {
                        task: tasks.len() as u32,
                        policy: if rt.rr {
                            schedlab_sim::RtPolicy::Rr
                        } else {
                            schedlab_sim::RtPolicy::Fifo
                        },
                        priority: rt.priority as u32,
                    });
                }
                let mut program = Vec::new();
                push_ops(
                    &t.program,
                    &i.to_string(),
                    &mut chan,
                    &mut locks,
                    &mut program,
                );
                tasks.push(TaskSpec {
                    comm: t.name.clone(),
                    group: g as u32,
                    nice: t.nice as i32,
                    policy: t.policy,
                    slice_ns: t.slice_us.as_ref().map(|s| to_ns(s, Unit::Us)),
                    affinity: affinity.clone(),
                    program,
                    start_ns: t
                        .start_ms
                        .as_ref()
                        .map_or(0, |s| to_ns(s, Unit::Ms))
                        .saturating_add(
                            t.create_every_us
                                .as_ref()
                                .map_or(0, |e| i.saturating_mul(to_ns(e, Unit::Us))),
                        ),
                    kthread: t.kthread,
                    daemon: false,
                    cpu_clock: t.cpu_clock,
                });
            }
        }
        // The interrupts' workqueue channels (their kworkers read them).
        let irq_work: Vec<Option<u32>> = self
            .irq
            .iter()
            .map(|q| q.queue_work.clone().map(&mut chan))
            .collect();
        // The parser admits only measured machines' names.
        let machine = self.machine.as_deref().and_then(schedlab_sim::machine);
        let mut cgroups = self.cgroups.sim(
            &self
                .tasks
                .iter()
                .chain(generated.iter())
                .map(|t| t.count)
                .collect::<Vec<_>>(),
            &self.memberships(),
        );
        // The machine's other work: a pinned task per CPU after the scenario's own (their
        // pids unchanged), in the root group, reported as a task group of its own. One the
        // scenario sets always runs; otherwise the machine's, or the default, where the
        // balancer has something to decide, which is what it is there for (more than one
        // CPU and a task allowed on more than one), and not where tasks are in groups: the
        // model has no group entities, so a root task beside a group's tasks would reorder
        // the group's whole queue each time it ran (ARCHITECTURE.md, "Housekeeping").
        let movable = tasks.iter().any(|t| t.affinity.len() > 1);
        let housekeeping = match self.housekeeping {
            Some(HousekeepingSetting::Off) => None,
            Some(HousekeepingSetting::Custom(h)) => Some(h),
            None if movable && !cgroups.active() => {
                Some(machine.map_or(DEFAULT_HOUSEKEEPING, |m| m.housekeeping))
            }
            None => None,
        };
        if let Some(h) = housekeeping {
            let group = (self.tasks.len() + generated.len()) as u32;
            tasks.extend(h.tasks(self.cpus as u32, group));
            if !cgroups.task_group.is_empty() {
                cgroups.task_group.resize(tasks.len(), 0);
            }
        }
        SimConfig {
            cpus: self.cpus as u32,
            llc_size: self.topology.llc_size as u32,
            smt: self.topology.smt as u32,
            hz: self.hz as u32,
            duration_ns: self.duration_ns(),
            seed: self.seed,
            switch_delay_ns: self.switch_delay_ns.unwrap_or(DEFAULT_SWITCH_DELAY_NS),
            irq_ns: self.irq_ns.unwrap_or(
                DEFAULT_IRQ_NS.min(self.switch_delay_ns.unwrap_or(DEFAULT_SWITCH_DELAY_NS)),
            ),
            idle_wakeup_ns: self
                .idle_wakeup_ns
                .or(machine.map(|m| m.idle_wakeup_ns))
                .unwrap_or(DEFAULT_IDLE_WAKEUP_NS),
            idle_states: self
                .idle_states
                .clone()
                .or(machine.map(|m| m.idle_states.to_vec()))
                .unwrap_or_default(),
            switch_cost_ns: self
                .switch_cost_ns
                .or(machine.map(|m| m.switch_cost_ns))
                .unwrap_or(0),
            wakeup_cost_ns: self
                .wakeup_cost_ns
                .or(machine.map(|m| m.wakeup_cost_ns))
                .unwrap_or(0),
            ipi_cost_ns: self
                .ipi_cost_ns
                .or(machine.map(|m| m.ipi_cost_ns))
                .unwrap_or(0),
            // No measured machine has it apart from its switch cost.
            local_wakeup_ns: self.local_wakeup_ns.unwrap_or(0),
            cost_spread_ppm: self
                .cost_spread_ppm
                .or(machine.map(|m| m.cost_spread_ppm))
                .unwrap_or(0),
            launcher_wakee_flips: self
                .launcher_wakee_flips
                .unwrap_or(DEFAULT_LAUNCHER_WAKEE_FLIPS),
            channels,
            tasks,
            record_snapshots: false,
            record_decisions: false,
            irq_load: self
                .irq
                .iter()
                .zip(irq_work)
                .map(|(q, queue_work)| schedlab_sim::IrqSource {
                    cpu: q.cpu as u32,
                    arrival: match q.every_ns {
                        Some(n) => schedlab_sim::IrqArrival::Every(n),
                        None => schedlab_sim::IrqArrival::Poisson(q.mean_interval_ns.unwrap_or(1)),
                    },
                    cost_ns: q.cost_ns,
                    queue_work,
                })
                .collect(),
            cache: self.cache.and_then(CacheSetting::cost),
            cgroups,
            rt_tasks,
            rt_bandwidth: {
                let d = schedlab_sim::RtBandwidth::default();
                let period = self.sched_rt_period_us.map_or(d.rt_period_ns, |p| p * 1000);
                schedlab_sim::RtBandwidth {
                    rt_runtime_ns: match self.sched_rt_runtime_us {
                        None => d.rt_runtime_ns,
                        Some(r) if r < 0 => None,
                        Some(r) => Some(r as u64 * 1000),
                    },
                    rt_period_ns: period,
                    fair_server_runtime_ns: self
                        .fair_server
                        .map_or(d.fair_server_runtime_ns, |f| f.0),
                    fair_server_period_ns: self
                        .fair_server
                        .map_or(d.fair_server_period_ns, |f| f.1),
                }
            },
        }
    }
}

/// A per-CPU lock array's index: the order in which the scenario's programs first name it.
fn lock_index(locks: &mut Vec<String>, name: &str) -> u32 {
    match locks.iter().position(|l| l == name) {
        Some(k) => k as u32,
        None => {
            locks.push(name.to_string());
            locks.len() as u32 - 1
        }
    }
}

/// Appends the ops of `steps` for the task with index `i` in its group.
fn push_ops(
    steps: &[Step],
    i: &str,
    chan: &mut impl FnMut(String) -> u32,
    locks: &mut Vec<String>,
    ops: &mut Vec<Op>,
) {
    for st in steps {
        let op = match st {
            Step::RunForever => Op::Run(None),
            Step::Run(d, u) => Op::Run(Some(d.dist(*u))),
            Step::Sleep(d, u) => Op::Sleep(d.dist(*u)),
            Step::Send(c) => Op::Send(chan(c.replace("{i}", i))),
            Step::Recv(c) => Op::Recv(chan(c.replace("{i}", i))),
            Step::Exit => Op::Exit,
            Step::WaitPeriod(p, u) => Op::WaitPeriod(to_ns(p, *u)),
            Step::Complete(w) => {
                // The workqueue channel exists (its kworker reads it); the op needs no index.
                chan(w.replace("{i}", i));
                Op::Complete
            }
            Step::Affinity(cpus) => Op::Affinity {
                first: cpus.iter().copied().min().unwrap_or(0) as u32,
                last: cpus.iter().copied().max().unwrap_or(0) as u32,
            },
            Step::LockCpu(l) => Op::LockCpu(lock_index(locks, l)),
            Step::UnlockCpu(l) => Op::UnlockCpu(lock_index(locks, l)),
            Step::Request(c, r) => Op::Request {
                to: chan(c.replace("{i}", i)),
                reply_to: chan(r.replace("{i}", i)),
            },
            Step::Reply => Op::Reply,
            Step::Loop(n, body) => {
                let start = ops.len() as u32;
                push_ops(body, i, chan, locks, ops);
                Op::Loop {
                    start,
                    times: *n as u32,
                }
            }
        };
        ops.push(op);
    }
}

impl Step {
    /// The canonical JSON value of this step.
    pub fn to_value(&self) -> Value {
        let mut p = Map::new();
        match self {
            Step::RunForever => {
                p.insert("run".into(), "forever".into());
            }
            Step::Run(d, u) => {
                p.insert(format!("run_{}", u.suffix()), d.to_value());
            }
            Step::Sleep(d, u) => {
                p.insert(format!("sleep_{}", u.suffix()), d.to_value());
            }
            Step::Send(c) => {
                p.insert("send".into(), c.clone().into());
            }
            Step::Recv(c) => {
                p.insert("recv".into(), c.clone().into());
            }
            Step::Exit => {
                p.insert("exit".into(), true.into());
            }
            Step::Loop(n, body) => {
                p.insert("loop".into(), (*n).into());
                p.insert(
                    "steps".into(),
                    Value::Array(body.iter().map(Step::to_value).collect()),
                );
            }
            Step::Affinity(cpus) => {
                p.insert(
                    "affinity".into(),
                    Value::Array(cpus.iter().map(|&c| c.into()).collect()),
                );
            }
            Step::WaitPeriod(n, u) => {
                p.insert(
                    format!("wait_period_{}", u.suffix()),
                    Value::Number(n.clone()),
                );
            }
            Step::Complete(w) => {
                p.insert("complete".into(), w.clone().into());
            }
            Step::LockCpu(l) => {
                p.insert("lock_cpu".into(), l.clone().into());
            }
            Step::UnlockCpu(l) => {
                p.insert("unlock_cpu".into(), l.clone().into());
            }
            Step::Request(c, r) => {
                p.insert("send".into(), c.clone().into());
                p.insert("reply_to".into(), r.clone().into());
            }
            Step::Reply => {
                p.insert("reply".into(), true.into());
            }
        }
        Value::Object(p)
    }

    /// How many engine ops this step becomes (a loop adds one op after its body).
    pub fn op_count(&self) -> usize {
        match self {
            Step::Loop(_, body) => 1 + body.iter().map(Step::op_count).sum::<usize>(),
            _ => 1,
        }
    }
}
