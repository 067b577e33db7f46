//! `schedlab report TRACE`: a real recording read by the importers of `schedlab-trace` and
//! reported with the same functions as a simulated run (`perf sched latency` in both layouts,
//! `perf sched timehist`), plus what a recording can say of itself: switches, wakeups and how
//! many of them were local, migrations, and each task's share of the CPU time.

use std::fmt::Write as _;
use std::io::Write;

use schedlab_report::latency::{format_perf, format_sum, latency_rows};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_sim::{EventKind, Pid, Trace};
use schedlab_trace::{import_reader, Import, ImportError, Options};

use crate::args::{Format, Layout, ReportArgs};
use crate::Fail;

/// What a trace says of the scheduler, counted from its events.
struct Counts {
    switches: u64,
    /// `sched_waking` (or `sched_wakeup` when the recording has no waking events).
    wakeups: u64,
    /// Of those, the ones whose task was woken on the waker's CPU.
    local: u64,
    migrations: u64,
    /// CPU time per pid from `sched_stat_runtime`, else from switch to switch.
    cpu_ns: std::collections::BTreeMap<Pid, u64>,
}

fn counts(t: &Trace) -> Counts {
    let mut c = Counts {
        switches: 0,
        wakeups: 0,
        local: 0,
        migrations: 0,
        cpu_ns: Default::default(),
    };
    let has_waking = t
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let has_runtime = t
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::StatRuntime { .. }));
    let mut running: Vec<Option<(Pid, u64)>> = vec![None; t.cpus as usize];
    for e in &t.events {
        match e.kind {
            EventKind::Switch {
                prev_pid, next_pid, ..
            } => {
                c.switches += 1;
                if let Some(slot) = running.get_mut(e.cpu as usize) {
                    if let Some((p, since)) = slot.take() {
                        if p == prev_pid && p != 0 && !has_runtime {
                            *c.cpu_ns.entry(p).or_default() += e.t_ns.saturating_sub(since);
                        }
                    }
                    *slot = Some((next_pid, e.t_ns));
                }
            }
            EventKind::Waking { target_cpu, .. } if has_waking => {
                c.wakeups += 1;
                c.local += (target_cpu == e.cpu) as u64;
            }
            EventKind::Wakeup { target_cpu, .. } if !has_waking => {
                c.wakeups += 1;
                c.local += (target_cpu == e.cpu) as u64;
            }
            EventKind::MigrateTask { .. } => c.migrations += 1,
            EventKind::StatRuntime { pid, runtime_ns } if pid != 0 => {
                *c.cpu_ns.entry(pid).or_default() += runtime_ns;
            }
            _ => {}
        }
    }
    c
}

/// The recording cut to a time window (ns from its first event) and a set of CPUs.
fn cut(mut t: Trace, from_ns: u64, to_ns: Option<u64>, cpus: &[u32]) -> Trace {
    let end = to_ns.unwrap_or(t.end_ns).min(t.end_ns);
    t.events.retain(|e| {
        e.t_ns >= from_ns && e.t_ns < end && (cpus.is_empty() || cpus.contains(&e.cpu))
    });
    t.end_ns = end;
    t
}

fn ms_to_ns(flag: &str, ms: Option<f64>) -> Result<Option<u64>, Fail> {
    match ms {
        None => Ok(None),
        Some(x) if x.is_finite() && x >= 0.0 => Ok(Some((x * 1e6).round() as u64)),
        Some(x) => Err(crate::usage_err(format!(
            "{flag} {x}: expected a time in ms, 0 or more"
        ))),
    }
}

pub(crate) fn report(a: &ReportArgs, out: &mut dyn Write) -> Result<(), Fail> {
    let from = ms_to_ns("--from-ms", a.from_ms)?.unwrap_or(0);
    let to = ms_to_ns("--to-ms", a.to_ms)?;
    if to.is_some_and(|t| t <= from) {
        return Err(crate::usage_err("--to-ms must be after --from-ms"));
    }
    let opts = Options {
        run: a.run.clone(),
        ..Options::default()
    };
    let imported = if a.trace == "-" {
        import_reader(std::io::stdin().lock(), opts)
    } else {
        let f = std::fs::File::open(&a.trace)
            .map_err(|e| Fail(2, format!("cannot read {}: {e}", a.trace)))?;
        import_reader(std::io::BufReader::new(f), opts)
    };
    let imp = imported.map_err(|e| match e {
        ImportError::Io(_) => Fail(1, format!("{}: {e}", a.trace)),
        e => Fail(2, format!("{}: {e}", a.trace)),
    })?;
    if let Some(&bad) = a.cpus.iter().find(|&&c| c >= imp.trace.cpus) {
        return Err(crate::usage_err(format!(
            "--cpus {bad}: the recording has CPUs 0..={}",
            imp.trace.cpus.saturating_sub(1)
        )));
    }
    let trace = cut(imp.trace.clone(), from, to, &a.cpus);
    let text = match a.format {
        Format::Table => table(&imp, &trace, a),
        Format::Json => json(&imp, &trace),
        Format::Csv => csv(&imp, &trace),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}

fn header(imp: &Import, t: &Trace) -> String {
    let mut s = format!(
        "# {} recording{}: {} lines, {} events, {} tasks, {} CPUs, {:.3} s",
        imp.format.name(),
        if imp.gzip { " (gzip)" } else { "" },
        imp.lines,
        t.events.len(),
        imp.pids.len(),
        t.cpus,
        t.end_ns as f64 / 1e9
    );
    if let Some(r) = &imp.run {
        let _ = write!(s, ", run {r}");
    }
    s.push('\n');
    for n in &imp.notes {
        let _ = writeln!(s, "# note: {n}");
    }
    if imp.warnings_total > 0 {
        let _ = writeln!(
            s,
            "# {} lines could not be read{}",
            imp.warnings_total,
            imp.warnings
                .first()
                .map_or(String::new(), |w| format!("; the first: {w}"))
        );
    }
    if !imp.skipped.is_empty() {
        let skipped: Vec<String> = imp
            .skipped
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(s, "# events skipped: {}", skipped.join(", "));
    }
    s
}

fn table(imp: &Import, t: &Trace, a: &ReportArgs) -> String {
    let mut s = header(imp, t);
    // perf prints the real thread ids.
    let mut rows = latency_rows(t, !a.pids);
    for r in &mut rows {
        r.pid = imp.real_pid(r.pid).unwrap_or(r.pid);
    }
    let tab = if a.layout == Layout::Sum {
        format_sum(&rows)
    } else {
        format_perf(&rows)
    };
    s.push_str(&tab);
    let c = counts(t);
    let local = if c.wakeups > 0 {
        format!(" ({:.1}% local)", 100.0 * c.local as f64 / c.wakeups as f64)
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "\n  switches {}  wakeups {}{local}  migrations {}",
        c.switches, c.wakeups, c.migrations
    );
    let total: u64 = c.cpu_ns.values().sum();
    if total > 0 {
        let _ = writeln!(s, "\n  CPU share (of all tasks' CPU time)");
        let mut shares: Vec<(Pid, u64)> = c.cpu_ns.iter().map(|(&p, &n)| (p, n)).collect();
        shares.sort_by_key(|&(p, n)| (std::cmp::Reverse(n), p));
        for (pid, ns) in shares.iter().take(20) {
            let _ = writeln!(
                s,
                "  {:<24} {:6.2}%  {:>12.3} ms",
                task_label(imp, *pid),
                100.0 * *ns as f64 / total as f64,
                *ns as f64 / 1e6
            );
        }
        if shares.len() > 20 {
            let _ = writeln!(s, "  … and {} more tasks", shares.len() - 20);
        }
    }
    if a.timehist {
        if imp.has_wakeups() {
            let _ = writeln!(s, "\n(perf sched timehist)");
        } else {
            let _ = writeln!(
                s,
                "\n(perf sched timehist; the recording has no wakeups, so no wait times)"
            );
        }
        s.push_str(&format_timehist(t, &timehist_lines(t)));
    }
    s
}

/// `comm:realpid` of a model pid.
fn task_label(imp: &Import, pid: Pid) -> String {
    imp.pids
        .iter()
        .find(|r| r.pid == pid)
        .map_or(pid.to_string(), |r| format!("{}:{}", r.comm, r.real_pid))
}

fn json(imp: &Import, t: &Trace) -> String {
    let c = counts(t);
    let rows = latency_rows(t, false);
    let tasks: Vec<serde_json::Value> = imp
        .pids
        .iter()
        .map(|r| {
            let row = rows.iter().find(|x| x.pid == r.pid);
            serde_json::json!({
                "name": r.comm,
                "pid": r.real_pid,
                "runtime_ns": row.map_or(0, |x| x.runtime_ns),
                "switches": row.map_or(0, |x| x.count),
                "delay_avg_ns": row.map_or(0, |x| x.delay_avg_ns()),
                "delay_max_ns": row.map_or(0, |x| x.delay_max_ns),
                "delay_sum_ns": row.map_or(0, |x| x.delay_sum_ns),
                "cpu_ns": c.cpu_ns.get(&r.pid).copied().unwrap_or(0),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "format": imp.format.name(),
        "gzip": imp.gzip,
        "lines": imp.lines,
        "events": t.events.len(),
        "cpus": t.cpus,
        "end_ns": t.end_ns,
        "has_wakeups": imp.has_wakeups(),
        "switches": c.switches,
        "wakeups": c.wakeups,
        "local_wakeups": c.local,
        "migrations": c.migrations,
        "tasks": tasks,
        "notes": imp.notes,
        "warnings": imp.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        "warnings_total": imp.warnings_total,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

fn csv(imp: &Import, t: &Trace) -> String {
    let c = counts(t);
    let rows = latency_rows(t, false);
    let mut s = String::from(
        "name,pid,runtime_ns,switches,delay_avg_ns,delay_max_ns,delay_sum_ns,cpu_ns\n",
    );
    for r in &imp.pids {
        let row = rows.iter().find(|x| x.pid == r.pid);
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{}",
            schedlab_report::csv_field(&r.comm),
            r.real_pid,
            row.map_or(0, |x| x.runtime_ns),
            row.map_or(0, |x| x.count),
            row.map_or(0, |x| x.delay_avg_ns()),
            row.map_or(0, |x| x.delay_max_ns),
            row.map_or(0, |x| x.delay_sum_ns),
            c.cpu_ns.get(&r.pid).copied().unwrap_or(0)
        );
    }
    s
}
