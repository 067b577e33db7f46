//! What the commands print and write: the table report, JSON and CSV (the report crate's, the
//! same as the page's exports), the JSONL trace, SVG charts, and the presets and variants lists.

use std::fmt::Write as _;
use std::io::{self, Write};

use schedlab_report::compare::format_comparison;
use schedlab_report::export::RunReport;
use schedlab_report::figures::{summaries, workload_figures};
use schedlab_report::groups::{format_group_shares, group_shares, row_groups, task_group_paths};
use schedlab_report::latency::{format_perf_groups, format_sum_groups, latency_rows};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_scenario::presets::presets;
use schedlab_scenario::Scenario;
use schedlab_sim::{
    BandwidthStats, CpuStats, Event, EventKind, Output, Sink, Trace, Variant, ALL_FEATURES,
    KERNEL_VERSIONS, UNMODELLED_FEATURES,
};

use crate::args::RunOpts;
use crate::Fail;

/// The table report: per variant, the variant string, its perf-sched-latency table (with a
/// group column when the scenario has task groups), the schedstat totals, each group's CPU
/// share, and the figures of the scenario's workloads; then, with several variants,
/// the comparison of all of them against the first.
pub fn table_text(scenario: &Scenario, results: &[Output], layout_sum: bool, pids: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} ({} CPUs, HZ={}, {} ms, seed {})",
        scenario.name, scenario.cpus, scenario.hz, scenario.duration_ms, scenario.seed
    );
    let infos = scenario.workloads();
    // Task groups: a group column in the tables and each group's share after the counters
    // (nothing of it without groups).
    let cgroups = scenario.sim_config().cgroups;
    let paths = task_group_paths(&cgroups);
    for r in results {
        let rows = latency_rows(&r.trace, !pids);
        let groups = row_groups(&paths, &r.trace, &rows);
        let _ = writeln!(s, "\n{}", r.variant);
        let t = if layout_sum {
            format_sum_groups(&rows, &groups)
        } else {
            format_perf_groups(&rows, &groups)
        };
        s.push_str(t.strip_prefix('\n').unwrap_or(&t));
        s.push_str(&schedstat_line(&r.cpus));
        s.push_str(&irq_time_line(&r.cpus));
        s.push_str(&cpu_stat_lines(&r.bandwidth));
        s.push_str(&format_group_shares(&group_shares(&cgroups, r)));
        let figures = workload_figures(&infos, r);
        if !figures.text.is_empty() {
            s.push('\n');
            s.push_str(&figures.text);
        }
    }
    if results.len() > 1 {
        s.push_str("\ncomparison\n");
        s.push_str(&format_comparison(&summaries(scenario, results)));
    }
    s
}

pub(crate) fn table(scenario: &Scenario, results: &[Output], o: &RunOpts) -> String {
    let mut s = table_text(scenario, results, o.layout_sum, o.pids);
    if o.timehist {
        for r in results {
            let _ = writeln!(s, "\n{} (perf sched timehist)", r.variant);
            s.push_str(&format_timehist(&r.trace, &timehist_lines(&r.trace)));
        }
    }
    s
}

/// The interrupt load's time per CPU (`irq` sources), as `/proc/stat`'s irq + softirq columns
/// would show it; empty when the scenario has none.
pub(crate) fn irq_time_line(cpus: &[CpuStats]) -> String {
    if cpus.iter().all(|c| c.irq_time_ns == 0) {
        return String::new();
    }
    let mut s = String::from("  irq time:");
    for (i, c) in cpus.iter().enumerate() {
        let ns = c.irq_time_ns;
        let _ = write!(
            s,
            "  cpu{i} {}.{:03} ms",
            ns / 1_000_000,
            ns % 1_000_000 / 1_000
        );
    }
    s.push('\n');
    s
}

/// Each `cpu.max` cgroup's `cpu.stat` (v1 names; `throttled_time` in ms); empty without one.
pub(crate) fn cpu_stat_lines(groups: &[BandwidthStats]) -> String {
    let mut s = String::new();
    for g in groups {
        let ms = |ns: u64| format!("{}.{:03} ms", ns / 1_000_000, ns % 1_000_000 / 1_000);
        let _ = write!(
            s,
            "  cpu.stat {}: nr_periods {}  nr_throttled {}  throttled_time {}",
            g.path,
            g.nr_periods,
            g.nr_throttled,
            ms(g.throttled_time_ns)
        );
        if g.nr_bursts > 0 {
            let _ = write!(
                s,
                "  nr_bursts {}  burst_time {}",
                g.nr_bursts,
                ms(g.burst_time_ns)
            );
        }
        s.push('\n');
    }
    s
}

pub(crate) fn schedstat_line(cpus: &[CpuStats]) -> String {
    let mut t = CpuStats::default();
    for c in cpus {
        t.sched_count += c.sched_count;
        t.ttwu_count += c.ttwu_count;
        t.ttwu_local += c.ttwu_local;
        t.check_preempt_count += c.check_preempt_count;
        t.need_preempt_count += c.need_preempt_count;
    }
    let ratio = if t.check_preempt_count > 0 {
        format!(
            " ({:.2}%)",
            100.0 * t.need_preempt_count as f64 / t.check_preempt_count as f64
        )
    } else {
        String::new()
    };
    format!(
        "  schedstat: sched_count {}  ttwu_count {}  ttwu_local {}  check_preempt_count {}  need_preempt_count {}{}\n",
        t.sched_count, t.ttwu_count, t.ttwu_local, t.check_preempt_count, t.need_preempt_count, ratio
    )
}

/// The JSON report (the same bytes as the page's JSON export of the same run).
pub fn json(scenario: &Scenario, results: &[Output]) -> String {
    schedlab_report::export::json(&RunReport::new(scenario, results))
}

/// The CSV report: one row per variant and task (the same bytes as the page's CSV export).
pub fn csv(scenario: &Scenario, results: &[Output]) -> String {
    schedlab_report::export::csv(&RunReport::new(scenario, results))
}

/// Writes a trace as JSON lines named after the kernel's tracepoints; the idle task is pid 0,
/// comm `swapper/N`.
pub fn write_trace(w: &mut dyn Write, trace: &Trace, variant: Option<&str>) -> io::Result<()> {
    let jl = Jsonl::new(trace, variant);
    for e in &trace.events {
        jl.write(w, &e)?;
    }
    Ok(())
}

/// What writing one JSONL line needs: the comms, quoted once, and the variant tag.
struct Jsonl {
    /// `comms[pid]`, JSON-quoted (pid 0 unused: the idle task is named per CPU).
    comms: Vec<String>,
    head: String,
}

impl Jsonl {
    fn new(trace: &Trace, variant: Option<&str>) -> Jsonl {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into());
        let max = trace.tasks.iter().map(|t| t.pid).max().unwrap_or(0) as usize;
        let mut comms = vec![q("?"); max + 1];
        for t in &trace.tasks {
            comms[t.pid as usize] = q(&t.comm);
        }
        let head = variant
            .map(|v| format!("\"variant\":{},", q(v)))
            .unwrap_or_default();
        Jsonl { comms, head }
    }

    fn comm(&self, w: &mut dyn Write, pid: u32, cpu: u32) -> io::Result<()> {
        if pid == 0 {
            write!(w, "\"swapper/{cpu}\"")
        } else {
            w.write_all(
                self.comms
                    .get(pid as usize)
                    .map_or("\"?\"", |c| c.as_str())
                    .as_bytes(),
            )
        }
    }

    /// One event, one line.
    fn write(&self, w: &mut dyn Write, e: &Event) -> io::Result<()> {
        write!(w, "{{{}\"t_ns\":{},\"cpu\":{},", self.head, e.t_ns, e.cpu)?;
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                w.write_all(b"\"event\":\"sched_switch\",\"prev_comm\":")?;
                self.comm(w, prev_pid, e.cpu)?;
                write!(
                    w,
                    ",\"prev_pid\":{prev_pid},\"prev_state\":\"{}\",\"next_comm\":",
                    prev_state.letter()
                )?;
                self.comm(w, next_pid, e.cpu)?;
                write!(w, ",\"next_pid\":{next_pid}")?;
            }
            EventKind::Waking { pid, target_cpu }
            | EventKind::Wakeup { pid, target_cpu }
            | EventKind::WakeupNew { pid, target_cpu } => {
                let name = match e.kind {
                    EventKind::Waking { .. } => "sched_waking",
                    EventKind::Wakeup { .. } => "sched_wakeup",
                    _ => "sched_wakeup_new",
                };
                write!(w, "\"event\":\"{name}\",\"comm\":")?;
                self.comm(w, pid, e.cpu)?;
                write!(w, ",\"pid\":{pid},\"target_cpu\":{target_cpu}")?;
            }
            EventKind::MigrateTask {
                pid,
                orig_cpu,
                dest_cpu,
            } => {
                w.write_all(b"\"event\":\"sched_migrate_task\",\"comm\":")?;
                self.comm(w, pid, e.cpu)?;
                write!(
                    w,
                    ",\"pid\":{pid},\"orig_cpu\":{orig_cpu},\"dest_cpu\":{dest_cpu}"
                )?;
            }
            EventKind::StatRuntime { pid, runtime_ns } => {
                w.write_all(b"\"event\":\"sched_stat_runtime\",\"comm\":")?;
                self.comm(w, pid, e.cpu)?;
                write!(w, ",\"pid\":{pid},\"runtime_ns\":{runtime_ns}")?;
            }
        }
        w.write_all(b"}\n")
    }
}

/// `run --trace FILE`: a sink that writes each event to the file as the run produces it (the
/// same lines as [`write_trace`]); the first write error is kept for the caller.
pub(crate) struct JsonlSink {
    jl: Jsonl,
    out: std::rc::Rc<std::cell::RefCell<TraceFile>>,
}

/// The trace file shared by the runs of one command, and its first write error.
pub(crate) struct TraceFile {
    pub w: io::BufWriter<std::fs::File>,
    pub err: Option<io::Error>,
}

impl JsonlSink {
    /// A sink for the run of `trace`'s tasks (its events are not read), tagged with `variant`.
    pub(crate) fn new(
        trace: &Trace,
        variant: Option<&str>,
        out: std::rc::Rc<std::cell::RefCell<TraceFile>>,
    ) -> JsonlSink {
        JsonlSink {
            jl: Jsonl::new(trace, variant),
            out,
        }
    }
}

impl Sink for JsonlSink {
    fn event(&mut self, e: &Event) {
        let mut f = self.out.borrow_mut();
        if f.err.is_none() {
            if let Err(err) = self.jl.write(&mut f.w, e) {
                f.err = Some(err);
            }
        }
    }
}

/// Writes each variant's latency histograms (on shared axes) and its whole-run timeline (one
/// lane per CPU) as SVG, drawn by the same code as the page's canvases.
pub(crate) fn export_svg(dir: &str, results: &[Output], variants: &[Variant]) -> Result<(), Fail> {
    use schedlab_report::plot::{
        histogram_svg, shared_histograms, timeline_svg, TimelineView, TIMELINE_PLOT_W,
    };
    use schedlab_report::timeline::{RunTimeline, Viewport};
    use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
    std::fs::create_dir_all(dir).map_err(|e| Fail(1, format!("cannot create {dir}: {e}")))?;
    let wake: Vec<Vec<u64>> = results
        .iter()
        .map(|r| wakeup_latencies_ns(&r.trace, None))
        .collect();
    let delay: Vec<Vec<u64>> = results.iter().map(|r| sched_delays_ns(&r.trace)).collect();
    for (kind, title, samples) in [
        ("wakeup", "wakeup latency", &wake),
        ("delay", "scheduling delay", &delay),
    ] {
        let refs: Vec<&[u64]> = samples.iter().map(Vec::as_slice).collect();
        for (r, h) in results.iter().zip(shared_histograms(&refs, 40, false)) {
            let name = file_part(&r.variant);
            let path = std::path::Path::new(dir).join(format!("{name}-{kind}.svg"));
            let svg = histogram_svg(&h, &format!("{} — {title}", r.variant), 640, 300)
                .map_err(|e| Fail(1, e))?;
            std::fs::write(&path, svg)
                .map_err(|e| Fail(1, format!("cannot write {}: {e}", path.display())))?;
        }
    }
    for (r, v) in results.iter().zip(variants) {
        let tl = RunTimeline::from_output(r, v);
        let lanes = tl.lanes(false, None, 48, true);
        let view = TimelineView {
            viewport: Viewport {
                t0_ns: 0,
                t1_ns: tl.end_ns.max(1),
                width_px: TIMELINE_PLOT_W,
            },
            selected: None,
            runs: None,
            overlay: false,
            hover_ns: None,
            ruler: &[],
        };
        let path =
            std::path::Path::new(dir).join(format!("{}-timeline.svg", file_part(&r.variant)));
        let svg = timeline_svg(&tl, &lanes, &view).map_err(|e| Fail(1, e))?;
        std::fs::write(&path, svg)
            .map_err(|e| Fail(1, format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// A variant string as part of a file name: `eevdf-6.6_NO_RUN_TO_PARITY`.
pub(crate) fn file_part(variant: &str) -> String {
    variant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `schedlab presets` text.
pub fn presets_text() -> String {
    let mut s = String::from("Bundled experiments (schedlab run --preset NAME):\n");
    for p in presets() {
        let sc = p.scenario();
        let _ = writeln!(s, "\n  {:<20} {}", p.name, p.title);
        let _ = writeln!(s, "  {:<20} source: {}", "", p.source);
        let _ = writeln!(
            s,
            "  {:<20} variants: {}",
            "",
            sc.variant_names().join(", ")
        );
        let _ = writeln!(s, "  {:<20} observed: {}", "", p.observed);
    }
    s
}

/// The `schedlab machines` text.
pub fn machines_text() -> String {
    let mut s = format!(
        "Measured machines (a scenario's \"machine\"; its own idle_wakeup_ns, idle_states,\n\
         switch_cost_ns, wakeup_cost_ns, ipi_cost_ns, cost_spread_ppm and housekeeping still\n\
         win; without one: idle wakeup {} us whatever the idle length, no switch, wakeup or IPI\n\
         cost, and housekeeping of {} runs a second per CPU of {} us; housekeeping runs only\n\
         where a task may move between CPUs and no task is in a group, unless the scenario\n\
         sets it):\n",
        schedlab_scenario::DEFAULT_IDLE_WAKEUP_NS as f64 / 1e3,
        schedlab_scenario::DEFAULT_HOUSEKEEPING.runs_per_s,
        schedlab_scenario::DEFAULT_HOUSEKEEPING.run_ns as f64 / 1e3
    );
    let w = schedlab_sim::MACHINES
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(0);
    for m in schedlab_sim::MACHINES {
        let _ = writeln!(s, "\n  {:<w$} {}", m.name, m.description);
        let _ = writeln!(
            s,
            "  {:<w$} idle wakeup {} us, context switch {} us, remote wakeup {} us{} \
             (recordings: tests/fixtures/{}/)",
            "",
            m.idle_wakeup_ns as f64 / 1e3,
            m.switch_cost_ns as f64 / 1e3,
            m.wakeup_cost_ns as f64 / 1e3,
            if m.ipi_cost_ns > 0 {
                format!(" + {} us when it sends an IPI", m.ipi_cost_ns as f64 / 1e3)
            } else {
                String::new()
            },
            m.fixtures
        );
        if m.cost_spread_ppm > 0 {
            let _ = writeln!(
                s,
                "  {:<w$} each cost drawn with a standard deviation of {} % of its mean",
                "",
                f64::from(m.cost_spread_ppm) / 1e4
            );
        }
        if !m.idle_states.is_empty() {
            let states: Vec<String> = m
                .idle_states
                .iter()
                .map(|st| {
                    format!(
                        "{} us after {} us idle",
                        st.wakeup_ns as f64 / 1e3,
                        st.after_ns as f64 / 1e3
                    )
                })
                .collect();
            let _ = writeln!(s, "  {:<w$} deeper idle: {}", "", states.join(", "));
        }
        let _ = writeln!(
            s,
            "  {:<w$} housekeeping: {} runs a second per CPU of {} us on average (\"housekeep\" tasks)",
            "",
            m.housekeeping.runs_per_s,
            m.housekeeping.run_ns as f64 / 1e3
        );
    }
    s
}

/// The `schedlab variants` text.
pub fn variants_text() -> String {
    let mut s = String::from(
        "Kernel variants (use as --variant NAME[:FEATURE,NO_FEATURE,tunable=value,...]):\n",
    );
    for p in KERNEL_VERSIONS {
        let _ = writeln!(s, "\n  {:<11} {}", p.name, p.summary);
        let feats: Vec<String> = p
            .available
            .iter()
            .map(|f| {
                let on = p.defaults.contains(f);
                format!("{}{}", if on { "" } else { "NO_" }, f.name())
            })
            .collect();
        let _ = writeln!(s, "              features: {}", feats.join(" "));
        let v = Variant::parse(p.name).expect("presets parse");
        let k = v.params(8);
        if v.class() == schedlab_sim::Class::Cfs {
            let idle = if p.switches.idle_min_granularity {
                format!(" idle_min_granularity_ns={}", k.idle_min_granularity_ns)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "              tunables (8+ CPUs): latency_ns={} min_granularity_ns={} wakeup_granularity_ns={}{} migration_cost_ns={} tunable_scaling=1",
                k.latency_ns, k.min_granularity_ns, k.wakeup_granularity_ns, idle, k.migration_cost_ns
            );
        } else {
            let _ = writeln!(
                s,
                "              tunables (8+ CPUs): base_slice_ns={} migration_cost_ns={} tunable_scaling=1",
                k.base_slice_ns, k.migration_cost_ns
            );
        }
    }
    s.push_str("\nFeatures:\n");
    for f in ALL_FEATURES {
        let _ = writeln!(s, "  {:<24} {}", f.name(), f.summary());
    }
    s.push_str("\nfeatures.h entries not modelled (naming one is an error):\n");
    for (n, why) in UNMODELLED_FEATURES {
        let _ = writeln!(s, "  {n:<24} {why}");
    }
    s
}
