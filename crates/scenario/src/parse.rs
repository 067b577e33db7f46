//! Reading a scenario document: structure, types, ranges and cross-field rules, with every
//! error tied to its JSON path. Nothing here panics, whatever the input.

use schedlab_sim::{limits, SchedPolicy, Variant};
use serde_json::{Map, Number, Value};

use crate::{
    Duration, Scenario, ScenarioError, ScenarioErrors, Step, TaskGroup, Unit, FORMAT_VERSION,
    MAX_COUNT, MAX_VARIANTS,
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
    "tasks",
];
const TASK_KEYS: &[&str] = &[
    "name", "count", "nice", "policy", "affinity", "slice_us", "start_ms", "program",
];
const STEP_KEYS: &[&str] = &[
    "run", "run_ns", "run_us", "run_ms", "sleep_ns", "sleep_us", "sleep_ms", "send", "recv", "exit",
];
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
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return fail("", format!("not valid JSON: {e}")),
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
                        Ok(_) => out.push(s.trim().to_string()),
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
    let tasks = match req(&mut p, "tasks") {
        Some(Value::Array(a)) if a.is_empty() => {
            p.err("tasks", "no tasks: add at least one task group");
            None
        }
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
                format!("expected an array of task groups, got {}", show(&v)),
            );
            None
        }
        None => None,
    };
    if let Some(ts) = &tasks {
        let total: u64 = ts.iter().map(|t| t.count).sum();
        if total > limits::MAX_TASKS as u64 {
            p.err(
                "tasks",
                format!(
                    "{total} tasks in all; at most {} allowed",
                    limits::MAX_TASKS
                ),
            );
        }
        check_channels(&mut p, ts);
    }
    if !p.errs.is_empty() {
        return Err(ScenarioErrors(p.errs));
    }
    match (
        version,
        name,
        description,
        cpus,
        hz,
        duration_ms,
        seed,
        switch_delay_ns,
        irq_ns,
        variants,
        tasks,
    ) {
        (
            Some(version),
            Some(name),
            Some(description),
            Some(cpus),
            Some(hz),
            Some(duration_ms),
            Some(seed),
            Some(switch_delay_ns),
            Some(irq_ns),
            Some(variants),
            Some(tasks),
        ) => Ok(Scenario {
            version,
            name,
            description,
            cpus,
            hz,
            duration_ms,
            seed,
            switch_delay_ns,
            irq_ns,
            variants,
            tasks,
        }),
        _ => fail("", "the scenario is incomplete".into()),
    }
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
        Some(v) => p.string(&join(path, "name"), v, 15),
        None => {
            p.err(&join(path, "name"), "missing (required)");
            None
        }
    };
    if name.as_deref() == Some("") {
        p.err(&join(path, "name"), "must not be empty");
    }
    if let Some(n) = &name {
        if n.len() > 15 {
            // Caught by string(); kept for clarity of the kernel's limit.
        } else if n.contains(['/', ':']) {
            p.err(
                &join(path, "name"),
                "must not contain '/' or ':' (they separate fields in perf's output)",
            );
        }
    }
    let count = o
        .get("count")
        .map_or(Some(1), |v| p.uint(&join(path, "count"), v, 1, MAX_COUNT));
    let nice = match o.get("nice") {
        None => Some(0),
        Some(v) => match v.as_i64() {
            Some(n) if (-20..=19).contains(&n) => Some(n),
            Some(n) => {
                p.err(
                    &join(path, "nice"),
                    format!("{n} is out of range (allowed -20..=19)"),
                );
                None
            }
            None => {
                p.err(
                    &join(path, "nice"),
                    format!("expected a whole number -20..=19, got {}", show(v)),
                );
                None
            }
        },
    };
    let policy = match o.get("policy") {
        None => Some(SchedPolicy::Normal),
        Some(v) => match v.as_str() {
            Some("normal") => Some(SchedPolicy::Normal),
            Some("batch") => Some(SchedPolicy::Batch),
            Some("idle") => Some(SchedPolicy::Idle),
            _ => {
                p.err(
                    &join(path, "policy"),
                    format!(
                        "{} is not a policy (allowed \"normal\", \"batch\", \"idle\")",
                        show(v)
                    ),
                );
                None
            }
        },
    };
    let affinity = match o.get("affinity") {
        None => Some(None),
        Some(Value::Array(a)) if a.is_empty() => {
            p.err(&join(path, "affinity"), "must name at least one CPU");
            None
        }
        Some(Value::Array(a)) => {
            let max = cpus.unwrap_or(limits::MAX_CPUS as u64);
            let mut out: Vec<u64> = vec![];
            let mut ok = true;
            for (i, c) in a.iter().enumerate() {
                let cp = format!("{}[{i}]", join(path, "affinity"));
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
            ok.then_some(Some(out))
        }
        Some(v) => {
            p.err(
                &join(path, "affinity"),
                format!("expected an array of CPU numbers, got {}", show(v)),
            );
            None
        }
    };
    let slice_us = match o.get("slice_us") {
        None => Some(None),
        Some(v) => {
            let r = p.num(&join(path, "slice_us"), v, 100.0, false, 100_000.0);
            if r.is_none() {
                // Append the reason to the range error just pushed.
                if let Some(e) = p.errs.last_mut() {
                    e.message
                        .push_str(": the kernel clamps sched_runtime to 0.1–100 ms");
                }
            }
            r.map(Some)
        }
    };
    let start_ms = match o.get("start_ms") {
        None => Some(None),
        Some(v) => {
            let hi = duration_ms.and_then(|d| d.as_f64()).unwrap_or(MAX_NS / 1e6);
            p.num(&join(path, "start_ms"), v, 0.0, false, hi).map(Some)
        }
    };
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

fn program(p: &mut P, path: &str, v: &Value) -> Option<Vec<Step>> {
    let Value::Array(a) = v else {
        p.err(path, format!("expected an array of steps, got {}", show(v)));
        return None;
    };
    if a.is_empty() {
        p.err(
            path,
            "empty program: add a step such as {\"run\": \"forever\"}",
        );
        return None;
    }
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
    let steps: Vec<Option<Step>> = a
        .iter()
        .enumerate()
        .map(|(i, s)| step(p, &format!("{path}[{i}]"), s))
        .collect();
    let steps: Vec<Step> = steps.into_iter().collect::<Option<Vec<_>>>()?;
    if let Some(i) = steps
        .iter()
        .position(|s| matches!(s, Step::Exit | Step::RunForever))
    {
        if i + 1 < steps.len() {
            p.err(
                &format!("{path}[{}]", i + 1),
                "never reached: it follows an exit or a forever run",
            );
            return None;
        }
    }
    if !steps.iter().any(|s| {
        matches!(
            s,
            Step::Run(..) | Step::RunForever | Step::Sleep(..) | Step::Exit
        )
    }) {
        p.err(
            path,
            "the program never runs, sleeps or exits, so it would repeat forever at one instant; add a run or sleep step",
        );
        return None;
    }
    Some(steps)
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
    if o.len() != 1 {
        p.err(
            path,
            format!(
                "a step has exactly one key (one of: {}), got {}",
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
    // Concrete channel names, with `{i}` expanded for every instance of its group.
    let mut sent = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut uses: Vec<(bool, String, String)> = vec![];
    for (g, t) in tasks.iter().enumerate() {
        for (i, s) in t.program.iter().enumerate() {
            let (is_send, c) = match s {
                Step::Send(c) => (true, c),
                Step::Recv(c) => (false, c),
                _ => continue,
            };
            let kind = if is_send { "send" } else { "recv" };
            let path = format!("tasks[{g}].program[{i}].{kind}");
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
