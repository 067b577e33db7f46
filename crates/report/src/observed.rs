//! The source's figures beside the model's: for a preset, each figure its LKML thread (or the
//! kernel documentation it cites) reports, per variant, next to the same figure measured on the
//! model's run. The presets are scaled down (8 CPUs for 112, seconds for minutes), so a
//! figure's change between variants is what to compare; each row after a figure's first shows
//! it against that first row, for the source and for the model alike.
//!
//! ```text
//! the source's figures beside the model's (the model's runs are scaled down: compare each figure's changes)
//! figure                               variant                       source           model
//! CPU share of tbench (% of the tasks')  cfs-6.1                       50.0            49.8
//!                                      eevdf-6.12:NO_DELAY_DEQUEUE   56.0 (+6.0pp)   52.2 (+2.4pp)
//! ```

use schedlab_scenario::presets::ThreadFigure;
use schedlab_scenario::{Role, Scenario, Workload};
use schedlab_sim::Output;

use crate::figures::{role_pids, summaries};
use crate::latency::{latency_rows, LatencyRow};
use crate::sweep::percentile;
use crate::workload as wl;

/// The figures a preset can name (`NAME` is a task's comm; one ending in `-` matches every comm
/// it begins: `kworker-` for the per-CPU kworkers).
pub const FIGURES: &[&str] = &[
    "preempt",
    "local",
    "switches_per_cpu_5s",
    "hackbench_s",
    "wakeup_p50",
    "wakeup_p90",
    "wakeup_p99",
    "request_p50",
    "request_p90",
    "request_p99",
    "requests_per_cpu_s",
    "throughput",
    "switches:NAME",
    "runs_per_task:NAME",
    "delay_avg:NAME",
    "turn:NAME",
    "share:NAME",
    "cpu:NAME",
];

/// The label of figure `key`, with its unit; `None` for a key not in [`FIGURES`].
pub fn label(key: &str) -> Option<String> {
    let (kind, name) = key.split_once(':').unwrap_or((key, ""));
    let named = |s: &str| (!name.is_empty()).then(|| s.replace("NAME", name));
    match kind {
        "preempt" => Some("wakeup preemption success (%)".into()),
        "local" => Some("wakeups on the waker's CPU (%)".into()),
        "switches_per_cpu_5s" => Some("switches per CPU per 5 s".into()),
        "hackbench_s" => Some("hackbench time (s)".into()),
        "wakeup_p50" | "wakeup_p90" | "wakeup_p99" => {
            Some(format!("wakeup latency {} (µs)", &kind[7..]))
        }
        "request_p50" | "request_p90" | "request_p99" => {
            Some(format!("request latency {} (µs)", &kind[8..]))
        }
        "requests_per_cpu_s" => Some("requests/s per CPU".into()),
        "throughput" => Some("throughput (each in its own unit)".into()),
        "switches" => named("NAME switches"),
        "runs_per_task" => named("runs per NAME task").map(|l| l.replace("- task", " task")),
        "delay_avg" => named("NAME avg delay (ms)"),
        "turn" => named("NAME run per turn (ms)"),
        "share" => named("CPU share of NAME (% of the tasks')"),
        "cpu" => named("CPU of NAME (% of one CPU)"),
        _ => None,
    }
}

/// Whether figure `key` is a percentage (its changes are shown in points).
fn is_percent(key: &str) -> bool {
    let kind = key.split_once(':').map_or(key, |(k, _)| k);
    matches!(kind, "preempt" | "local" | "share" | "cpu")
}

/// Rows of a run's `perf sched latency` table (merged by comm) that `name` matches.
fn matching<'a>(rows: &'a [LatencyRow], name: &'a str) -> impl Iterator<Item = &'a LatencyRow> {
    rows.iter()
        .filter(move |r| r.comm == name || (name.ends_with('-') && r.comm.starts_with(name)))
}

/// Figure `key` measured on `out`, a run of `sc`; `None` when the run has nothing to measure it
/// on (no such task, no schbench, no wakeup check).
pub fn model_value(key: &str, sc: &Scenario, out: &Output) -> Option<f64> {
    let end = out.trace.end_ns;
    let secs = end as f64 / 1e9;
    let sum = |f: fn(&schedlab_sim::CpuStats) -> u64| out.cpus.iter().map(f).sum::<u64>();
    let ratio = |n: u64, d: u64| (d > 0).then(|| n as f64 * 100.0 / d as f64);
    let (kind, name) = key.split_once(':').unwrap_or((key, ""));
    let schbench = || {
        let infos = sc.workloads();
        let workers = role_pids(&infos, out, &[Role::Worker]);
        let msg = role_pids(&infos, out, &[Role::MessageThread]);
        let sleep_ns = infos
            .iter()
            .find_map(|i| match &i.params {
                Workload::Schbench(s) => Some(s.sleep_ns()),
                _ => None,
            })
            .unwrap_or(wl::SCHBENCH_USLEEP_NS);
        (!workers.is_empty()).then(|| wl::schbench_samples(&out.trace, &workers, &msg, sleep_ns))
    };
    let pct = |samples: &mut Vec<u64>, p: f64| {
        samples.sort_unstable();
        percentile(samples, p).map(|ns| ns as f64 / 1e3)
    };
    match kind {
        "preempt" => ratio(
            sum(|c| c.need_preempt_count),
            sum(|c| c.check_preempt_count),
        ),
        "local" => ratio(sum(|c| c.ttwu_local), sum(|c| c.ttwu_count)),
        "switches_per_cpu_5s" => (end > 0).then(|| {
            sum(|c| c.sched_count) as f64 / out.cpus.len().max(1) as f64 * 5e9 / end as f64
        }),
        "hackbench_s" => {
            let threads = role_pids(&sc.workloads(), out, &[Role::Sender, Role::Receiver]);
            wl::hackbench_time_ns(&out.trace, &threads).map(|ns| ns as f64 / 1e9)
        }
        "wakeup_p50" | "wakeup_p90" | "wakeup_p99" => {
            pct(&mut schbench()?.wakeup_ns, kind[8..].parse().ok()?)
        }
        "request_p50" | "request_p90" | "request_p99" => {
            pct(&mut schbench()?.request_ns, kind[9..].parse().ok()?)
        }
        "requests_per_cpu_s" => (end > 0)
            .then_some(())
            .and(schbench())
            .map(|sb| sb.done_ns.len() as f64 / secs / out.cpus.len().max(1) as f64),
        "throughput" => summaries(sc, core::slice::from_ref(out))
            .remove(0)
            .throughput
            .map(|(_, v)| v),
        _ if name.is_empty() => None,
        _ => {
            let rows = latency_rows(&out.trace, true);
            let m: Vec<&LatencyRow> = matching(&rows, name).collect();
            if m.is_empty() {
                return None;
            }
            let count: u64 = m.iter().map(|r| r.count).sum();
            let runtime: u64 = m.iter().map(|r| r.runtime_ns).sum();
            match kind {
                "switches" => Some(count as f64),
                "runs_per_task" => {
                    Some(count as f64 / m.iter().map(|r| r.threads).sum::<u32>().max(1) as f64)
                }
                "delay_avg" => (count > 0).then(|| {
                    m.iter().map(|r| r.delay_sum_ns).sum::<u64>() as f64 / count as f64 / 1e6
                }),
                "turn" => (count > 0).then(|| runtime as f64 / count as f64 / 1e6),
                "share" => ratio(runtime, rows.iter().map(|r| r.runtime_ns).sum()),
                "cpu" => ratio(runtime, end),
                _ => None,
            }
        }
    }
}

/// A value as the table prints it: three significant figures or so, millions as `M`.
fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// `v` against `base`: points for a percentage, else a relative change; empty without a base.
fn change(key: &str, v: f64, base: Option<f64>) -> String {
    let Some(b) = base else {
        return String::new();
    };
    let c = if is_percent(key) {
        format!("{:+.1}pp", v - b)
    } else if b != 0.0 {
        format!("{:+.0}%", (v - b) / b * 100.0)
    } else {
        return String::new();
    };
    // A change that rounds to zero has no sign.
    let c = match c.strip_prefix(['+', '-']) {
        Some(z)
            if z.trim_end_matches(['%', 'p'])
                .chars()
                .all(|ch| ch == '0' || ch == '.') =>
        {
            z
        }
        _ => &c,
    };
    format!(" ({c})")
}

/// The model's value of each of `figures` on `out`, a run of `sc` (see [`model_value`]).
pub fn model_values(sc: &Scenario, out: &Output, figures: &[ThreadFigure]) -> Vec<Option<f64>> {
    figures
        .iter()
        .map(|f| model_value(f.key, sc, out))
        .collect()
}

/// The table: for each figure, one line per variant the source gives that was run, with the
/// source's value and the model's (each with its change against the figure's first line). Empty
/// when no figure has a variant that ran.
pub fn format(sc: &Scenario, results: &[Output], figures: &[ThreadFigure]) -> String {
    let runs: Vec<(String, Vec<Option<f64>>)> = results
        .iter()
        .map(|o| (o.variant.clone(), model_values(sc, o, figures)))
        .collect();
    format_values(figures, &runs)
}

/// [`format`] from the model's values already measured: per run, its variant and its
/// [`model_values`] (the page's worker measures them; the page prints the table).
pub fn format_values(figures: &[ThreadFigure], runs: &[(String, Vec<Option<f64>>)]) -> String {
    let mut lines: Vec<[String; 4]> = vec![];
    for (i, f) in figures.iter().enumerate() {
        let Some(label) = label(f.key) else { continue };
        let value = |vals: &[Option<f64>]| vals.get(i).copied().flatten();
        let mut first: Option<(f64, Option<f64>)> = None;
        if let [("*", source)] = f.values {
            // The source does not say which kernel: its value once, the model's per variant.
            lines.push([
                label,
                "(kernel not given)".into(),
                num(*source),
                String::new(),
            ]);
            for (variant, vals) in runs {
                let model = value(vals).map_or("-".into(), num);
                lines.push([String::new(), variant.clone(), String::new(), model]);
            }
            continue;
        }
        for &(variant, source) in f.values {
            let Some((_, vals)) = runs.iter().find(|(v, _)| v == variant) else {
                continue;
            };
            let model = value(vals);
            let (sb, mb) = match first {
                Some((s, m)) => (Some(s), m),
                None => (None, None),
            };
            let model_text = match model {
                Some(m) => format!("{}{}", num(m), change(f.key, m, mb)),
                None => "-".into(),
            };
            let shown = if first.is_none() {
                label.clone()
            } else {
                String::new()
            };
            lines.push([
                shown,
                variant.to_string(),
                format!("{}{}", num(source), change(f.key, source, sb)),
                model_text,
            ]);
            first.get_or_insert((source, model));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let head = ["figure", "variant", "source", "model"];
    let mut w = head.map(|h| h.chars().count());
    for l in &lines {
        for (i, c) in l.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let row = |cells: [&str; 4]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i == 3 {
                s.push_str(c);
            } else {
                s.push_str(c);
                for _ in c.chars().count()..w[i] + 2 {
                    s.push(' ');
                }
            }
        }
        format!("{}\n", s.trim_end())
    };
    let mut s = String::from(
        "\nthe source's figures beside the model's (the model's runs are scaled down: compare \
         each figure's changes)\n",
    );
    s.push_str(&row(head));
    for l in &lines {
        s.push_str(&row([&l[0], &l[1], &l[2], &l[3]]));
    }
    s
}
