//! The `schedlab` command line: run scenarios, print the same tables the page shows.
//!
//! Everything goes through [`main_with`], which takes the arguments and two writers, so tests
//! run the real command in-process. Exit codes: 0 done, 1 a run failed (limit reached, I/O),
//! 2 bad input (arguments or scenario).
//!
//! `args.rs` is the command line as clap reads it; `output.rs` what the commands print; this
//! file runs the commands.

#![forbid(unsafe_code)]

use std::io::{self, IsTerminal, Write};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use schedlab_scenario::presets::{preset, presets, ThreadFigure};
use schedlab_scenario::Scenario;
use schedlab_sim::{Simulator, Status, Variant};

mod args;
pub mod costs;
mod diff;
mod output;
mod report;
mod schedstat;
mod sweep;
mod why;

pub use args::command;
use args::{clap_error, Cli, Command, Format, RunOpts};
pub use output::{csv, json, machines_text, presets_text, table_text, variants_text, write_trace};
use output::{export_svg, table};

/// A failure with its exit code.
struct Fail(i32, String);

fn usage_err(msg: impl Into<String>) -> Fail {
    Fail(2, format!("{}\nsee `schedlab --help`", msg.into()))
}

/// Runs the command line `args` (without the program name).
pub fn main_with(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli = match Cli::try_parse_from(
        std::iter::once("schedlab").chain(args.iter().map(String::as_str)),
    ) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e, args, out, err),
    };
    match dispatch(cli.command, out) {
        Ok(()) => 0,
        Err(Fail(code, msg)) => {
            let _ = writeln!(err, "schedlab: {msg}");
            code
        }
    }
}

fn dispatch(cmd: Command, out: &mut dyn Write) -> Result<(), Fail> {
    let io = |e: io::Error| Fail(1, format!("cannot write output: {e}"));
    match cmd {
        Command::Variants => out.write_all(variants_text().as_bytes()).map_err(io),
        Command::Presets => out.write_all(presets_text().as_bytes()).map_err(io),
        Command::Machines { metadata: None } => {
            out.write_all(machines_text().as_bytes()).map_err(io)
        }
        Command::Machines {
            metadata: Some(path),
        } => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Fail(2, format!("cannot read {path}: {e}")))?;
            let costs = costs::MeasuredCosts::from_metadata(&text)
                .map_err(|e| Fail(2, format!("{path}: {e}")))?;
            out.write_all(costs.text().as_bytes()).map_err(io)
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut command(), "schedlab", out);
            Ok(())
        }
        Command::Expand(source) => {
            let (_, s) = source.load()?;
            out.write_all(s.expanded().to_json().as_bytes()).map_err(io)
        }
        Command::Bench {
            files,
            preset,
            trace,
        } => bench(&files, &preset, trace.into(), out),
        Command::Sweep(args) => sweep::sweep(&args, out),
        Command::Diff(args) => diff::diff(&args, out),
        Command::Schedstat(args) => schedstat::schedstat(&args, out),
        Command::Link {
            source,
            base,
            embed,
        } => {
            let (_, s) = source.load()?;
            let payload = schedlab_scenario::link::encode(&s, &Default::default());
            let frag = match embed {
                Some(v) => schedlab_scenario::link::embed_fragment(&v, &payload),
                None => payload,
            };
            writeln!(out, "{}#{frag}", base.trim_end_matches('#')).map_err(io)
        }
        Command::Decode { link } => {
            let link = match link.strip_prefix('@') {
                Some(file) => read_capped(Some(file), MAX_LINK_BYTES)?,
                None if link == "-" => read_capped(None, MAX_LINK_BYTES)?,
                None => link,
            };
            let l = schedlab_scenario::link::decode(link.trim()).map_err(|e| Fail(2, e.0))?;
            out.write_all(l.scenario.to_json().as_bytes()).map_err(io)
        }
        Command::Check(source) => {
            let (_, s) = source.load()?;
            let c = s.sim_config();
            let daemons = c.tasks.iter().filter(|t| t.daemon).count();
            writeln!(
                out,
                "{}: ok: \"{}\", {} CPUs, HZ={}, {} ms, {} tasks in {} groups, {} channels, variants: {}",
                source.name(),
                s.name,
                s.cpus,
                s.hz,
                s.duration_ms,
                c.tasks.len() - daemons,
                s.expanded().tasks.len(),
                c.channels.len(),
                if s.variants.is_empty() { "none".to_string() } else { s.variant_names().join(", ") }
            )
            .map_err(io)?;
            if let Some(m) = &s.machine {
                writeln!(
                    out,
                    "  machine: {m} (its measured costs where the scenario gives none)"
                )
                .map_err(io)?;
            }
            if let Some(h) = c.tasks.iter().find_map(schedlab_sim::Housekeeping::of) {
                writeln!(
                    out,
                    "  housekeeping: a `housekeep` task on each of the {daemons} CPUs, {} runs a second of {} us on average",
                    h.runs_per_s,
                    h.run_ns as f64 / 1e3
                )
                .map_err(io)?;
            }
            out.write_all(check_details(&c).as_bytes()).map_err(io)
        }
        Command::Run(args) => run(&RunOpts::from(args), out),
        Command::Report(args) => report::report(&args, out),
        Command::Import(args) => report::import(&args, out),
    }
}
/// What `check` lists besides the summary line: the machine's costs, and the RT tasks,
/// interrupt sources, cache-warmth cost and reads' wait costs when the scenario has them.
fn check_details(c: &schedlab_sim::SimConfig) -> String {
    use std::fmt::Write as _;
    let us = |ns: u64| {
        if ns % 1000 == 0 {
            format!("{} us", ns / 1000)
        } else {
            format!("{:.3} us", ns as f64 / 1e3)
        }
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  costs: switch delay {}, IRQ {}, idle wakeup {}, context switch {}, remote wakeup {}, \
         IPI {}",
        us(c.switch_delay_ns),
        us(c.irq_ns),
        us(c.idle_wakeup_ns),
        us(c.switch_cost_ns),
        us(c.wakeup_cost_ns),
        us(c.ipi_cost_ns)
    );
    if c.local_wakeup_ns > 0 {
        let _ = writeln!(
            s,
            "  local wakeup (paid by the waker): {}",
            us(c.local_wakeup_ns)
        );
    }
    if c.cost_spread_ppm > 0 {
        let _ = writeln!(
            s,
            "  cost spread: each switch and wakeup cost drawn with a standard deviation of {} % of its mean",
            f64::from(c.cost_spread_ppm) / 1e4
        );
    }
    if !c.idle_states.is_empty() {
        let states: Vec<String> = c
            .idle_states
            .iter()
            .map(|st| format!("{} after {} idle", us(st.wakeup_ns), us(st.after_ns)))
            .collect();
        let _ = writeln!(s, "  deeper idle: {}", states.join(", "));
    }
    if let Some(k) = &c.cache {
        let _ = writeln!(
            s,
            "  cache warmth: hot up to {} of others' run time, cold ({} to refill) from {}, migration {}",
            us(k.hot_ns),
            us(k.refill_ns),
            us(k.cold_ns),
            us(k.migrate_ns)
        );
    }
    let waits: Vec<String> = c
        .channels
        .iter()
        .filter(|ch| ch.wait_ns > 0)
        .map(|ch| format!("{} {}", ch.name, us(ch.wait_ns)))
        .collect();
    if !waits.is_empty() {
        let _ = writeln!(s, "  read waits: {}", waits.join(", "));
    }
    if !c.rt_tasks.is_empty() {
        let fifo = c
            .rt_tasks
            .iter()
            .filter(|t| matches!(t.policy, schedlab_sim::RtPolicy::Fifo))
            .count();
        let prios: std::collections::BTreeSet<u32> =
            c.rt_tasks.iter().map(|t| t.priority).collect();
        let prios: Vec<String> = prios.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "  RT tasks: {} ({} SCHED_FIFO, {} SCHED_RR), priorities {}",
            c.rt_tasks.len(),
            fifo,
            c.rt_tasks.len() - fifo,
            prios.join(", ")
        );
    }
    if !c.irq_load.is_empty() {
        let cpus: std::collections::BTreeSet<u32> = c.irq_load.iter().map(|i| i.cpu).collect();
        let cpus: Vec<String> = cpus.iter().map(u32::to_string).collect();
        let work = c.irq_load.iter().filter(|i| i.queue_work.is_some()).count();
        let _ = writeln!(
            s,
            "  interrupt sources: {} on CPU {}{}",
            c.irq_load.len(),
            cpus.join(","),
            if work > 0 {
                format!(" ({work} queue a work item)")
            } else {
                String::new()
            }
        );
    }
    s
}

/// Most bytes of a link read from a file or standard input (a link is a few kB).
const MAX_LINK_BYTES: u64 = 4 << 20;

/// Reads a file (`None`: standard input) as text, refusing one larger than `cap` bytes before
/// holding more than `cap + 1` of them (`/dev/zero` is refused, not read to the end).
fn read_capped(file: Option<&str>, cap: u64) -> Result<String, Fail> {
    use io::Read;
    let name = file.unwrap_or("standard input");
    let mut buf = Vec::new();
    let read = match file {
        None => io::stdin().lock().take(cap + 1).read_to_end(&mut buf),
        Some(f) => std::fs::File::open(f).and_then(|h| h.take(cap + 1).read_to_end(&mut buf)),
    };
    read.map_err(|e| Fail(2, format!("cannot read {name}: {e}")))?;
    if buf.len() as u64 > cap {
        return Err(Fail(
            2,
            format!("{name} is larger than {cap} bytes, the most schedlab reads"),
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        Fail(
            2,
            format!(
                "{name} is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn load(file: &str) -> Result<Scenario, Fail> {
    let cap = schedlab_scenario::MAX_SCENARIO_BYTES as u64;
    let text = read_capped((file != "-").then_some(file), cap)?;
    Scenario::from_json(&text).map_err(|es| {
        let lines: Vec<String> = es.0.iter().map(|e| format!("{file}: {e}")).collect();
        Fail(2, format!("invalid scenario\n{}", lines.join("\n")))
    })
}

/// A preset's header and scenario.
fn load_preset(name: &str) -> Result<(Option<String>, Scenario), Fail> {
    load_preset_figures(name).map(|(h, s, _)| (h, s))
}

/// A preset's header, scenario and the figures its source reports.
fn load_preset_figures(
    name: &str,
) -> Result<(Option<String>, Scenario, &'static [ThreadFigure]), Fail> {
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
    Ok((Some(header), p.scenario(), p.figures))
}

fn run(o: &RunOpts, out: &mut dyn Write) -> Result<(), Fail> {
    let (header, scenario, thread_figures) = match &o.preset {
        Some(name) => load_preset_figures(name)?,
        None => {
            // A file that holds a preset's scenario (its variants aside) gets its figures too.
            let sc = load(&o.file)?;
            let figures = schedlab_scenario::presets::preset_of(&sc).map_or(&[][..], |p| p.figures);
            (None, sc, figures)
        }
    };
    let source = o.preset.clone().unwrap_or_else(|| o.file.clone());
    let variants = chosen_variants(&o.variants, &scenario, &source)?;
    let mut cfg = scenario.sim_config();
    if let Some(w) = &o.why {
        if w.from_ns > w.to_ns {
            return Err(usage_err("--why-from is after --why-to"));
        }
        // --why: the engine records its decisions (off otherwise: nothing is built).
        cfg.record_decisions = true;
    }
    // Decision records weigh as many events as their size.
    let dw = core::mem::size_of::<schedlab_sim::decision::Decision>()
        .div_ceil(schedlab_sim::events::KEPT_EVENT_BYTES);
    // --trace streams each run's events to the file as they happen.
    let trace_out = match &o.trace {
        Some(path) => Some(std::rc::Rc::new(std::cell::RefCell::new(
            output::TraceFile {
                w: io::BufWriter::new(
                    std::fs::File::create(path)
                        .map_err(|e| Fail(1, format!("cannot create {path}: {e}")))?,
                ),
                err: None,
            },
        ))),
        None => None,
    };
    let tasks = schedlab_sim::Trace {
        tasks: (cfg.tasks.iter().enumerate())
            .map(|(i, t)| schedlab_sim::TaskInfo {
                pid: i as u32 + 1,
                comm: t.comm.clone(),
                group: Some(t.group),
            })
            .collect(),
        ..Default::default()
    };
    let bar = progress_bar(
        cfg.duration_ns / 1_000_000,
        "{prefix} [{bar:30}] {pos}/{len} ms simulated, {msg} events",
    );
    let mut results = vec![];
    // Trace events kept by the variants already run (the tables read them all at the end).
    let mut kept = 0usize;
    for v in &variants {
        let sink = trace_out.as_ref().map(|f| {
            let tag = (variants.len() > 1).then_some(v.name.as_str());
            Box::new(output::JsonlSink::new(&tasks, tag, f.clone())) as Box<dyn schedlab_sim::Sink>
        });
        let mut sim = Simulator::with_trace(&cfg, v, schedlab_sim::TraceLevel::Full, sink)
            .map_err(|e| Fail(1, format!("{}: {e}", v.name)))?;
        bar.set_prefix(v.name.clone());
        bar.set_position(0);
        bar.set_message("0");
        let chunk = 2_000_000;
        loop {
            // The budget counts zero-time program steps too, so a program that spins without
            // advancing time stops at the cap like any long run.
            let budget = chunk.min(o.max_events.saturating_sub(sim.work_done()));
            let done = budget > 0 && sim.run(budget) == Status::Done;
            if (kept + sim.trace_kept() + dw * sim.decisions_kept()) as u64 > o.max_trace_events {
                bar.finish_and_clear();
                return Err(Fail(
                    1,
                    format!(
                        "{}: the run keeps more than {} trace events across its variants (about {} MB) at {:.3} s of {:.3} s simulated; shorten duration_ms, run fewer variants at once, or raise --max-trace-events",
                        v.name,
                        o.max_trace_events,
                        (o.max_trace_events * schedlab_sim::events::KEPT_EVENT_BYTES as u64) >> 20,
                        sim.now_ns() as f64 / 1e9,
                        cfg.duration_ns as f64 / 1e9
                    ),
                ));
            }
            if done {
                break;
            }
            if sim.work_done() >= o.max_events {
                bar.finish_and_clear();
                return Err(Fail(
                    1,
                    format!(
                        "{}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated; raise --max-events or shorten duration_ms",
                        v.name,
                        sim.work_done(),
                        sim.now_ns() as f64 / 1e9,
                        cfg.duration_ns as f64 / 1e9
                    ),
                ));
            }
            bar.set_position(sim.now_ns() / 1_000_000);
            bar.set_message(sim.events_processed().to_string());
        }
        let output = sim.finish();
        kept += output.trace.events.len() + dw * output.trace.decisions.len();
        if let Some(d) = &output.deadlock {
            let _ = writeln!(io::stderr(), "schedlab: {}: {d}", v.name);
        }
        if let Some(err) = trace_out.as_ref().and_then(|f| f.borrow_mut().err.take()) {
            bar.finish_and_clear();
            return Err(Fail(1, format!("cannot write the trace: {err}")));
        }
        results.push(output);
    }
    bar.finish_and_clear();
    if let Some(f) = trace_out {
        f.borrow_mut()
            .w
            .flush()
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
            t.push_str(&schedlab_report::observed::format(
                &scenario,
                &results,
                thread_figures,
            ));
            if let Some(w) = &o.why {
                t.push_str(&why::text(&results, w));
            }
            t
        }
        Format::Json => {
            let j = json(&scenario, &results);
            match &o.why {
                Some(w) => why::json(&j, &results, w),
                None => j,
            }
        }
        Format::Csv => csv(&scenario, &results),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}

/// The variants a command runs: those given with `--variant`, else the scenario's own; an
/// error naming `source` when there are none.
fn chosen_variants(
    given: &[String],
    scenario: &Scenario,
    source: &str,
) -> Result<Vec<Variant>, Fail> {
    let mut variants = vec![];
    for n in given {
        variants.push(Variant::parse(n).map_err(|e| usage_err(format!("--variant: {e}")))?);
    }
    if variants.is_empty() {
        variants = scenario.variants.clone();
    }
    if variants.is_empty() {
        return Err(usage_err(format!(
            "{source}: the scenario lists no variants; pass one with --variant, e.g. --variant cfs-6.1"
        )));
    }
    Ok(variants)
}

/// A progress bar on standard error for long work, drawn only when standard error is a
/// terminal (tests and pipes see nothing).
pub(crate) fn progress_bar(len: u64, template: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// `schedlab bench`: runs every variant of the given scenario files and named presets (all
/// presets when neither is given) and reports events, simulated time, wall time and events per
/// second.
fn bench(
    files: &[String],
    names: &[String],
    level: schedlab_sim::TraceLevel,
    out: &mut dyn Write,
) -> Result<(), Fail> {
    let mut names = names.to_vec();
    if names.is_empty() && files.is_empty() {
        names = presets().iter().map(|p| p.name.to_string()).collect();
    }
    let io = |e: io::Error| Fail(1, format!("cannot write output: {e}"));
    writeln!(
        out,
        "{:<20} {:<44} {:>10} {:>12} {:>10} {:>12}",
        "preset", "variant", "events", "simulated ms", "wall ms", "events/s"
    )
    .map_err(io)?;
    let mut runs = vec![];
    for file in files {
        let label = std::path::Path::new(file)
            .file_stem()
            .map_or(file.clone(), |s| s.to_string_lossy().into_owned());
        runs.push((label, load(file)?));
    }
    for name in names {
        let (_, sc) = load_preset(&name)?;
        runs.push((name, sc));
    }
    let total = runs.iter().map(|(_, sc)| sc.variants().len() as u64).sum();
    let bar = progress_bar(total, "bench [{bar:30}] {pos}/{len} runs: {msg}");
    for (name, sc) in runs {
        let cfg = sc.sim_config();
        for v in sc.variants() {
            bar.set_message(format!("{name} {}", v.name));
            let t0 = std::time::Instant::now();
            let o = Simulator::with_trace(&cfg, v, level, None)
                .map_err(|e| Fail(1, e))?
                .finish();
            let wall = t0.elapsed().as_secs_f64();
            bar.suspend(|| {
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
                .map_err(io)
            })?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(())
}
