//! Chrome/Perfetto trace-event JSON (the format ui.perfetto.dev and chrome://tracing open).
//!
//! One process per variant (named after it), one thread per CPU ("CPU n"); every stint of a
//! task on a CPU is a complete event (`ph: "X"`) named `comm:pid`, with why it ended in its
//! args; wakeups are instant events on the target CPU. Times are microseconds with ns
//! precision, in time order on every track.

use serde_json::{json, Value};

use crate::timeline::Timeline;
use schedlab_sim::{EventKind, Pid, Trace};

/// One variant's run as the export needs it.
pub struct PerfettoRun<'a> {
    /// The process name (the variant).
    pub name: &'a str,
    /// Its stints.
    pub timeline: &'a Timeline,
    /// `comm` of a pid.
    pub comm: &'a dyn Fn(Pid) -> String,
    /// Wakeups: (time, target CPU, pid).
    pub wakeups: Vec<(u64, u32, Pid)>,
}

/// The trace-event JSON of several variants' traces.
pub fn perfetto_json(runs: &[(&str, &Trace)]) -> String {
    let tls: Vec<Timeline> = runs.iter().map(|(_, t)| Timeline::from_trace(t)).collect();
    let comms: Vec<Box<dyn Fn(Pid) -> String + '_>> = runs
        .iter()
        .map(|(_, t)| Box::new(move |p: Pid| t.comm(p).to_string()) as Box<dyn Fn(Pid) -> String>)
        .collect();
    let prepared: Vec<PerfettoRun> = runs
        .iter()
        .zip(&tls)
        .zip(&comms)
        .map(|(((name, trace), timeline), comm)| PerfettoRun {
            name,
            timeline,
            comm: comm.as_ref(),
            wakeups: trace
                .events
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Wakeup { pid, target_cpu } => Some((e.t_ns, target_cpu, pid)),
                    _ => None,
                })
                .collect(),
        })
        .collect();
    perfetto_json_from(&prepared)
}

/// The trace-event JSON of prepared runs (the page builds these from its timeline data).
pub fn perfetto_json_from(runs: &[PerfettoRun]) -> String {
    let mut events: Vec<Value> = vec![];
    for (k, run) in runs.iter().enumerate() {
        let pid = k as u64 + 1;
        events.push(json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "ts": 0, "args": {"name": run.name}}));
        for cpu in 0..run.timeline.cpus {
            events.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": cpu, "ts": 0, "args": {"name": format!("CPU {cpu}")}}));
        }
        let comm = |p: Pid| format!("{}:{p}", (run.comm)(p));
        let mut track: Vec<Value> = vec![];
        for s in &run.timeline.slices {
            track.push(json!({
                "name": comm(s.pid), "ph": "X", "pid": pid, "tid": s.cpu,
                "ts": s.start_ns as f64 / 1e3, "dur": (s.end_ns - s.start_ns) as f64 / 1e3,
                "args": {"ended": s.reason.describe(comm)},
            }));
        }
        for &(t, cpu, p) in &run.wakeups {
            track.push(json!({"name": format!("wakeup {}", comm(p)), "ph": "i", "s": "t", "pid": pid, "tid": cpu, "ts": t as f64 / 1e3}));
        }
        // Time order per track (stable: a stint before a wakeup at the same instant).
        track.sort_by(|a, b| {
            let key = |v: &Value| {
                (
                    v["tid"].as_u64().unwrap_or(0),
                    v["ts"].as_f64().unwrap_or(0.0),
                )
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        });
        events.extend(track);
    }
    let doc = json!({"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"source": "schedlab"}});
    serde_json::to_string(&doc).unwrap_or_default()
}
