//! View models: what the page shows of a run, computed from the simulator's output by pure
//! functions (in the worker, off the UI thread) and tested natively.

use schedlab_report::latency::{latency_rows, LatencyRow};
use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
use schedlab_scenario::Scenario;
use schedlab_sim::Output;
use serde::{Deserialize, Serialize};

use crate::state::SortKey;

/// Most latency samples kept per variant for the histograms (a deterministic stride).
pub const MAX_SAMPLES: usize = 100_000;

/// One row of the perf-sched-latency table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub comm: String,
    pub pid: u32,
    pub threads: u32,
    pub runtime_ns: u64,
    pub count: u64,
    pub avg_ns: u64,
    pub max_ns: u64,
    pub sum_ns: u64,
}

impl Row {
    fn from(r: &LatencyRow) -> Row {
        Row {
            comm: r.comm.clone(),
            pid: r.pid,
            threads: r.threads,
            runtime_ns: r.runtime_ns,
            count: r.count,
            avg_ns: r.delay_avg_ns(),
            max_ns: r.delay_max_ns,
            sum_ns: r.delay_sum_ns,
        }
    }

    /// The task column as perf prints it: `comm:(N)` merged, `comm:pid` alone.
    pub fn label(&self) -> String {
        if self.threads > 1 {
            format!("{}:({})", self.comm, self.threads)
        } else {
            format!("{}:{}", self.comm, self.pid)
        }
    }
}

/// What one variant's run shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    pub variant: String,
    /// Rows merged by task name, in perf's order.
    pub merged: Vec<Row>,
    /// One row per task.
    pub per_task: Vec<Row>,
    /// Wakeup latencies (sched_waking → running), ns, subsampled to [`MAX_SAMPLES`].
    pub wakeup_ns: Vec<u64>,
    /// Scheduling delays (every wait perf counts), ns, subsampled.
    pub delay_ns: Vec<u64>,
    /// schedstat totals over all CPUs, in display order.
    pub counters: Vec<(String, u64)>,
    /// The workloads' own figures as the tools print them.
    pub figures: String,
    pub switches: u64,
    pub delay_avg_ns: u64,
    pub delay_max_ns: u64,
    pub preempt_ratio: Option<f64>,
    pub throughput: Option<(String, f64)>,
    pub events: u64,
    pub end_ns: u64,
    /// What the timeline draws.
    pub timeline: TimelineData,
}

/// A task's stint on a CPU: (cpu, pid, start, end, reason code, preempting pid).
/// Reason codes: 0 preempted by a tick, 1 preempted by a wakeup, 2 slept, 3 exited, 4 trace end.
pub type SliceRec = (u32, u32, u64, u64, u8, u32);

/// A snapshot of one task's scheduler state: (t, pid, vruntime, deadline, V or min_vruntime,
/// lag, eligible).
pub type SnapRec = (u64, u32, i64, i64, i64, i64, bool);

/// The timeline of one variant's run.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct TimelineData {
    pub cpus: u32,
    pub end_ns: u64,
    /// (pid, comm) of every task.
    pub tasks: Vec<(u32, String)>,
    /// Stints sorted by start.
    pub slices: Vec<SliceRec>,
    /// Runnable-but-waiting intervals: (pid, start, end).
    pub waits: Vec<(u32, u64, u64)>,
    /// Scheduler state at switches and ticks, for the overlays.
    pub snapshots: Vec<SnapRec>,
    /// Whether the kernel is EEVDF (the overlay shows V, lag, deadline and eligibility) or CFS
    /// (vruntime against min_vruntime).
    pub eevdf: bool,
}

impl TimelineData {
    /// Builds it from a run's trace.
    pub fn from_output(o: &Output) -> TimelineData {
        use schedlab_report::timeline::{EndReason, Timeline};
        let tl = Timeline::from_trace(&o.trace);
        let slices = tl
            .slices
            .iter()
            .map(|s| {
                let (code, by) = match s.reason {
                    EndReason::Preempted { by, wakeup: false } => (0, by),
                    EndReason::Preempted { by, wakeup: true } => (1, by),
                    EndReason::Slept => (2, 0),
                    EndReason::Exited => (3, 0),
                    EndReason::TraceEnd => (4, 0),
                };
                (s.cpu, s.pid, s.start_ns, s.end_ns, code, by)
            })
            .collect();
        TimelineData {
            cpus: o.trace.cpus,
            end_ns: o.trace.end_ns,
            tasks: o
                .trace
                .tasks
                .iter()
                .map(|t| (t.pid, t.comm.clone()))
                .collect(),
            slices,
            waits: tl
                .waits
                .iter()
                .map(|w| (w.pid, w.start_ns, w.end_ns))
                .collect(),
            snapshots: o
                .trace
                .snapshots
                .iter()
                .map(|s| {
                    (
                        s.t_ns, s.pid, s.vruntime, s.deadline, s.v, s.lag, s.eligible,
                    )
                })
                .collect(),
            eevdf: schedlab_sim::Variant::parse(&o.variant)
                .is_ok_and(|v| v.class() == schedlab_sim::Class::Eevdf),
        }
    }

    /// The report crate's slices, for the layout.
    pub fn slices(&self) -> Vec<schedlab_report::timeline::Slice> {
        use schedlab_report::timeline::{EndReason, Slice};
        self.slices
            .iter()
            .map(|&(cpu, pid, start_ns, end_ns, code, by)| Slice {
                cpu,
                pid,
                start_ns,
                end_ns,
                reason: match code {
                    0 => EndReason::Preempted { by, wakeup: false },
                    1 => EndReason::Preempted { by, wakeup: true },
                    2 => EndReason::Slept,
                    3 => EndReason::Exited,
                    _ => EndReason::TraceEnd,
                },
            })
            .collect()
    }

    /// The comm of `pid` (`swapper` for 0).
    pub fn comm(&self, pid: u32) -> String {
        if pid == 0 {
            return "swapper".into();
        }
        self.tasks
            .iter()
            .find(|(p, _)| *p == pid)
            .map_or_else(|| pid.to_string(), |(_, c)| c.clone())
    }
}

/// A shared, immutable value compared by identity: cheap to clone into the state and into
/// component properties, however large.
#[derive(Clone, Debug)]
pub struct Shared<T>(pub std::rc::Rc<T>);

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub scenario: String,
    pub variants: Vec<VariantResult>,
}

fn subsample(mut v: Vec<u64>) -> Vec<u64> {
    if v.len() > MAX_SAMPLES {
        let step = v.len().div_ceil(MAX_SAMPLES);
        v = v.into_iter().step_by(step).collect();
    }
    v
}

/// Builds the view models of a scenario's runs (one output per variant, in order).
pub fn results(scenario: &Scenario, outs: &[Output]) -> Results {
    let infos = scenario.workloads();
    let summaries = schedlab_report::figures::summaries(scenario, outs);
    let variants = outs
        .iter()
        .zip(summaries)
        .map(|(o, sum)| {
            let c = o
                .cpus
                .iter()
                .fold(schedlab_sim::CpuStats::default(), |mut a, c| {
                    a.sched_count += c.sched_count;
                    a.ttwu_count += c.ttwu_count;
                    a.ttwu_local += c.ttwu_local;
                    a.check_preempt_count += c.check_preempt_count;
                    a.need_preempt_count += c.need_preempt_count;
                    a.lb_pulled += c.lb_pulled;
                    a
                });
            let migrations: u64 = o.tasks.iter().map(|t| t.migrations).sum();
            VariantResult {
                variant: o.variant.clone(),
                merged: latency_rows(&o.trace, true).iter().map(Row::from).collect(),
                per_task: latency_rows(&o.trace, false)
                    .iter()
                    .map(Row::from)
                    .collect(),
                wakeup_ns: subsample(wakeup_latencies_ns(&o.trace, None)),
                delay_ns: subsample(sched_delays_ns(&o.trace)),
                counters: vec![
                    ("sched_count".into(), c.sched_count),
                    ("ttwu_count".into(), c.ttwu_count),
                    ("ttwu_local".into(), c.ttwu_local),
                    ("check_preempt_count".into(), c.check_preempt_count),
                    ("need_preempt_count".into(), c.need_preempt_count),
                    ("migrations".into(), migrations),
                    ("lb_pulled".into(), c.lb_pulled),
                ],
                figures: schedlab_report::figures::workload_figures(&infos, o).text,
                switches: sum.switches,
                delay_avg_ns: sum.delay_avg_ns,
                delay_max_ns: sum.delay_max_ns,
                preempt_ratio: sum.preempt_ratio,
                throughput: sum.throughput,
                events: o.events_processed,
                end_ns: o.trace.end_ns,
                timeline: TimelineData::from_output(o),
            }
        })
        .collect();
    Results {
        scenario: scenario.name.clone(),
        variants,
    }
}

/// The table's rows, sorted by `key` (numbers descending, names ascending; `Perf` keeps perf's
/// order).
pub fn sorted_rows(rows: &[Row], key: SortKey) -> Vec<Row> {
    let mut v = rows.to_vec();
    match key {
        SortKey::Perf => {}
        SortKey::Runtime => v.sort_by_key(|r| std::cmp::Reverse(r.runtime_ns)),
        SortKey::Switches => v.sort_by_key(|r| std::cmp::Reverse(r.count)),
        SortKey::Avg => v.sort_by_key(|r| std::cmp::Reverse(r.avg_ns)),
        SortKey::Max => v.sort_by_key(|r| std::cmp::Reverse(r.max_ns)),
        SortKey::Sum => v.sort_by_key(|r| std::cmp::Reverse(r.sum_ns)),
        SortKey::Name => v.sort_by(|a, b| a.comm.cmp(&b.comm).then(a.pid.cmp(&b.pid))),
    }
    v
}

pub use schedlab_report::plot::{shared_histograms, HistView};

/// The delta row of `this` against `first`: (label, text) per figure.
pub fn delta_row(first: &VariantResult, this: &VariantResult) -> Vec<(String, String)> {
    let rel = |a: f64, b: f64| {
        if a == 0.0 {
            if b == 0.0 {
                "0.0%".to_string()
            } else {
                "-".to_string()
            }
        } else {
            format!("{:+.1}%", (b - a) / a * 100.0)
        }
    };
    let mut out = vec![
        (
            "switches".to_string(),
            rel(first.switches as f64, this.switches as f64),
        ),
        (
            "avg delay".to_string(),
            rel(first.delay_avg_ns as f64, this.delay_avg_ns as f64),
        ),
        (
            "max delay".to_string(),
            rel(first.delay_max_ns as f64, this.delay_max_ns as f64),
        ),
    ];
    if let (Some(a), Some(b)) = (first.preempt_ratio, this.preempt_ratio) {
        out.push((
            "wakeup preempt".into(),
            format!("{:+.1}pp", (b - a) * 100.0),
        ));
    }
    if let (Some((ua, a)), Some((ub, b))) = (&first.throughput, &this.throughput) {
        if ua == ub {
            out.push((ua.clone(), rel(*a, *b)));
        }
    }
    out
}

/// `ns` as milliseconds with 3 decimals, as perf (and the CLI's tables) print them.
pub fn ms(ns: u64) -> String {
    schedlab_report::latency::fmt_fixed3(ns)
}

/// Exports of a run's results, as (file name, MIME type, contents).
pub mod export {
    use super::Results;

    /// The per-task table of every variant as CSV.
    pub fn csv(r: &Results) -> String {
        let mut s = String::from(
            "variant,task,pid,runtime_ns,switches,delay_avg_ns,delay_max_ns,delay_sum_ns\n",
        );
        for v in &r.variants {
            for row in &v.per_task {
                let q = schedlab_report::csv_field;
                s.push_str(&format!(
                    "{},{},{},{},{},{},{},{}\n",
                    q(&v.variant),
                    q(&row.comm),
                    row.pid,
                    row.runtime_ns,
                    row.count,
                    row.avg_ns,
                    row.max_ns,
                    row.sum_ns
                ));
            }
        }
        s
    }

    /// Per variant: the table rows, counters, workload figures and comparison figures as JSON.
    pub fn json(r: &Results) -> String {
        let variants: Vec<serde_json::Value> = r
            .variants
            .iter()
            .map(|v| {
                serde_json::json!({
                    "variant": v.variant,
                    "tasks": v.per_task.iter().map(|row| serde_json::json!({
                        "name": row.comm, "pid": row.pid, "runtime_ns": row.runtime_ns, "switches": row.count,
                        "delay_avg_ns": row.avg_ns, "delay_max_ns": row.max_ns, "delay_sum_ns": row.sum_ns,
                    })).collect::<Vec<_>>(),
                    "counters": v.counters.iter().map(|(k, n)| (k.clone(), serde_json::json!(n))).collect::<serde_json::Map<_, _>>(),
                    "switches": v.switches, "delay_avg_ns": v.delay_avg_ns, "delay_max_ns": v.delay_max_ns,
                    "wakeup_preempt_ratio": v.preempt_ratio,
                    "throughput": v.throughput.as_ref().map(|(u, x)| serde_json::json!({"unit": u, "value": x})),
                    "figures": v.figures,
                })
            })
            .collect();
        serde_json::to_string_pretty(
            &serde_json::json!({"scenario": r.scenario, "variants": variants}),
        )
        .unwrap_or_default()
    }

    /// The perf-sched-latency tables (the "Sum delay" layout of LKML mails), ready to paste.
    pub fn perf_text(r: &Results) -> String {
        let mut s = String::new();
        for v in &r.variants {
            let rows: Vec<schedlab_report::latency::LatencyRow> = v
                .merged
                .iter()
                .map(|x| schedlab_report::latency::LatencyRow {
                    comm: x.comm.clone(),
                    pid: x.pid,
                    threads: x.threads,
                    runtime_ns: x.runtime_ns,
                    count: x.count,
                    delay_sum_ns: x.sum_ns,
                    delay_max_ns: x.max_ns,
                    max_start_ns: 0,
                    max_end_ns: 0,
                })
                .collect();
            s.push_str(&format!("{}\n", v.variant));
            s.push_str(schedlab_report::latency::format_sum(&rows).trim_start_matches('\n'));
        }
        s
    }

    /// Chrome/Perfetto trace-event JSON of the runs' timelines.
    pub fn perfetto(r: &Results) -> String {
        use schedlab_report::perfetto::{perfetto_json_from, PerfettoRun};
        use schedlab_report::timeline::Timeline;
        let tls: Vec<Timeline> = r
            .variants
            .iter()
            .map(|v| Timeline {
                slices: v.timeline.slices(),
                waits: vec![],
                end_ns: v.timeline.end_ns,
                cpus: v.timeline.cpus,
            })
            .collect();
        let comms: Vec<Box<dyn Fn(u32) -> String + '_>> = r
            .variants
            .iter()
            .map(|v| Box::new(move |p: u32| v.timeline.comm(p)) as Box<dyn Fn(u32) -> String>)
            .collect();
        let runs: Vec<PerfettoRun> = r
            .variants
            .iter()
            .zip(&tls)
            .zip(&comms)
            .map(|((v, timeline), comm)| PerfettoRun {
                name: &v.variant,
                timeline,
                comm: comm.as_ref(),
                wakeups: vec![],
            })
            .collect();
        perfetto_json_from(&runs)
    }
}
