//! From a recording to a scenario that approximates it: the machine's CPUs and the recorded
//! time; one task group per command name with its observed CPUs, start time, nice (from the
//! kernel priority where the format prints one) and a program of CPU bursts and sleeps.
//!
//! Bursts and sleeps are fitted, not replayed: each group's program is "run an exponentially
//! distributed time with the group's mean burst, then sleep an exponentially distributed time
//! with its mean sleep", where a burst is the CPU time from a wakeup to the next block
//! (preemptions do not end it) and a sleep is the time from a block to the next wakeup. A
//! group that never blocks is a hog. What cannot be derived is said in the notes: who wakes
//! whom (the scenario uses timed sleeps, not channels), HZ and the tunables (not in a trace),
//! RT and deadline tasks (imported as fair tasks), I/O devices, affinity masks beyond the CPUs
//! a task was seen on.

use std::collections::BTreeMap;

use schedlab_sim::{EventKind, Pid, PrevState};
use serde_json::{json, Map, Value};

use crate::Import;

/// What a derived scenario says of each group, to compare with its simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedGroup {
    /// The command name.
    pub comm: String,
    /// How many tasks.
    pub tasks: usize,
    /// Their CPU time in the recording, ns.
    pub cpu_ns: u64,
    /// Mean CPU burst, ns (0: it never blocked, a hog).
    pub burst_ns: u64,
    /// Mean sleep, ns (0: it never slept).
    pub sleep_ns: u64,
    /// Its tasks' pids in the trace model.
    pub pids: Vec<Pid>,
}

/// A scenario document for the recording, the groups it holds, and what it could not derive.
pub struct Derived {
    /// The scenario document (validate it with `schedlab_scenario::Scenario::from_value`).
    pub scenario: Value,
    /// Its task groups, in the scenario's order.
    pub groups: Vec<DerivedGroup>,
    /// What it could not derive.
    pub notes: Vec<String>,
}

#[derive(Default)]
struct Task {
    cpus: std::collections::BTreeSet<u32>,
    first_ns: Option<u64>,
    cpu_ns: u64,
    bursts: u64,
    sleep_ns: u64,
    sleeps: u64,
    /// When it last blocked, to measure the sleep to its next wakeup.
    blocked_at: Option<u64>,
    /// CPU time of the burst in progress.
    burst_ns: u64,
    running_since: Option<u64>,
}

/// Derives a scenario from `imp`, named `name`, to run under `variants`. Tasks with less than
/// `min_cpu_ns` of CPU time in the whole recording (the tracer's own helpers, kworkers that woke
/// once) are left out and counted in the notes.
pub fn derive_scenario(imp: &Import, name: &str, variants: &[String], min_cpu_ns: u64) -> Derived {
    let t = &imp.trace;
    let mut tasks: BTreeMap<Pid, Task> = BTreeMap::new();
    let mut running: Vec<Option<Pid>> = vec![None; t.cpus as usize];
    for e in &t.events {
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                if prev_pid != 0 {
                    let p = tasks.entry(prev_pid).or_default();
                    if let Some(since) = p.running_since.take() {
                        let ran = e.t_ns.saturating_sub(since);
                        p.cpu_ns += ran;
                        p.burst_ns += ran;
                    }
                    if prev_state != PrevState::Running {
                        p.bursts += 1;
                        p.burst_ns = 0;
                        p.blocked_at = Some(e.t_ns);
                    }
                }
                if next_pid != 0 {
                    let n = tasks.entry(next_pid).or_default();
                    n.cpus.insert(e.cpu);
                    n.first_ns.get_or_insert(e.t_ns);
                    n.running_since = Some(e.t_ns);
                }
                if let Some(r) = running.get_mut(e.cpu as usize) {
                    *r = (next_pid != 0).then_some(next_pid);
                }
            }
            EventKind::Waking { pid, .. }
            | EventKind::Wakeup { pid, .. }
            | EventKind::WakeupNew { pid, .. }
                if pid != 0 =>
            {
                let p = tasks.entry(pid).or_default();
                p.first_ns.get_or_insert(e.t_ns);
                if let Some(at) = p.blocked_at.take() {
                    p.sleep_ns += e.t_ns.saturating_sub(at);
                    p.sleeps += 1;
                }
            }
            _ => {}
        }
    }
    // Still running at the end: count the time up to the end.
    for (cpu, r) in running.iter().enumerate() {
        if let Some(pid) = r {
            if let Some(p) = tasks.get_mut(pid) {
                if let Some(since) = p.running_since.take() {
                    p.cpu_ns += t.end_ns.saturating_sub(since);
                }
                p.cpus.insert(cpu as u32);
            }
        }
    }
    let comm_of = |pid: Pid| {
        imp.pids
            .iter()
            .find(|r| r.pid == pid)
            .map_or_else(|| pid.to_string(), |r| r.comm.clone())
    };
    let prio_of = |pid: Pid| imp.pids.iter().find(|r| r.pid == pid).and_then(|r| r.prio);
    // Group by comm (the scenario's task-group name), in order of first appearance.
    let mut order: Vec<String> = vec![];
    let mut groups: BTreeMap<String, Vec<(Pid, &Task)>> = BTreeMap::new();
    let mut left_out = 0usize;
    let mut rt = 0usize;
    for (&pid, task) in &tasks {
        if task.cpu_ns < min_cpu_ns {
            left_out += 1;
            continue;
        }
        if prio_of(pid).is_some_and(|p| p < 100) {
            rt += 1;
        }
        let comm = sanitize(&comm_of(pid));
        if !groups.contains_key(&comm) {
            order.push(comm.clone());
        }
        groups.entry(comm).or_default().push((pid, task));
    }
    order.sort_by_key(|c| {
        groups[c]
            .iter()
            .filter_map(|(_, t)| t.first_ns)
            .min()
            .unwrap_or(0)
    });
    let all_cpus = t.cpus as usize;
    let mut out_groups = vec![];
    let mut task_values = vec![];
    for comm in &order {
        let members = &groups[comm];
        let cpus: std::collections::BTreeSet<u32> = members
            .iter()
            .flat_map(|(_, t)| t.cpus.iter().copied())
            .collect();
        let cpu_ns: u64 = members.iter().map(|(_, t)| t.cpu_ns).sum();
        let bursts: u64 = members.iter().map(|(_, t)| t.bursts).sum();
        let sleeps: u64 = members.iter().map(|(_, t)| t.sleeps).sum();
        let sleep_ns: u64 = members.iter().map(|(_, t)| t.sleep_ns).sum();
        let burst_ns = cpu_ns.checked_div(bursts).unwrap_or(0);
        let mean_sleep_ns = sleep_ns.checked_div(sleeps).unwrap_or(0);
        let start_ns = members
            .iter()
            .filter_map(|(_, t)| t.first_ns)
            .min()
            .unwrap_or(0);
        let mut g = Map::new();
        g.insert("name".into(), comm.clone().into());
        if members.len() > 1 {
            g.insert("count".into(), members.len().into());
        }
        let nice = members
            .iter()
            .filter_map(|(p, _)| prio_of(*p))
            .find(|p| (100..140).contains(p))
            .map(|p| p - 120);
        if let Some(n) = nice.filter(|&n| n != 0) {
            g.insert("nice".into(), n.into());
        }
        if !cpus.is_empty() && cpus.len() < all_cpus {
            g.insert(
                "affinity".into(),
                Value::Array(cpus.iter().map(|&c| c.into()).collect()),
            );
        }
        // Whole microseconds, at least 1.
        let us = |ns: u64| (ns / 1000).max(1);
        if start_ns >= 1_000_000 {
            g.insert("start_ms".into(), (start_ns / 1_000_000).into());
        }
        let program = if bursts == 0 || sleeps == 0 {
            json!([{"run": "forever"}])
        } else {
            json!([{"run_us": {"exp": us(burst_ns)}}, {"sleep_us": {"exp": us(mean_sleep_ns)}}])
        };
        g.insert("program".into(), program);
        task_values.push(Value::Object(g));
        out_groups.push(DerivedGroup {
            comm: comm.clone(),
            tasks: members.len(),
            cpu_ns,
            burst_ns: if sleeps == 0 { 0 } else { burst_ns },
            sleep_ns: mean_sleep_ns,
            pids: members.iter().map(|(p, _)| *p).collect(),
        });
    }
    let mut notes = vec![
        "bursts and sleeps are fitted as exponential distributions with the recorded means; who wakes whom is not kept (timed sleeps, no channels)".to_string(),
        "HZ and the scheduler tunables are not in a recording: HZ 1000 is assumed; set \"hz\" and the variant's tunables to the recorded machine's".to_string(),
    ];
    if left_out > 0 {
        notes.push(format!(
            "{left_out} tasks with less than {:.3} ms of CPU time are left out",
            min_cpu_ns as f64 / 1e6
        ));
    }
    if rt > 0 {
        notes.push(format!(
            "{rt} tasks ran with real-time priority; the scenario makes them fair tasks"
        ));
    }
    if !imp.has_wakeups() {
        notes.push("the recording has no wakeup events: sleeps are measured from a block to the next switch-in".into());
    }
    let duration_ms = t.end_ns.div_ceil(1_000_000).max(1);
    let scenario = json!({
        "version": 1,
        "name": name,
        "description": format!("Derived by schedlab from a {} recording ({} tasks in {} groups).", imp.format.name(), out_groups.iter().map(|g| g.tasks).sum::<usize>(), out_groups.len()),
        "cpus": t.cpus.max(1),
        "hz": 1000,
        "duration_ms": duration_ms,
        "seed": 1,
        "variants": variants,
        "tasks": task_values,
    });
    Derived {
        scenario,
        groups: out_groups,
        notes,
    }
}

/// A command name as a scenario takes it: 1–15 bytes, no `/`, `:` or control characters.
fn sanitize(comm: &str) -> String {
    let mut s: String = comm
        .chars()
        .map(|c| {
            if c == '/' || c == ':' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    while s.len() > 15 {
        s.pop();
    }
    if s.is_empty() {
        s.push('?');
    }
    s
}
