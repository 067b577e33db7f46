//! `schedlab sweep`: one scenario across a range of a tunable, a feature, or a value of the
//! scenario (a grid when several are given), one row per point and variant.
//!
//! Every point is an ordinary scenario (`schedlab_scenario::sweep::apply`), run exactly as
//! `schedlab run` runs it, so a row's trace hash equals that of a single run of the same
//! scenario. Points run on worker threads (`--jobs`); rows are printed in grid order whatever
//! the order they finish in, so the output does not depend on the number of jobs.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use schedlab_report::sweep::{csv, figure_unit, measure, series, share_labels, Row, FIGURES};
use schedlab_scenario::sweep::{apply, points, Param, Point, MAX_PARAMS, MAX_RUNS};
use schedlab_scenario::Scenario;
use schedlab_sim::{Output, Simulator, Status, Variant};

use crate::args::{Format, SweepArgs};

/// `x` with `prec` decimals.
fn c_fixed(x: f64, prec: usize) -> String {
    format!("{x:.prec$}")
}
use crate::{progress_bar, usage_err, Fail};

/// Runs one variant of one scenario as `schedlab run` does, within `max_events` of work
/// (with `snapshots`, recording the fair-class state at switches and ticks and the decision
/// records as well).
pub(crate) fn run_one(
    sc: &Scenario,
    v: &Variant,
    max_events: u64,
    snapshots: bool,
) -> Result<Output, String> {
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = snapshots;
    cfg.record_decisions = snapshots;
    let mut sim = Simulator::new(&cfg, v).map_err(|e| format!("{}: {e}", v.name))?;
    loop {
        let budget = 2_000_000u64.min(max_events.saturating_sub(sim.work_done()));
        if budget > 0 && sim.run(budget) == Status::Done {
            return Ok(sim.finish());
        }
        if sim.work_done() >= max_events {
            return Err(format!(
                "{}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated; raise --max-events or shorten duration_ms",
                v.name,
                sim.work_done(),
                sim.now_ns() as f64 / 1e9,
                cfg.duration_ns as f64 / 1e9
            ));
        }
    }
}

pub(crate) fn sweep(a: &SweepArgs, out: &mut dyn Write) -> Result<(), Fail> {
    let (_, base) = a.source.load()?;
    if a.params.len() > MAX_PARAMS {
        return Err(usage_err(format!(
            "{} --param options; a sweep takes at most {MAX_PARAMS}",
            a.params.len()
        )));
    }
    let mut params = vec![];
    for p in &a.params {
        params.push(Param::parse(p).map_err(|e| usage_err(format!("--param: {e}")))?);
    }
    let mut variants = vec![];
    for n in &a.variants {
        variants.push(Variant::parse(n).map_err(|e| usage_err(format!("--variant: {e}")))?);
    }
    let labels: Vec<String> = if variants.is_empty() {
        base.variants.iter().map(|v| v.name.clone()).collect()
    } else {
        variants.iter().map(|v| v.name.clone()).collect()
    };
    let pts = points(&params);
    if pts.len() * labels.len().max(1) > MAX_RUNS {
        return Err(usage_err(format!(
            "{} points × {} variants = {} runs; a sweep runs at most {MAX_RUNS}",
            pts.len(),
            labels.len(),
            pts.len() * labels.len()
        )));
    }
    if let Some(f) = &a.plot {
        if params.len() != 1
            || !matches!(
                params[0].values[0],
                schedlab_scenario::sweep::Value1::Int(_)
            )
        {
            return Err(usage_err(
                "--plot draws a figure against one numeric --param (a tunable or a value of the scenario)",
            ));
        }
        if !FIGURES.contains(&f.as_str()) && !f.starts_with("share:") {
            return Err(usage_err(format!(
                "--plot: unknown figure `{f}`; one of {}",
                FIGURES.join(", ")
            )));
        }
        if a.svg.is_none() {
            return Err(usage_err(
                "--plot needs --export-svg FILE.svg to write the chart to",
            ));
        }
    }
    // Every point is checked before anything runs: a bad point is named, with its values.
    let mut scenarios = vec![];
    for p in &pts {
        let sc = apply(&base, &variants, &params, p).map_err(|e| {
            Fail(
                2,
                format!("{}: at {}: {e}", a.source.name(), point_text(&params, p)),
            )
        })?;
        scenarios.push(sc);
    }
    let jobs: Vec<(usize, usize)> = (0..scenarios.len())
        .flat_map(|i| (0..labels.len()).map(move |j| (i, j)))
        .collect();
    let threads = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let bar = progress_bar(jobs.len() as u64, "sweep [{bar:30}] {pos}/{len} runs");
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<Row, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, j)) = jobs.get(k) else { break };
                let sc = &scenarios[i];
                let v = &sc.variants[j];
                let r = run_one(sc, v, a.max_events, false).map(|o| Row {
                    point: pts[i].clone(),
                    variant: labels[j].clone(),
                    f: measure(sc, &o),
                });
                let failed = r.is_err();
                if let Ok(mut g) = slots.lock() {
                    g[k] = Some(r);
                }
                bar.inc(1);
                if failed {
                    // Later jobs are skipped: the sweep reports the first failure.
                    next.store(jobs.len(), Ordering::Relaxed);
                }
            });
        }
    });
    bar.finish_and_clear();
    let slots = slots.into_inner().unwrap_or_default();
    let mut rows = vec![];
    for (k, r) in slots.into_iter().enumerate() {
        match r {
            Some(Ok(row)) => rows.push(row),
            Some(Err(e)) => {
                let (i, _) = jobs[k];
                return Err(Fail(1, format!("at {}: {e}", point_text(&params, &pts[i]))));
            }
            None => {}
        }
    }
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    if let (Some(fig), Some(path)) = (&a.plot, &a.svg) {
        let series = series(&rows, &labels, fig);
        if series.iter().all(|(_, p)| p.is_empty()) {
            return Err(Fail(
                1,
                format!("--plot: no run has the figure `{fig}` (a share names a task group or workload; throughput needs a workload)"),
            ));
        }
        let svg = schedlab_report::plot::sweep_svg(
            &series,
            &base.name,
            names[0],
            &figure_unit(fig, &rows),
            800,
            500,
        )
        .map_err(|e| Fail(1, e))?;
        std::fs::write(path, svg).map_err(|e| Fail(1, format!("cannot write {path}: {e}")))?;
    }
    let text = match a.format {
        Format::Table => table(&names, &rows),
        Format::Csv => csv(&names, &rows),
        Format::Json => json(&names, &rows),
    };
    out.write_all(text.as_bytes())
        .map_err(|e: io::Error| Fail(1, format!("cannot write output: {e}")))
}

fn point_text(params: &[Param], p: &Point) -> String {
    params
        .iter()
        .zip(p)
        .map(|(q, v)| format!("{}={v}", q.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cells(names: &[&str], rows: &[Row]) -> (Vec<String>, Vec<Vec<String>>) {
    let shares = share_labels(rows);
    let mut head: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    head.extend(
        [
            "variant",
            "switches",
            "avg delay ms",
            "max delay ms",
            "wakeup preempt",
            "wakeup p50 us",
            "wakeup p99 us",
        ]
        .map(String::from),
    );
    head.extend(shares.iter().map(|l| format!("share {l}")));
    let unit = rows
        .iter()
        .find_map(|r| r.f.throughput.as_ref().map(|t| t.0.clone()));
    if let Some(u) = &unit {
        head.push(u.clone());
    }
    let dash = || "-".to_string();
    let body = rows
        .iter()
        .map(|r| {
            let mut c: Vec<String> = r.point.iter().map(|v| v.to_string()).collect();
            c.push(r.variant.clone());
            c.push(r.f.switches.to_string());
            c.push(c_fixed(r.f.delay_avg_ns as f64 / 1e6, 3));
            c.push(c_fixed(r.f.delay_max_ns as f64 / 1e6, 3));
            c.push(
                r.f.preempt_ratio
                    .map_or_else(dash, |p| format!("{}%", c_fixed(p * 100.0, 1))),
            );
            c.push(
                r.f.wakeup_p50_ns
                    .map_or_else(dash, |n| c_fixed(n as f64 / 1e3, 1)),
            );
            c.push(
                r.f.wakeup_p99_ns
                    .map_or_else(dash, |n| c_fixed(n as f64 / 1e3, 1)),
            );
            for l in &shares {
                c.push(
                    r.f.shares
                        .iter()
                        .find(|(k, _)| k == l)
                        .map_or_else(dash, |(_, s)| format!("{}%", c_fixed(s * 100.0, 1))),
                );
            }
            if unit.is_some() {
                c.push(
                    r.f.throughput
                        .as_ref()
                        .map_or_else(dash, |t| c_fixed(t.1, 2)),
                );
            }
            c
        })
        .collect();
    (head, body)
}

fn table(names: &[&str], rows: &[Row]) -> String {
    let (head, body) = cells(names, rows);
    let mut w: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in &body {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = w[i] - c.chars().count();
            // Parameters and the variant left-aligned, figures right-aligned.
            if i <= names.len() {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        let mut s = s.trim_end().to_string();
        s.push('\n');
        s
    };
    let mut s = line(&head);
    for r in &body {
        s.push_str(&line(r));
    }
    s
}

fn json(names: &[&str], rows: &[Row]) -> String {
    use serde_json::{json, Map, Value};
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut point = Map::new();
            for (n, v) in names.iter().zip(&r.point) {
                let v = match v {
                    schedlab_scenario::sweep::Value1::Int(i) => json!(i),
                    schedlab_scenario::sweep::Value1::Switch(b) => json!(b),
                };
                point.insert(n.to_string(), v);
            }
            json!({
                "point": point,
                "variant": r.variant,
                "run": r.f.run,
                "switches": r.f.switches,
                "delay_avg_ns": r.f.delay_avg_ns,
                "delay_max_ns": r.f.delay_max_ns,
                "wakeup_preempt_ratio": r.f.preempt_ratio,
                "wakeup_p50_ns": r.f.wakeup_p50_ns,
                "wakeup_p99_ns": r.f.wakeup_p99_ns,
                "cpu_shares": r.f.shares.iter().map(|(l, s)| json!({"tasks": l, "share": s})).collect::<Vec<_>>(),
                "throughput": r.f.throughput.as_ref().map(|(u, v)| json!({"unit": u, "value": v})),
                "trace_hash": format!("{:016x}", r.f.trace_hash),
            })
        })
        .collect();
    let mut s =
        serde_json::to_string_pretty(&json!({ "params": names, "rows": rows })).unwrap_or_default();
    s.push('\n');
    s
}
