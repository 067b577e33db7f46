//! A real recording dropped on the page: what its "recorded" column shows, computed in the
//! worker from the importer's trace model by the same report functions as a simulated run, and
//! the scenario derived from it. The trace itself is not kept: only these views cross to the
//! page.

use schedlab_report::compare::{summarize, VariantSummary};
use schedlab_report::latency::{latency_rows, LatencyRow};
use schedlab_report::timeline::RunTimeline;
use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
use schedlab_sim::{EventKind, Pid, Trace};
use schedlab_trace::Import;
use serde::{Deserialize, Serialize};

use crate::model::subsample;

/// Most events the page keeps of one recording (32 bytes each in the worker, plus the views
/// built from them): about 200 MB of `perf script` text. A longer recording is refused with a
/// message; `schedlab report` on the command line reads any length.
pub const MAX_RECORDING_EVENTS: usize = 6_000_000;

/// Bytes read from the file and handed to the worker at a time.
pub const CHUNK_BYTES: f64 = (1 << 20) as f64;

/// Tasks with less CPU time than this in the whole recording are left out of the derived
/// scenario (the command line's `--min-cpu-ms` default).
pub const DERIVE_MIN_CPU_NS: u64 = 1_000_000;

/// The name of the recorded column (and of its timeline).
pub const RECORDED: &str = "recorded";

/// What the page shows of a recording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// The import it answers (`State::imports` when it was started).
    pub id: u64,
    /// The file's name.
    pub file: String,
    /// The format read (`perf script`, …) and whether it was gzip-compressed.
    pub format: String,
    pub gzip: bool,
    /// Decompressed bytes and lines read.
    pub bytes: u64,
    pub lines: u64,
    pub cpus: u32,
    /// Rows merged by task name, in perf's order, and one row per task.
    pub merged: Vec<LatencyRow>,
    pub per_task: Vec<LatencyRow>,
    /// Wakeup latencies and scheduling delays, ns, subsampled like a variant's.
    pub wakeup_ns: Vec<u64>,
    pub delay_ns: Vec<u64>,
    /// Whether the recording has wakeup events (timehist has none).
    pub has_wakeups: bool,
    /// The variants' counters, each with its value when a recording gives it.
    pub counters: Vec<(String, Option<u64>)>,
    /// The comparison figures (no wakeup-preemption ratio: that is the scheduler's own count).
    pub summary: VariantSummary,
    /// What this recording cannot give, for the page to say.
    pub missing: Vec<String>,
    /// What the import said of the recording.
    pub notes: Vec<String>,
    /// Lines that could not be read: the first few (`line N: why: text`) and how many.
    pub warnings: Vec<String>,
    pub warnings_total: u64,
    pub events: u64,
    pub end_ns: u64,
    pub timeline: RunTimeline,
    /// The derived scenario (JSON, validated), or why there is none.
    pub derived: Result<String, String>,
    /// What the derived scenario could not take from the recording.
    pub derived_notes: Vec<String>,
}

/// Switches, wakeups (and how many on the waker's CPU) and migrations, as a recording counts
/// them.
fn counts(t: &Trace) -> (u64, u64, u64, u64) {
    let has_waking = t
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let (mut switches, mut wakeups, mut local, mut migrations) = (0, 0, 0, 0);
    for e in &t.events {
        match e.kind {
            EventKind::Switch {
                prev_pid, next_pid, ..
            } if prev_pid != 0 || next_pid != 0 => switches += 1,
            EventKind::Waking { target_cpu, .. } if has_waking => {
                wakeups += 1;
                local += (target_cpu == e.cpu) as u64;
            }
            EventKind::Wakeup { target_cpu, .. } if !has_waking => {
                wakeups += 1;
                local += (target_cpu == e.cpu) as u64;
            }
            EventKind::MigrateTask { .. } => migrations += 1,
            _ => {}
        }
    }
    (switches, wakeups, local, migrations)
}

/// The views of an imported recording read from `file`, and a scenario derived from it to run
/// under `variants` (eevdf-6.19 if none).
pub fn recording(id: u64, file: &str, imp: &Import, variants: &[String]) -> Recording {
    let t = &imp.trace;
    let has_wakeups = imp.has_wakeups();
    let has_runtime = imp.events_read.contains_key("sched_stat_runtime")
        || !imp.format.is_recording()
            && t.events
                .iter()
                .any(|e| matches!(e.kind, EventKind::StatRuntime { .. }));
    let (switches, wakeups, local, migrations) = counts(t);
    let variants = if variants.is_empty() {
        vec!["eevdf-6.19".to_string()]
    } else {
        variants.to_vec()
    };
    let name: String = format!("recorded: {file}").chars().take(64).collect();
    let d = schedlab_trace::derive_scenario(imp, &name, &variants, DERIVE_MIN_CPU_NS);
    let derived = schedlab_scenario::Scenario::from_value(d.scenario.clone())
        .map(|s| s.to_json())
        .map_err(|e| format!("the derived scenario does not validate: {e}"));
    // CPU shares per derived group, so that they line up with the derived scenario's tasks.
    let sets: Vec<(String, Vec<Pid>)> = d
        .groups
        .iter()
        .map(|g| (g.comm.clone(), g.pids.clone()))
        .collect();
    let summary = summarize(RECORDED, t, &[], &sets, None);
    let mut missing = vec![
        "wakeup preempt ratio, check_preempt_count, need_preempt_count, lb_pulled: the scheduler's own counters, not in a trace".to_string(),
    ];
    if !has_wakeups {
        missing.push(format!(
            "wakeup latency: a {} recording has no wakeup events",
            imp.format.name()
        ));
    }
    if !has_runtime {
        missing.push(
            "runtimes and CPU shares: no sched_stat_runtime events (stints in the timeline are exact)"
                .to_string(),
        );
    }
    let opt = |has: bool, n: u64| has.then_some(n);
    Recording {
        id,
        file: file.to_string(),
        format: imp.format.name().to_string(),
        gzip: imp.gzip,
        bytes: imp.bytes,
        lines: imp.lines,
        cpus: t.cpus,
        merged: latency_rows(t, true),
        per_task: latency_rows(t, false),
        wakeup_ns: subsample(if has_wakeups {
            wakeup_latencies_ns(t, None)
        } else {
            vec![]
        }),
        delay_ns: subsample(sched_delays_ns(t)),
        has_wakeups,
        counters: vec![
            ("sched_count".into(), Some(switches)),
            ("ttwu_count".into(), opt(has_wakeups, wakeups)),
            ("ttwu_local".into(), opt(has_wakeups, local)),
            ("check_preempt_count".into(), None),
            ("need_preempt_count".into(), None),
            ("migrations".into(), Some(migrations)),
            ("lb_pulled".into(), None),
        ],
        summary,
        missing,
        notes: {
            let mut n = imp.notes.clone();
            if !imp.skipped.is_empty() {
                let list: Vec<String> = imp
                    .skipped
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect();
                n.push(format!(
                    "events the model does not hold, skipped: {}",
                    list.join(", ")
                ));
            }
            n
        },
        warnings: imp.warnings.iter().take(5).map(|w| w.to_string()).collect(),
        warnings_total: imp.warnings_total,
        events: t.events.len() as u64,
        end_ns: t.end_ns,
        timeline: RunTimeline::from_trace(t, false),
        derived,
        derived_notes: d.notes,
    }
}

/// What a dropped or opened file is, from its name and its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// A scenario document: opened in the editor.
    Scenario,
    /// Anything else: read as a recording (the importer refuses what is none, naming the
    /// formats it tried).
    Trace,
}

/// Tells a scenario from a trace: gzip is a trace; JSON that looks like schedlab's trace
/// exports (trace-event JSON, JSONL events) is a trace; other JSON objects and any other
/// `.json` file are scenarios (the editor says what is wrong with one that is not); any other
/// text is a trace (the importer says if it is none).
pub fn classify(name: &str, head: &[u8]) -> Dropped {
    if head.starts_with(&[0x1f, 0x8b]) {
        return Dropped::Trace;
    }
    let start = head.iter().position(|c| !c.is_ascii_whitespace());
    let has = |k: &[u8]| head.windows(k.len()).any(|w| w == k);
    let first_line = head
        .split(|&c| c == b'\n')
        .find(|l| l.iter().any(|c| !c.is_ascii_whitespace()))
        .unwrap_or(&[]);
    let line_has = |k: &[u8]| first_line.windows(k.len()).any(|w| w == k);
    match start.map(|i| head[i]) {
        Some(b'[') => Dropped::Trace,
        Some(b'{') => {
            if has(b"\"traceEvents\"") || (line_has(b"\"t_ns\"") && line_has(b"\"event\"")) {
                Dropped::Trace
            } else {
                Dropped::Scenario
            }
        }
        _ if name.to_ascii_lowercase().ends_with(".json") => Dropped::Scenario,
        _ => Dropped::Trace,
    }
}

/// The variant columns' deltas against the recording: the header, then per variant its cells
/// (the first cell names the variant).
/// The recording's CPU shares are kept only for the task groups some variant also has (the
/// derived scenario's run has them all; another scenario's would only add columns of "-").
pub fn deltas_vs_recording(rec: &Recording, variants: &[VariantSummary]) -> Vec<Vec<String>> {
    let mut base = rec.summary.clone();
    base.shares.retain(|(l, _)| {
        variants
            .iter()
            .any(|v| v.shares.iter().any(|(m, _)| m == l))
    });
    let mut rows = vec![base];
    rows.extend(variants.iter().cloned());
    schedlab_report::compare::comparison_cells(&rows).delta
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let p = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn classify_tells_scenarios_from_traces() {
        assert_eq!(
            classify("a.json", br#"{"version":1,"tasks":[]}"#),
            Dropped::Scenario
        );
        assert_eq!(classify("a.json", b"   "), Dropped::Scenario);
        assert_eq!(classify("x.gz", &[0x1f, 0x8b, 8, 0]), Dropped::Trace);
        assert_eq!(
            classify("t.json", br#"{"traceEvents":[{"ph":"X"}]}"#),
            Dropped::Trace
        );
        assert_eq!(classify("t.json", b"[{\"ph\":\"X\"}]"), Dropped::Trace);
        assert_eq!(
            classify(
                "t.jsonl",
                b"{\"t_ns\":0,\"cpu\":0,\"event\":\"sched_switch\"}\n"
            ),
            Dropped::Trace
        );
        assert_eq!(
            classify("perf.txt", b"  perf 12 [000] 1.0: sched:sched_switch: x"),
            Dropped::Trace
        );
        assert_eq!(
            classify("notes.json", b"these are my notes"),
            Dropped::Scenario
        );
        assert_eq!(classify("notes.txt", b"these are my notes"), Dropped::Trace);
    }

    #[test]
    fn a_perf_script_recording_gives_its_tables_timeline_and_a_valid_scenario() {
        let bytes = fixture("traces/hogs.perf-script.txt.gz");
        let imp = schedlab_trace::import_bytes(&bytes, Default::default()).unwrap();
        let r = recording(1, "hogs.perf-script.txt.gz", &imp, &["eevdf-6.19".into()]);
        assert!(r.gzip);
        assert_eq!(r.format, "perf script");
        // The same rows as the command line's `schedlab report` (the same function on the same
        // import), and the three hogs among them.
        assert_eq!(r.merged, latency_rows(&imp.trace, true));
        assert!(r.has_wakeups);
        assert!(r.timeline.slices.len() > 10);
        assert_eq!(r.end_ns, imp.trace.end_ns);
        let json = r.derived.clone().expect("the derived scenario validates");
        assert!(schedlab_scenario::Scenario::from_json(&json).is_ok());
        assert!(!r.derived_notes.is_empty());
        // A recording cannot give the scheduler's own counters.
        assert_eq!(r.counters[3], ("check_preempt_count".into(), None));
        assert!(r.summary.preempt_ratio.is_none());
    }

    #[test]
    fn a_timehist_recording_says_it_has_no_wakeups() {
        let bytes = fixture("traces/pipe.timehist.txt.gz");
        let imp = schedlab_trace::import_bytes(&bytes, Default::default()).unwrap();
        let r = recording(1, "pipe.timehist.txt.gz", &imp, &[]);
        assert!(!r.has_wakeups);
        assert!(r.wakeup_ns.is_empty());
        assert_eq!(r.counters[1], ("ttwu_count".into(), None));
        assert!(
            r.missing.iter().any(|m| m.contains("no wakeup events")),
            "{:?}",
            r.missing
        );
    }
}
