//! The `schedlab` command line: run scenarios, print the same tables the page shows.
//!
//! Everything goes through [`main_with`], which takes the arguments and two writers, so tests
//! run the real command in-process. Exit codes: 0 done, 1 a run failed (limit reached, I/O),
//! 2 bad input (arguments or scenario).

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use schedlab_report::compare::format_comparison;
use schedlab_report::export::RunReport;
use schedlab_report::figures::{summaries, workload_figures};
use schedlab_report::latency::{format_perf, format_sum, latency_rows};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_scenario::presets::{preset, presets};
use schedlab_scenario::Scenario;
use schedlab_sim::{
    CpuStats, EventKind, Output, Simulator, Status, Trace, Variant, ALL_FEATURES, KERNEL_VERSIONS,
    UNMODELLED_FEATURES,
};

const USAGE: &str = "\
schedlab: the Linux fair scheduler (CFS and EEVDF generations), simulated

USAGE:
    schedlab run FILE.json [OPTIONS]    run a scenario (FILE - reads standard input)
    schedlab run --preset NAME [OPTIONS]
                                        run one of the LKML experiments (see `presets`)
    schedlab presets                    list the bundled experiments
    schedlab check FILE.json            validate a scenario and say what it contains
    schedlab expand FILE.json | --preset NAME
                                        print the scenario with its workloads as plain tasks
    schedlab bench [--preset NAME]...   time every variant of the presets (events per second)
    schedlab link FILE.json | --preset NAME [--base URL] [--embed VIEW]
                                        print a link that opens the scenario in the page
    schedlab decode LINK                print the scenario a link carries
    schedlab variants                   list kernel variants, their features and tunables
    schedlab --help | --version

RUN OPTIONS:
    --variant V         run this kernel variant instead of the scenario's (repeatable), e.g.
                        eevdf-6.12:NO_DELAY_DEQUEUE or cfs-6.1:wakeup_granularity_ns=1000000
    --format F          table (default), json or csv
    --layout L          table layout: sum (perf latency with a Sum delay column, as in LKML
                        mails; default) or perf (upstream perf sched latency)
    --pids              one row per task instead of merging tasks by name (perf -p)
    --timehist          also print the perf sched timehist view
    --trace FILE.jsonl  write every event, one JSON object per line
    --perfetto FILE.json
                        write the runs as Chrome/Perfetto trace-event JSON (ui.perfetto.dev)
    --export-svg DIR    write each variant's wakeup-latency and scheduling-delay histograms as
                        SVG (the page's charts, on the same axes across variants)
    --max-events N      stop a run that needs more events than this (default 500000000)
";

/// Where a run's options ended up.
#[derive(Debug)]
struct RunOpts {
    perfetto: Option<String>,
    svg_dir: Option<String>,
    file: String,
    preset: Option<String>,
    variants: Vec<String>,
    format: Format,
    layout_sum: bool,
    pids: bool,
    timehist: bool,
    trace: Option<String>,
    max_events: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Json,
    Csv,
}

/// A failure with its exit code.
struct Fail(i32, String);

fn usage_err(msg: impl Into<String>) -> Fail {
    Fail(2, format!("{}\nsee `schedlab --help`", msg.into()))
}

/// Runs the command line `args` (without the program name).
pub fn main_with(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match dispatch(args, out, err) {
        Ok(()) => 0,
        Err(Fail(code, msg)) => {
            let _ = writeln!(err, "schedlab: {msg}");
            code
        }
    }
}

fn dispatch(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Fail> {
    let io = |e: io::Error| Fail(1, format!("cannot write output: {e}"));
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => out.write_all(USAGE.as_bytes()).map_err(io),
        Some("-V" | "--version") => {
            writeln!(out, "schedlab {}", env!("CARGO_PKG_VERSION")).map_err(io)
        }
        Some("variants") => out.write_all(variants_text().as_bytes()).map_err(io),
        Some("presets") => out.write_all(presets_text().as_bytes()).map_err(io),
        Some("expand") => {
            let (_, s) = match (args.get(1).map(String::as_str), args.get(2)) {
                (Some("--preset"), Some(name)) => load_preset(name)?,
                (Some(file), None) if !file.starts_with("--") => (None, load(file)?),
                _ => return Err(usage_err("expand needs a scenario file or --preset NAME")),
            };
            out.write_all(s.expanded().to_json().as_bytes()).map_err(io)
        }
        Some("bench") => bench(&args[1..], out),
        Some("link") => {
            let mut base = "http://127.0.0.1:8080/".to_string();
            let mut embed: Option<String> = None;
            let mut source: Option<(Option<String>, Scenario)> = None;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                let mut value = |n: &str| {
                    it.next()
                        .cloned()
                        .ok_or_else(|| usage_err(format!("{n} needs a value")))
                };
                match a.as_str() {
                    "--base" => base = value("--base")?,
                    "--embed" => {
                        let v = value("--embed")?;
                        if !schedlab_scenario::link::EMBED_VIEWS.contains(&v.as_str()) {
                            return Err(usage_err(format!(
                                "--embed `{v}`: the views are {}",
                                schedlab_scenario::link::EMBED_VIEWS.join(", ")
                            )));
                        }
                        embed = Some(v)
                    }
                    "--preset" => source = Some(load_preset(&value("--preset")?)?),
                    f if !f.starts_with("--") && source.is_none() => {
                        source = Some((None, load(f)?))
                    }
                    other => return Err(usage_err(format!("unexpected argument `{other}`"))),
                }
            }
            let (_, s) =
                source.ok_or_else(|| usage_err("link needs a scenario file or --preset NAME"))?;
            let payload = schedlab_scenario::link::encode(&s, &Default::default());
            let frag = match embed {
                Some(v) => schedlab_scenario::link::embed_fragment(&v, &payload),
                None => payload,
            };
            writeln!(out, "{}#{frag}", base.trim_end_matches('#')).map_err(io)
        }
        Some("decode") => {
            let link = args
                .get(1)
                .ok_or_else(|| usage_err("decode needs a link"))?;
            let l = schedlab_scenario::link::decode(link).map_err(|e| Fail(2, e.0))?;
            out.write_all(l.scenario.to_json().as_bytes()).map_err(io)
        }
        Some("check") => {
            let file = args
                .get(1)
                .ok_or_else(|| usage_err("check needs a scenario file"))?;
            if let Some(extra) = args.get(2) {
                return Err(usage_err(format!("unexpected argument `{extra}`")));
            }
            let s = load(file)?;
            let c = s.sim_config();
            writeln!(
                out,
                "{file}: ok: \"{}\", {} CPUs, HZ={}, {} ms, {} tasks in {} groups, {} channels, variants: {}",
                s.name,
                s.cpus,
                s.hz,
                s.duration_ms,
                c.tasks.len(),
                s.expanded().tasks.len(),
                c.channels.len(),
                if s.variants.is_empty() { "none".to_string() } else { s.variant_names().join(", ") }
            )
            .map_err(io)
        }
        Some("run") => {
            let opts = parse_run(&args[1..])?;
            run(&opts, out, err)
        }
        Some(other) => Err(usage_err(format!("unknown command `{other}`"))),
    }
}

fn parse_run(args: &[String]) -> Result<RunOpts, Fail> {
    let mut o = RunOpts {
        perfetto: None,
        svg_dir: None,
        file: String::new(),
        preset: None,
        variants: vec![],
        format: Format::Table,
        layout_sum: true,
        pids: false,
        timehist: false,
        trace: None,
        max_events: 500_000_000,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| usage_err(format!("{name} needs a value")))
        };
        match a.as_str() {
            "--variant" => o.variants.push(value("--variant")?),
            "--format" => {
                o.format = match value("--format")?.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    f => {
                        return Err(usage_err(format!(
                            "--format `{f}`: expected table, json or csv"
                        )))
                    }
                }
            }
            "--layout" => {
                o.layout_sum = match value("--layout")?.as_str() {
                    "sum" => true,
                    "perf" => false,
                    l => return Err(usage_err(format!("--layout `{l}`: expected sum or perf"))),
                }
            }
            "--pids" => o.pids = true,
            "--preset" => o.preset = Some(value("--preset")?),
            "--timehist" => o.timehist = true,
            "--trace" => o.trace = Some(value("--trace")?),
            "--perfetto" => o.perfetto = Some(value("--perfetto")?),
            "--export-svg" => o.svg_dir = Some(value("--export-svg")?),
            "--max-events" => {
                let v = value("--max-events")?;
                o.max_events = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    usage_err(format!(
                        "--max-events `{v}`: expected a positive whole number"
                    ))
                })?;
            }
            s if s.starts_with("--") => return Err(usage_err(format!("unknown option `{s}`"))),
            s => {
                if !o.file.is_empty() {
                    return Err(usage_err(format!(
                        "unexpected argument `{s}` (the scenario is `{}`)",
                        o.file
                    )));
                }
                o.file = s.to_string();
            }
        }
    }
    match (&o.preset, o.file.is_empty()) {
        (None, true) => return Err(usage_err("run needs a scenario file or --preset NAME")),
        (Some(_), false) => {
            return Err(usage_err(
                "give either a scenario file or --preset, not both",
            ))
        }
        _ => {}
    }
    Ok(o)
}

fn load(file: &str) -> Result<Scenario, Fail> {
    let text = if file == "-" {
        let mut s = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut s)
            .map_err(|e| Fail(2, format!("cannot read standard input: {e}")))?;
        s
    } else {
        std::fs::read_to_string(file).map_err(|e| Fail(2, format!("cannot read {file}: {e}")))?
    };
    Scenario::from_json(&text).map_err(|es| {
        let lines: Vec<String> = es.0.iter().map(|e| format!("{file}: {e}")).collect();
        Fail(2, format!("invalid scenario\n{}", lines.join("\n")))
    })
}

/// A preset's header and scenario.
fn load_preset(name: &str) -> Result<(Option<String>, Scenario), Fail> {
    let p = preset(name).ok_or_else(|| {
        let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
        usage_err(format!(
            "unknown preset `{name}`; the presets are: {}",
            names.join(", ")
        ))
    })?;
    let header = format!(
        "# preset {}: {}\n# source: {}\n# observed: {}\n",
        p.name, p.title, p.source, p.observed
    );
    Ok((Some(header), p.scenario()))
}

fn run(o: &RunOpts, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Fail> {
    let (header, scenario) = match &o.preset {
        Some(name) => load_preset(name)?,
        None => (None, load(&o.file)?),
    };
    let source = o.preset.clone().unwrap_or_else(|| o.file.clone());
    let mut variants = vec![];
    for n in &o.variants {
        variants.push(Variant::parse(n).map_err(|e| usage_err(format!("--variant: {e}")))?);
    }
    if variants.is_empty() {
        variants = scenario.variants.clone();
    }
    if variants.is_empty() {
        return Err(usage_err(format!(
            "{}: the scenario lists no variants; pass one with --variant, e.g. --variant cfs-6.1",
            source
        )));
    }
    let cfg = scenario.sim_config();
    let mut trace_out = match &o.trace {
        Some(path) => Some(io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| Fail(1, format!("cannot create {path}: {e}")))?,
        )),
        None => None,
    };
    let progress = err_is_terminal();
    let mut results = vec![];
    for v in &variants {
        let mut sim = Simulator::new(&cfg, v).map_err(|e| Fail(1, format!("{}: {e}", v.name)))?;
        let chunk = 2_000_000;
        loop {
            let budget = chunk.min(o.max_events.saturating_sub(sim.events_processed()));
            if budget > 0 && sim.run(budget) == Status::Done {
                break;
            }
            if sim.events_processed() >= o.max_events {
                return Err(Fail(
                    1,
                    format!(
                        "{}: stopped after {} events at {:.3} s of {:.3} s simulated; raise --max-events or shorten duration_ms",
                        v.name,
                        sim.events_processed(),
                        sim.now_ns() as f64 / 1e9,
                        cfg.duration_ns as f64 / 1e9
                    ),
                ));
            }
            if progress {
                let _ = write!(
                    err,
                    "\r{}: {:5.1}% ({} events)",
                    v.name,
                    100.0 * sim.now_ns() as f64 / cfg.duration_ns as f64,
                    sim.events_processed()
                );
            }
        }
        if progress {
            let _ = write!(err, "\r{}\r", " ".repeat(60));
        }
        let output = sim.finish();
        if let Some(w) = trace_out.as_mut() {
            let tag = (variants.len() > 1).then_some(v.name.as_str());
            write_trace(w, &output.trace, tag)
                .map_err(|e| Fail(1, format!("cannot write the trace: {e}")))?;
        }
        results.push(output);
    }
    if let Some(mut w) = trace_out {
        w.flush()
            .map_err(|e| Fail(1, format!("cannot write the trace: {e}")))?;
    }
    if let Some(path) = &o.perfetto {
        let runs: Vec<(&str, &schedlab_sim::Trace)> = results
            .iter()
            .map(|r| (r.variant.as_str(), &r.trace))
            .collect();
        std::fs::write(path, schedlab_report::perfetto::perfetto_json(&runs))
            .map_err(|e| Fail(1, format!("cannot write {path}: {e}")))?;
    }
    if let Some(dir) = &o.svg_dir {
        export_svg(dir, &results, &variants)?;
    }
    let text = match o.format {
        Format::Table => {
            let mut t = header.unwrap_or_default();
            t.push_str(&table(&scenario, &results, o));
            t
        }
        Format::Json => json(&scenario, &results),
        Format::Csv => csv(&scenario, &results),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}

fn err_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// The table report: per variant, the variant string, its perf-sched-latency table, the
/// schedstat totals and the figures of the scenario's workloads; then, with several variants,
/// the comparison of all of them against the first.
pub fn table_text(scenario: &Scenario, results: &[Output], layout_sum: bool, pids: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} ({} CPUs, HZ={}, {} ms, seed {})",
        scenario.name, scenario.cpus, scenario.hz, scenario.duration_ms, scenario.seed
    );
    let infos = scenario.workloads();
    for r in results {
        let rows = latency_rows(&r.trace, !pids);
        let _ = writeln!(s, "\n{}", r.variant);
        let t = if layout_sum {
            format_sum(&rows)
        } else {
            format_perf(&rows)
        };
        s.push_str(t.strip_prefix('\n').unwrap_or(&t));
        s.push_str(&schedstat_line(&r.cpus));
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

fn table(scenario: &Scenario, results: &[Output], o: &RunOpts) -> String {
    let mut s = table_text(scenario, results, o.layout_sum, o.pids);
    if o.timehist {
        for r in results {
            let _ = writeln!(s, "\n{} (perf sched timehist)", r.variant);
            s.push_str(&format_timehist(&r.trace, &timehist_lines(&r.trace)));
        }
    }
    s
}

fn schedstat_line(cpus: &[CpuStats]) -> String {
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
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into());
    let comm = |pid: u32, cpu: u32| {
        if pid == 0 {
            q(&format!("swapper/{cpu}"))
        } else {
            q(trace.comm(pid))
        }
    };
    let head = variant
        .map(|v| format!("\"variant\":{},", q(v)))
        .unwrap_or_default();
    for e in &trace.events {
        let body = match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => format!(
                "\"event\":\"sched_switch\",\"prev_comm\":{},\"prev_pid\":{prev_pid},\"prev_state\":\"{}\",\"next_comm\":{},\"next_pid\":{next_pid}",
                comm(prev_pid, e.cpu),
                prev_state.letter(),
                comm(next_pid, e.cpu)
            ),
            EventKind::Waking { pid, target_cpu } => format!(
                "\"event\":\"sched_waking\",\"comm\":{},\"pid\":{pid},\"target_cpu\":{target_cpu}",
                comm(pid, e.cpu)
            ),
            EventKind::Wakeup { pid, target_cpu } => format!(
                "\"event\":\"sched_wakeup\",\"comm\":{},\"pid\":{pid},\"target_cpu\":{target_cpu}",
                comm(pid, e.cpu)
            ),
            EventKind::WakeupNew { pid, target_cpu } => format!(
                "\"event\":\"sched_wakeup_new\",\"comm\":{},\"pid\":{pid},\"target_cpu\":{target_cpu}",
                comm(pid, e.cpu)
            ),
            EventKind::MigrateTask {
                pid,
                orig_cpu,
                dest_cpu,
            } => format!(
                "\"event\":\"sched_migrate_task\",\"comm\":{},\"pid\":{pid},\"orig_cpu\":{orig_cpu},\"dest_cpu\":{dest_cpu}",
                comm(pid, e.cpu)
            ),
            EventKind::StatRuntime { pid, runtime_ns } => format!(
                "\"event\":\"sched_stat_runtime\",\"comm\":{},\"pid\":{pid},\"runtime_ns\":{runtime_ns}",
                comm(pid, e.cpu)
            ),
        };
        writeln!(w, "{{{head}\"t_ns\":{},\"cpu\":{},{body}}}", e.t_ns, e.cpu)?;
    }
    Ok(())
}

/// Writes `DIR/<variant>-wakeup.svg` and `DIR/<variant>-delay.svg` for every run: 40 bins on
/// axes shared by all variants, with the percentile markers.
/// Writes each variant's latency histograms (on shared axes) and its whole-run timeline (one
/// lane per CPU) as SVG, drawn by the same code as the page's canvases.
fn export_svg(dir: &str, results: &[Output], variants: &[Variant]) -> Result<(), Fail> {
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
        let lanes = tl.lanes(false, None, 48);
        let view = TimelineView {
            viewport: Viewport {
                t0_ns: 0,
                t1_ns: tl.end_ns.max(1),
                width_px: TIMELINE_PLOT_W,
            },
            selected: None,
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
fn file_part(variant: &str) -> String {
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

/// `schedlab bench`: runs every variant of the named presets (all by default) and reports
/// events, simulated time, wall time and events per second.
fn bench(args: &[String], out: &mut dyn Write) -> Result<(), Fail> {
    let mut names: Vec<String> = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--preset" => names.push(
                it.next()
                    .cloned()
                    .ok_or_else(|| usage_err("--preset needs a value"))?,
            ),
            other => return Err(usage_err(format!("unexpected argument `{other}`"))),
        }
    }
    if names.is_empty() {
        names = presets().iter().map(|p| p.name.to_string()).collect();
    }
    let io = |e: io::Error| Fail(1, format!("cannot write output: {e}"));
    writeln!(
        out,
        "{:<20} {:<44} {:>10} {:>12} {:>10} {:>12}",
        "preset", "variant", "events", "simulated ms", "wall ms", "events/s"
    )
    .map_err(io)?;
    for name in names {
        let (_, sc) = load_preset(&name)?;
        let cfg = sc.sim_config();
        for v in sc.variants() {
            let t0 = std::time::Instant::now();
            let o = Simulator::new(&cfg, v).map_err(|e| Fail(1, e))?.finish();
            let wall = t0.elapsed().as_secs_f64();
            writeln!(
                out,
                "{:<20} {:<44} {:>10} {:>12.1} {:>10.1} {:>12.0}",
                name,
                v.name,
                o.events_processed,
                o.trace.end_ns as f64 / 1e6,
                wall * 1e3,
                o.events_processed as f64 / wall.max(1e-9)
            )
            .map_err(io)?;
        }
    }
    Ok(())
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
