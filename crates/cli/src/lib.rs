//! The `schedlab` command line: run scenarios, print the same tables the page shows.
//!
//! Everything goes through [`main_with`], which takes the arguments and two writers, so tests
//! run the real command in-process. Exit codes: 0 done, 1 a run failed (limit reached, I/O),
//! 2 bad input (arguments or scenario).

#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use schedlab_report::latency::{format_perf, format_sum, latency_rows, LatencyRow};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_scenario::Scenario;
use schedlab_sim::{
    CpuStats, EventKind, Output, Simulator, Status, TaskStats, Trace, Variant, ALL_FEATURES,
    PRESETS, UNMODELLED_FEATURES,
};

const USAGE: &str = "\
schedlab: the Linux fair scheduler (CFS and EEVDF generations), simulated

USAGE:
    schedlab run FILE.json [OPTIONS]    run a scenario (FILE - reads standard input)
    schedlab check FILE.json            validate a scenario and say what it contains
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
    --max-events N      stop a run that needs more events than this (default 500000000)
";

/// Where a run's options ended up.
#[derive(Debug)]
struct RunOpts {
    file: String,
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
                s.tasks.len(),
                c.channels.len(),
                if s.variants.is_empty() { "none".to_string() } else { s.variants.join(", ") }
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
        file: String::new(),
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
            "--timehist" => o.timehist = true,
            "--trace" => o.trace = Some(value("--trace")?),
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
    if o.file.is_empty() {
        return Err(usage_err("run needs a scenario file"));
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

fn run(o: &RunOpts, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Fail> {
    let scenario = load(&o.file)?;
    let names: Vec<String> = if o.variants.is_empty() {
        scenario.variants.clone()
    } else {
        o.variants.clone()
    };
    if names.is_empty() {
        return Err(usage_err(format!(
            "{}: the scenario lists no variants; pass one with --variant, e.g. --variant cfs-6.1",
            o.file
        )));
    }
    let mut variants = vec![];
    for n in &names {
        variants.push(Variant::parse(n).map_err(|e| usage_err(format!("--variant: {e}")))?);
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
    let text = match o.format {
        Format::Table => table(&scenario, &results, o),
        Format::Json => json(&scenario, &results),
        Format::Csv => csv(&results),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}

fn err_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// The table report: per variant, the variant string and its perf-sched-latency table.
pub fn table_text(scenario: &Scenario, results: &[Output], layout_sum: bool, pids: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} ({} CPUs, HZ={}, {} ms, seed {})",
        scenario.name, scenario.cpus, scenario.hz, scenario.duration_ms, scenario.seed
    );
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

/// Per-task figures: the perf latency numbers (per thread) and the kernel's counters.
fn task_records(r: &Output) -> Vec<(LatencyRow, TaskStats, String)> {
    let rows = latency_rows(&r.trace, false);
    r.trace
        .tasks
        .iter()
        .map(|t| {
            let row = rows
                .iter()
                .find(|x| x.pid == t.pid)
                .cloned()
                .unwrap_or(LatencyRow {
                    comm: t.comm.clone(),
                    pid: t.pid,
                    threads: 1,
                    runtime_ns: 0,
                    count: 0,
                    delay_sum_ns: 0,
                    delay_max_ns: 0,
                    max_start_ns: 0,
                    max_end_ns: 0,
                });
            let st = r.tasks.get(t.pid as usize - 1).copied().unwrap_or_default();
            (row, st, t.comm.clone())
        })
        .collect()
}

fn cpu_value(cpu: usize, c: &CpuStats) -> serde_json::Value {
    serde_json::json!({
        "cpu": cpu,
        "sched_count": c.sched_count,
        "sched_goidle": c.sched_goidle,
        "ttwu_count": c.ttwu_count,
        "ttwu_local": c.ttwu_local,
        "rq_cpu_time_ns": c.rq_cpu_time_ns,
        "run_delay_ns": c.run_delay_ns,
        "pcount": c.pcount,
        "check_preempt_count": c.check_preempt_count,
        "need_preempt_count": c.need_preempt_count,
        "curr_noeli_preempt_count": c.curr_noeli_preempt_count,
        "curr_lowdl_preempt_count": c.curr_lowdl_preempt_count,
        "curr_lowgran_preempt_count": c.curr_lowgran_preempt_count,
        "curr_lownr_preempt_count": c.curr_lownr_preempt_count,
        "preempt_idle_curr": c.preempt_idle_curr,
        "preempt_wakeup_gran": c.preempt_wakeup_gran,
        "preempt_curr_ineligible": c.preempt_curr_ineligible,
        "preempt_earlier_deadline": c.preempt_earlier_deadline,
        "preempt_short": c.preempt_short,
        "preempt_resched_ineligible": c.preempt_resched_ineligible,
    })
}

/// The JSON report.
pub fn json(scenario: &Scenario, results: &[Output]) -> String {
    let variants: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let tasks: Vec<serde_json::Value> = task_records(r)
                .into_iter()
                .map(|(row, st, name)| {
                    serde_json::json!({
                        "name": name,
                        "pid": row.pid,
                        "runtime_ns": row.runtime_ns,
                        "switches": row.count,
                        "delay_avg_ns": row.delay_avg_ns(),
                        "delay_max_ns": row.delay_max_ns,
                        "delay_sum_ns": row.delay_sum_ns,
                        "sum_exec_runtime_ns": st.sum_exec_runtime_ns,
                        "run_delay_ns": st.run_delay_ns,
                        "pcount": st.pcount,
                        "voluntary_switches": st.voluntary_switches,
                        "involuntary_switches": st.involuntary_switches,
                    })
                })
                .collect();
            let cpus: Vec<serde_json::Value> = r
                .cpus
                .iter()
                .enumerate()
                .map(|(i, c)| cpu_value(i, c))
                .collect();
            serde_json::json!({
                "variant": r.variant,
                "events": r.events_processed,
                "tasks": tasks,
                "cpus": cpus,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "scenario": scenario.name,
        "cpus": scenario.cpus,
        "hz": scenario.hz,
        "duration_ns": scenario.duration_ns(),
        "seed": scenario.seed,
        "variants": variants,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV report: one row per variant and task.
pub fn csv(results: &[Output]) -> String {
    let mut s = String::from(
        "variant,name,pid,runtime_ns,switches,delay_avg_ns,delay_max_ns,delay_sum_ns,run_delay_ns,pcount,voluntary_switches,involuntary_switches\n",
    );
    for r in results {
        for (row, st, name) in task_records(r) {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&r.variant),
                csv_field(&name),
                row.pid,
                row.runtime_ns,
                row.count,
                row.delay_avg_ns(),
                row.delay_max_ns,
                row.delay_sum_ns,
                st.run_delay_ns,
                st.pcount,
                st.voluntary_switches,
                st.involuntary_switches
            );
        }
    }
    s
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

/// The `schedlab variants` text.
pub fn variants_text() -> String {
    let mut s = String::from(
        "Kernel variants (use as --variant NAME[:FEATURE,NO_FEATURE,tunable=value,...]):\n",
    );
    for p in PRESETS {
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
