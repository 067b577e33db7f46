//! The command line as clap reads it, and its usage errors in schedlab's words.

use std::io::Write;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use schedlab_scenario::link::EMBED_VIEWS;
use schedlab_scenario::presets::presets;
use schedlab_scenario::Scenario;

use crate::{load, load_preset, usage_err, Fail};

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
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a scenario under its kernel variants and print perf-sched-style tables
    Run(RunArgs),
    /// Report on a real recording (perf script, perf sched timehist, trace-cmd report, or
    /// schedlab's own JSONL/Perfetto exports): the same tables a run prints
    Report(ReportArgs),
    /// Make a scenario that approximates a real recording (and, with --compare, say how close
    /// its simulation comes)
    Import(ImportArgs),
    /// List the bundled experiments (the LKML threads' setups)
    Presets,
    /// Validate a scenario and say what it contains
    Check(Source),
    /// Print the scenario with its workloads turned into plain task groups
    Expand(Source),
    /// Run a scenario across a range of a tunable, a feature or a value of the scenario, one
    /// row per point and variant (and plot a figure against it)
    #[command(after_help = "\
Parameters (--param, up to three make a grid):
    base_slice_ns=500000..4000000:8   a tunable: eight evenly spaced values, both ends included
    migration_cost_ns=0,500000,5000000   a list of values
    RUN_TO_PARITY                     a feature of features.h, on and off (or =on / =off)
    hz=100,250,1000   cpus=2..16:8   workloads.0.groups=1..8:8   tasks.1.nice=-5..5:11
                                      a value of the scenario document, by its path
Each point is an ordinary scenario: `schedlab run` of it gives the same trace (the trace_hash
column). Figures for --plot: switches, delay_avg, delay_max, preempt_ratio, wakeup_p50,
wakeup_p99, throughput, share:NAME.")]
    Sweep(SweepArgs),
    /// Where two variants of a scenario first make a different scheduling decision
    #[command(after_help = "\
Both variants run the same scenario and seed, so their traces agree up to the first decision
they make differently. diff prints the shared events just before it, the two events that
differ, and what the fair class saw of the tasks involved on each side (vruntime, deadline,
V, lag, eligibility) at their last switch or tick. With no --variant, the scenario's first two
variants are compared.")]
    Diff(DiffArgs),
    /// Print the /proc/schedstat counters of a run window by window, as `cat /proc/schedstat`
    /// deltas would show them (with the seed-000 thread's wakeup-preemption counters)
    #[command(after_help = "\
Each row is one window of simulated time: the counters' change over it, summed over the
chosen CPUs (all by default) and shown per CPU, as a delta of /proc/schedstat taken every
--window seconds would show them:
    sched      sched_count per CPU (calls to __schedule)
    goidle     sched_goidle per CPU (schedules that picked the idle task)
    ttwu       ttwu_count per CPU (wakeups done by the CPU)
    local      ttwu_local / ttwu_count (wakeups of a task on the waking CPU)
    checks     check_preempt_count per CPU (fair wakeup-preemption checks)
    preempt    need_preempt_count / check_preempt_count (the thread's \"preemption success\")
    noeli      curr_noeli_preempt_count / need_preempt_count: wakeup checks whose pick
               set curr aside (ineligible, or off the queue when a newidle pull
               checks before the switch), per preemption (the thread's ratio; with
               RUN_TO_PARITY it can pass 100 %: the thread's own was 5451 / 4645)
    lowdl      curr_lowdl_preempt_count / need_preempt_count (preemptions although curr's
               deadline was earlier)
    busy       rq_cpu_time / window (time tasks ran, counted when they leave the CPU, so a
               window can show a little over 100 %)
    delay/run  run_delay / pcount (average wait on the run queue per arrival)
--each-cpu gives each chosen CPU its own row (a `cpu` column) instead of their sum.
--format json gives every counter of each window (summed over the chosen CPUs) and the ratios;
--format csv one row per variant and window (and CPU, with --each-cpu). Nothing of the trace
is kept, so long runs of large machines fit in memory: e.g. the seed-000 hackbench at its
thread's shape,
    schedlab schedstat scenarios/hackbench-seed000.json --window 5 --from 5")]
    Schedstat(SchedstatArgs),
    /// Run every variant of the presets (or of scenario files) and print events per second
    Bench {
        /// Scenario files to run instead of the presets (e.g. scenarios/bench/mixed-8cpu.json)
        #[arg(value_name = "FILE.json")]
        files: Vec<String>,
        /// Only this preset (repeatable; default: all of them, unless files are given)
        #[arg(long, value_name = "NAME", value_parser = preset_names())]
        preset: Vec<String>,
        /// What each run keeps of its trace: every event (as `run` does), the switches and
        /// wakeups only, or nothing but the counts (the engine alone)
        #[arg(long, value_name = "LEVEL", default_value = "full")]
        trace: TraceKeep,
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
        /// A schedlab link (or just its `v1.…` fragment), `-` to read it from standard input,
        /// or `@FILE` to read it from a file
        #[arg(value_name = "LINK")]
        link: String,
    },
    /// List the kernel variants, their features and tunables
    Variants,
    /// List the measured machines a scenario's "machine" can name, with their costs
    #[command(after_help = "\
To measure another machine, run `sh scripts/record-fixtures.sh DIR` on it as root while it is
otherwise idle (ONLY=\"costs pingpong-cross idlelat\" for the costs alone), then
    schedlab machines --metadata DIR/metadata.txt
prints the scenario's cost fields derived from its runs, each with the runs behind it
(docs/measurements.md). Measure them in the same sitting as the recording you compare with.")]
    Machines {
        /// Derive the cost fields of the machine whose metadata.txt (written by
        /// scripts/record-fixtures.sh) this is, instead of listing the measured machines
        #[arg(long, value_name = "FILE")]
        metadata: Option<String>,
    },
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
pub(crate) struct Source {
    /// A scenario file (`-` reads standard input)
    #[arg(value_name = "FILE.json")]
    pub(crate) file: Option<String>,
    /// One of the bundled experiments instead of a file (see `schedlab presets`)
    #[arg(long, value_name = "NAME", value_parser = preset_names())]
    pub(crate) preset: Option<String>,
}

impl Source {
    /// The header (presets only) and the scenario.
    pub(crate) fn load(&self) -> Result<(Option<String>, Scenario), Fail> {
        match (&self.preset, &self.file) {
            (Some(name), _) => load_preset(name),
            (None, Some(file)) => Ok((None, load(file)?)),
            (None, None) => Err(usage_err("a scenario file or --preset NAME is needed")),
        }
    }

    /// How the scenario is named in messages: the file or the preset.
    pub(crate) fn name(&self) -> &str {
        self.preset
            .as_deref()
            .or(self.file.as_deref())
            .unwrap_or("the scenario")
    }
}

/// How `run` and `report` print their tables (the same options for a simulation and a
/// recording).
#[derive(Debug, Args)]
pub(crate) struct TableArgs {
    /// Output: table, json or csv
    #[arg(long, value_name = "F", value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Table layout: sum (perf latency with a Sum delay column, as in LKML mails) or perf
    /// (upstream perf sched latency)
    #[arg(long, value_name = "L", value_enum, default_value_t = Layout::Sum)]
    pub(crate) layout: Layout,
    /// One row per task instead of merging tasks by name (perf -p)
    #[arg(long)]
    pub(crate) pids: bool,
    /// Also print the perf sched timehist view
    #[arg(long)]
    pub(crate) timehist: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) source: Source,
    /// Run this kernel variant instead of the scenario's (repeatable), e.g.
    /// eevdf-6.12:NO_DELAY_DEQUEUE or cfs-6.1:wakeup_granularity_ns=1000000
    #[arg(long = "variant", value_name = "V")]
    pub(crate) variants: Vec<String>,
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// Write every event, one JSON object per line
    #[arg(long, value_name = "FILE.jsonl")]
    pub(crate) trace: Option<String>,
    /// Write the runs as Chrome/Perfetto trace-event JSON (ui.perfetto.dev)
    #[arg(long, value_name = "FILE.json")]
    pub(crate) perfetto: Option<String>,
    /// Write each variant's wakeup-latency and scheduling-delay histograms as SVG (the page's
    /// charts, on the same axes across variants)
    #[arg(long = "export-svg", value_name = "DIR")]
    pub(crate) svg_dir: Option<String>,
    /// Stop a run that needs more work than this (events, and the zero-time program steps
    /// between them)
    #[arg(long, value_name = "N", default_value_t = 500_000_000, value_parser = positive)]
    pub(crate) max_events: u64,
    /// Stop a run whose variants keep more trace events than this in memory together (the
    /// tables read them all; 16 bytes each, so the default is about 3.2 GB; with --why each
    /// decision record, 120 bytes, counts as 8 events)
    #[arg(long, value_name = "N", default_value_t = 200_000_000, value_parser = positive)]
    pub(crate) max_trace_events: u64,
    /// After the report, print every scheduling decision, one line each: time, CPU, kind
    /// (pick, wakeup, preempt, place, delay, delay-end, select, move) and why, in fair.c's
    /// terms and inputs (with --format json: a `decisions` array per variant)
    #[arg(long)]
    pub(crate) why: bool,
    /// With --why: only the decisions about this task (chosen, preempted, woken, placed,
    /// delayed, selected a CPU for, or moved)
    #[arg(long = "why-pid", value_name = "PID", requires = "why", value_parser = positive)]
    pub(crate) why_pid: Option<u64>,
    /// With --why: only the decisions at or after this time, in seconds from the start
    #[arg(long = "why-from", value_name = "S", requires = "why", value_parser = seconds)]
    pub(crate) why_from: Option<u64>,
    /// With --why: only the decisions at or before this time, in seconds from the start
    #[arg(long = "why-to", value_name = "S", requires = "why", value_parser = seconds)]
    pub(crate) why_to: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    #[command(flatten)]
    pub(crate) source: Source,
    /// The two variants to compare (give it twice; default: the scenario's first two)
    #[arg(long = "variant", value_name = "V")]
    pub(crate) variants: Vec<String>,
    /// Compare sched_stat_runtime events too (where update_curr ran), not only decisions
    #[arg(long)]
    pub(crate) runtime: bool,
    /// How many shared events before the divergence to print
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub(crate) context: usize,
    /// Stop a run that needs more work than this (events, and the zero-time program steps
    /// between them)
    #[arg(long, value_name = "N", default_value_t = 500_000_000, value_parser = positive)]
    pub(crate) max_events: u64,
}

#[derive(Debug, Args)]
pub(crate) struct SchedstatArgs {
    #[command(flatten)]
    pub(crate) source: Source,
    /// Run this kernel variant instead of the scenario's (repeatable)
    #[arg(long = "variant", value_name = "V")]
    pub(crate) variants: Vec<String>,
    /// The length of each window, in seconds of simulated time
    #[arg(long, value_name = "S", default_value = "1", value_parser = seconds)]
    pub(crate) window: u64,
    /// Start the first window here (seconds from the start; earlier counts are not shown)
    #[arg(long, value_name = "S", default_value = "0", value_parser = seconds)]
    pub(crate) from: u64,
    /// Only this CPU (repeatable; default: all of them)
    #[arg(long = "cpu", value_name = "N", value_parser = clap::value_parser!(u32))]
    pub(crate) cpus: Vec<u32>,
    /// A row per chosen CPU in each window instead of their sum (a thread's figures are often
    /// one CPU's: this shows how far the CPUs differ)
    #[arg(long)]
    pub(crate) each_cpu: bool,
    /// Output: table, json or csv
    #[arg(long, value_name = "F", value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Stop a run that needs more work than this (events, and the zero-time program steps
    /// between them)
    #[arg(long, value_name = "N", default_value_t = 5_000_000_000, value_parser = positive)]
    pub(crate) max_events: u64,
}

#[derive(Debug, Args)]
pub(crate) struct SweepArgs {
    #[command(flatten)]
    pub(crate) source: Source,
    /// Run these kernel variants instead of the scenario's (repeatable)
    #[arg(long = "variant", value_name = "V")]
    pub(crate) variants: Vec<String>,
    /// What to sweep and over which values, e.g. base_slice_ns=500000..4000000:8 (repeatable:
    /// several make a grid)
    #[arg(long = "param", value_name = "NAME=VALUES", required = true)]
    pub(crate) params: Vec<String>,
    /// Output: table, json or csv
    #[arg(long, value_name = "F", value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Runs at a time (default: one per CPU)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub(crate) jobs: Option<usize>,
    /// Draw this figure against the parameter, one line per variant (needs --export-svg)
    #[arg(long, value_name = "FIGURE")]
    pub(crate) plot: Option<String>,
    /// Where --plot writes its SVG chart
    #[arg(long = "export-svg", value_name = "FILE.svg")]
    pub(crate) svg: Option<String>,
    /// Stop a run that needs more work than this (events, and the zero-time program steps
    /// between them)
    #[arg(long, value_name = "N", default_value_t = 500_000_000, value_parser = positive)]
    pub(crate) max_events: u64,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The recording (`-` reads standard input; gzip is recognised)
    #[arg(value_name = "TRACE")]
    pub(crate) trace: String,
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// Only events from this time on, in ms from the recording's first event
    #[arg(long = "from-ms", value_name = "MS")]
    pub(crate) from_ms: Option<f64>,
    /// Only events before this time, in ms from the recording's first event
    #[arg(long = "to-ms", value_name = "MS")]
    pub(crate) to_ms: Option<f64>,
    /// Only events on these CPUs (`0,2,5`)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) cpus: Vec<u32>,
    /// The run to read from a schedlab file holding several variants
    #[arg(long, value_name = "VARIANT")]
    pub(crate) run: Option<String>,
    /// Write the recording's wakeup-latency and scheduling-delay histograms and its timeline
    /// as SVG (the page's charts)
    #[arg(long = "export-svg", value_name = "DIR")]
    pub(crate) svg_dir: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The recording (`-` reads standard input; gzip is recognised)
    #[arg(value_name = "TRACE")]
    pub(crate) trace: String,
    /// Where to write the scenario (`-`: standard output)
    #[arg(long = "to-scenario", value_name = "OUT.json")]
    pub(crate) out: String,
    /// The scenario's name (default: the recording's file name)
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,
    /// Kernel variants the scenario compares (repeatable; default eevdf-6.19)
    #[arg(long = "variant", value_name = "V")]
    pub(crate) variants: Vec<String>,
    /// Leave out tasks with less CPU time than this in the whole recording
    #[arg(long = "min-cpu-ms", value_name = "MS", default_value_t = 1.0)]
    pub(crate) min_cpu_ms: f64,
    /// Simulate the scenario and compare each group's CPU share and runs (how many, how long,
    /// how many preempted), the wakeup latency percentiles, and the switches, wakeups (those
    /// on the waker's CPU) and migrations with the recording's
    #[arg(long)]
    pub(crate) compare: bool,
    /// Put the task group of this name (a comm) in one autogroup session with the other
    /// groups named so (repeatable): a workload started from one shell on a machine with
    /// autogroup on (/proc/sys/kernel/sched_autogroup_enabled = 1), which a perf recording
    /// does not show
    #[arg(long = "session", value_name = "NAME")]
    pub(crate) session: Vec<String>,
}

/// Where a run's options ended up.
#[derive(Debug)]
pub(crate) struct RunOpts {
    pub(crate) perfetto: Option<String>,
    pub(crate) svg_dir: Option<String>,
    pub(crate) file: String,
    pub(crate) preset: Option<String>,
    pub(crate) variants: Vec<String>,
    pub(crate) format: Format,
    pub(crate) layout_sum: bool,
    pub(crate) pids: bool,
    pub(crate) timehist: bool,
    pub(crate) trace: Option<String>,
    pub(crate) max_events: u64,
    pub(crate) max_trace_events: u64,
    /// `--why`: which decisions to print (None: not asked).
    pub(crate) why: Option<WhyFilter>,
}

/// `--why` with its filters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WhyFilter {
    pub(crate) pid: Option<u32>,
    pub(crate) from_ns: u64,
    pub(crate) to_ns: u64,
}

impl From<RunArgs> for RunOpts {
    fn from(a: RunArgs) -> RunOpts {
        RunOpts {
            perfetto: a.perfetto,
            svg_dir: a.svg_dir,
            file: a.source.file.unwrap_or_default(),
            preset: a.source.preset,
            variants: a.variants,
            format: a.table.format,
            layout_sum: a.table.layout == Layout::Sum,
            pids: a.table.pids,
            timehist: a.table.timehist,
            trace: a.trace,
            max_events: a.max_events,
            max_trace_events: a.max_trace_events,
            why: a.why.then_some(WhyFilter {
                pid: a.why_pid.map(|p| p.min(u32::MAX as u64) as u32),
                from_ns: a.why_from.unwrap_or(0),
                to_ns: a.why_to.unwrap_or(u64::MAX),
            }),
        }
    }
}

/// `bench --trace`: a run's [`schedlab_sim::TraceLevel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TraceKeep {
    Full,
    Switches,
    Counters,
}

impl From<TraceKeep> for schedlab_sim::TraceLevel {
    fn from(k: TraceKeep) -> Self {
        match k {
            TraceKeep::Full => schedlab_sim::TraceLevel::Full,
            TraceKeep::Switches => schedlab_sim::TraceLevel::Switches,
            TraceKeep::Counters => schedlab_sim::TraceLevel::Counters,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Layout {
    Sum,
    Perf,
}

/// The preset names, for `--preset` (so that completions offer them and a typo gets a
/// suggestion).
pub(crate) fn preset_names() -> PossibleValuesParser {
    PossibleValuesParser::new(presets().iter().map(|p| PossibleValue::new(p.name)))
}

pub(crate) fn positive(s: &str) -> Result<u64, String> {
    s.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "expected a positive whole number".to_string())
}

/// A time in seconds (`0.25`, `3`), as whole ns.
pub(crate) fn seconds(s: &str) -> Result<u64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| "expected a time in seconds, e.g. 0.25".to_string())?;
    if !v.is_finite() || !(0.0..=1e9).contains(&v) {
        return Err("expected a time in seconds from 0 to 1000000000".into());
    }
    Ok((v * 1e9).round() as u64)
}

/// The clap command behind `schedlab` (for completions and tests).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Help and version go to `out` with status 0; a usage error goes to `err` with status 2.
pub(crate) fn clap_error(
    e: &clap::Error,
    args: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
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
pub(crate) fn usage_message(e: &clap::Error, sub: Option<&String>) -> String {
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
