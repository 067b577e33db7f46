//! `run --why`: every decision record of each run, one line each (or a `decisions` array per
//! variant in the JSON report), filtered by task and time.

use schedlab_report::why::{decision_line, involves, sentence};
use schedlab_sim::decision::Decision;
use schedlab_sim::Output;

use crate::args::WhyFilter;

fn keep(w: &WhyFilter, d: &Decision) -> bool {
    d.t_ns >= w.from_ns && d.t_ns <= w.to_ns && w.pid.is_none_or(|p| involves(d, p))
}

/// The filter as words, for the section's header.
fn filter_text(w: &WhyFilter) -> String {
    let mut s = String::new();
    if let Some(p) = w.pid {
        s.push_str(&format!(", pid {p}"));
    }
    if w.from_ns > 0 || w.to_ns != u64::MAX {
        let to = if w.to_ns == u64::MAX {
            "the end".to_string()
        } else {
            format!("{} s", schedlab_report::why::secs(w.to_ns))
        };
        s.push_str(&format!(
            ", from {} s to {to}",
            schedlab_report::why::secs(w.from_ns)
        ));
    }
    s
}

/// The decisions section printed after the tables.
pub(crate) fn text(results: &[Output], w: &WhyFilter) -> String {
    let mut s = String::new();
    for r in results {
        let kept: Vec<&Decision> = r.trace.decisions.iter().filter(|d| keep(w, d)).collect();
        s.push_str(&format!(
            "\n{} (why: {} of {} decision records{})\n",
            r.variant,
            kept.len(),
            r.trace.decisions.len(),
            filter_text(w)
        ));
        for d in kept {
            s.push_str(&decision_line(&r.trace, d));
            s.push('\n');
        }
    }
    s
}

/// The JSON report with a `decisions` array in each variant's object.
pub(crate) fn json(report: &str, results: &[Output], w: &WhyFilter) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(report) else {
        return report.to_string();
    };
    if let Some(vs) = v.get_mut("variants").and_then(|x| x.as_array_mut()) {
        for (o, r) in vs.iter_mut().zip(results) {
            let ds: Vec<serde_json::Value> = r
                .trace
                .decisions
                .iter()
                .filter(|d| keep(w, d))
                .map(|d| {
                    let pids: Vec<u32> = d.kind.pids().into_iter().filter(|&p| p != 0).collect();
                    serde_json::json!({
                        "t_ns": d.t_ns,
                        "cpu": d.cpu,
                        "kind": d.kind.name(),
                        "pids": pids,
                        "text": sentence(&r.trace, d),
                    })
                })
                .collect();
            o["decisions"] = serde_json::Value::Array(ds);
        }
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_else(|_| report.to_string());
    if report.ends_with('\n') {
        s.push('\n');
    }
    s
}
