//! schedlab's JSONL trace (`schedlab run --trace FILE.jsonl`, `schedlab_cli::write_trace`):
//! one JSON object per event with the tracepoints' field names, a `variant` field when several
//! variants ran, the idle task as pid 0 / `swapper/N`.
//!
//! The pids are the simulator's own, kept as they are. What the format does not carry: the
//! CPU count (taken as the highest CPU named + 1), where the run ended (its last event), tasks
//! that never appear in an event, task groups and the scheduler-state snapshots.

use std::borrow::Cow;

use schedlab_sim::EventKind;
use serde::Deserialize;

use crate::builder::Builder;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    variant: Option<Cow<'a, str>>,
    t_ns: u64,
    cpu: u32,
    #[serde(borrow)]
    event: Cow<'a, str>,
    #[serde(borrow, default)]
    prev_comm: Option<Cow<'a, str>>,
    #[serde(default)]
    prev_pid: Option<u32>,
    #[serde(borrow, default)]
    prev_state: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    next_comm: Option<Cow<'a, str>>,
    #[serde(default)]
    next_pid: Option<u32>,
    #[serde(borrow, default)]
    comm: Option<Cow<'a, str>>,
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    target_cpu: Option<u32>,
    #[serde(default)]
    orig_cpu: Option<u32>,
    #[serde(default)]
    dest_cpu: Option<u32>,
    #[serde(default)]
    runtime_ns: Option<u64>,
}

/// Whether a first line is a JSONL trace line.
pub(crate) fn looks_like(line: &str) -> bool {
    serde_json::from_str::<Line>(line).is_ok()
}

/// The line-by-line state: which run is kept.
pub(crate) struct Jsonl {
    /// The run asked for, or the first one seen.
    pub(crate) run: Option<String>,
    /// Runs in the order first seen.
    pub(crate) runs: Vec<String>,
}

impl Jsonl {
    pub(crate) fn line(&mut self, no: u64, line: &str, b: &mut Builder) {
        if line.trim().is_empty() {
            return;
        }
        let l: Line = match serde_json::from_str(line) {
            Ok(l) => l,
            Err(e) => {
                b.warn(no, line, format!("not a JSONL trace event: {e}"));
                return;
            }
        };
        if let Some(v) = &l.variant {
            if !self.runs.iter().any(|r| r == v) {
                self.runs.push(v.to_string());
            }
            match &self.run {
                None => self.run = Some(v.to_string()),
                Some(r) if r != v => {
                    b.skip(&format!("run {v}"));
                    return;
                }
                Some(_) => {}
            }
        }
        if let Err(e) = self.event(&l, b) {
            b.warn(no, line, e);
        }
    }

    fn event(&mut self, l: &Line, b: &mut Builder) -> Result<(), String> {
        let need = |v: Option<u32>, f: &str| v.ok_or_else(|| format!("{} without {f}", l.event));
        let comm = |c: &Option<Cow<str>>, pid: u32| -> Option<String> {
            c.as_deref().filter(|_| pid != 0).map(|s| s.to_string())
        };
        let kind = match &*l.event {
            "sched_switch" => {
                let prev = need(l.prev_pid, "prev_pid")?;
                let next = need(l.next_pid, "next_pid")?;
                let state = l.prev_state.as_deref().unwrap_or("");
                let prev_state = b
                    .prev_state(state)
                    .ok_or_else(|| "sched_switch without prev_state".to_string())?;
                let pc = comm(&l.prev_comm, prev);
                let nc = comm(&l.next_comm, next);
                EventKind::Switch {
                    prev_pid: b.pid(prev, pc.as_deref(), None),
                    prev_state,
                    next_pid: b.pid(next, nc.as_deref(), None),
                }
            }
            "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
                let p = need(l.pid, "pid")?;
                let target_cpu = need(l.target_cpu, "target_cpu")?;
                let c = comm(&l.comm, p);
                let pid = b.pid(p, c.as_deref(), None);
                match &*l.event {
                    "sched_waking" => EventKind::Waking { pid, target_cpu },
                    "sched_wakeup" => EventKind::Wakeup { pid, target_cpu },
                    _ => EventKind::WakeupNew { pid, target_cpu },
                }
            }
            "sched_migrate_task" => {
                let p = need(l.pid, "pid")?;
                let c = comm(&l.comm, p);
                EventKind::MigrateTask {
                    pid: b.pid(p, c.as_deref(), None),
                    orig_cpu: need(l.orig_cpu, "orig_cpu")?,
                    dest_cpu: need(l.dest_cpu, "dest_cpu")?,
                }
            }
            "sched_stat_runtime" => {
                let p = need(l.pid, "pid")?;
                let c = comm(&l.comm, p);
                EventKind::StatRuntime {
                    pid: b.pid(p, c.as_deref(), None),
                    runtime_ns: l
                        .runtime_ns
                        .ok_or_else(|| "sched_stat_runtime without runtime_ns".to_string())?,
                }
            }
            other => {
                b.skip(other);
                return Ok(());
            }
        };
        b.push(l.t_ns, l.cpu, kind);
        b.read(&l.event);
        Ok(())
    }
}
