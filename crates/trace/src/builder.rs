//! Builds a [`Trace`] from parsed events: the pid map, the clock offset, the CPU count, and the
//! book-keeping every importer reports (warnings, skipped events, `prev_state` forms).
//!
//! Pids: the simulator's reports and the page index tasks by a dense pid space from 1
//! (`RunTimeline::lanes`, `Trace::comm`), so a real recording's pids are renumbered: every task
//! incarnation gets a model pid, in the order of (real pid, incarnation), so that orders by pid
//! (perf's tie order in `perf sched latency`) are kept. A real pid is reused for a new task
//! when a `sched_wakeup_new` names it after it exited (`sched_process_exit` or a switch-out in
//! state X/Z). The idle task stays pid 0. [`RealTask`] keeps the real pid, comm and priority.

use std::collections::{BTreeMap, HashMap};

use schedlab_sim::{Event, EventKind, Pid, PrevState, TaskInfo, Trace};

use crate::text::excerpt;
use crate::{LineWarning, RealTask};

/// One task incarnation while parsing.
struct Slot {
    real_pid: u32,
    comm: String,
    prio: Option<i32>,
    exited: bool,
}

/// CPU numbers are below this: the kernel's largest `CONFIG_NR_CPUS` (8192, with MAXSMP). A
/// larger number is a damaged line, and would make every per-CPU table that large.
pub(crate) const MAX_CPU: u32 = 8192;

/// What the parsers feed.
pub(crate) struct Builder {
    /// Keep pids as they are (schedlab's own exports: already the model's pids).
    keep_pids: bool,
    /// Real pid → its current slot.
    slot_of: HashMap<u32, u32>,
    slots: Vec<Slot>,
    /// keep_pids: pid → comm.
    comms: BTreeMap<Pid, String>,
    pub(crate) events: Vec<Event>,
    max_cpu: Option<u32>,
    /// A CPU count printed by the tracer (`cpus=N`, `#P:N`, Perfetto's CPU threads).
    pub(crate) cpus_hint: Option<u32>,
    /// A CPU number at or above [`MAX_CPU`] in the event just pushed (which was dropped).
    pub(crate) bad_cpu: Option<u32>,
    t_min: u64,
    t_max: u64,
    last_t: u64,
    out_of_order: u64,
    /// Per CPU: the task the last switch put on it.
    on_cpu: Vec<Option<Pid>>,
    /// Switches whose prev is not the task the CPU's previous switch put on it.
    chain_breaks: u64,
    /// Whether to count those (not for timehist, whose switches are rebuilt consistent).
    pub(crate) check_chain: bool,
    /// Where the trace ends if known better than by its last event (Perfetto slices).
    pub(crate) end_hint: Option<u64>,
    pub(crate) warnings: Vec<LineWarning>,
    pub(crate) warnings_total: u64,
    max_warnings: usize,
    pub(crate) events_read: BTreeMap<String, u64>,
    pub(crate) skipped: BTreeMap<String, u64>,
    pub(crate) prev_states: BTreeMap<String, u64>,
    pub(crate) lost_events: u64,
    pub(crate) notes: Vec<String>,
}

impl Builder {
    pub(crate) fn new(keep_pids: bool, max_warnings: usize) -> Builder {
        Builder {
            keep_pids,
            slot_of: HashMap::new(),
            slots: Vec::new(),
            comms: BTreeMap::new(),
            events: Vec::new(),
            max_cpu: None,
            cpus_hint: None,
            bad_cpu: None,
            t_min: u64::MAX,
            t_max: 0,
            last_t: 0,
            out_of_order: 0,
            on_cpu: Vec::new(),
            chain_breaks: 0,
            check_chain: true,
            end_hint: None,
            warnings: Vec::new(),
            warnings_total: 0,
            max_warnings,
            events_read: BTreeMap::new(),
            skipped: BTreeMap::new(),
            prev_states: BTreeMap::new(),
            lost_events: 0,
            notes: Vec::new(),
        }
    }

    /// A line that could not be used: kept (up to the cap) with its number and text.
    pub(crate) fn warn(&mut self, line: u64, text: &str, message: impl Into<String>) {
        self.warnings_total += 1;
        if self.warnings.len() < self.max_warnings {
            self.warnings.push(LineWarning {
                line,
                text: excerpt(text),
                message: message.into(),
            });
        }
    }

    /// Counts an event that was read (by its tracepoint name, without the `sched:` prefix).
    pub(crate) fn read(&mut self, name: &str) {
        count(&mut self.events_read, name);
    }

    /// Counts an event that is not part of the model.
    pub(crate) fn skip(&mut self, name: &str) {
        count(&mut self.skipped, name);
    }

    /// Counts a `prev_state` form and maps it to the model's three states: `R`/`R+` still
    /// runnable (preempted), `X`/`Z` exited, anything else (S, D, I, T, t, P, W, K, N, `D|K`, …)
    /// blocked. `None` for an empty state.
    pub(crate) fn prev_state(&mut self, s: &str) -> Option<PrevState> {
        if s.is_empty() {
            return None;
        }
        count(&mut self.prev_states, s);
        Some(if s == "R" || s == "R+" {
            PrevState::Running
        } else if s.contains(['X', 'Z']) {
            PrevState::Dead
        } else {
            PrevState::Sleeping
        })
    }

    /// A `sched_switch` as the tracepoint prints it: (comm, real pid, prio) of the task going
    /// out and of the task coming in, and `prev_state` as written. An exiting task's pid is
    /// retired, so a reuse of it is a new task.
    pub(crate) fn switch(
        &mut self,
        t_ns: u64,
        cpu: u32,
        prev: (&str, u32, Option<i64>),
        prev_state: &str,
        next: (&str, u32, Option<i64>),
    ) -> Result<(), &'static str> {
        let prev_state = self.prev_state(prev_state).ok_or("empty prev_state")?;
        let prev_pid = self.pid(prev.1, Some(prev.0), prev.2);
        if prev_state == PrevState::Dead {
            self.exited(prev.1);
        }
        let next_pid = self.pid(next.1, Some(next.0), next.2);
        self.push(
            t_ns,
            cpu,
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            },
        );
        Ok(())
    }

    /// The model pid of a real pid seen in an event, updating its comm (and prio) when given.
    pub(crate) fn pid(&mut self, real: u32, comm: Option<&str>, prio: Option<i64>) -> Pid {
        if real == 0 {
            return 0;
        }
        if self.keep_pids {
            if let Some(c) = comm {
                if self.comms.get(&real).map(String::as_str) != Some(c) {
                    self.comms.insert(real, c.to_string());
                }
            } else {
                self.comms.entry(real).or_default();
            }
            return real;
        }
        let slot = match self.slot_of.get(&real) {
            Some(&s) => s,
            None => self.new_slot(real),
        };
        let s = &mut self.slots[slot as usize];
        if let Some(c) = comm {
            // `<...>`: ftrace did not know the comm (its saved_cmdlines cache missed).
            if c != s.comm && c != "<...>" && !c.is_empty() {
                s.comm = c.to_string();
            }
        }
        if let Some(p) = prio.and_then(|p| i32::try_from(p).ok()) {
            s.prio = Some(p);
        }
        slot + 1
    }

    /// A `sched_wakeup_new`: a new incarnation if that real pid exited before.
    pub(crate) fn new_task(&mut self, real: u32, comm: Option<&str>, prio: Option<i64>) -> Pid {
        if !self.keep_pids && real != 0 {
            if let Some(&s) = self.slot_of.get(&real) {
                if self.slots[s as usize].exited {
                    self.new_slot(real);
                }
            }
        }
        self.pid(real, comm, prio)
    }

    /// The task exited (`sched_process_exit`, or switched out in state X/Z).
    pub(crate) fn exited(&mut self, real: u32) {
        if let Some(&s) = self.slot_of.get(&real) {
            self.slots[s as usize].exited = true;
        }
    }

    fn new_slot(&mut self, real: u32) -> u32 {
        let slot = self.slots.len() as u32;
        self.slots.push(Slot {
            real_pid: real,
            comm: String::new(),
            prio: None,
            exited: false,
        });
        self.slot_of.insert(real, slot);
        slot
    }

    /// Notes a CPU number (events, target and migration CPUs).
    pub(crate) fn cpu(&mut self, cpu: u32) {
        self.max_cpu = Some(self.max_cpu.map_or(cpu, |m| m.max(cpu)));
    }

    /// Appends an event at absolute time `t_ns` (model pids already). An event that names a
    /// CPU at or above [`MAX_CPU`] is dropped and left in [`Builder::bad_cpu`] for the line's
    /// parser to report.
    pub(crate) fn push(&mut self, t_ns: u64, cpu: u32, kind: EventKind) {
        let other = match kind {
            EventKind::Waking { target_cpu, .. }
            | EventKind::Wakeup { target_cpu, .. }
            | EventKind::WakeupNew { target_cpu, .. } => target_cpu,
            EventKind::MigrateTask {
                orig_cpu, dest_cpu, ..
            } => orig_cpu.max(dest_cpu),
            _ => 0,
        };
        if cpu.max(other) >= MAX_CPU {
            self.bad_cpu = Some(cpu.max(other));
            return;
        }
        self.cpu(cpu);
        match kind {
            EventKind::Waking { target_cpu, .. }
            | EventKind::Wakeup { target_cpu, .. }
            | EventKind::WakeupNew { target_cpu, .. } => self.cpu(target_cpu),
            EventKind::MigrateTask {
                orig_cpu, dest_cpu, ..
            } => {
                self.cpu(orig_cpu);
                self.cpu(dest_cpu);
            }
            _ => {}
        }
        if let (
            EventKind::Switch {
                prev_pid, next_pid, ..
            },
            true,
        ) = (kind, self.check_chain)
        {
            let c = cpu as usize;
            if c < 4096 {
                if self.on_cpu.len() <= c {
                    self.on_cpu.resize(c + 1, None);
                }
                if self.on_cpu[c].is_some_and(|p| p != prev_pid) {
                    self.chain_breaks += 1;
                }
                self.on_cpu[c] = Some(next_pid);
            }
        }
        if t_ns < self.last_t {
            self.out_of_order += 1;
        }
        self.last_t = t_ns;
        self.t_min = self.t_min.min(t_ns);
        self.t_max = self.t_max.max(t_ns);
        self.events.push(Event { t_ns, cpu, kind });
    }

    /// The trace, its pid map, and time 0 on the recording's clock. `rebase`: subtract the
    /// first event's time (real recordings); schedlab's exports keep their times.
    pub(crate) fn finish(mut self, rebase: bool) -> Finished {
        if self.chain_breaks > 0 {
            self.notes.push(format!(
                "{} switches name a prev task other than the one the CPU's previous switch put \
                 on it: the tracer missed events there (the timeline has a gap)",
                self.chain_breaks
            ));
        }
        let t0 = if rebase && !self.events.is_empty() {
            self.t_min
        } else {
            0
        };
        if self.out_of_order > 0 {
            // Stable: events at one instant keep the order they were read in.
            self.events.sort_by_key(|e| e.t_ns);
            self.notes.push(format!(
                "{} events were out of time order and were sorted",
                self.out_of_order
            ));
        }
        let (tasks, pids) = if self.keep_pids {
            let tasks: Vec<TaskInfo> = self
                .comms
                .iter()
                .map(|(&pid, comm)| TaskInfo {
                    pid,
                    comm: comm.clone(),
                    group: None,
                })
                .collect();
            let pids = tasks
                .iter()
                .map(|t| RealTask {
                    pid: t.pid,
                    real_pid: t.pid,
                    comm: t.comm.clone(),
                    prio: None,
                })
                .collect();
            (tasks, pids)
        } else {
            // Model pid = rank of (real pid, incarnation).
            let mut order: Vec<u32> = (0..self.slots.len() as u32).collect();
            order.sort_by_key(|&s| (self.slots[s as usize].real_pid, s));
            let mut model = vec![0 as Pid; self.slots.len()];
            for (rank, &s) in order.iter().enumerate() {
                model[s as usize] = rank as Pid + 1;
            }
            let map = |p: Pid| if p == 0 { 0 } else { model[p as usize - 1] };
            for e in &mut self.events {
                e.kind = match e.kind {
                    EventKind::Waking { pid, target_cpu } => EventKind::Waking {
                        pid: map(pid),
                        target_cpu,
                    },
                    EventKind::Wakeup { pid, target_cpu } => EventKind::Wakeup {
                        pid: map(pid),
                        target_cpu,
                    },
                    EventKind::WakeupNew { pid, target_cpu } => EventKind::WakeupNew {
                        pid: map(pid),
                        target_cpu,
                    },
                    EventKind::Switch {
                        prev_pid,
                        prev_state,
                        next_pid,
                    } => EventKind::Switch {
                        prev_pid: map(prev_pid),
                        prev_state,
                        next_pid: map(next_pid),
                    },
                    EventKind::MigrateTask {
                        pid,
                        orig_cpu,
                        dest_cpu,
                    } => EventKind::MigrateTask {
                        pid: map(pid),
                        orig_cpu,
                        dest_cpu,
                    },
                    EventKind::StatRuntime { pid, runtime_ns } => EventKind::StatRuntime {
                        pid: map(pid),
                        runtime_ns,
                    },
                };
            }
            let mut tasks = Vec::with_capacity(order.len());
            let mut pids = Vec::with_capacity(order.len());
            for (rank, &s) in order.iter().enumerate() {
                let slot = &self.slots[s as usize];
                let comm = if slot.comm.is_empty() {
                    format!("<{}>", slot.real_pid)
                } else {
                    slot.comm.clone()
                };
                tasks.push(TaskInfo {
                    pid: rank as Pid + 1,
                    comm: comm.clone(),
                    group: None,
                });
                pids.push(RealTask {
                    pid: rank as Pid + 1,
                    real_pid: slot.real_pid,
                    comm,
                    prio: slot.prio,
                });
            }
            (tasks, pids)
        };
        for e in &mut self.events {
            e.t_ns -= t0;
        }
        let last = if self.events.is_empty() {
            0
        } else {
            self.t_max - t0
        };
        let end_ns = self.end_hint.map_or(last, |h| h.max(last));
        let seen = self.max_cpu.map_or(0, |m| m + 1);
        let cpus = self
            .cpus_hint
            .filter(|&h| h <= MAX_CPU)
            .map_or(seen, |h| h.max(seen));
        Finished {
            trace: Trace {
                cpus,
                tasks,
                events: self.events.into(),
                snapshots: Vec::new(),
                decisions: Vec::new(),
                end_ns,
            },
            pids,
            t0_ns: t0,
            warnings: self.warnings,
            warnings_total: self.warnings_total,
            events_read: self.events_read,
            skipped: self.skipped,
            prev_states: self.prev_states,
            lost_events: self.lost_events,
            notes: self.notes,
        }
    }
}

/// What [`Builder::finish`] gives.
pub(crate) struct Finished {
    pub(crate) trace: Trace,
    pub(crate) pids: Vec<RealTask>,
    pub(crate) t0_ns: u64,
    pub(crate) warnings: Vec<LineWarning>,
    pub(crate) warnings_total: u64,
    pub(crate) events_read: BTreeMap<String, u64>,
    pub(crate) skipped: BTreeMap<String, u64>,
    pub(crate) prev_states: BTreeMap<String, u64>,
    pub(crate) lost_events: u64,
    pub(crate) notes: Vec<String>,
}

fn count(map: &mut BTreeMap<String, u64>, name: &str) {
    match map.get_mut(name) {
        Some(n) => *n += 1,
        None => {
            map.insert(name.to_string(), 1);
        }
    }
}
