//! The `schedlab` command line: run scenarios, print the same tables the page shows.
//!
//! Everything goes through [`main_with`], which takes the arguments and two writers, so tests
//! run the real command in-process. Exit codes: 0 done, 1 a run failed (limit reached, I/O),
//! 2 bad input (arguments or scenario).

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use schedlab_scenario::link::EMBED_VIEWS;

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

/// The command line, as clap reads it. Every command and option has its help text here
/// (`schedlab help`, `schedlab COMMAND --help`); usage errors are reported by [`usage_message`]
/// in the same voice as the scenario errors.
#[derive(Debug, Parser)]
#[command(
    name = "schedlab",
    version,
    about = "schedlab: the Linux fair scheduler (CFS and EEVDF generations), simulated",
    after_help = "\
Kernel variants are a preset and, after a colon, features and tunables in the debugfs syntax:
    eevdf-6.12:NO_DELAY_DEQUEUE    cfs-6.1:wakeup_granularity_ns=1000000,NEXT_BUDDY
`schedlab variants` lists them; `schedlab COMMAND --help` describes each command.",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a scenario under its kernel variants and print perf-sched-style tables
    Run(RunArgs),
    /// List the bundled experiments (the LKML threads' setups)
    Presets,
    /// Validate a scenario and say what it contains
    Check(Source),
    /// Print the scenario with its workloads turned into plain task groups
    Expand(Source),
    /// Run every variant of the presets and print events per second
    Bench {
        /// Only this preset (repeatable; default: all of them)
        #[arg(long, value_name = "NAME", value_parser = preset_names())]
        preset: Vec<String>,
    },
    /// Print a link that opens the scenario in the page
    Link {
        #[command(flatten)]
        source: Source,
        /// Where the page is served
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/")]
        base: String,
        /// Link to one view in the minimal embed layout (for an iframe's src)
        #[arg(long, value_name = "VIEW", value_parser = PossibleValuesParser::new(EMBED_VIEWS))]
        embed: Option<String>,
    },
    /// Print the scenario a link carries
    Decode {
        /// A schedlab link (or just its `v1.…` fragment)
        #[arg(value_name = "LINK")]
        link: String,
    },
    /// List the kernel variants, their features and tunables
    Variants,
    /// Print a shell completion script
    #[command(
        long_about = "Print a shell completion script, e.g.\n    schedlab completions bash > ~/.local/share/bash-completion/completions/schedlab"
    )]
    Completions {
        /// The shell
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// Where a scenario comes from: a file or a bundled preset, exactly one (every command that
/// reads a scenario takes this group).
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct Source {
    /// A scenario file (`-` reads standard input)
    #[arg(value_name = "FILE.json")]
    file: Option<String>,
    /// One of the bundled experiments instead of a file (see `schedlab presets`)
    #[arg(long, value_name = "NAME", value_parser = preset_names())]
    preset: Option<String>,
}

impl Source {
    /// The header (presets only) and the scenario.
    fn load(&self) -> Result<(Option<String>, Scenario), Fail> {
        match (&self.preset, &self.file) {
            (Some(name), _) => load_preset(name),
            (None, Some(file)) => Ok((None, load(file)?)),
            (None, None) => Err(usage_err("a scenario file or --preset NAME is needed")),
        }
    }

    /// How the scenario is named in messages: the file or the preset.
    fn name(&self) -> &str {
        self.preset
            .as_deref()
            .or(self.file.as_deref())
            .unwrap_or("the scenario")
    }
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    source: Source,
    /// Run this kernel variant instead of the scenario's (repeatable), e.g.
    /// eevdf-6.12:NO_DELAY_DEQUEUE or cfs-6.1:wakeup_granularity_ns=1000000
    #[arg(long = "variant", value_name = "V")]
    variants: Vec<String>,
    /// Output format
    #[arg(long, value_name = "F", value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Table layout: sum (perf latency with a Sum delay column, as in LKML mails) or perf
    /// (upstream perf sched latency)
    #[arg(long, value_name = "L", value_enum, default_value_t = Layout::Sum)]
    layout: Layout,
    /// One row per task instead of merging tasks by name (perf -p)
    #[arg(long)]
    pids: bool,
    /// Also print the perf sched timehist view
    #[arg(long)]
    timehist: bool,
    /// Write every event, one JSON object per line
    #[arg(long, value_name = "FILE.jsonl")]
    trace: Option<String>,
    /// Write the runs as Chrome/Perfetto trace-event JSON (ui.perfetto.dev)
    #[arg(long, value_name = "FILE.json")]
    perfetto: Option<String>,
    /// Write each variant's wakeup-latency and scheduling-delay histograms as SVG (the page's
    /// charts, on the same axes across variants)
    #[arg(long = "export-svg", value_name = "DIR")]
    svg_dir: Option<String>,
    /// Stop a run that needs more events than this
    #[arg(long, value_name = "N", default_value_t = 500_000_000, value_parser = positive)]
    max_events: u64,
}

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

impl From<RunArgs> for RunOpts {
    fn from(a: RunArgs) -> RunOpts {
        RunOpts {
            perfetto: a.perfetto,
            svg_dir: a.svg_dir,
            file: a.source.file.unwrap_or_default(),
            preset: a.source.preset,
            variants: a.variants,
            format: a.format,
            layout_sum: a.layout == Layout::Sum,
            pids: a.pids,
            timehist: a.timehist,
            trace: a.trace,
            max_events: a.max_events,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Layout {
    Sum,
    Perf,
}

/// The preset names, for `--preset` (so that completions offer them and a typo gets a
/// suggestion).
fn preset_names() -> PossibleValuesParser {
    PossibleValuesParser::new(presets().iter().map(|p| PossibleValue::new(p.name)))
}

fn positive(s: &str) -> Result<u64, String> {
    s.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "expected a positive whole number".to_string())
}

/// The clap command behind `schedlab` (for completions and tests).
pub fn command() -> clap::Command {
    Cli::command()
}

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

/// Help and version go to `out` with status 0; a usage error goes to `err` with status 2.
fn clap_error(e: &clap::Error, args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = write!(out, "{}", e.render());
            0
        }
        _ => {
            // The subcommand, if the error is about one of its arguments.
            let sub = args
                .first()
                .filter(|a| command().find_subcommand(a.as_str()).is_some());
            let help = match sub {
                Some(s) => format!("schedlab {s} --help"),
                None => "schedlab --help".into(),
            };
            let _ = writeln!(err, "schedlab: {}\nsee `{help}`", usage_message(e, sub));
            2
        }
    }
}

/// A clap error in schedlab's words: what was wrong, quoted, and the closest valid spelling.
fn usage_message(e: &clap::Error, sub: Option<&String>) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(ContextValue::StyledStr(s)) => s.to_string(),
        _ => String::new(),
    };
    let list = |k: ContextKind| match e.get(k) {
        Some(ContextValue::Strings(v)) => v.clone(),
        Some(ContextValue::String(s)) => vec![s.clone()],
        _ => vec![],
    };
    // `--format <F>` → `--format`
    let flag = |s: String| s.split(' ').next().unwrap_or_default().to_string();
    let one_of = |v: &[String]| match v {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [init @ .., last] => format!(
            "{} or `{last}`",
            init.iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let suggest = |k: ContextKind| {
        let s = list(k);
        if s.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", one_of(&s))
        }
    };
    let who = sub.map_or("schedlab", String::as_str);
    match e.kind() {
        ErrorKind::UnknownArgument => {
            let arg = text(ContextKind::InvalidArg);
            let what = if arg.starts_with('-') {
                "unknown option"
            } else {
                "unexpected argument"
            };
            let mut m = format!("{what} `{arg}`{}", suggest(ContextKind::SuggestedArg));
            m.push_str(&suggest(ContextKind::SuggestedSubcommand));
            m
        }
        ErrorKind::InvalidSubcommand => format!(
            "unknown command `{}`{}",
            text(ContextKind::InvalidSubcommand),
            suggest(ContextKind::SuggestedSubcommand)
        ),
        ErrorKind::InvalidValue => {
            let arg = flag(text(ContextKind::InvalidArg));
            let value = text(ContextKind::InvalidValue);
            let valid = list(ContextKind::ValidValue);
            if value.is_empty() {
                format!("{arg} needs a value")
            } else {
                format!(
                    "{arg} `{value}`: expected {}{}",
                    one_of(&valid),
                    suggest(ContextKind::SuggestedValue)
                )
            }
        }
        ErrorKind::ValueValidation => {
            let reason = std::error::Error::source(e).map_or(String::new(), |s| s.to_string());
            format!(
                "{} `{}`: {reason}",
                flag(text(ContextKind::InvalidArg)),
                text(ContextKind::InvalidValue)
            )
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = text(ContextKind::InvalidArg);
            if missing.contains("--preset") {
                format!("{who} needs a scenario file or --preset NAME")
            } else {
                format!("{who} needs {missing}")
            }
        }
        ErrorKind::MissingSubcommand => format!("{who} needs a command"),
        ErrorKind::ArgumentConflict => {
            let a = flag(text(ContextKind::InvalidArg));
            let b = flag(text(ContextKind::PriorArg));
            if [&a, &b].iter().any(|x| x.contains("--preset")) {
                "give either a scenario file or --preset, not both".into()
            } else {
                format!("`{a}` cannot be used with `{b}`")
            }
        }
        _ => {
            // Anything else in clap's own words, without its "error: " and usage lines.
            let s = e.render().to_string();
            let first = s.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    }
}

fn dispatch(cmd: Command, out: &mut dyn Write) -> Result<(), Fail> {
    let io = |e: io::Error| Fail(1, format!("cannot write output: {e}"));
    match cmd {
        Command::Variants => out.write_all(variants_text().as_bytes()).map_err(io),
        Command::Presets => out.write_all(presets_text().as_bytes()).map_err(io),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut command(), "schedlab", out);
            Ok(())
        }
        Command::Expand(source) => {
            let (_, s) = source.load()?;
            out.write_all(s.expanded().to_json().as_bytes()).map_err(io)
        }
        Command::Bench { preset } => bench(&preset, out),
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
            let l = schedlab_scenario::link::decode(&link).map_err(|e| Fail(2, e.0))?;
            out.write_all(l.scenario.to_json().as_bytes()).map_err(io)
        }
        Command::Check(source) => {
            let (_, s) = source.load()?;
            let c = s.sim_config();
            writeln!(
                out,
                "{}: ok: \"{}\", {} CPUs, HZ={}, {} ms, {} tasks in {} groups, {} channels, variants: {}",
                source.name(),
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
        Command::Run(args) => run(&RunOpts::from(args), out),
    }
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

fn run(o: &RunOpts, out: &mut dyn Write) -> Result<(), Fail> {
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
    let bar = progress_bar(
        cfg.duration_ns / 1_000_000,
        "{prefix} [{bar:30}] {pos}/{len} ms simulated, {msg} events",
    );
    let mut results = vec![];
    for v in &variants {
        let mut sim = Simulator::new(&cfg, v).map_err(|e| Fail(1, format!("{}: {e}", v.name)))?;
        bar.set_prefix(v.name.clone());
        bar.set_position(0);
        bar.set_message("0");
        let chunk = 2_000_000;
        loop {
            let budget = chunk.min(o.max_events.saturating_sub(sim.events_processed()));
            if budget > 0 && sim.run(budget) == Status::Done {
                break;
            }
            if sim.events_processed() >= o.max_events {
                bar.finish_and_clear();
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
            bar.set_position(sim.now_ns() / 1_000_000);
            bar.set_message(sim.events_processed().to_string());
        }
        let output = sim.finish();
        if let Some(w) = trace_out.as_mut() {
            let tag = (variants.len() > 1).then_some(v.name.as_str());
            write_trace(w, &output.trace, tag)
                .map_err(|e| Fail(1, format!("cannot write the trace: {e}")))?;
        }
        results.push(output);
    }
    bar.finish_and_clear();
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

/// A progress bar on standard error for long work, drawn only when standard error is a
/// terminal (tests and pipes see nothing).
fn progress_bar(len: u64, template: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
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
        let lanes = tl.lanes(false, None, 48, true);
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
fn bench(names: &[String], out: &mut dyn Write) -> Result<(), Fail> {
    let mut names = names.to_vec();
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
    let mut runs = vec![];
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
            let o = Simulator::new(&cfg, v).map_err(|e| Fail(1, e))?.finish();
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
