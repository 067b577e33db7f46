//! `schedlab report TRACE`: a real recording read by the importers of `schedlab-trace` and
//! reported with the same functions as a simulated run (`perf sched latency` in both layouts,
//! `perf sched timehist`), plus what a recording can say of itself: switches, wakeups and how
//! many of them were local, migrations, and each task's share of the CPU time.

use std::fmt::Write as _;
use std::io::Write;

use schedlab_report::latency::{format_perf, format_sum, latency_rows};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_sim::{EventKind, Pid, PrevState, Trace};
use schedlab_trace::{import_reader, Import, ImportError, Options};

use crate::args::{Format, ImportArgs, Layout, ReportArgs};
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
    counts_of(t, |_| true)
}

/// [`counts`] of the tasks `keep` accepts: switches in or out of them, their wakeups and
/// migrations (CPU time is per pid either way).
fn counts_of(t: &Trace, keep: impl Fn(Pid) -> bool) -> Counts {
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
                c.switches += u64::from(keep(prev_pid) || keep(next_pid));
                if let Some(slot) = running.get_mut(e.cpu as usize) {
                    if let Some((p, since)) = slot.take() {
                        if p == prev_pid && p != 0 && !has_runtime {
                            *c.cpu_ns.entry(p).or_default() += e.t_ns.saturating_sub(since);
                        }
                    }
                    *slot = Some((next_pid, e.t_ns));
                }
            }
            EventKind::Waking { pid, target_cpu } if has_waking && keep(pid) => {
                c.wakeups += 1;
                c.local += (target_cpu == e.cpu) as u64;
            }
            EventKind::Wakeup { pid, target_cpu } if !has_waking && keep(pid) => {
                c.wakeups += 1;
                c.local += (target_cpu == e.cpu) as u64;
            }
            EventKind::MigrateTask { pid, .. } if keep(pid) => c.migrations += 1,
            EventKind::StatRuntime { pid, runtime_ns } if pid != 0 => {
                *c.cpu_ns.entry(pid).or_default() += runtime_ns;
            }
            _ => {}
        }
    }
    c
}

/// A group's runs: a task's stints on a CPU, from its switch in to its switch out.
#[derive(Default)]
struct Runs {
    /// Each run's length, ns.
    lengths: Vec<u64>,
    /// How many ended with the task still runnable (preempted), not asleep or exited.
    preempted: u64,
}

impl Runs {
    /// The median run in µs for the comparison ("-" without runs), the 50th percentile as the
    /// wakeup latency's is taken; a decimal below 10 µs.
    fn median_us(&mut self) -> String {
        if self.lengths.is_empty() {
            return "-".into();
        }
        self.lengths.sort_unstable();
        let ns = schedlab_report::histogram::percentile_ns(&self.lengths, 50.0);
        if ns < 10_000 {
            format!("{:.1}", ns as f64 / 1e3)
        } else {
            format!("{:.0}", ns as f64 / 1e3)
        }
    }
}

/// The runs of `groups` groups' tasks (`group` names a pid's). A CPU's first run in the trace
/// (its start is not in it), one whose end names another task (the tracer missed events
/// there) and one still going at the trace's end are not counted: a task alone on a CPU for
/// the whole trace has none.
fn runs_by_group(t: &Trace, groups: usize, group: impl Fn(Pid) -> Option<usize>) -> Vec<Runs> {
    let mut runs: Vec<Runs> = (0..groups).map(|_| Runs::default()).collect();
    let mut running: Vec<Option<(Pid, u64)>> = vec![None; t.cpus as usize];
    for e in &t.events {
        let EventKind::Switch {
            prev_pid,
            prev_state,
            next_pid,
        } = e.kind
        else {
            continue;
        };
        let Some(slot) = running.get_mut(e.cpu as usize) else {
            continue;
        };
        if let Some((p, since)) = slot.replace((next_pid, e.t_ns)) {
            if let Some(r) = (p == prev_pid && p != 0)
                .then(|| group(p))
                .flatten()
                .and_then(|g| runs.get_mut(g))
            {
                r.lengths.push(e.t_ns.saturating_sub(since));
                r.preempted += u64::from(prev_state == PrevState::Running);
            }
        }
    }
    runs
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

/// Reads a recording from a file or standard input.
fn read_trace(path: &str, opts: Options) -> Result<Import, Fail> {
    let imported = if path == "-" {
        import_reader(std::io::stdin().lock(), opts)
    } else {
        let f =
            std::fs::File::open(path).map_err(|e| Fail(2, format!("cannot read {path}: {e}")))?;
        import_reader(std::io::BufReader::new(f), opts)
    };
    imported.map_err(|e| match e {
        ImportError::Io(_) => Fail(1, format!("{path}: {e}")),
        e => Fail(2, format!("{path}: {e}")),
    })
}

/// `--session NAME`: autogroup on, and the derived task groups of those names in session 1.
fn in_one_session(scenario: &mut serde_json::Value, names: &[String]) -> Result<(), Fail> {
    let Some(tasks) = scenario.get_mut("tasks").and_then(|t| t.as_array_mut()) else {
        return Ok(());
    };
    let name_of = |t: &serde_json::Value| {
        t.get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let known: Vec<String> = tasks.iter().map(name_of).collect();
    if let Some(n) = names.iter().find(|n| !known.contains(n)) {
        return Err(crate::usage_err(format!(
            "--session {n}: no derived task group has that name (they are: {})",
            known.join(", ")
        )));
    }
    for t in tasks.iter_mut() {
        if names.contains(&name_of(t)) {
            if let Some(o) = t.as_object_mut() {
                // The user's session stands for the group the import inferred.
                o.remove("cgroup");
                o.insert("session".into(), 1.into());
            }
        }
    }
    if let Some(o) = scenario.as_object_mut() {
        o.insert("autogroup".into(), true.into());
    }
    Ok(())
}

/// `schedlab import TRACE --to-scenario OUT.json`.
pub(crate) fn import(a: &ImportArgs, out: &mut dyn Write) -> Result<(), Fail> {
    use schedlab_scenario::Scenario;
    if !(a.min_cpu_ms.is_finite() && a.min_cpu_ms >= 0.0) {
        return Err(crate::usage_err(format!(
            "--min-cpu-ms {}: expected a time in ms, 0 or more",
            a.min_cpu_ms
        )));
    }
    let imp = read_trace(&a.trace, Options::default())?;
    let variants = if a.variants.is_empty() {
        vec!["eevdf-6.19".to_string()]
    } else {
        a.variants.clone()
    };
    let name = a.name.clone().unwrap_or_else(|| {
        let base = std::path::Path::new(&a.trace)
            .file_name()
            .map_or("recording".into(), |f| f.to_string_lossy().into_owned());
        format!("recorded: {base}")
    });
    let d = schedlab_trace::derive_scenario(
        &imp,
        &name,
        &variants,
        (a.min_cpu_ms * 1e6).round() as u64,
    );
    if d.groups.is_empty() {
        return Err(Fail(
            2,
            format!(
                "nothing to derive: no task in the recording ran for {} ms or more (--min-cpu-ms {}); the recording has {} tasks and {} switches",
                a.min_cpu_ms,
                a.min_cpu_ms,
                imp.pids.len(),
                imp.events_read.get("sched_switch").copied().unwrap_or(0)
            ),
        ));
    }
    let mut value = d.scenario.clone();
    if !a.session.is_empty() {
        in_one_session(&mut value, &a.session)?;
    }
    // The variants are the user's input: their errors are input errors; anything else
    // would be a bug in the derivation, reported as such.
    let scenario = Scenario::from_value(value).map_err(|es| {
        let variant_errs: Vec<String> =
            es.0.iter()
                .filter(|e| e.path.starts_with("variants"))
                .map(|e| format!("--variant: {}", e.message))
                .collect();
        if variant_errs.is_empty() {
            Fail(
                1,
                format!("the derived scenario does not validate (a bug): {es}"),
            )
        } else {
            crate::usage_err(variant_errs.join("\n"))
        }
    })?;
    let text = scenario.to_json();
    let mut summary = String::new();
    let total: u64 = d.groups.iter().map(|g| g.cpu_ns).sum();
    let _ = writeln!(
        summary,
        "# {} from a {} recording: {} CPUs, {} ms, {} groups",
        name,
        imp.format.name(),
        scenario.cpus,
        scenario.duration_ms,
        d.groups.len()
    );
    let _ = writeln!(
        summary,
        "  {:<16} {:>5} {:>10} {:>12} {:>12}",
        "group", "tasks", "CPU share", "mean burst", "mean sleep"
    );
    let ms = |ns: u64| {
        if ns == 0 {
            "-".to_string()
        } else {
            format!("{:.3} ms", ns as f64 / 1e6)
        }
    };
    for (i, g) in d.groups.iter().enumerate() {
        let _ = writeln!(
            summary,
            "  {:<16} {:>5} {:>9.1}% {:>12} {:>12}",
            group_label(&d, i),
            g.tasks,
            100.0 * g.cpu_ns as f64 / total.max(1) as f64,
            ms(g.burst_ns),
            ms(g.sleep_ns)
        );
    }
    for c in &d.channels {
        let writers: Vec<String> = c
            .writers
            .iter()
            .map(|&(w, n)| format!("{} ({n} wakeups)", group_label(&d, w)))
            .collect();
        let _ = writeln!(
            summary,
            "  channel {:<12} read by {} ({} wakeups), written by {}",
            c.name,
            group_label(&d, c.reader),
            c.reader_wakeups,
            writers.join(", ")
        );
    }
    // What reading the recording found (events missed or restored), then the derivation's.
    for n in imp.notes.iter().chain(&d.notes) {
        let _ = writeln!(summary, "# note: {n}");
    }
    if a.compare {
        summary.push_str(&compare(&imp, &d, &scenario)?);
    }
    if a.out == "-" {
        out.write_all(text.as_bytes())
            .map_err(|e| Fail(1, format!("cannot write output: {e}")))?;
        let _ = std::io::stderr().write_all(summary.as_bytes());
    } else {
        std::fs::write(&a.out, &text)
            .map_err(|e| Fail(1, format!("cannot write {}: {e}", a.out)))?;
        let _ = writeln!(summary, "wrote {}", a.out);
        out.write_all(summary.as_bytes())
            .map_err(|e| Fail(1, format!("cannot write output: {e}")))?;
    }
    Ok(())
}

/// A derived group's name, with its number (`sched-pipe #3`) when another group has the same.
fn group_label(d: &schedlab_trace::Derived, i: usize) -> String {
    let comm = &d.groups[i].comm;
    if d.groups.iter().filter(|g| &g.comm == comm).count() > 1 {
        format!("{comm} #{}", i + 1)
    } else {
        comm.clone()
    }
}

/// Each group's CPU share and runs (how many, their median, the share preempted), the wakeup
/// latency percentiles, and the switches, wakeups (those on the waker's CPU) and migrations,
/// recorded against simulated.
fn compare(
    imp: &Import,
    d: &schedlab_trace::Derived,
    scenario: &schedlab_scenario::Scenario,
) -> Result<String, Fail> {
    use schedlab_report::histogram::percentile_ns;
    use schedlab_report::wakeup::wakeup_latencies_where;
    let mut s = String::from(
        "
# the recording against the derived scenario's simulation (the recording's figures of the
# derived groups' tasks)
",
    );
    let total: u64 = d.groups.iter().map(|g| g.cpu_ns).sum();
    let pct = |mut v: Vec<u64>| {
        v.sort_unstable();
        (percentile_ns(&v, 50.0), percentile_ns(&v, 99.0))
    };
    // The recording's figures are of the tasks the scenario has (the derived groups'), as
    // the simulation's are: not of the tasks left out, the tracer among them.
    let kept: std::collections::BTreeSet<Pid> = d
        .groups
        .iter()
        .flat_map(|g| g.pids.iter().copied())
        .collect();
    let (r50, r99) = pct(wakeup_latencies_where(&imp.trace, |p| kept.contains(&p)));
    let rc = counts_of(&imp.trace, |p| p != 0 && kept.contains(&p));
    let recorded_group: std::collections::BTreeMap<Pid, usize> = d
        .groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.pids.iter().map(move |&p| (p, i)))
        .collect();
    let mut recorded_runs = runs_by_group(&imp.trace, d.groups.len(), |p| {
        recorded_group.get(&p).copied()
    });
    let local = |c: &Counts| 100.0 * c.local as f64 / c.wakeups.max(1) as f64;
    let cfg = scenario.sim_config();
    for v in scenario.variants() {
        let o = schedlab_sim::simulate(&cfg, v).map_err(|e| Fail(1, format!("{}: {e}", v.name)))?;
        // Of the derived groups' tasks here too (not the machine's housekeeping threads).
        let ours: Vec<bool> = o
            .trace
            .tasks
            .iter()
            .map(|t| t.group.is_some_and(|g| (g as usize) < d.groups.len()))
            .collect();
        let ours = |p: Pid| p != 0 && ours.get(p as usize - 1).copied().unwrap_or(false);
        let c = counts_of(&o.trace, ours);
        let sim_total: u64 = c
            .cpu_ns
            .iter()
            .filter(|(&p, _)| ours(p))
            .map(|(_, ns)| ns)
            .sum();
        let _ = writeln!(
            s,
            "
{}
  {:<16} {:>10} {:>10}",
            v.name, "group", "recorded", "simulated"
        );
        for (i, g) in d.groups.iter().enumerate() {
            // By group, not by name: tasks coupled by channels are groups of their own
            // that may share a command name.
            let sim_ns: u64 = o
                .trace
                .tasks
                .iter()
                .filter(|t| t.group == Some(i as u32))
                .map(|t| c.cpu_ns.get(&t.pid).copied().unwrap_or(0))
                .sum();
            let _ = writeln!(
                s,
                "  {:<16} {:>9.1}% {:>9.1}%",
                group_label(d, i),
                100.0 * g.cpu_ns as f64 / total.max(1) as f64,
                100.0 * sim_ns as f64 / sim_total.max(1) as f64
            );
        }
        // How each group's runs went: how many, how long, how many were preempted.
        let mut sim_runs = runs_by_group(&o.trace, d.groups.len(), |p| {
            let g = o.trace.tasks.get((p as usize).checked_sub(1)?)?.group?;
            Some(g as usize)
        });
        let _ = writeln!(
            s,
            "  runs (a task's stints on a CPU), recorded / simulated: how many, the median, \
             the share preempted"
        );
        for (i, (r, m)) in recorded_runs.iter_mut().zip(&mut sim_runs).enumerate() {
            if r.lengths.is_empty() && m.lengths.is_empty() {
                continue;
            }
            let share = |x: &Runs| 100.0 * x.preempted as f64 / x.lengths.len().max(1) as f64;
            let _ = writeln!(
                s,
                "  {:<16} {} / {}, median {} / {} µs, preempted {:.0} / {:.0} %",
                group_label(d, i),
                r.lengths.len(),
                m.lengths.len(),
                r.median_us(),
                m.median_us(),
                share(r),
                share(m)
            );
        }
        let (s50, s99) = pct(wakeup_latencies_where(&o.trace, ours));
        let _ = writeln!(
            s,
            "  wakeup latency p50 {:.3} / {:.3} ms, p99 {:.3} / {:.3} ms (recorded / simulated)",
            r50 as f64 / 1e6,
            s50 as f64 / 1e6,
            r99 as f64 / 1e6,
            s99 as f64 / 1e6
        );
        let _ = writeln!(
            s,
            "  switches {} / {}, wakeups {} / {} ({:.0} / {:.0} % on the waker's CPU), migrations {} / {} (recorded / simulated)",
            rc.switches,
            c.switches,
            rc.wakeups,
            c.wakeups,
            local(&rc),
            local(&c),
            rc.migrations,
            c.migrations
        );
    }
    Ok(s)
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
    let imp = read_trace(&a.trace, opts)?;
    if let Some(&bad) = a.cpus.iter().find(|&&c| c >= imp.trace.cpus) {
        return Err(crate::usage_err(format!(
            "--cpus {bad}: the recording has CPUs 0..={}",
            imp.trace.cpus.saturating_sub(1)
        )));
    }
    let trace = cut(imp.trace.clone(), from, to, &a.cpus);
    if let Some(dir) = &a.svg_dir {
        export_svg(dir, &trace)?;
    }
    let text = match a.table.format {
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
    let mut rows = latency_rows(t, !a.table.pids);
    for r in &mut rows {
        r.pid = imp.real_pid(r.pid).unwrap_or(r.pid);
    }
    let tab = if a.table.layout == Layout::Sum {
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
    if a.table.timehist {
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

/// `DIR/recorded-wakeup.svg`, `recorded-delay.svg` and `recorded-timeline.svg`.
fn export_svg(dir: &str, t: &Trace) -> Result<(), Fail> {
    use schedlab_report::plot::{
        histogram_svg, shared_histograms, timeline_svg, TimelineView, TIMELINE_PLOT_W,
    };
    use schedlab_report::timeline::{RunTimeline, Viewport};
    use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
    std::fs::create_dir_all(dir).map_err(|e| Fail(1, format!("cannot create {dir}: {e}")))?;
    let write = |name: &str, svg: Result<String, String>| -> Result<(), Fail> {
        let path = std::path::Path::new(dir).join(name);
        std::fs::write(&path, svg.map_err(|e| Fail(1, e))?)
            .map_err(|e| Fail(1, format!("cannot write {}: {e}", path.display())))
    };
    for (kind, title, samples) in [
        ("wakeup", "wakeup latency", wakeup_latencies_ns(t, None)),
        ("delay", "scheduling delay", sched_delays_ns(t)),
    ] {
        let h = &shared_histograms(&[&samples], 40, false)[0];
        write(
            &format!("recorded-{kind}.svg"),
            histogram_svg(h, &format!("recorded — {title}"), 640, 300),
        )?;
    }
    let tl = RunTimeline::from_trace(t, false);
    let view = TimelineView {
        viewport: Viewport {
            t0_ns: 0,
            t1_ns: t.end_ns.max(1),
            width_px: TIMELINE_PLOT_W,
        },
        selected: None,
        runs: None,
        overlay: false,
        hover_ns: None,
        ruler: &[],
    };
    write(
        "recorded-timeline.svg",
        timeline_svg(&tl, &tl.lanes(false, None, 48, true), &view),
    )
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
