//! The rows of a parameter sweep (`schedlab sweep`, and the page's sweep panel): what each
//! run measured, its figures for a plot, and the CSV both print. Every point is an ordinary
//! scenario ([`schedlab_scenario::sweep::apply`]), so a row's trace hash equals that of a
//! single run of it.

use std::fmt::Write as _;

use schedlab_scenario::sweep::{Point, Value1};
use schedlab_scenario::Scenario;
use schedlab_sim::Output;

use crate::export::trace_hash;
use crate::figures::summaries;
use crate::wakeup::wakeup_latencies_ns;

/// One run of the sweep: a point and a variant, and what it measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The point: a value per parameter.
    pub point: Point,
    /// The variant as the user named it.
    pub variant: String,
    /// What the run measured.
    pub f: RunFigures,
}

/// What one run of a sweep measured (the same figures `schedlab run` reports).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunFigures {
    /// The variant string the point ran (with the swept tunables and features appended).
    pub run: String,
    /// Context switches.
    pub switches: u64,
    /// Average scheduling delay (perf sched latency), ns.
    pub delay_avg_ns: u64,
    /// Longest scheduling delay, ns.
    pub delay_max_ns: u64,
    /// Successful wakeup preemptions / checks (need_preempt_count / check_preempt_count).
    pub preempt_ratio: Option<f64>,
    /// Median wakeup latency (sched_waking to running), ns.
    pub wakeup_p50_ns: Option<u64>,
    /// 99th percentile wakeup latency, ns.
    pub wakeup_p99_ns: Option<u64>,
    /// CPU share (0..1) per task group or workload.
    pub shares: Vec<(String, f64)>,
    /// The workload's throughput figure: (unit, value).
    pub throughput: Option<(String, f64)>,
    /// The trace hash (`schedlab run` prints the same for the same scenario).
    pub trace_hash: u64,
}

/// The figures `--plot` can draw.
pub const FIGURES: &[&str] = &[
    "switches",
    "delay_avg",
    "delay_max",
    "preempt_ratio",
    "wakeup_p50",
    "wakeup_p99",
    "throughput",
    "share:NAME",
];

impl Row {
    /// The figure `name` (one of [`FIGURES`]) of this run, in the unit [`figure_unit`] names.
    pub fn figure(&self, name: &str) -> Option<f64> {
        let ms = |ns: u64| ns as f64 / 1e6;
        match name {
            "switches" => Some(self.f.switches as f64),
            "delay_avg" => Some(ms(self.f.delay_avg_ns)),
            "delay_max" => Some(ms(self.f.delay_max_ns)),
            "preempt_ratio" => self.f.preempt_ratio.map(|r| r * 100.0),
            "wakeup_p50" => self.f.wakeup_p50_ns.map(|n| n as f64 / 1e3),
            "wakeup_p99" => self.f.wakeup_p99_ns.map(|n| n as f64 / 1e3),
            "throughput" => self.f.throughput.as_ref().map(|t| t.1),
            _ => {
                let want = name.strip_prefix("share:")?;
                self.f
                    .shares
                    .iter()
                    .find(|(l, _)| l == want)
                    .map(|(_, s)| s * 100.0)
            }
        }
    }
}

/// The axis label of figure `name`.
pub fn figure_unit(name: &str, rows: &[Row]) -> String {
    match name {
        "switches" => "switches".into(),
        "delay_avg" => "average delay (ms)".into(),
        "delay_max" => "maximum delay (ms)".into(),
        "preempt_ratio" => "wakeup preemption (%)".into(),
        "wakeup_p50" => "wakeup latency p50 (µs)".into(),
        "wakeup_p99" => "wakeup latency p99 (µs)".into(),
        "throughput" => rows
            .iter()
            .find_map(|r| r.f.throughput.as_ref().map(|t| t.0.clone()))
            .unwrap_or_else(|| "throughput".into()),
        s => format!("CPU share of {} (%)", s.trim_start_matches("share:")),
    }
}

/// The p-th percentile (nearest rank) of sorted samples.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// What `out`, a run of scenario `sc`, measured.
pub fn measure(sc: &Scenario, out: &Output) -> RunFigures {
    let s = summaries(sc, std::slice::from_ref(out)).remove(0);
    let mut lat = wakeup_latencies_ns(&out.trace, None);
    lat.sort_unstable();
    RunFigures {
        run: out.variant.clone(),
        switches: s.switches,
        delay_avg_ns: s.delay_avg_ns,
        delay_max_ns: s.delay_max_ns,
        preempt_ratio: s.preempt_ratio,
        wakeup_p50_ns: percentile(&lat, 50.0),
        wakeup_p99_ns: percentile(&lat, 99.0),
        shares: s.shares,
        throughput: s.throughput,
        trace_hash: trace_hash(&out.trace),
    }
}

/// The lines of figure `fig` against the (numeric) first parameter, one per variant in
/// `labels`, as [`crate::plot::sweep_svg`] draws them.
pub fn series(rows: &[Row], labels: &[String], fig: &str) -> Vec<crate::plot::SweepSeries> {
    labels
        .iter()
        .map(|l| {
            let pts = rows
                .iter()
                .filter(|r| &r.variant == l)
                .filter_map(|r| {
                    let Value1::Int(xv) = *r.point.first()? else {
                        return None;
                    };
                    Some((xv as f64, r.figure(fig)?))
                })
                .collect();
            (l.clone(), pts)
        })
        .collect()
}

/// Share labels in the order they first appear.
pub fn share_labels(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for r in rows {
        for (l, _) in &r.f.shares {
            if !out.contains(l) {
                out.push(l.clone());
            }
        }
    }
    out
}

/// The rows as CSV (`schedlab sweep --format csv`): the parameters named `names`, then one
/// column per figure.
pub fn csv(names: &[&str], rows: &[Row]) -> String {
    let shares = share_labels(rows);
    let f = crate::csv_field;
    let mut s = String::new();
    let mut head: Vec<String> = names.iter().map(|n| f(n)).collect();
    head.extend(
        [
            "variant",
            "run",
            "switches",
            "delay_avg_ns",
            "delay_max_ns",
            "wakeup_preempt_ratio",
            "wakeup_p50_ns",
            "wakeup_p99_ns",
            "throughput",
            "throughput_unit",
            "trace_hash",
        ]
        .map(String::from),
    );
    head.extend(shares.iter().map(|l| f(&format!("share:{l}"))));
    let _ = writeln!(s, "{}", head.join(","));
    let opt = |o: Option<String>| o.unwrap_or_default();
    for r in rows {
        let mut c: Vec<String> = r.point.iter().map(|v| v.to_string()).collect();
        c.push(f(&r.variant));
        c.push(f(&r.f.run));
        c.push(r.f.switches.to_string());
        c.push(r.f.delay_avg_ns.to_string());
        c.push(r.f.delay_max_ns.to_string());
        c.push(opt(r.f.preempt_ratio.map(|p| p.to_string())));
        c.push(opt(r.f.wakeup_p50_ns.map(|p| p.to_string())));
        c.push(opt(r.f.wakeup_p99_ns.map(|p| p.to_string())));
        c.push(opt(r.f.throughput.as_ref().map(|t| t.1.to_string())));
        c.push(opt(r.f.throughput.as_ref().map(|t| f(&t.0))));
        c.push(format!("{:016x}", r.f.trace_hash));
        for l in &shares {
            c.push(opt(r
                .f
                .shares
                .iter()
                .find(|(k, _)| k == l)
                .map(|(_, v)| v.to_string())));
        }
        let _ = writeln!(s, "{}", c.join(","));
    }
    s
}
