//! Chrome/Perfetto trace-event JSON (the format ui.perfetto.dev and chrome://tracing open).
//!
//! One process per variant (named after it), one thread per CPU ("CPU n"); every stint of a
//! task on a CPU is a complete event (`ph: "X"`) named `comm:pid`, with why it ended in its
//! args; wakeups are instant events on the target CPU. Times are microseconds with ns
//! precision, in time order on every track.

use serde_json::{json, Value};

use crate::timeline::Timeline;
use schedlab_sim::{EventKind, Trace};

/// The trace-event JSON of several variants' traces.
pub fn perfetto_json(runs: &[(&str, &Trace)]) -> String {
    let mut events: Vec<Value> = vec![];
    for (k, (variant, trace)) in runs.iter().enumerate() {
        let pid = k as u64 + 1;
        events.push(json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "ts": 0, "args": {"name": variant}}));
        for cpu in 0..trace.cpus {
            events.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": cpu, "ts": 0, "args": {"name": format!("CPU {cpu}")}}));
        }
        let tl = Timeline::from_trace(trace);
        let comm = |p: u32| format!("{}:{p}", trace.comm(p));
        let mut track: Vec<Value> = vec![];
        for s in &tl.slices {
            track.push(json!({
                "name": comm(s.pid), "ph": "X", "pid": pid, "tid": s.cpu,
                "ts": s.start_ns as f64 / 1e3, "dur": (s.end_ns - s.start_ns) as f64 / 1e3,
                "args": {"ended": s.reason.describe(comm)},
            }));
        }
        for e in &trace.events {
            if let EventKind::Wakeup { pid: p, target_cpu } = e.kind {
                track.push(json!({"name": format!("wakeup {}", comm(p)), "ph": "i", "s": "t", "pid": pid, "tid": target_cpu, "ts": e.t_ns as f64 / 1e3}));
            }
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
