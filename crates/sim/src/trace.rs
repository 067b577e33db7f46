//! The trace: what happened, named after the kernel's tracepoints.
//!
//! This is the one model shared by simulations and imported real traces: the report functions
//! take a [`Trace`] and never know where it came from. Pid 0 is the idle task (`swapper`; the
//! kernel names each CPU's `swapper/N`).
//!
//! A run hands its events to a [`Sink`] as they happen, and keeps in its [`Trace`] only what
//! its [`TraceLevel`] asks for: everything, the switches and wakeups without the
//! `sched_stat_runtime` accounting (most of the events), or nothing but the [`TraceCounts`].
//! A run whose trace is not kept costs no trace memory; a sink can stream the events elsewhere
//! (a file, per-task statistics) while the run goes on.

use alloc::string::String;
use alloc::vec::Vec;

/// A task id as the kernel prints it; 0 is the idle task.
pub type Pid = u32;

/// `prev_state` of a `sched_switch`, as perf maps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrevState {
    /// Still runnable: preempted (the kernel's "R+"/TASK_REPORT_MAX, printed 'R').
    Running,
    /// Blocked, interruptible ('S').
    Sleeping,
    /// Exited ('X').
    Dead,
}

impl PrevState {
    /// The letter perf and ftrace print.
    pub fn letter(self) -> char {
        match self {
            PrevState::Running => 'R',
            PrevState::Sleeping => 'S',
            PrevState::Dead => 'X',
        }
    }
}

/// One tracepoint hit. Field names are the tracepoints' own.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `sched_waking`: start of try_to_wake_up, on the waker's CPU; `target_cpu` = task_cpu(p).
    Waking { pid: Pid, target_cpu: u32 },
    /// `sched_wakeup`: the task is runnable on `target_cpu`.
    Wakeup { pid: Pid, target_cpu: u32 },
    /// `sched_wakeup_new`: a new task is runnable on `target_cpu`.
    WakeupNew { pid: Pid, target_cpu: u32 },
    /// `sched_switch`.
    Switch {
        prev_pid: Pid,
        prev_state: PrevState,
        next_pid: Pid,
    },
    /// `sched_migrate_task`.
    MigrateTask {
        pid: Pid,
        orig_cpu: u32,
        dest_cpu: u32,
    },
    /// `sched_stat_runtime`: CPU time charged by one `update_curr`.
    StatRuntime { pid: Pid, runtime_ns: u64 },
}

/// A timestamped event on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// Time in ns from the start.
    pub t_ns: u64,
    /// The CPU the tracepoint fired on.
    pub cpu: u32,
    /// What happened.
    pub kind: EventKind,
}

/// Where a run's events go as they happen (besides what its [`TraceLevel`] keeps).
pub trait Sink {
    /// One tracepoint hit, in the order they happen.
    fn event(&mut self, e: &Event);
    /// A scheduler-state snapshot (runs with `record_snapshots`).
    fn snapshot(&mut self, _s: &Snapshot) {}
}

/// Keeping a trace is one sink: the events are appended.
impl Sink for Trace {
    fn event(&mut self, e: &Event) {
        self.events.push(*e);
    }
    fn snapshot(&mut self, s: &Snapshot) {
        self.snapshots.push(*s);
    }
}

/// A sink the caller keeps a handle to (to read it after the run).
impl<S: Sink> Sink for alloc::rc::Rc<core::cell::RefCell<S>> {
    fn event(&mut self, e: &Event) {
        self.borrow_mut().event(e);
    }
    fn snapshot(&mut self, s: &Snapshot) {
        self.borrow_mut().snapshot(s);
    }
}

/// How much of its trace a run keeps in its output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceLevel {
    /// Every event (what the reports and the timeline read).
    #[default]
    Full,
    /// Switches, wakeups and migrations: everything but `sched_stat_runtime`.
    Switches,
    /// No events: only the [`TraceCounts`].
    Counters,
}

/// How many events of each kind a run produced, whatever it kept.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceCounts {
    pub waking: u64,
    pub wakeup: u64,
    pub wakeup_new: u64,
    pub switch: u64,
    pub migrate_task: u64,
    pub stat_runtime: u64,
}

impl TraceCounts {
    /// Counts one event.
    pub fn add(&mut self, k: &EventKind) {
        let c = match k {
            EventKind::Waking { .. } => &mut self.waking,
            EventKind::Wakeup { .. } => &mut self.wakeup,
            EventKind::WakeupNew { .. } => &mut self.wakeup_new,
            EventKind::Switch { .. } => &mut self.switch,
            EventKind::MigrateTask { .. } => &mut self.migrate_task,
            EventKind::StatRuntime { .. } => &mut self.stat_runtime,
        };
        *c += 1;
    }
    /// All events.
    pub fn total(&self) -> u64 {
        self.waking
            + self.wakeup
            + self.wakeup_new
            + self.switch
            + self.migrate_task
            + self.stat_runtime
    }
}

/// A sink that only counts (what [`TraceLevel::Counters`] keeps).
impl Sink for TraceCounts {
    fn event(&mut self, e: &Event) {
        self.add(&e.kind);
    }
}

/// The engine's side of the trace: the level's events kept, the counts, and an optional sink.
#[derive(Default)]
pub(crate) struct Recorder {
    pub level: TraceLevel,
    pub trace: Trace,
    pub counts: TraceCounts,
    pub sink: Option<alloc::boxed::Box<dyn Sink>>,
    /// `record_decisions`: the fair class and the engine push decision records.
    pub decisions: bool,
    /// Which of them are kept (all when `None`).
    pub keep_decision: Option<fn(&crate::decision::DecisionKind) -> bool>,
}

impl Recorder {
    /// Records a decision (callers check `decisions` first, so nothing is built when off).
    #[inline]
    pub fn decide(&mut self, t_ns: u64, cpu: u32, kind: crate::decision::DecisionKind) {
        if self.keep_decision.is_some_and(|keep| !keep(&kind)) {
            return;
        }
        self.trace
            .decisions
            .push(crate::decision::Decision { t_ns, cpu, kind });
    }
    /// Records one event.
    #[inline]
    pub fn event(&mut self, e: Event) {
        self.counts.add(&e.kind);
        let keep = match self.level {
            TraceLevel::Full => true,
            TraceLevel::Switches => !matches!(e.kind, EventKind::StatRuntime { .. }),
            TraceLevel::Counters => false,
        };
        if keep {
            self.trace.events.push(e);
        }
        if let Some(s) = self.sink.as_mut() {
            s.event(&e);
        }
    }
    /// Records a snapshot (kept unless the level is `Counters`).
    pub fn snapshot(&mut self, s: Snapshot) {
        if self.level != TraceLevel::Counters {
            self.trace.snapshots.push(s);
        }
        if let Some(k) = self.sink.as_mut() {
            k.snapshot(&s);
        }
    }
}

/// A task known to the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskInfo {
    /// Its pid (> 0).
    pub pid: Pid,
    /// `comm`.
    pub comm: String,
    /// The scenario task group it belongs to (for grouping in reports), if any.
    pub group: Option<u32>,
}

/// Scheduler state of one entity at one moment, for timeline overlays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Snapshot {
    /// Time in ns.
    pub t_ns: u64,
    /// CPU.
    pub cpu: u32,
    /// The task.
    pub pid: Pid,
    /// Its vruntime.
    pub vruntime: i64,
    /// Its virtual deadline (EEVDF; 0 under CFS).
    pub deadline: i64,
    /// The runqueue's V (EEVDF avg_vruntime) or min_vruntime (CFS).
    pub v: i64,
    /// V − vruntime (virtual lag; EEVDF).
    pub lag: i64,
    /// Whether it is eligible (EEVDF; always true under CFS).
    pub eligible: bool,
}

/// A whole trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Number of CPUs.
    pub cpus: u32,
    /// Tasks, ordered by pid.
    pub tasks: Vec<TaskInfo>,
    /// Events in time order (ties in the order they happened), 16 bytes each.
    pub events: crate::events::Events,
    /// Optional per-switch snapshots.
    pub snapshots: Vec<Snapshot>,
    /// Optional decision records (`record_decisions`), in time order.
    pub decisions: Vec<crate::decision::Decision>,
    /// Where the trace ends.
    pub end_ns: u64,
}

impl Trace {
    /// The comm of `pid`; the idle task is `swapper` (one name for every CPU's idle task).
    pub fn comm(&self, pid: Pid) -> &str {
        if pid == 0 {
            return "swapper";
        }
        self.tasks
            .binary_search_by_key(&pid, |t| t.pid)
            .map(|i| self.tasks[i].comm.as_str())
            .unwrap_or("?")
    }

    /// A 64-bit FNV-1a hash of the events, for determinism checks.
    pub fn hash(&self) -> u64 {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for e in &self.events {
            h.u64(e.t_ns);
            h.u64(e.cpu as u64);
            match e.kind {
                EventKind::Waking { pid, target_cpu } => {
                    h.many(&[1, pid as u64, target_cpu as u64])
                }
                EventKind::Wakeup { pid, target_cpu } => {
                    h.many(&[2, pid as u64, target_cpu as u64])
                }
                EventKind::WakeupNew { pid, target_cpu } => {
                    h.many(&[3, pid as u64, target_cpu as u64])
                }
                EventKind::Switch {
                    prev_pid,
                    prev_state,
                    next_pid,
                } => h.many(&[
                    4,
                    prev_pid as u64,
                    prev_state.letter() as u64,
                    next_pid as u64,
                ]),
                EventKind::MigrateTask {
                    pid,
                    orig_cpu,
                    dest_cpu,
                } => h.many(&[5, pid as u64, orig_cpu as u64, dest_cpu as u64]),
                EventKind::StatRuntime { pid, runtime_ns } => h.many(&[6, pid as u64, runtime_ns]),
            }
        }
        h.0
    }
}

struct Fnv(u64);
impl Fnv {
    fn u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn many(&mut self, vs: &[u64]) {
        for &v in vs {
            self.u64(v);
        }
    }
}
