//! Task groups and their programs: names, nice, policy, affinity, slices, steps, durations,
//! and the channel rules across groups.

use schedlab_sim::{limits, SchedPolicy};
use serde_json::{Map, Number, Value};

use super::{join, show, MAX_NS, P, STEP_KEYS, TASK_KEYS};
use crate::{Duration, Step, TaskGroup, Unit, MAX_COUNT};

/// A task group's true-or-false field `key` (false when absent) that only a fair group may
/// set: an RT group's `true` is refused with "only a fair task group ... {what}".
fn fair_flag(
    p: &mut P,
    path: &str,
    o: &Map<String, Value>,
    key: &str,
    is_rt: bool,
    what: &str,
) -> Option<bool> {
    match o.get(key) {
        None => Some(false),
        Some(Value::Bool(b)) if *b && is_rt => {
            p.err(
                &join(path, key),
                format!("only a fair task group (normal, batch or idle) {what}"),
            );
            None
        }
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => {
            p.err(
                &join(path, key),
                format!("expected true or false, got {}", show(v)),
            );
            None
        }
    }
}

pub(super) fn task_group(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<TaskGroup> {
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
    let is_rt = matches!(o.get("policy").and_then(Value::as_str), Some("fifo" | "rr"));
    let rt = match (is_rt, o.get("rt_priority")) {
        (true, Some(v)) => p.uint(&join(path, "rt_priority"), v, 1, 99).map(|prio| {
            Some(crate::RtSpec {
                rr: o.get("policy").and_then(Value::as_str) == Some("rr"),
                priority: prio,
            })
        }),
        (true, None) => {
            p.err(
                &join(path, "rt_priority"),
                "missing: a \"fifo\" or \"rr\" task needs an rt_priority (1..=99)",
            );
            None
        }
        (false, Some(_)) => {
            p.err(
                &join(path, "rt_priority"),
                "only a \"fifo\" or \"rr\" task has an rt_priority",
            );
            None
        }
        (false, None) => Some(None),
    };
    let affinity = opt(o.get("affinity"), |v| {
        affinity(p, &join(path, "affinity"), v, cpus)
    });
    let slice_us = opt(o.get("slice_us"), |v| slice(p, &join(path, "slice_us"), v));
    // Up to the longest scenario, not this one's end: a group created after the end never
    // runs, as a workload's threads created one after another past a short run's end (the
    // expanded hackbench of a 50-ms scenario with 3 200 threads creates them until 64 ms).
    let start_ms = opt(o.get("start_ms"), |v| {
        p.num(&join(path, "start_ms"), v, 0.0, false, MAX_NS / 1e6)
    });
    let create_every_us = opt(o.get("create_every_us"), |v| {
        p.num(&join(path, "create_every_us"), v, 0.0, false, 1e9)
    });
    let kthread = fair_flag(p, path, o, "kthread", is_rt, "can be a kthread here");
    let cpu_clock = fair_flag(p, path, o, "cpu_clock", is_rt, "reads its CPU clock here");
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
        rt: rt?,
        create_every_us: create_every_us?,
        kthread: kthread?,
        cpu_clock: cpu_clock?,
    })
}

/// An optional field: absent is `Some(None)`, a bad value `None`.
pub(super) fn opt<T>(v: Option<&Value>, f: impl FnOnce(&Value) -> Option<T>) -> Option<Option<T>> {
    match v {
        None => Some(None),
        Some(v) => f(v).map(Some),
    }
}

/// A task's comm: 1–15 bytes, no '/' or ':'.
pub(super) fn comm(p: &mut P, path: &str, v: &Value) -> Option<String> {
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
    if let Some(c) = n.chars().find(|&c| is_control_or_bidi(c)) {
        p.err(
            path,
            format!(
                "must not contain the control character U+{:04X} (control and bidirectional-override characters would garble or reorder the tables)",
                c as u32
            ),
        );
        return None;
    }
    Some(n)
}

/// C0 and C1 controls, and the Unicode characters that override or isolate text direction.
fn is_control_or_bidi(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

pub(super) fn nice(p: &mut P, path: &str, v: &Value) -> Option<i64> {
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

pub(super) fn policy(p: &mut P, path: &str, v: &Value) -> Option<SchedPolicy> {
    match v.as_str() {
        Some("normal") => Some(SchedPolicy::Normal),
        Some("batch") => Some(SchedPolicy::Batch),
        Some("idle") => Some(SchedPolicy::Idle),
        Some("fifo" | "rr") => Some(SchedPolicy::Normal),
        Some(c @ "deadline") => {
            p.err(
                path,
                format!(
                    "\"{c}\" (SCHED_{}) is not modelled (allowed \"normal\", \"batch\", \"idle\", \"fifo\", \"rr\")",
                    c.to_uppercase()
                ),
            );
            None
        }
        _ => {
            p.err(
                path,
                format!(
                    "{} is not a policy (allowed \"normal\", \"batch\", \"idle\", \"fifo\", \"rr\")",
                    show(v)
                ),
            );
            None
        }
    }
}

pub(super) fn affinity(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<Vec<u64>> {
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

pub(super) fn slice(p: &mut P, path: &str, v: &Value) -> Option<Number> {
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
pub(super) fn time(p: &mut P, path: &str, v: &Value, unit: Unit, max_ns: f64) -> Option<Number> {
    p.num(path, v, 1.0 / unit.ns(), false, max_ns / unit.ns())
}

pub(super) fn program(p: &mut P, path: &str, v: &Value) -> Option<Vec<Step>> {
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
            Step::Send(_)
            | Step::Recv(_)
            | Step::Affinity(_)
            | Step::Complete(_)
            | Step::LockCpu(_)
            | Step::UnlockCpu(_)
            | Step::Request(..)
            | Step::Reply => false,
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
pub(super) fn terminates(s: &Step) -> bool {
    match s {
        Step::Exit | Step::RunForever => true,
        Step::Loop(_, body) => body.iter().any(terminates),
        _ => false,
    }
}

/// A non-empty list of steps (a program or a loop body) with nothing after an exit.
pub(super) fn step_list(p: &mut P, path: &str, v: &Value, empty: &str) -> Option<Vec<Step>> {
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

pub(super) fn loop_step(p: &mut P, path: &str, o: &Map<String, Value>) -> Option<Step> {
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

/// `{"send": "chan", "reply_to": "answers{i}"}`.
fn request_step(p: &mut P, path: &str, o: &Map<String, Value>) -> Option<Step> {
    p.unknown_keys(path, o, &["send", "reply_to"]);
    let name = |p: &mut P, key: &str, what: &str| -> Option<String> {
        let kp = join(path, key);
        let Some(v) = o.get(key) else {
            p.err(&kp, format!("missing (required with {what})"));
            return None;
        };
        let name = p.string(&kp, v, 64)?;
        if name.is_empty() {
            p.err(&kp, "channel name must not be empty");
            return None;
        }
        Some(name)
    };
    let to = name(p, "send", "reply_to: the channel the request is written to");
    let reply = name(p, "reply_to", "send: the channel its answer comes back on");
    Some(Step::Request(to?, reply?))
}

pub(super) fn step(p: &mut P, path: &str, v: &Value) -> Option<Step> {
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
    if o.contains_key("reply_to") {
        return request_step(p, path, o);
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
        "send" | "recv" | "complete" => {
            let name = p.string(&kp, val, 64)?;
            if name.is_empty() {
                p.err(&kp, "channel name must not be empty");
                return None;
            }
            Some(match k.as_str() {
                "send" => Step::Send(name),
                "recv" => Step::Recv(name),
                _ => Step::Complete(name),
            })
        }
        "lock_cpu" | "unlock_cpu" => {
            let name = p.string(&kp, val, 64)?;
            if name.is_empty() {
                p.err(&kp, "lock name must not be empty");
                return None;
            }
            Some(if k == "lock_cpu" {
                Step::LockCpu(name)
            } else {
                Step::UnlockCpu(name)
            })
        }
        "affinity" => {
            let mut cpus = affinity(p, &kp, val, None)?;
            cpus.sort_unstable();
            if cpus.windows(2).any(|w| w[1] != w[0] + 1) {
                p.err(
                    &kp,
                    "a step's affinity must be a contiguous range of CPUs, such as [0, 1, 2]",
                );
                return None;
            }
            Some(Step::Affinity(cpus))
        }
        "reply" => match val {
            Value::Bool(true) => Some(Step::Reply),
            _ => {
                p.err(&kp, format!("expected true, got {}", show(val)));
                None
            }
        },
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

pub(super) fn duration(p: &mut P, path: &str, v: &Value, unit: Unit) -> Option<Duration> {
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

/// Per-CPU lock arrays (`lock_cpu` / `unlock_cpu`): at most `MAX_LOCK_SETS` names in all, and
/// a program releases only arrays it takes (an `unlock_cpu` alone is most likely a typo).
pub(super) fn check_locks(p: &mut P, tasks: &[TaskGroup]) {
    fn walk<'a>(steps: &'a [Step], path: &str, out: &mut Vec<(bool, &'a str, String)>) {
        for (i, s) in steps.iter().enumerate() {
            match s {
                Step::LockCpu(l) => out.push((true, l, format!("{path}[{i}].lock_cpu"))),
                Step::UnlockCpu(l) => out.push((false, l, format!("{path}[{i}].unlock_cpu"))),
                Step::Loop(_, body) => walk(body, &format!("{path}[{i}].steps"), out),
                _ => {}
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for (g, t) in tasks.iter().enumerate() {
        let mut uses = vec![];
        walk(&t.program, &format!("tasks[{g}].program"), &mut uses);
        for (_, name, path) in uses.iter().filter(|(lock, ..)| !lock) {
            if !uses.iter().any(|(lock, n, _)| *lock && n == name) {
                p.err(
                    path,
                    format!("unlock_cpu \"{name}\" in a program that never takes it (add {{\"lock_cpu\": \"{name}\"}} before it)"),
                );
            }
        }
        for (_, name, path) in uses {
            if names.insert(name.to_string()) && names.len() > schedlab_sim::MAX_LOCK_SETS as usize
            {
                p.err(
                    &path,
                    format!(
                        "more than {} per-CPU lock names in the scenario",
                        schedlab_sim::MAX_LOCK_SETS
                    ),
                );
                return;
            }
        }
    }
}

/// How a step uses a channel, for [`check_channels`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Write,
    Read,
    /// Written by a request (`{"send": …, "reply_to": …}`): nothing else may write it.
    Request,
}

/// Every channel that is read must be written somewhere, and the other way round: a typo in a
/// channel name would otherwise leave a task blocked forever.
/// Checks that every channel read is written and every channel written is read, and that a
/// channel requests are written to is written no other way; returns the concrete names of all
/// channels the tasks use, and those written by requests with the path of one such step.
/// `irq_work` are the interrupts' workqueue channels (`"irq"`'s `"queue_work"`, with their
/// paths): written by interrupts only, and each must be read by a task (its kworker).
pub(super) fn check_channels(
    p: &mut P,
    tasks: &[TaskGroup],
    irq_work: &[(String, String)],
) -> (
    std::collections::BTreeSet<String>,
    std::collections::BTreeMap<String, String>,
) {
    use std::collections::{BTreeMap, BTreeSet};
    /// Sends and reads of `steps` (inside loops too) with their paths.
    fn walk<'a>(steps: &'a [Step], path: &str, out: &mut Vec<(Use, &'a str, String)>) {
        for (i, s) in steps.iter().enumerate() {
            match s {
                Step::Send(c) => out.push((Use::Write, c, format!("{path}[{i}].send"))),
                // A kworker's completions stand for the writes to its workqueue, which the
                // device makes.
                Step::Complete(c) => out.push((Use::Write, c, format!("{path}[{i}].complete"))),
                Step::Recv(c) => out.push((Use::Read, c, format!("{path}[{i}].recv"))),
                // A request's reply channel is written by the reader's reply.
                Step::Request(c, r) => {
                    out.push((Use::Request, c, format!("{path}[{i}].send")));
                    out.push((Use::Write, r, format!("{path}[{i}].reply_to")));
                }
                Step::Loop(_, body) => walk(body, &format!("{path}[{i}].steps"), out),
                _ => {}
            }
        }
    }
    // Concrete channel names, with `{i}` expanded for every instance of its group.
    let mut sent = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut requested: BTreeMap<String, String> = BTreeMap::new();
    let mut uses: Vec<(bool, String, String)> = vec![];
    for (g, t) in tasks.iter().enumerate() {
        let mut steps = vec![];
        walk(&t.program, &format!("tasks[{g}].program"), &mut steps);
        for (how, c, path) in steps {
            let instances = if c.contains("{i}") { t.count } else { 1 };
            for n in 0..instances {
                let name = c.replace("{i}", &n.to_string());
                match how {
                    Use::Read => {
                        read.insert(name.clone());
                    }
                    Use::Request => {
                        requested.entry(name.clone()).or_insert(path.clone());
                        sent.insert(name.clone());
                    }
                    Use::Write => {
                        sent.insert(name.clone());
                    }
                }
                if how != Use::Request {
                    uses.push((how == Use::Write, name, path.clone()));
                }
            }
        }
    }
    for (name, by) in &requested {
        let other = uses
            .iter()
            .find(|(w, n, _)| *w && n == name)
            .map(|(_, _, path)| path.as_str());
        if let Some(other) = other {
            p.err(
                other,
                format!("channel \"{name}\" carries requests (written with reply_to by {by}); nothing else may write it, as each of its messages names where its answer goes"),
            );
        }
    }
    for (name, path) in &requested {
        uses.push((true, name.clone(), path.clone()));
    }
    for (name, path) in irq_work {
        if !read.contains(name) {
            p.err(
                path,
                format!("no task reads workqueue channel \"{name}\" (its kworker, e.g. {{\"recv\": \"{name}\"}})"),
            );
        }
        if let Some((_, _, by)) = uses.iter().find(|(s, n, _)| *s && n == name) {
            p.err(
                path,
                format!("channel \"{name}\" is also written by {by}; an interrupt's workqueue channel carries only its work items"),
            );
        }
        sent.insert(name.clone());
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
    (sent.union(&read).cloned().collect(), requested)
}
