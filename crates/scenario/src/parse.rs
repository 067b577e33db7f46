//! Reading a scenario document: structure, types, ranges and cross-field rules, with every
//! error tied to its JSON path. Nothing here panics, whatever the input.

use schedlab_sim::{limits, SchedPolicy, Variant};
use serde_json::{Map, Number, Value};

use crate::workload::{
    FioLike, Hackbench, MassiveIntr, Periodic, PipePair, Placement, Schbench, Workload,
    WorkloadKind,
};
use crate::{
    Duration, Scenario, ScenarioError, ScenarioErrors, Step, TaskGroup, Topology, Unit,
    FORMAT_VERSION, MAX_COUNT, MAX_TOTAL_OPS, MAX_VARIANTS,
};

/// Largest scenario document accepted (1 MiB).
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;

const TOP_KEYS: &[&str] = &[
    "version",
    "name",
    "description",
    "cpus",
    "hz",
    "duration_ms",
    "seed",
    "switch_delay_ns",
    "irq_ns",
    "variants",
    "topology",
    "tasks",
    "workloads",
    "channels",
];
const TASK_KEYS: &[&str] = &[
    "name", "count", "nice", "policy", "affinity", "slice_us", "start_ms", "program",
];
const STEP_KEYS: &[&str] = &[
    "run",
    "run_ns",
    "run_us",
    "run_ms",
    "sleep_ns",
    "sleep_us",
    "sleep_ms",
    "wait_period_ns",
    "wait_period_us",
    "wait_period_ms",
    "send",
    "recv",
    "exit",
    "loop",
];
const KINDS: &str = "hackbench, schbench, pipe_pair, massive_intr, periodic, fio_like";
/// One hour, the longest duration anywhere in a scenario.
const MAX_NS: f64 = 3.6e12;

struct P {
    errs: Vec<ScenarioError>,
}

impl P {
    fn err(&mut self, path: &str, message: impl Into<String>) {
        self.errs.push(ScenarioError {
            path: path.to_string(),
            message: message.into(),
        });
    }

    fn unknown_keys(&mut self, path: &str, o: &Map<String, Value>, known: &[&str]) {
        for k in o.keys() {
            if !known.contains(&k.as_str()) {
                let p = join(path, k);
                self.err(
                    &p,
                    format!("unknown field; expected one of: {}", known.join(", ")),
                );
            }
        }
    }

    fn uint(&mut self, path: &str, v: &Value, lo: u64, hi: u64) -> Option<u64> {
        match v.as_u64() {
            Some(n) if n >= lo && n <= hi => Some(n),
            Some(n) => {
                self.err(path, format!("{n} is out of range (allowed {lo}..={hi})"));
                None
            }
            None => {
                self.err(
                    path,
                    format!("expected a whole number {lo}..={hi}, got {}", show(v)),
                );
                None
            }
        }
    }

    /// A finite number in [lo, hi] (`lo_open`: strictly above lo).
    fn num(&mut self, path: &str, v: &Value, lo: f64, lo_open: bool, hi: f64) -> Option<Number> {
        let Value::Number(n) = v else {
            self.err(path, format!("expected a number, got {}", show(v)));
            return None;
        };
        let x = n.as_f64().unwrap_or(f64::NAN);
        let low_ok = if lo_open { x > lo } else { x >= lo };
        if !x.is_finite() || !low_ok || x > hi {
            let range = if lo_open {
                format!("more than {lo} and at most {hi}")
            } else {
                format!("{lo}..={hi}")
            };
            self.err(path, format!("{n} is out of range (allowed {range})"));
            return None;
        }
        Some(n.clone())
    }

    fn string(&mut self, path: &str, v: &Value, max_len: usize) -> Option<String> {
        match v.as_str() {
            Some(s) if s.len() > max_len => {
                self.err(
                    path,
                    format!("is {} bytes long; at most {max_len} allowed", s.len()),
                );
                None
            }
            Some(s) if s.chars().any(char::is_control) => {
                self.err(path, "must not contain control characters");
                None
            }
            Some(s) => Some(s.to_string()),
            None => {
                self.err(path, format!("expected a string, got {}", show(v)));
                None
            }
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A short description of a JSON value for messages.
fn show(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.len() > 40 => format!("a string ({} bytes)", s.len()),
        Value::String(s) => format!("\"{s}\""),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

pub(crate) fn parse(text: &str) -> Result<Scenario, ScenarioErrors> {
    let fail = |path: &str, m: String| {
        Err(ScenarioErrors(vec![ScenarioError {
            path: path.into(),
            message: m,
        }]))
    };
    if text.len() > MAX_SCENARIO_BYTES {
        return fail(
            "",
            format!(
                "the scenario is {} bytes; at most {MAX_SCENARIO_BYTES} are accepted",
                text.len()
            ),
        );
    }
    match serde_json::from_str(text) {
        Ok(v) => parse_value(v),
        Err(e) => fail("", format!("not valid JSON: {e}")),
    }
}

pub(crate) fn parse_value(v: Value) -> Result<Scenario, ScenarioErrors> {
    let fail = |path: &str, m: String| {
        Err(ScenarioErrors(vec![ScenarioError {
            path: path.into(),
            message: m,
        }]))
    };
    let Value::Object(o) = v else {
        return fail("", format!("a scenario is a JSON object, got {}", show(&v)));
    };
    let mut p = P { errs: vec![] };
    p.unknown_keys("", &o, TOP_KEYS);

    let req = |p: &mut P, k: &str| -> Option<Value> {
        let v = o.get(k).cloned();
        if v.is_none() {
            p.err(k, "missing (required)");
        }
        v
    };

    let version = req(&mut p, "version").and_then(|v| match v.as_u64() {
        Some(FORMAT_VERSION) => Some(FORMAT_VERSION),
        Some(n) => {
            p.err(
                "version",
                format!(
                    "unsupported format version {n}; this schedlab reads version {FORMAT_VERSION}"
                ),
            );
            None
        }
        None => {
            p.err(
                "version",
                format!("expected {FORMAT_VERSION}, got {}", show(&v)),
            );
            None
        }
    });
    let name = req(&mut p, "name").and_then(|v| p.string("name", &v, 200));
    if name.as_deref() == Some("") {
        p.err("name", "must not be empty");
    }
    let description = match o.get("description") {
        Some(v) => p.string("description", v, 10_000),
        None => Some(String::new()),
    };
    let cpus = req(&mut p, "cpus").and_then(|v| p.uint("cpus", &v, 1, limits::MAX_CPUS as u64));
    let hz = req(&mut p, "hz").and_then(|v| match v.as_u64() {
        Some(h @ (100 | 250 | 300 | 1000)) => Some(h),
        _ => {
            p.err(
                "hz",
                format!(
                    "{} is not a CONFIG_HZ value (allowed 100, 250, 300, 1000)",
                    show(&v)
                ),
            );
            None
        }
    });
    let duration_ms =
        req(&mut p, "duration_ms").and_then(|v| p.num("duration_ms", &v, 0.0, true, MAX_NS / 1e6));
    let seed = match o.get("seed") {
        Some(v) => p.uint("seed", v, 0, u64::MAX),
        None => Some(1),
    };
    let switch_delay_ns = match o.get("switch_delay_ns") {
        Some(v) => p
            .uint("switch_delay_ns", v, 0, limits::MAX_SWITCH_DELAY_NS)
            .map(Some),
        None => Some(None),
    };
    let irq_ns = match o.get("irq_ns") {
        Some(v) => {
            let max = switch_delay_ns
                .flatten()
                .unwrap_or(crate::DEFAULT_SWITCH_DELAY_NS);
            match v.as_u64() {
                Some(n) if n > max => {
                    p.err(
                        "irq_ns",
                        format!("{n} is out of range (allowed 0..={max}: the IRQ time is part of switch_delay_ns)"),
                    );
                    None
                }
                _ => p.uint("irq_ns", v, 0, max).map(Some),
            }
        }
        None => Some(None),
    };
    let variants = match o.get("variants") {
        None => Some(vec![]),
        Some(Value::Array(a)) => {
            if a.len() > MAX_VARIANTS {
                p.err(
                    "variants",
                    format!(
                        "{} variants; at most {MAX_VARIANTS} can be compared",
                        a.len()
                    ),
                );
            }
            let mut out = vec![];
            for (i, v) in a.iter().enumerate() {
                let path = format!("variants[{i}]");
                if let Some(s) = p.string(&path, v, 500) {
                    match Variant::parse(&s) {
                        Ok(v) => out.push(v),
                        Err(e) => p.err(&path, e.0),
                    }
                }
            }
            Some(out)
        }
        Some(v) => {
            p.err(
                "variants",
                format!("expected an array of variant strings, got {}", show(v)),
            );
            None
        }
    };
    let topology = match o.get("topology") {
        None => Some(Topology::default()),
        Some(v) => topology(&mut p, v, cpus),
    };
    let tasks = match o.get("tasks") {
        None => Some(vec![]),
        Some(Value::Array(a)) => {
            let groups: Vec<Option<TaskGroup>> = a
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    task_group(
                        &mut p,
                        &format!("tasks[{i}]"),
                        t,
                        cpus,
                        duration_ms.as_ref(),
                    )
                })
                .collect();
            groups.into_iter().collect::<Option<Vec<_>>>()
        }
        Some(v) => {
            p.err(
                "tasks",
                format!("expected an array of task groups, got {}", show(v)),
            );
            None
        }
    };
    let workloads = match o.get("workloads") {
        None => Some(vec![]),
        Some(Value::Array(a)) => {
            let ws: Vec<Option<Workload>> = a
                .iter()
                .enumerate()
                .map(|(i, w)| workload(&mut p, &format!("workloads[{i}]"), w, cpus))
                .collect();
            ws.into_iter().collect::<Option<Vec<_>>>()
        }
        Some(v) => {
            p.err(
                "workloads",
                format!("expected an array of workloads, got {}", show(v)),
            );
            None
        }
    };
    if tasks.as_ref().is_some_and(Vec::is_empty) && workloads.as_ref().is_some_and(Vec::is_empty) {
        p.err(
            "tasks",
            "no tasks: add at least one task group (or a workload)",
        );
    }
    if let (Some(ts), Some(ws), Some(cpus)) = (&tasks, &workloads, cpus) {
        let user: u64 = ts.iter().map(|t| t.count).sum();
        let generated = ws
            .iter()
            .fold(0u64, |n, w| n.saturating_add(w.task_count(cpus)));
        let total = user.saturating_add(generated);
        if total > limits::MAX_TASKS as u64 {
            let (path, what) = if ws.is_empty() {
                ("tasks", String::new())
            } else {
                (
                    "workloads",
                    format!(" ({user} from tasks, {generated} from workloads)"),
                )
            };
            p.err(
                path,
                format!(
                    "{total} tasks in all{what}; at most {} allowed",
                    limits::MAX_TASKS
                ),
            );
        } else {
            let mut all = ts.clone();
            all.extend(crate::workload::expand(cpus, ws, ts.len()).0);
            let ops = all.iter().fold(0u64, |n, t| {
                let per_task: usize = t.program.iter().map(Step::op_count).sum();
                n.saturating_add(t.count.saturating_mul(per_task as u64))
            });
            if ops > MAX_TOTAL_OPS {
                p.err(
                    if ws.is_empty() { "tasks" } else { "workloads" },
                    format!(
                        "the tasks' programs add up to {ops} steps; at most {MAX_TOTAL_OPS} in all (fewer tasks or shorter programs)"
                    ),
                );
            } else {
                check_channels(&mut p, &all);
            }
        }
    }
    let channels = match o.get("channels") {
        None => Some(vec![]),
        Some(Value::Array(a)) => {
            let mut out: Vec<crate::ChannelSpec> = vec![];
            for (i, c) in a.iter().enumerate() {
                let path = format!("channels[{i}]");
                let Value::Object(co) = c else {
                    p.err(
                        &path,
                        format!("expected {{\"name\": …, \"capacity\": …}}, got {}", show(c)),
                    );
                    continue;
                };
                p.unknown_keys(&path, co, &["name", "capacity"]);
                let name = match co.get("name") {
                    Some(v) => p.string(&join(&path, "name"), v, 64),
                    None => {
                        p.err(&join(&path, "name"), "missing (required)");
                        None
                    }
                };
                let capacity = match co.get("capacity") {
                    Some(v) => p.uint(&join(&path, "capacity"), v, 1, 1_000_000),
                    None => {
                        p.err(&join(&path, "capacity"), "missing (required)");
                        None
                    }
                };
                if let (Some(name), Some(capacity)) = (name, capacity) {
                    if out.iter().any(|c| c.name == name) {
                        p.err(
                            &join(&path, "name"),
                            format!("channel \"{name}\" is listed twice"),
                        );
                    } else if name.is_empty() {
                        p.err(&join(&path, "name"), "must not be empty");
                    } else {
                        out.push(crate::ChannelSpec { name, capacity });
                    }
                }
            }
            Some(out)
        }
        Some(v) => {
            p.err(
                "channels",
                format!(
                    "expected an array of {{\"name\", \"capacity\"}} objects, got {}",
                    show(v)
                ),
            );
            None
        }
    };
    if !p.errs.is_empty() {
        return Err(ScenarioErrors(p.errs));
    }
    // Every field that failed has pushed its error, so with no errors all are present.
    let scenario = (|| {
        Some(Scenario {
            channels: channels?,
            version: version?,
            name: name?,
            description: description?,
            cpus: cpus?,
            hz: hz?,
            duration_ms: duration_ms?,
            seed: seed?,
            switch_delay_ns: switch_delay_ns?,
            irq_ns: irq_ns?,
            variants: variants?,
            topology: topology?,
            tasks: tasks?,
            workloads: workloads?,
        })
    })();
    scenario.map_or_else(|| fail("", "the scenario is incomplete".into()), Ok)
}

fn topology(p: &mut P, v: &Value, cpus: Option<u64>) -> Option<Topology> {
    let Value::Object(o) = v else {
        p.err(
            "topology",
            format!(
                "expected an object such as {{\"llc_size\": 8, \"smt\": 2}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    p.unknown_keys("topology", o, &["llc_size", "smt"]);
    let max = cpus.unwrap_or(limits::MAX_CPUS as u64);
    let smt = o
        .get("smt")
        .map_or(Some(1), |v| p.uint("topology.smt", v, 1, 8));
    let llc = o
        .get("llc_size")
        .map_or(Some(0), |v| p.uint("topology.llc_size", v, 0, max));
    let cpus = cpus?;
    let (smt, llc) = (smt?, llc?);
    let mut ok = true;
    if cpus % smt != 0 {
        p.err(
            "topology.smt",
            format!("{smt} does not divide cpus ({cpus}): every core has the same number of threads (allowed 1..=8, a divisor of cpus)"),
        );
        ok = false;
    }
    if llc != 0 && cpus % llc != 0 {
        p.err(
            "topology.llc_size",
            format!("{llc} does not divide cpus ({cpus}) (allowed 0 = one LLC, or a divisor of cpus that is a multiple of smt)"),
        );
        ok = false;
    } else if llc != 0 && llc % smt != 0 {
        p.err(
            "topology.llc_size",
            format!("{llc} is not a multiple of smt ({smt}): an LLC holds whole cores (allowed 0, or a divisor of cpus that is a multiple of smt)"),
        );
        ok = false;
    }
    ok.then_some(Topology { llc_size: llc, smt })
}

fn task_group(
    p: &mut P,
    path: &str,
    v: &Value,
    cpus: Option<u64>,
    duration_ms: Option<&Number>,
) -> Option<TaskGroup> {
    let Value::Object(o) = v else {
        p.err(path, format!("a task group is an object, got {}", show(v)));
        return None;
    };
    p.unknown_keys(path, o, TASK_KEYS);
    let name = match o.get("name") {
        Some(v) => comm(p, &join(path, "name"), v),
        None => {
            p.err(&join(path, "name"), "missing (required)");
            None
        }
    };
    let count = o
        .get("count")
        .map_or(Some(1), |v| p.uint(&join(path, "count"), v, 1, MAX_COUNT));
    let nice = o
        .get("nice")
        .map_or(Some(0), |v| nice(p, &join(path, "nice"), v));
    let policy = o.get("policy").map_or(Some(SchedPolicy::Normal), |v| {
        policy(p, &join(path, "policy"), v)
    });
    let affinity = opt(o.get("affinity"), |v| {
        affinity(p, &join(path, "affinity"), v, cpus)
    });
    let slice_us = opt(o.get("slice_us"), |v| slice(p, &join(path, "slice_us"), v));
    let start_ms = opt(o.get("start_ms"), |v| {
        let hi = duration_ms.and_then(|d| d.as_f64()).unwrap_or(MAX_NS / 1e6);
        p.num(&join(path, "start_ms"), v, 0.0, false, hi)
    });
    let program = match o.get("program") {
        None => {
            p.err(&join(path, "program"), "missing (required)");
            None
        }
        Some(v) => program(p, &join(path, "program"), v),
    };
    Some(TaskGroup {
        name: name?,
        count: count?,
        nice: nice?,
        policy: policy?,
        affinity: affinity?,
        slice_us: slice_us?,
        start_ms: start_ms?,
        program: program?,
    })
}

/// An optional field: absent is `Some(None)`, a bad value `None`.
fn opt<T>(v: Option<&Value>, f: impl FnOnce(&Value) -> Option<T>) -> Option<Option<T>> {
    match v {
        None => Some(None),
        Some(v) => f(v).map(Some),
    }
}

/// A task's comm: 1–15 bytes, no '/' or ':'.
fn comm(p: &mut P, path: &str, v: &Value) -> Option<String> {
    let n = p.string(path, v, 15)?;
    if n.is_empty() {
        p.err(path, "must not be empty");
        return None;
    }
    if n.contains(['/', ':']) {
        p.err(
            path,
            "must not contain '/' or ':' (they separate fields in perf's output)",
        );
        return None;
    }
    Some(n)
}

fn nice(p: &mut P, path: &str, v: &Value) -> Option<i64> {
    match v.as_i64() {
        Some(n) if (-20..=19).contains(&n) => Some(n),
        Some(n) => {
            p.err(path, format!("{n} is out of range (allowed -20..=19)"));
            None
        }
        None => {
            p.err(
                path,
                format!("expected a whole number -20..=19, got {}", show(v)),
            );
            None
        }
    }
}

fn policy(p: &mut P, path: &str, v: &Value) -> Option<SchedPolicy> {
    match v.as_str() {
        Some("normal") => Some(SchedPolicy::Normal),
        Some("batch") => Some(SchedPolicy::Batch),
        Some("idle") => Some(SchedPolicy::Idle),
        _ => {
            p.err(
                path,
                format!(
                    "{} is not a policy (allowed \"normal\", \"batch\", \"idle\")",
                    show(v)
                ),
            );
            None
        }
    }
}

fn affinity(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<Vec<u64>> {
    match v {
        Value::Array(a) if a.is_empty() => {
            p.err(path, "must name at least one CPU");
            None
        }
        Value::Array(a) => {
            let max = cpus.unwrap_or(limits::MAX_CPUS as u64);
            let mut out: Vec<u64> = vec![];
            let mut ok = true;
            for (i, c) in a.iter().enumerate() {
                let cp = format!("{path}[{i}]");
                match c.as_u64() {
                    Some(n) if n < max => {
                        if out.contains(&n) {
                            p.err(&cp, format!("CPU {n} is listed twice"));
                            ok = false;
                        }
                        out.push(n);
                    }
                    _ => {
                        p.err(
                            &cp,
                            format!(
                                "{} is not a CPU of this machine (allowed 0..={})",
                                show(c),
                                max.saturating_sub(1)
                            ),
                        );
                        ok = false;
                    }
                }
            }
            ok.then_some(out)
        }
        v => {
            p.err(
                path,
                format!("expected an array of CPU numbers, got {}", show(v)),
            );
            None
        }
    }
}

fn slice(p: &mut P, path: &str, v: &Value) -> Option<Number> {
    let r = p.num(path, v, 100.0, false, 100_000.0);
    if r.is_none() {
        // Append the reason to the range error just pushed.
        if let Some(e) = p.errs.last_mut() {
            e.message
                .push_str(": the kernel clamps sched_runtime to 0.1–100 ms");
        }
    }
    r
}

/// A time in `unit` that is a plain number: at least 1 ns, at most `max_ns`.
fn time(p: &mut P, path: &str, v: &Value, unit: Unit, max_ns: f64) -> Option<Number> {
    p.num(path, v, 1.0 / unit.ns(), false, max_ns / unit.ns())
}

fn program(p: &mut P, path: &str, v: &Value) -> Option<Vec<Step>> {
    if let Value::Array(a) = v {
        if a.len() > limits::MAX_PROGRAM_OPS {
            p.err(
                path,
                format!(
                    "{} steps; at most {} allowed",
                    a.len(),
                    limits::MAX_PROGRAM_OPS
                ),
            );
            return None;
        }
    }
    let steps = step_list(
        p,
        path,
        v,
        "empty program: add a step such as {\"run\": \"forever\"}",
    )?;
    let ops: usize = steps.iter().map(Step::op_count).sum();
    if ops > limits::MAX_PROGRAM_OPS {
        p.err(
            path,
            format!(
                "{ops} steps once loops are expanded (each loop adds one); at most {} allowed",
                limits::MAX_PROGRAM_OPS
            ),
        );
        return None;
    }
    fn progresses(s: &Step) -> bool {
        match s {
            Step::Run(..)
            | Step::RunForever
            | Step::Sleep(..)
            | Step::Exit
            | Step::WaitPeriod(..) => true,
            Step::Loop(_, body) => body.iter().any(progresses),
            Step::Send(_) | Step::Recv(_) => false,
        }
    }
    if !steps.iter().any(progresses) {
        p.err(
            path,
            "the program never runs, sleeps or exits, so it would repeat forever at one instant; add a run or sleep step",
        );
        return None;
    }
    Some(steps)
}

/// Whether a step never lets the program go on: an exit, a forever run, or a loop whose body
/// reaches one (there are no conditions, so the first pass through the body does).
fn terminates(s: &Step) -> bool {
    match s {
        Step::Exit | Step::RunForever => true,
        Step::Loop(_, body) => body.iter().any(terminates),
        _ => false,
    }
}

/// A non-empty list of steps (a program or a loop body) with nothing after an exit.
fn step_list(p: &mut P, path: &str, v: &Value, empty: &str) -> Option<Vec<Step>> {
    let Value::Array(a) = v else {
        p.err(path, format!("expected an array of steps, got {}", show(v)));
        return None;
    };
    if a.is_empty() {
        p.err(path, empty);
        return None;
    }
    let steps: Vec<Option<Step>> = a
        .iter()
        .enumerate()
        .map(|(i, s)| step(p, &format!("{path}[{i}]"), s))
        .collect();
    let steps: Vec<Step> = steps.into_iter().collect::<Option<Vec<_>>>()?;
    if let Some(i) = steps.iter().position(terminates) {
        if i + 1 < steps.len() {
            p.err(
                &format!("{path}[{}]", i + 1),
                "never reached: it follows an exit or a forever run",
            );
            return None;
        }
    }
    Some(steps)
}

fn loop_step(p: &mut P, path: &str, o: &Map<String, Value>) -> Option<Step> {
    p.unknown_keys(path, o, &["loop", "steps"]);
    let max = limits::MAX_LOOP_TIMES as u64;
    let times = match o.get("loop") {
        Some(v) => p.uint(&join(path, "loop"), v, 1, max),
        None => {
            p.err(
                &join(path, "loop"),
                format!("missing (required with steps: how many times, 1..={max})"),
            );
            None
        }
    };
    let body = match o.get("steps") {
        Some(v) => step_list(
            p,
            &join(path, "steps"),
            v,
            "empty loop: add the steps to repeat",
        ),
        None => {
            p.err(
                &join(path, "steps"),
                "missing (required with loop: the steps to repeat)",
            );
            None
        }
    };
    Some(Step::Loop(times?, body?))
}

fn step(p: &mut P, path: &str, v: &Value) -> Option<Step> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "a step is an object such as {{\"run_us\": 100}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    if o.contains_key("loop") || o.contains_key("steps") {
        return loop_step(p, path, o);
    }
    if o.len() != 1 {
        p.err(
            path,
            format!(
                "a step has exactly one key (one of: {}; a loop has loop and steps), got {}",
                STEP_KEYS.join(", "),
                o.len()
            ),
        );
        return None;
    }
    let (k, val) = o.iter().next()?;
    let kp = join(path, k);
    let unit = |s: &str| match s {
        "ns" => Some(Unit::Ns),
        "us" => Some(Unit::Us),
        "ms" => Some(Unit::Ms),
        _ => None,
    };
    match k.as_str() {
        "run" => match val.as_str() {
            Some("forever") => Some(Step::RunForever),
            _ => {
                p.err(
                    &kp,
                    format!(
                        "expected \"forever\" (or use run_us / run_ms with a duration), got {}",
                        show(val)
                    ),
                );
                None
            }
        },
        "send" | "recv" => {
            let name = p.string(&kp, val, 64)?;
            if name.is_empty() {
                p.err(&kp, "channel name must not be empty");
                return None;
            }
            Some(if k == "send" {
                Step::Send(name)
            } else {
                Step::Recv(name)
            })
        }
        "exit" => match val {
            Value::Bool(true) => Some(Step::Exit),
            _ => {
                p.err(&kp, format!("expected true, got {}", show(val)));
                None
            }
        },
        _ => {
            if let Some(u) = k.strip_prefix("wait_period_").and_then(unit) {
                return time(p, &kp, val, u, MAX_NS).map(|n| Step::WaitPeriod(n, u));
            }
            let (kind, u) = k.split_once('_').unwrap_or((k, ""));
            match (kind, unit(u)) {
                ("run", Some(u)) => duration(p, &kp, val, u).map(|d| Step::Run(d, u)),
                ("sleep", Some(u)) => duration(p, &kp, val, u).map(|d| Step::Sleep(d, u)),
                _ => {
                    p.err(
                        &kp,
                        format!("unknown step; expected one of: {}", STEP_KEYS.join(", ")),
                    );
                    None
                }
            }
        }
    }
}

fn duration(p: &mut P, path: &str, v: &Value, unit: Unit) -> Option<Duration> {
    let max = MAX_NS / unit.ns();
    // At least 1 ns, so that every run or sleep takes time.
    let min = 1.0 / unit.ns();
    match v {
        Value::Number(_) => {
            let n = p.num(path, v, min, false, max)?;
            Some(Duration::Fixed(n))
        }
        Value::Object(o) if o.len() == 1 => {
            let (k, a) = o.iter().next()?;
            let kp = join(path, k);
            match k.as_str() {
                "exp" => p.num(&kp, a, min, false, max).map(Duration::Exp),
                "uniform" | "normal" => {
                    let pair = match a {
                        Value::Array(x) if x.len() == 2 => x,
                        _ => {
                            let what = if k == "uniform" {
                                "[lo, hi]"
                            } else {
                                "[mean, stddev]"
                            };
                            p.err(&kp, format!("expected {what}, got {}", show(a)));
                            return None;
                        }
                    };
                    if k == "uniform" {
                        let lo = p.num(&format!("{kp}[0]"), &pair[0], 0.0, false, max)?;
                        let hi = p.num(&format!("{kp}[1]"), &pair[1], min, false, max)?;
                        if lo.as_f64() > hi.as_f64() {
                            p.err(&kp, format!("lo {lo} is above hi {hi}"));
                            return None;
                        }
                        Some(Duration::Uniform(lo, hi))
                    } else {
                        let mean = p.num(&format!("{kp}[0]"), &pair[0], min, false, max)?;
                        let sd = p.num(&format!("{kp}[1]"), &pair[1], 0.0, false, max)?;
                        Some(Duration::Normal(mean, sd))
                    }
                }
                _ => {
                    p.err(&kp, "unknown distribution; expected exp, uniform or normal");
                    None
                }
            }
        }
        _ => {
            p.err(
                path,
                format!(
                    "expected a number or a distribution ({{\"exp\": mean}}, {{\"uniform\": [lo, hi]}}, {{\"normal\": [mean, sd]}}), got {}",
                    show(v)
                ),
            );
            None
        }
    }
}

/// Every channel that is read must be written somewhere, and the other way round: a typo in a
/// channel name would otherwise leave a task blocked forever.
fn check_channels(p: &mut P, tasks: &[TaskGroup]) {
    use std::collections::BTreeSet;
    /// Sends and reads of `steps` (inside loops too) with their paths.
    fn walk<'a>(steps: &'a [Step], path: &str, out: &mut Vec<(bool, &'a str, String)>) {
        for (i, s) in steps.iter().enumerate() {
            match s {
                Step::Send(c) => out.push((true, c, format!("{path}[{i}].send"))),
                Step::Recv(c) => out.push((false, c, format!("{path}[{i}].recv"))),
                Step::Loop(_, body) => walk(body, &format!("{path}[{i}].steps"), out),
                _ => {}
            }
        }
    }
    // Concrete channel names, with `{i}` expanded for every instance of its group.
    let mut sent = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut uses: Vec<(bool, String, String)> = vec![];
    for (g, t) in tasks.iter().enumerate() {
        let mut steps = vec![];
        walk(&t.program, &format!("tasks[{g}].program"), &mut steps);
        for (is_send, c, path) in steps {
            let instances = if c.contains("{i}") { t.count } else { 1 };
            for n in 0..instances {
                let name = c.replace("{i}", &n.to_string());
                if is_send {
                    sent.insert(name.clone());
                } else {
                    read.insert(name.clone());
                }
                uses.push((is_send, name, path.clone()));
            }
        }
    }
    let mut reported = BTreeSet::new();
    for (is_send, name, path) in uses {
        if !reported.insert(path.clone()) {
            continue;
        }
        if !is_send && !sent.contains(&name) {
            p.err(&path, format!("channel \"{name}\" is read here but no task writes to it, so this task would block forever"));
        } else if is_send && !read.contains(&name) {
            p.err(
                &path,
                format!("channel \"{name}\" is written here but no task reads it"),
            );
        } else {
            reported.remove(&path);
        }
    }
}

/// `{"kind": {params}}`.
fn workload(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<Workload> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "a workload is an object with one key naming its kind ({KINDS}), got {}",
                show(v)
            ),
        );
        return None;
    };
    if o.len() != 1 {
        p.err(
            path,
            format!(
                "a workload has exactly one key naming its kind (one of: {KINDS}), got {}",
                o.len()
            ),
        );
        return None;
    }
    let (k, val) = o.iter().next()?;
    let path = join(path, k);
    let Some(kind) = WorkloadKind::from_name(k) else {
        p.err(
            &path,
            format!("unknown workload kind; expected one of: {KINDS}"),
        );
        return None;
    };
    let Value::Object(o) = val else {
        p.err(
            &path,
            format!(
                "expected an object of parameters ({{}} for the defaults), got {}",
                show(val)
            ),
        );
        return None;
    };
    let w = W { o, path: &path };
    match kind {
        WorkloadKind::Hackbench => hackbench(p, &w, cpus).map(Workload::Hackbench),
        WorkloadKind::Schbench => schbench(p, &w, cpus).map(Workload::Schbench),
        WorkloadKind::PipePair => pipe_pair(p, &w).map(Workload::PipePair),
        WorkloadKind::MassiveIntr => massive_intr(p, &w, cpus).map(Workload::MassiveIntr),
        WorkloadKind::Periodic => periodic(p, &w, cpus).map(Workload::Periodic),
        WorkloadKind::FioLike => fio_like(p, &w, cpus).map(Workload::FioLike),
    }
}

/// A workload's parameter object.
struct W<'a> {
    o: &'a Map<String, Value>,
    path: &'a str,
}

impl W<'_> {
    fn path(&self, k: &str) -> String {
        join(self.path, k)
    }
    /// A whole number in lo..=hi, or `default` when absent.
    fn uint(&self, p: &mut P, k: &str, default: u64, lo: u64, hi: u64) -> Option<u64> {
        self.o
            .get(k)
            .map_or(Some(default), |v| p.uint(&self.path(k), v, lo, hi))
    }
    /// A time in µs/ms (a plain number, at least 1 ns, at most `max_ns`), or `default`.
    fn time(&self, p: &mut P, k: &str, default: Number, unit: Unit, max_ns: f64) -> Option<Number> {
        self.o
            .get(k)
            .map_or(Some(default), |v| time(p, &self.path(k), v, unit, max_ns))
    }
    /// A duration (number or distribution) in µs, or `default`.
    fn duration(&self, p: &mut P, k: &str, default: Duration) -> Option<Duration> {
        self.o
            .get(k)
            .map_or(Some(default), |v| duration(p, &self.path(k), v, Unit::Us))
    }
    fn affinity(&self, p: &mut P, cpus: Option<u64>) -> Option<Option<Vec<u64>>> {
        opt(self.o.get("affinity"), |v| {
            affinity(p, &self.path("affinity"), v, cpus)
        })
    }
}

/// Per-message and per-request costs: at most 1 s.
const MAX_COST_NS: f64 = 1e9;

fn hackbench(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Hackbench> {
    p.unknown_keys(
        w.path,
        w.o,
        &[
            "groups", "fds", "loops", "datasize", "threads", "send_us", "recv_us", "affinity",
        ],
    );
    let d = Hackbench::default();
    let max_loop = limits::MAX_LOOP_TIMES as u64;
    let groups = w.uint(p, "groups", d.groups, 1, 1000);
    let fds = w.uint(p, "fds", d.fds, 1, 500);
    let loops = w.uint(p, "loops", d.loops, 1, max_loop);
    let datasize = w.uint(p, "datasize", d.datasize, 1, 65536);
    let threads = match w.o.get("threads") {
        None => Some(d.threads),
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => {
            p.err(
                &w.path("threads"),
                format!("expected true or false, got {}", show(v)),
            );
            None
        }
    };
    let send_us = w.time(p, "send_us", d.send_us, Unit::Us, MAX_COST_NS);
    let recv_us = w.time(p, "recv_us", d.recv_us, Unit::Us, MAX_COST_NS);
    let affinity = w.affinity(p, cpus);
    let (fds, loops) = (fds?, loops?);
    if fds * loops > max_loop {
        p.err(
            &w.path("loops"),
            format!(
                "{loops} loops x {fds} fds = {} messages per receiver; at most {max_loop} (allowed 1..={})",
                fds * loops,
                max_loop / fds
            ),
        );
        return None;
    }
    Some(Hackbench {
        groups: groups?,
        fds,
        loops,
        datasize: datasize?,
        threads: threads?,
        send_us: send_us?,
        recv_us: recv_us?,
        affinity: affinity?,
    })
}

fn schbench(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Schbench> {
    p.unknown_keys(
        w.path,
        w.o,
        &[
            "message_threads",
            "workers",
            "request_us",
            "think_us",
            "affinity",
        ],
    );
    let d = Schbench::default();
    let message_threads = w.uint(p, "message_threads", d.message_threads, 1, 1024);
    let workers = w.uint(p, "workers", d.workers, 1, 1000);
    let request_us = w.time(p, "request_us", d.request_us, Unit::Us, MAX_COST_NS);
    let think_us = w.time(p, "think_us", d.think_us, Unit::Us, MAX_COST_NS);
    let affinity = w.affinity(p, cpus);
    Some(Schbench {
        message_threads: message_threads?,
        workers: workers?,
        request_us: request_us?,
        think_us: think_us?,
        affinity: affinity?,
    })
}

fn pipe_pair(p: &mut P, w: &W) -> Option<PipePair> {
    p.unknown_keys(
        w.path,
        w.o,
        &[
            "pairs",
            "client_us",
            "client_post_us",
            "server_us",
            "placement",
        ],
    );
    let d = PipePair::default();
    let pairs = w.uint(p, "pairs", d.pairs, 1, MAX_COUNT);
    let client_us = w.time(p, "client_us", d.client_us, Unit::Us, MAX_COST_NS);
    let client_post_us = match w.o.get("client_post_us") {
        None => Some(d.client_post_us.clone()),
        Some(v) => p.num(&w.path("client_post_us"), v, 0.0, false, MAX_COST_NS / 1e3),
    };
    let server_us = w.time(p, "server_us", d.server_us, Unit::Us, MAX_COST_NS);
    let placement = match w.o.get("placement") {
        None => Some(d.placement),
        Some(v) => match v.as_str() {
            Some("free") => Some(Placement::Free),
            Some("stacked") => Some(Placement::Stacked),
            Some("cross") => Some(Placement::Cross),
            _ => {
                p.err(
                    &w.path("placement"),
                    format!(
                        "{} is not a placement (allowed \"free\", \"stacked\", \"cross\")",
                        show(v)
                    ),
                );
                None
            }
        },
    };
    Some(PipePair {
        pairs: pairs?,
        client_us: client_us?,
        client_post_us: client_post_us?,
        server_us: server_us?,
        placement: placement?,
    })
}

fn massive_intr(p: &mut P, w: &W, cpus: Option<u64>) -> Option<MassiveIntr> {
    p.unknown_keys(w.path, w.o, &["count", "work_ms", "sleep_ms", "affinity"]);
    let d = MassiveIntr::default();
    let count = w.uint(p, "count", d.count, 0, MAX_COUNT);
    let work_ms = w.time(p, "work_ms", d.work_ms, Unit::Ms, 60e9);
    let sleep_ms = w.time(p, "sleep_ms", d.sleep_ms, Unit::Ms, 60e9);
    let affinity = w.affinity(p, cpus);
    Some(MassiveIntr {
        count: count?,
        work_ms: work_ms?,
        sleep_ms: sleep_ms?,
        affinity: affinity?,
    })
}

fn periodic(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Periodic> {
    p.unknown_keys(
        w.path,
        w.o,
        &[
            "name",
            "count",
            "period_us",
            "work_us",
            "slice_us",
            "nice",
            "policy",
            "affinity",
        ],
    );
    let d = Periodic::default();
    let name =
        w.o.get("name")
            .map_or(Some(d.name), |v| comm(p, &w.path("name"), v));
    let count = w.uint(p, "count", d.count, 1, MAX_COUNT);
    let period_us = w.time(p, "period_us", d.period_us, Unit::Us, MAX_NS);
    let work_us = w.duration(p, "work_us", d.work_us);
    let slice_us = opt(w.o.get("slice_us"), |v| slice(p, &w.path("slice_us"), v));
    let nice =
        w.o.get("nice")
            .map_or(Some(d.nice), |v| nice(p, &w.path("nice"), v));
    let policy =
        w.o.get("policy")
            .map_or(Some(d.policy), |v| policy(p, &w.path("policy"), v));
    let affinity = w.affinity(p, cpus);
    Some(Periodic {
        count: count?,
        period_us: period_us?,
        work_us: work_us?,
        slice_us: slice_us?,
        nice: nice?,
        policy: policy?,
        name: name?,
        affinity: affinity?,
    })
}

fn fio_like(p: &mut P, w: &W, cpus: Option<u64>) -> Option<FioLike> {
    p.unknown_keys(w.path, w.o, &["jobs", "cpu_us", "io_us", "affinity"]);
    let d = FioLike::default();
    let jobs = w.uint(p, "jobs", d.jobs, 1, MAX_COUNT);
    let cpu_us = w.time(p, "cpu_us", d.cpu_us, Unit::Us, MAX_COST_NS);
    let io_us = w.duration(p, "io_us", d.io_us);
    let affinity = w.affinity(p, cpus);
    Some(FioLike {
        jobs: jobs?,
        cpu_us: cpu_us?,
        io_us: io_us?,
        affinity: affinity?,
    })
}
