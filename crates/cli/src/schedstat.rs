//! `schedlab schedstat`: a run's `/proc/schedstat` counters window by window.
//!
//! The seed-000 thread measured its wakeup regime as the delta of `/proc/schedstat` over 5 s
//! on one CPU of a loaded machine; this command shows the model's counters the same way. The
//! run keeps no trace (`TraceLevel::Counters`), so the full-size experiments fit in memory:
//! the engine steps to each window's end (every event before it) and the command reads
//! the per-CPU counters there.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

use schedlab_sim::stats::CpuStats;
use schedlab_sim::{Simulator, TraceLevel};
use serde_json::{json, Value};

use crate::args::{Format, SchedstatArgs};
use crate::{chosen_variants, progress_bar, usage_err, Fail};

/// Counters summed over the chosen CPUs, by their serialized names (every `CpuStats` field
/// that a run's JSON report carries).
type Counters = BTreeMap<String, u64>;

/// One window of one variant: the chosen CPUs summed, or (`--each-cpu`) one of them.
struct Window {
    from_ns: u64,
    to_ns: u64,
    /// The CPU, with `--each-cpu`.
    cpu: Option<u32>,
    /// The counters' change over the window, summed over the chosen CPUs (or the one).
    delta: Counters,
}

impl Window {
    /// How many CPUs the row sums.
    fn ncpus(&self, chosen: usize) -> usize {
        if self.cpu.is_some() {
            1
        } else {
            chosen
        }
    }
}

/// What one variant gave.
struct VariantRows {
    name: String,
    windows: Vec<Window>,
    /// Where the run ended (before the scenario's duration if every task exited).
    ended_ns: u64,
}

pub(crate) fn schedstat(a: &SchedstatArgs, out: &mut dyn Write) -> Result<(), Fail> {
    let (_, scenario) = a.source.load()?;
    let source = a.source.name().to_string();
    let variants = chosen_variants(&a.variants, &scenario, &source)?;
    let cfg = scenario.sim_config();
    if a.window == 0 {
        return Err(usage_err("--window must be longer than 0 s"));
    }
    if a.from >= cfg.duration_ns {
        return Err(usage_err(format!(
            "--from {} s is not before the end of the run ({} s, the scenario's duration_ms)",
            a.from as f64 / 1e9,
            cfg.duration_ns as f64 / 1e9
        )));
    }
    let ncpu = scenario.cpus as u32;
    let mut cpus: Vec<u32> = a.cpus.clone();
    cpus.sort_unstable();
    cpus.dedup();
    if let Some(&bad) = cpus.iter().find(|&&c| c >= ncpu) {
        return Err(usage_err(format!(
            "--cpu {bad}: the scenario has {ncpu} CPUs (0 to {})",
            ncpu - 1
        )));
    }
    if cpus.is_empty() {
        cpus = (0..ncpu).collect();
    }
    // The rows of each window: the chosen CPUs together, or each alone.
    let groups: Vec<Vec<u32>> = if a.each_cpu {
        cpus.iter().map(|&c| vec![c]).collect()
    } else {
        vec![cpus.clone()]
    };
    let bar = progress_bar(
        cfg.duration_ns / 1_000_000,
        "{prefix} [{bar:30}] {pos}/{len} ms simulated, {msg} events",
    );
    let mut rows = vec![];
    for v in &variants {
        let mut sim = Simulator::with_trace(&cfg, v, TraceLevel::Counters, None)
            .map_err(|e| Fail(1, format!("{}: {e}", v.name)))?;
        bar.set_prefix(v.name.clone());
        bar.set_position(0);
        let mut windows = vec![];
        let mut start = a.from;
        let mut before = None;
        loop {
            // Windows are [start, end): the counters are read before the first event at `end`.
            let end = if before.is_none() {
                start
            } else {
                (start + a.window).min(cfg.duration_ns)
            };
            run_to(&mut sim, end, a.max_events, &v.name, cfg.duration_ns, &bar)?;
            let now: Vec<Counters> = groups.iter().map(|g| sum(&sim, g)).collect();
            if let Some(b) = before.replace(now.clone()) {
                // A run whose tasks all exited ends inside its last window.
                let to_ns = if sim.is_done() {
                    sim.now_ns().clamp(start, end)
                } else {
                    end
                };
                for ((g, now), b) in groups.iter().zip(&now).zip(&b) {
                    windows.push(Window {
                        from_ns: start,
                        to_ns,
                        cpu: a.each_cpu.then_some(g[0]),
                        delta: now
                            .iter()
                            .map(|(k, n)| (k.clone(), n - b.get(k).copied().unwrap_or(0)))
                            .collect(),
                    });
                }
                start = end;
            }
            if sim.is_done() || end >= cfg.duration_ns {
                break;
            }
        }
        let ended_ns = sim.now_ns().min(cfg.duration_ns);
        rows.push(VariantRows {
            name: v.name.clone(),
            windows,
            ended_ns,
        });
    }
    bar.finish_and_clear();
    let text = match a.format {
        Format::Table => table(&scenario.name, &cpus, ncpu, &rows),
        Format::Json => json_text(&scenario.name, &cpus, a.window, &rows),
        Format::Csv => csv(&cpus, &rows),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}

/// Runs every event due before `end`, or, when `end` is the run's duration, to the end of the
/// run (the events at the duration itself included, as `run` does).
fn run_to(
    sim: &mut Simulator,
    end: u64,
    max_events: u64,
    variant: &str,
    duration_ns: u64,
    bar: &indicatif::ProgressBar,
) -> Result<(), Fail> {
    let mut n = 0u32;
    while !sim.is_done() {
        match sim.next_event_ns() {
            Some(t) if t < end => {}
            // The last window: run to the end (the steps past the duration end the run).
            _ if end >= duration_ns => {}
            _ => break,
        }
        sim.step();
        if sim.work_done() >= max_events {
            bar.finish_and_clear();
            return Err(Fail(
                1,
                format!(
                    "{variant}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated; raise --max-events or shorten duration_ms",
                    sim.work_done(),
                    sim.now_ns() as f64 / 1e9,
                    duration_ns as f64 / 1e9
                ),
            ));
        }
        n += 1;
        if n % 1_000_000 == 0 {
            bar.set_position(sim.now_ns() / 1_000_000);
            bar.set_message(sim.events_processed().to_string());
        }
    }
    Ok(())
}

/// The chosen CPUs' counters, summed.
fn sum(sim: &Simulator, cpus: &[u32]) -> Counters {
    let mut t = Counters::new();
    for (i, c) in sim.cpu_stats().enumerate() {
        if cpus.binary_search(&(i as u32)).is_err() {
            continue;
        }
        add(&mut t, c);
    }
    t
}

fn add(t: &mut Counters, c: &CpuStats) {
    if let Ok(Value::Object(m)) = serde_json::to_value(c) {
        for (k, v) in m {
            if let Some(n) = v.as_u64() {
                *t.entry(k).or_insert(0) += n;
            }
        }
    }
}

fn get(c: &Counters, k: &str) -> u64 {
    c.get(k).copied().unwrap_or(0)
}

/// `a / b` in percent, `None` when `b` is 0.
fn pct(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| 100.0 * a as f64 / b as f64)
}

/// The derived figures of a window, by name: what the table shows besides the counts.
fn ratios(w: &Window, ncpus: usize) -> Vec<(&'static str, Option<f64>)> {
    let d = &w.delta;
    let need = get(d, "need_preempt_count");
    let span = (w.to_ns - w.from_ns) as f64 * ncpus as f64;
    vec![
        (
            "ttwu_local_pct",
            pct(get(d, "ttwu_local"), get(d, "ttwu_count")),
        ),
        (
            "preempt_success_pct",
            pct(need, get(d, "check_preempt_count")),
        ),
        (
            "curr_noeli_pct",
            pct(get(d, "curr_noeli_preempt_count"), need),
        ),
        (
            "curr_lowdl_pct",
            pct(get(d, "curr_lowdl_preempt_count"), need),
        ),
        (
            "busy_pct",
            (span > 0.0).then(|| 100.0 * get(d, "rq_cpu_time_ns") as f64 / span),
        ),
        (
            "run_delay_per_arrival_us",
            (get(d, "pcount") > 0)
                .then(|| get(d, "run_delay_ns") as f64 / get(d, "pcount") as f64 / 1e3),
        ),
    ]
}

fn cpu_list(cpus: &[u32], ncpu: u32) -> String {
    if cpus.len() as u32 == ncpu {
        return format!("all {ncpu} CPUs");
    }
    let l: Vec<String> = cpus.iter().map(u32::to_string).collect();
    format!("CPU {}", l.join(","))
}

fn table(name: &str, cpus: &[u32], ncpu: u32, rows: &[VariantRows]) -> String {
    let mut s = String::new();
    let n = cpus.len();
    for r in rows {
        let _ = writeln!(
            s,
            "# {name}: {}, /proc/schedstat deltas per CPU and window",
            r.name
        );
        let _ = writeln!(s, "#   ({})", cpu_list(cpus, ncpu));
        let each = r.windows.iter().any(|w| w.cpu.is_some());
        if each {
            s.push_str("  cpu ");
        }
        let _ = writeln!(
            s,
            "{:>8} {:>8} {:>10} {:>8} {:>10} {:>7} {:>10} {:>8} {:>7} {:>7} {:>6} {:>10}",
            "from s",
            "to s",
            "sched",
            "goidle",
            "ttwu",
            "local",
            "checks",
            "preempt",
            "noeli",
            "lowdl",
            "busy",
            "delay/run"
        );
        for w in &r.windows {
            let n = w.ncpus(n);
            let per = |k: &str| get(&w.delta, k) as f64 / n as f64;
            let rs = ratios(w, n);
            if let Some(c) = w.cpu {
                let _ = write!(s, "{c:>5} ");
            }
            let p = |i: usize| rs[i].1.map_or("-".to_string(), |v| format!("{v:.1}%"));
            let delay = rs[5].1.map_or("-".to_string(), |v| format!("{v:.1} us"));
            let _ = writeln!(
                s,
                "{:>8.3} {:>8.3} {:>10.0} {:>8.0} {:>10.0} {:>7} {:>10.0} {:>8} {:>7} {:>7} {:>6} {:>10}",
                w.from_ns as f64 / 1e9,
                w.to_ns as f64 / 1e9,
                per("sched_count"),
                per("sched_goidle"),
                per("ttwu_count"),
                p(0),
                per("check_preempt_count"),
                p(1),
                p(2),
                p(3),
                p(4),
                delay
            );
        }
        if r.windows.is_empty() {
            let _ = writeln!(s, "(no window: the run ended before --from)");
        }
        s.push('\n');
    }
    s
}

fn json_text(name: &str, cpus: &[u32], window: u64, rows: &[VariantRows]) -> String {
    let variants: Vec<Value> = rows
        .iter()
        .map(|r| {
            let windows: Vec<Value> = r
                .windows
                .iter()
                .map(|w| {
                    let mut o = serde_json::Map::new();
                    o.insert("from_ns".into(), w.from_ns.into());
                    o.insert("to_ns".into(), w.to_ns.into());
                    if let Some(c) = w.cpu {
                        o.insert("cpu".into(), c.into());
                    }
                    o.insert("counters".into(), json!(w.delta));
                    for (k, v) in ratios(w, w.ncpus(cpus.len())) {
                        o.insert(k.into(), v.map_or(Value::Null, |v| json!(v)));
                    }
                    Value::Object(o)
                })
                .collect();
            json!({ "variant": r.name, "ended_ns": r.ended_ns, "windows": windows })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&json!({
        "scenario": name,
        "cpus": cpus,
        "window_ns": window,
        "variants": variants,
    }))
    .unwrap_or_default();
    s.push('\n');
    s
}

fn csv(cpus: &[u32], rows: &[VariantRows]) -> String {
    let keys: Vec<String> = rows
        .iter()
        .flat_map(|r| r.windows.iter())
        .next()
        .map(|w| w.delta.keys().cloned().collect())
        .unwrap_or_default();
    let each = rows
        .iter()
        .flat_map(|r| r.windows.iter())
        .any(|w| w.cpu.is_some());
    let mut s = String::from("variant,from_ns,to_ns");
    if each {
        s.push_str(",cpu");
    }
    for k in &keys {
        let _ = write!(s, ",{k}");
    }
    for (k, _) in rows
        .iter()
        .flat_map(|r| r.windows.iter())
        .next()
        .map(|w| ratios(w, cpus.len()))
        .unwrap_or_default()
    {
        let _ = write!(s, ",{k}");
    }
    s.push('\n');
    for r in rows {
        for w in &r.windows {
            let _ = write!(s, "{},{},{}", csv_field(&r.name), w.from_ns, w.to_ns);
            if let Some(c) = w.cpu {
                let _ = write!(s, ",{c}");
            }
            for k in &keys {
                let _ = write!(s, ",{}", get(&w.delta, k));
            }
            for (_, v) in ratios(w, w.ncpus(cpus.len())) {
                match v {
                    Some(v) => {
                        let _ = write!(s, ",{v:.3}");
                    }
                    None => s.push(','),
                }
            }
            s.push('\n');
        }
    }
    s
}

/// A variant name as a CSV field (quoted when it holds a comma or a quote).
fn csv_field(v: &str) -> String {
    if v.contains([',', '"']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}
