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
    /// Whether to restore the switches from idle the tracer dropped (`restore_switch_ins`).
    pub(crate) restore: bool,
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
            restore: true,
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
        if self.chain_breaks > 0 {
            let r = if self.restore {
                restore_switch_ins(&mut self.events)
            } else {
                Restored::default()
            };
            if r.by_stat > 0 {
                self.notes.push(format!(
                    "{} switches from the idle task to a task were missing (the tracer dropped \
                     the idle task's events on a CPU) and are restored at the task's first \
                     sched_stat_runtime there less its runtime, plus {:.1} µs (the median lead \
                     of that start over {} intact switch-ins), before the CPU's next event",
                    r.by_stat,
                    r.stat_lead_ns as f64 / 1e3,
                    r.leads
                ));
            }
            if r.by_arrival > 0 {
                self.notes.push(format!(
                    "{} switches from the idle task to a task were missing (the tracer dropped \
                     the idle task's events on a CPU) and are restored {:.1} µs after the \
                     task's wakeup or migration onto that CPU (the median of {} intact such \
                     waits), before the CPU's next event",
                    r.by_arrival,
                    r.wait_ns as f64 / 1e3,
                    r.intact
                ));
            }
            let left = self.chain_breaks.saturating_sub(r.by_stat + r.by_arrival);
            if left > 0 {
                self.notes.push(format!(
                    "{left} switches name a prev task other than the one the CPU's previous \
                     switch put on it: the tracer missed events there (the timeline has a gap)"
                ));
            }
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

/// What [`restore_switch_ins`] did.
#[derive(Default)]
struct Restored {
    /// The wait from a wakeup (or migration) onto an idle CPU to the switch-in put after each
    /// restored wakeup, ns: the median of the intact ones.
    wait_ns: u64,
    /// How many intact waits that median is of.
    intact: usize,
    /// Of the restored, how many from `sched_stat_runtime` and how many from an arrival.
    by_stat: u64,
    by_arrival: u64,
    /// How many intact switch-ins the lead's median is of.
    leads: usize,
    /// From the start a switch-in's first `sched_stat_runtime` implies to the switch's own
    /// time, ns: the median over the intact switch-ins (the kernel starts the clock in
    /// `set_next_entity`, before the tracepoint).
    stat_lead_ns: i64,
}

/// At most this long from a task's arrival on an idle CPU to its switch-in counts as one of
/// the intact waits the restored switch-ins take their median from (ns).
const MAX_IDLE_WAIT_NS: u64 = 1_000_000;

/// Arrivals kept per CPU between two of its switches (a damaged trace could pile up any
/// number).
const MAX_ARRIVALS: usize = 64;

/// Puts back the idle → task switches a tracer dropped. Some `perf script` outputs lack every event
/// of the idle task on some CPUs (on the VMs here, recordings made with perf 6.1.187 lost CPU 1's:
/// `pingpong-cross` shows 87 000 switches out of a task that no switch put on its CPU), so a task
/// switched in on an idle CPU seems never to run there, and its CPU time, bursts and wake-to-run
/// waits are lost. A switch out of a task X on a CPU that the previous switch there left idle had
/// X's switch-in dropped; it is restored where the recording shows X began to run: at X's first
/// `sched_stat_runtime` on that CPU since, less the runtime it reports (the time since
/// `set_next_entity` started the clock) plus the median lead of that start over the intact
/// switch-ins, or else after X's first wakeup or migration onto that CPU since its last switch by
/// the median wait of such wakeups whose switch-in is intact, and never after the CPU's next event
/// (X's own). A break with no such evidence (a task unthrottled by a bandwidth timer; a wakeup
/// where no intact wait gives the median), or one whose CPU ran another task first, is left as it
/// is. `events` are in time order; so they remain.
fn restore_switch_ins(events: &mut Vec<Event>) -> Restored {
    #[derive(Clone, Default)]
    struct Cpu {
        /// The task the last switch put on it, and when.
        on: Option<Pid>,
        since: u64,
        /// The tasks that arrived (woken or migrated onto it) since then: each one's first
        /// arrival, and the first event on the CPU after it (at most [`MAX_ARRIVALS`]).
        arrivals: Vec<(Pid, u64, Option<u64>)>,
        /// The first event on the CPU since that switch, other than a switch.
        first_event: Option<u64>,
        /// The first task a `sched_stat_runtime` showed running there while it seemed idle,
        /// and since when.
        ran: Option<(Pid, u64)>,
        /// An intact switch-in from idle whose first `sched_stat_runtime` is still to come.
        intact_in: Option<Pid>,
    }
    let cpu_count = events.iter().map(|e| e.cpu as usize + 1).max().unwrap_or(0);
    // Pass 1: the intact waits; pass 2: the restorations.
    let mut waits = vec![];
    let mut leads: Vec<i64> = vec![];
    let mut added = vec![];
    let (mut wait_ns, mut lead_ns) = (0, 0i64);
    let (mut by_stat, mut by_arrival) = (0u64, 0u64);
    for pass in 0..2 {
        let mut cpus = vec![Cpu::default(); cpu_count];
        for e in events.iter() {
            let c = &mut cpus[e.cpu as usize];
            if !matches!(e.kind, EventKind::Switch { .. }) {
                c.first_event.get_or_insert(e.t_ns);
                for a in c
                    .arrivals
                    .iter_mut()
                    .filter(|a| a.2.is_none() && a.1 < e.t_ns)
                {
                    a.2 = Some(e.t_ns);
                }
            }
            match e.kind {
                EventKind::Waking { pid, target_cpu }
                | EventKind::Wakeup { pid, target_cpu }
                | EventKind::WakeupNew { pid, target_cpu }
                | EventKind::MigrateTask {
                    pid,
                    dest_cpu: target_cpu,
                    ..
                } => {
                    if let Some(t) = cpus.get_mut(target_cpu as usize) {
                        // Its first arrival since the last switch (sched_waking, then
                        // sched_wakeup).
                        if t.arrivals.len() < MAX_ARRIVALS && t.arrivals.iter().all(|a| a.0 != pid)
                        {
                            t.arrivals.push((pid, e.t_ns, None));
                        }
                    }
                }
                EventKind::StatRuntime { pid, runtime_ns } => {
                    let began = e.t_ns.saturating_sub(runtime_ns);
                    if pass == 0 && c.intact_in.take_if(|p| *p == pid).is_some() {
                        let lead = i64::try_from(c.since).unwrap_or(i64::MAX)
                            - i64::try_from(began).unwrap_or(0);
                        leads.push(lead);
                    }
                    if pid != 0 && c.on == Some(0) && c.ran.is_none() {
                        c.ran = Some((pid, began));
                    }
                }
                EventKind::Switch {
                    prev_pid, next_pid, ..
                } => {
                    let intact_in = (pass == 0 && c.on == Some(0) && prev_pid == 0)
                        .then_some(next_pid)
                        .filter(|&p| p != 0);
                    if pass == 0 && c.on == Some(0) && prev_pid == 0 {
                        if let Some(&(_, at, _)) = c.arrivals.iter().find(|a| a.0 == next_pid) {
                            let w = e.t_ns.saturating_sub(at);
                            if w <= MAX_IDLE_WAIT_NS {
                                waits.push(w);
                            }
                        }
                    }
                    let after = c.since.checked_add(1).filter(|&a| a <= e.t_ns);
                    if let (1, Some(0), true, Some(after)) = (pass, c.on, prev_pid != 0, after) {
                        // Another task's runtime there first: not this one's switch-in.
                        let other_ran = c.ran.is_some_and(|(p, _)| p != prev_pid);
                        let from_stat = c.ran.filter(|&(p, _)| p == prev_pid).map(|(_, t)| {
                            let t = t.saturating_add_signed(lead_ns);
                            c.first_event.map_or(t, |f| t.min(f))
                        });
                        let from_arrival = c
                            .arrivals
                            .iter()
                            .find(|a| a.0 == prev_pid)
                            .filter(|_| !waits.is_empty() && !other_ran)
                            .map(|&(_, at, next)| {
                                let t = at.saturating_add(wait_ns);
                                next.map_or(t, |n| t.min(n)).max(at.saturating_add(1))
                            });
                        by_stat += u64::from(from_stat.is_some());
                        by_arrival += u64::from(from_stat.is_none() && from_arrival.is_some());
                        if let Some(t) = from_stat.or(from_arrival) {
                            // It ran: at least an instant before its switch-out.
                            added.push(Event {
                                t_ns: t.min(e.t_ns).max(after),
                                cpu: e.cpu,
                                kind: EventKind::Switch {
                                    prev_pid: 0,
                                    prev_state: PrevState::Running,
                                    next_pid: prev_pid,
                                },
                            });
                        }
                    }
                    *c = Cpu {
                        on: Some(next_pid),
                        since: e.t_ns,
                        intact_in,
                        ..Cpu::default()
                    };
                }
            }
        }
        if pass == 0 {
            waits.sort_unstable();
            wait_ns = waits.get(waits.len() / 2).copied().unwrap_or(0);
            leads.sort_unstable();
            lead_ns = leads.get(leads.len() / 2).copied().unwrap_or(0);
        }
    }
    if !added.is_empty() {
        // Each restored switch goes before the events of its instant: it precedes the switch
        // out it was missing for.
        added.append(events);
        added.sort_by_key(|e| e.t_ns);
        *events = added;
    }
    Restored {
        by_stat,
        by_arrival,
        wait_ns,
        intact: waits.len(),
        stat_lead_ns: lead_ns,
        leads: leads.len(),
    }
}
