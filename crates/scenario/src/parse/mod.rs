//! Reading a scenario document: structure, types, ranges and cross-field rules, with every
//! error tied to its JSON path. Nothing here panics, whatever the input.
//!
//! This file holds the error collector ([`P`]) and the document's top level; `program.rs` reads
//! task groups and their steps, `workloads.rs` the benchmark generators' parameters.

use schedlab_sim::{limits, Variant};
use serde_json::{Map, Number, Value};

use crate::workload::Workload;
use crate::{
    CacheSetting, HousekeepingSetting, IrqSpec, Scenario, ScenarioError, ScenarioErrors, Step,
    TaskGroup, Topology, FORMAT_VERSION, MAX_TOTAL_OPS, MAX_VARIANTS,
};

pub(crate) mod cgroups;
mod program;
mod workloads;

use program::{check_channels, task_group};
use workloads::workload;

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
    "machine",
    "idle_wakeup_ns",
    "idle_states",
    "switch_cost_ns",
    "wakeup_cost_ns",
    "ipi_cost_ns",
    "local_wakeup_ns",
    "cost_spread_ppm",
    "launcher_wakee_flips",
    "cache",
    "housekeeping",
    "variants",
    "topology",
    "tasks",
    "workloads",
    "channels",
    "irq",
    "autogroup",
    "cgroups",
    "sched_rt_runtime_us",
    "sched_rt_period_us",
    "fair_server",
];
pub(super) const TASK_KEYS: &[&str] = &[
    "name",
    "count",
    "nice",
    "policy",
    "affinity",
    "slice_us",
    "start_ms",
    "create_every_us",
    "kthread",
    "cpu_clock",
    "program",
    "cgroup",
    "session",
    "autogroup_nice",
    "rt_priority",
];
pub(super) const STEP_KEYS: &[&str] = &[
    "run",
    "affinity",
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
    "complete",
    "lock_cpu",
    "unlock_cpu",
    "reply",
];
pub(super) const KINDS: &str = "hackbench, schbench, pipe_pair, massive_intr, periodic, fio_like";
/// One hour, the longest duration anywhere in a scenario.
pub(super) const MAX_NS: f64 = 3.6e12;

pub(super) struct P {
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

    /// An optional `true`/`false` key: `default` when absent.
    fn flag(&mut self, path: &str, v: Option<&Value>, default: bool) -> Option<bool> {
        match v {
            None => Some(default),
            Some(Value::Bool(b)) => Some(*b),
            Some(v) => {
                self.err(path, format!("expected true or false, got {}", show(v)));
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

pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A short description of a JSON value for messages.
pub(super) fn show(v: &Value) -> String {
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
    match crate::strict::parse_json(text) {
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
    let machine = match o.get("machine") {
        Some(v) => p.string("machine", v, 64).and_then(|name| {
            if schedlab_sim::machine(&name).is_some() {
                Some(Some(name))
            } else {
                let known: Vec<&str> = schedlab_sim::MACHINES.iter().map(|m| m.name).collect();
                p.err(
                    "machine",
                    format!(
                        "\"{name}\" is not a measured machine (known: {})",
                        known.join(", ")
                    ),
                );
                None
            }
        }),
        None => Some(None),
    };
    let idle_wakeup_ns = match o.get("idle_wakeup_ns") {
        Some(v) => p
            .uint("idle_wakeup_ns", v, 0, limits::MAX_IDLE_WAKEUP_NS)
            .map(Some),
        None => Some(None),
    };
    let idle_states = match o.get("idle_states") {
        Some(v) => idle_states(&mut p, v).map(Some),
        None => Some(None),
    };
    let switch_cost_ns = match o.get("switch_cost_ns") {
        Some(v) => p
            .uint("switch_cost_ns", v, 0, limits::MAX_SWITCH_COST_NS)
            .map(Some),
        None => Some(None),
    };
    let wakeup_cost_ns = match o.get("wakeup_cost_ns") {
        Some(v) => p
            .uint("wakeup_cost_ns", v, 0, limits::MAX_SWITCH_COST_NS)
            .map(Some),
        None => Some(None),
    };
    let ipi_cost_ns = match o.get("ipi_cost_ns") {
        Some(v) => p
            .uint("ipi_cost_ns", v, 0, limits::MAX_SWITCH_COST_NS)
            .map(Some),
        None => Some(None),
    };
    let local_wakeup_ns = match o.get("local_wakeup_ns") {
        Some(v) => p
            .uint("local_wakeup_ns", v, 0, limits::MAX_SWITCH_COST_NS)
            .map(Some),
        None => Some(None),
    };
    let cost_spread_ppm = match o.get("cost_spread_ppm") {
        Some(v) => p
            .uint("cost_spread_ppm", v, 0, limits::MAX_COST_SPREAD_PPM)
            .map(|x| Some(x as u32)),
        None => Some(None),
    };
    let launcher_wakee_flips = match o.get("launcher_wakee_flips") {
        Some(v) => p
            .uint(
                "launcher_wakee_flips",
                v,
                0,
                limits::MAX_LAUNCHER_WAKEE_FLIPS,
            )
            .map(|x| Some(x as u32)),
        None => Some(None),
    };
    let cache = match o.get("cache") {
        Some(v) => cache(&mut p, v).map(Some),
        None => Some(None),
    };
    let housekeeping = match o.get("housekeeping") {
        Some(v) => housekeeping(&mut p, v).map(Some),
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
                .map(|(i, t)| task_group(&mut p, &format!("tasks[{i}]"), t, cpus))
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
    let cgroups = cgroups::cgroups(&mut p, &o);
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
    // The interrupts' workqueue channels, as written (`irq_source` checks the rest).
    let irq_work: Vec<(String, String)> = match o.get("irq") {
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .filter_map(|(i, q)| {
                let w = q.get("queue_work")?.as_str()?;
                Some((w.to_string(), format!("irq[{i}].queue_work")))
            })
            .collect(),
        _ => vec![],
    };
    // The concrete channels the tasks use, once their programs have been checked.
    let mut used_channels = None;
    let mut requested = std::collections::BTreeMap::new();
    if let (Some(ts), Some(ws), Some(cpus)) = (&tasks, &workloads, cpus) {
        let user: u64 = ts.iter().map(|t| t.count).sum();
        let generated = ws
            .iter()
            .fold(0u64, |n, w| n.saturating_add(w.task_count(cpus)));
        // The housekeeping's pinned task per CPU counts too. Without an explicit setting it
        // is counted on any scenario of more than one CPU, an upper bound: `sim_config` leaves
        // it out where every task is pinned to one CPU or tasks are in groups, which the
        // parser does not work out here, so a scenario within `cpus` tasks of the limit may be
        // refused although it would run without housekeeping.
        let hk = match &housekeeping {
            Some(Some(HousekeepingSetting::Custom(h))) => h.runs_per_s > 0,
            Some(Some(HousekeepingSetting::Off)) => false,
            _ => cpus > 1,
        };
        let housekeepers = if hk { cpus } else { 0 };
        let total = user.saturating_add(generated).saturating_add(housekeepers);
        if total > limits::MAX_TASKS as u64 {
            let hk_part = if hk {
                format!(", {housekeepers} housekeeping")
            } else {
                String::new()
            };
            let (path, what) = if ws.is_empty() {
                (
                    "tasks",
                    if hk {
                        format!(" ({user} from tasks{hk_part})")
                    } else {
                        String::new()
                    },
                )
            } else {
                (
                    "workloads",
                    format!(" ({user} from tasks, {generated} from workloads{hk_part})"),
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
                let (used, requests) = check_channels(&mut p, &all, &irq_work);
                used_channels = Some(used);
                requested = requests;
                program::check_locks(&mut p, &all);
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
                p.unknown_keys(
                    &path,
                    co,
                    &[
                        "name",
                        "capacity",
                        "wake_writer_at",
                        "futex",
                        "poll",
                        "device",
                        "wait_ns",
                        "page_msgs",
                    ],
                );
                let name = match co.get("name") {
                    Some(v) => p.string(&join(&path, "name"), v, 64),
                    None => {
                        p.err(&join(&path, "name"), "missing (required)");
                        None
                    }
                };
                // Without a capacity the channel is unbounded (a listing that only sets
                // "wait_ns").
                let capacity = match co.get("capacity") {
                    Some(v) => p.uint(&join(&path, "capacity"), v, 1, 1_000_000),
                    None => Some(0),
                };
                let wake_writer_at = match (co.get("wake_writer_at"), capacity) {
                    (None, _) => Some(None),
                    (Some(_), Some(0)) => {
                        p.err(
                            &join(&path, "wake_writer_at"),
                            "an unbounded channel (no \"capacity\") never fills, so no writer waits: give it a capacity",
                        );
                        None
                    }
                    (Some(v), Some(cap)) => p
                        .uint(&join(&path, "wake_writer_at"), v, 0, cap - 1)
                        .map(Some),
                    (Some(_), None) => None,
                };
                let futex = p.flag(&join(&path, "futex"), co.get("futex"), false);
                let wait_ns = match co.get("wait_ns") {
                    None => Some(0),
                    Some(v) => p.uint(&join(&path, "wait_ns"), v, 0, 1_000_000_000),
                };
                let poll = p.flag(&join(&path, "poll"), co.get("poll"), false);
                let page_msgs = match (co.get("page_msgs"), capacity) {
                    (None, _) => Some(0),
                    (Some(v), Some(cap)) if cap > 0 => {
                        let n = p.uint(&join(&path, "page_msgs"), v, 1, cap);
                        if n.is_some_and(|n| cap % n != 0) {
                            p.err(
                                &join(&path, "page_msgs"),
                                format!("a pipe's capacity is a whole number of pages: {cap} is not a multiple of it"),
                            );
                        }
                        if co.contains_key("wake_writer_at")
                            || futex == Some(true)
                            || co.contains_key("device")
                            || co.contains_key("poll")
                        {
                            p.err(
                                &join(&path, "page_msgs"),
                                "pages are a plain pipe's: leave out \"wake_writer_at\", \"futex\", \"poll\" and \"device\"",
                            );
                        }
                        n
                    }
                    (Some(_), Some(_)) => {
                        p.err(
                            &join(&path, "page_msgs"),
                            "an unbounded channel (no \"capacity\") has no pages: give it a capacity",
                        );
                        None
                    }
                    (Some(_), None) => None,
                };
                let device = match co.get("device") {
                    None => Some(None),
                    Some(v) => device(&mut p, &join(&path, "device"), v, cpus).map(Some),
                };
                if poll == Some(true) && co.contains_key("wake_writer_at") {
                    p.err(
                        &join(&path, "poll"),
                        "a polled channel's reads take nothing, so no read wakes a writer: leave out \"wake_writer_at\"",
                    );
                }
                if poll == Some(true) && (futex == Some(true) || co.contains_key("device")) {
                    p.err(
                        &join(&path, "poll"),
                        format!(
                            "a polled channel is a pipe; this one is also {}",
                            if futex == Some(true) {
                                "a futex word (\"futex\": true)"
                            } else {
                                "a device (\"device\")"
                            }
                        ),
                    );
                }
                if let (
                    Some(name),
                    Some(capacity),
                    Some(wake_writer_at),
                    Some(futex),
                    Some(poll),
                    Some(device),
                    Some(wait_ns),
                    Some(page_msgs),
                ) = (
                    name,
                    capacity,
                    wake_writer_at,
                    futex,
                    poll,
                    device,
                    wait_ns,
                    page_msgs,
                ) {
                    let spec = crate::ChannelSpec {
                        name: name.clone(),
                        capacity,
                        wake_writer_at,
                        futex,
                        poll,
                        device: device.clone(),
                        wait_ns,
                        page_msgs,
                    };
                    let unused = used_channels
                        .as_ref()
                        .is_some_and(|used| !used.iter().any(|u| spec.matches(u)));
                    if unused {
                        p.err(
                            &join(&path, "name"),
                            format!("no task sends to or reads channel \"{name}\" (a misspelt name would leave the real channel unbounded)"),
                        );
                    } else if out.iter().any(|c| c.name == name) {
                        p.err(
                            &join(&path, "name"),
                            format!("channel \"{name}\" is listed twice"),
                        );
                    } else if name.is_empty() {
                        p.err(&join(&path, "name"), "must not be empty");
                    } else {
                        out.push(spec);
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
    let irq = match o.get("irq") {
        None => Some(vec![]),
        Some(Value::Array(a)) if a.len() > MAX_IRQ_SOURCES => {
            p.err(
                "irq",
                format!("{} sources; at most {MAX_IRQ_SOURCES} allowed", a.len()),
            );
            None
        }
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, q)| irq_source(&mut p, &format!("irq[{i}]"), q, cpus))
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Option<Vec<_>>>(),
        Some(v) => {
            p.err(
                "irq",
                format!(
                    "expected an array of {{\"cpu\", \"every_ns\" or \"mean_interval_ns\", \"cost_ns\"}} objects, got {}",
                    show(v)
                ),
            );
            None
        }
    };
    // A device's workqueue channels are plain ones too: a polled pipe's read takes no work item.
    if let Some(chans) = &channels {
        for (i, c) in chans.iter().enumerate() {
            let Some(w) = c.device.as_ref().and_then(|d| d.workqueue.as_ref()) else {
                continue;
            };
            for k in 0..cpus.unwrap_or(0) {
                let name = w.replace("{cpu}", &k.to_string());
                if chans.iter().any(|q| q.poll && q.matches(&name)) {
                    p.err(
                        &format!("channels[{i}].device.workqueue"),
                        format!(
                            "channel \"{name}\" is listed in channels as a polled pipe; a workqueue channel is a plain one"
                        ),
                    );
                    break;
                }
            }
        }
    }
    // A channel requests are written to is a pipe or a futex word, and no device's workqueue.
    if let Some(chans) = &channels {
        for (name, path) in &requested {
            if let Some(c) = chans
                .iter()
                .find(|c| c.matches(name) && (c.poll || c.device.is_some()))
            {
                p.err(
                    path,
                    format!(
                        "channel \"{name}\" is listed in channels as {}; a request's channel is a pipe or a futex word",
                        if c.poll { "a polled pipe" } else { "a device" }
                    ),
                );
            }
            let workqueue = chans
                .iter()
                .filter_map(|c| c.device.as_ref()?.workqueue.as_ref());
            for w in workqueue {
                if (0..cpus.unwrap_or(0)).any(|k| w.replace("{cpu}", &k.to_string()) == *name) {
                    p.err(
                        path,
                        format!("channel \"{name}\" is a device's workqueue; a request's channel carries only requests"),
                    );
                }
            }
        }
    }
    // An interrupt's workqueue channel is a plain one: not a device's, not a futex word.
    if let (Some(irq), Some(chans)) = (&irq, &channels) {
        for (i, q) in irq.iter().enumerate() {
            let Some(w) = &q.queue_work else { continue };
            if let Some(c) = chans
                .iter()
                .find(|c| c.matches(w) && (c.device.is_some() || c.futex || c.poll))
            {
                p.err(
                    &format!("irq[{i}].queue_work"),
                    format!(
                        "channel \"{w}\" is listed in channels as {}; a workqueue channel is a plain one",
                        if c.futex {
                            "a futex"
                        } else if c.poll {
                            "a polled pipe"
                        } else {
                            "a device"
                        }
                    ),
                );
            }
        }
    }
    let sched_rt_period_us = match o.get("sched_rt_period_us") {
        Some(v) => p.uint("sched_rt_period_us", v, 1, 1_000_000_000).map(Some),
        None => Some(None),
    };
    let sched_rt_runtime_us = match o.get("sched_rt_runtime_us") {
        Some(v) => {
            let period = sched_rt_period_us.flatten().unwrap_or(1_000_000);
            match v.as_i64() {
                Some(-1) => Some(Some(-1)),
                Some(n) if (0..=period as i64).contains(&n) => Some(Some(n)),
                _ => {
                    p.err(
                        "sched_rt_runtime_us",
                        format!("{} is out of range (allowed -1 = no throttling, or 0..={period}: at most sched_rt_period_us)", show(v)),
                    );
                    None
                }
            }
        }
        None => Some(None),
    };
    let fair_server = match o.get("fair_server") {
        None => Some(None),
        Some(Value::Object(f)) => {
            p.unknown_keys("fair_server", f, &["runtime", "period"]);
            let period = f.get("period").map_or(Some(1_000_000_000), |v| {
                p.uint("fair_server.period", v, 1, 10_000_000_000)
            });
            let runtime = f.get("runtime").map_or(Some(50_000_000), |v| {
                p.uint(
                    "fair_server.runtime",
                    v,
                    0,
                    period.unwrap_or(10_000_000_000),
                )
            });
            runtime.zip(period).map(Some)
        }
        Some(v) => {
            p.err(
                "fair_server",
                format!(
                    "expected {{\"runtime\": ns, \"period\": ns}}, got {}",
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
            machine: machine?,
            idle_wakeup_ns: idle_wakeup_ns?,
            idle_states: idle_states?,
            switch_cost_ns: switch_cost_ns?,
            wakeup_cost_ns: wakeup_cost_ns?,
            ipi_cost_ns: ipi_cost_ns?,
            local_wakeup_ns: local_wakeup_ns?,
            cost_spread_ppm: cost_spread_ppm?,
            launcher_wakee_flips: launcher_wakee_flips?,
            cache: cache?,
            housekeeping: housekeeping?,
            variants: variants?,
            topology: topology?,
            tasks: tasks?,
            workloads: workloads?,
            irq: irq?,
            cgroups: cgroups?,
            sched_rt_runtime_us: sched_rt_runtime_us?,
            sched_rt_period_us: sched_rt_period_us?,
            fair_server: fair_server?,
        })
    })();
    scenario.map_or_else(|| fail("", "the scenario is incomplete".into()), Ok)
}

/// Most interrupt-load sources in one scenario.
const MAX_IRQ_SOURCES: usize = 1024;

/// One interrupt-load source: `{"cpu", "every_ns" | "mean_interval_ns", "cost_ns"}`.
/// A channel's `"device"`: `{"latency_us": d, "hardirq_ns": n, "irq_cpu": c, "rq_affinity":
/// 0|1|2, "workqueue": "name{cpu}"}`.
fn device(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<crate::DeviceSpec> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "expected {{\"latency_us\": …, \"hardirq_ns\": …}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    p.unknown_keys(
        path,
        o,
        &[
            "latency_us",
            "hardirq_ns",
            "irq_cpu",
            "rq_affinity",
            "workqueue",
        ],
    );
    let latency_us = match o.get("latency_us") {
        Some(v) => program::duration(p, &join(path, "latency_us"), v, crate::Unit::Us),
        None => {
            p.err(&join(path, "latency_us"), "missing (required)");
            None
        }
    };
    let hardirq_ns = match o.get("hardirq_ns") {
        Some(v) => p.uint(&join(path, "hardirq_ns"), v, 0, 1_000_000),
        None => Some(0),
    };
    let irq_cpu = match (o.get("irq_cpu"), cpus) {
        (None, _) => Some(None),
        (Some(v), Some(n)) => p.uint(&join(path, "irq_cpu"), v, 0, n.max(1) - 1).map(Some),
        (Some(_), None) => None,
    };
    let rq_affinity = match o.get("rq_affinity") {
        Some(v) => p.uint(&join(path, "rq_affinity"), v, 0, 2),
        None => Some(1),
    };
    let workqueue = match o.get("workqueue") {
        None => Some(None),
        Some(v) => {
            let kp = join(path, "workqueue");
            match p.string(&kp, v, 64) {
                Some(w) if w.contains("{cpu}") && !w.contains("{i}") => Some(Some(w)),
                Some(_) => {
                    p.err(
                        &kp,
                        "a workqueue names one channel per CPU: it must contain {cpu} (and not {i})",
                    );
                    None
                }
                None => None,
            }
        }
    };
    Some(crate::DeviceSpec {
        latency_us: latency_us?,
        hardirq_ns: hardirq_ns?,
        irq_cpu: irq_cpu?,
        rq_affinity: rq_affinity?,
        workqueue: workqueue?,
    })
}

fn irq_source(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<IrqSpec> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "expected an object such as {{\"cpu\": 0, \"every_ns\": 1000000, \"cost_ns\": 100000}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    p.unknown_keys(
        path,
        o,
        &[
            "cpu",
            "every_ns",
            "mean_interval_ns",
            "cost_ns",
            "queue_work",
        ],
    );
    let queue_work = match o.get("queue_work") {
        None => Some(None),
        Some(v) => p.string(&format!("{path}.queue_work"), v, 64).map(Some),
    };
    let max_cpu = cpus.unwrap_or(limits::MAX_CPUS as u64).saturating_sub(1);
    let cpu = match o.get("cpu") {
        Some(v) => p.uint(&format!("{path}.cpu"), v, 0, max_cpu),
        None => {
            p.err(&format!("{path}.cpu"), "missing (required)");
            None
        }
    };
    let cost = match o.get("cost_ns") {
        Some(v) => p.uint(&format!("{path}.cost_ns"), v, 1, limits::MAX_DURATION_NS),
        None => {
            p.err(&format!("{path}.cost_ns"), "missing (required)");
            None
        }
    };
    let every = o
        .get("every_ns")
        .map(|v| p.uint(&format!("{path}.every_ns"), v, 1, limits::MAX_DURATION_NS));
    let mean = o.get("mean_interval_ns").map(|v| {
        p.uint(
            &format!("{path}.mean_interval_ns"),
            v,
            1,
            limits::MAX_DURATION_NS,
        )
    });
    let (every, mean) = match (every, mean) {
        (Some(e), None) => (Some(e?), None),
        (None, Some(m)) => (None, Some(m?)),
        _ => {
            p.err(
                path,
                "give exactly one of \"every_ns\" (periodic) and \"mean_interval_ns\" (Poisson)",
            );
            return None;
        }
    };
    let (cpu, cost, queue_work) = (cpu?, cost?, queue_work?);
    if queue_work
        .as_ref()
        .is_some_and(|w| w.is_empty() || w.contains('{'))
    {
        p.err(
            &format!("{path}.queue_work"),
            "must name one channel (no {i} or {cpu}: give each CPU's interrupt its own entry)",
        );
        return None;
    }
    if let Some(e) = every {
        if cost >= e {
            p.err(
                &format!("{path}.cost_ns"),
                format!(
                    "{cost} is not below every_ns ({e}): the handlers would take the whole CPU"
                ),
            );
            return None;
        }
    }
    Some(IrqSpec {
        cpu,
        every_ns: every,
        mean_interval_ns: mean,
        cost_ns: cost,
        queue_work,
    })
}

const CACHE_KEYS: &[&str] = &["refill_ns", "migrate_ns", "hot_ns", "cold_ns"];

/// `"cache"`: `"measured"`, `"off"`, or the four parameters, all of them.
fn cache(p: &mut P, v: &Value) -> Option<CacheSetting> {
    match v {
        Value::String(s) if s == "measured" => Some(CacheSetting::Measured),
        Value::String(s) if s == "off" => Some(CacheSetting::Off),
        Value::Object(o) => {
            p.unknown_keys("cache", o, CACHE_KEYS);
            let mut get = |key: &str, hi: u64| match o.get(key) {
                Some(v) => p.uint(&join("cache", key), v, 0, hi),
                None => {
                    p.err(
                        &join("cache", key),
                        format!(
                            "missing; \"cache\" as an object needs all of: {}",
                            CACHE_KEYS.join(", ")
                        ),
                    );
                    None
                }
            };
            let refill_ns = get("refill_ns", limits::MAX_CACHE_COST_NS);
            let migrate_ns = get("migrate_ns", limits::MAX_CACHE_COST_NS);
            let hot_ns = get("hot_ns", limits::MAX_CACHE_FOREIGN_NS);
            let cold_ns = get("cold_ns", limits::MAX_CACHE_FOREIGN_NS);
            let (refill_ns, migrate_ns, hot_ns, cold_ns) =
                (refill_ns?, migrate_ns?, hot_ns?, cold_ns?);
            if hot_ns >= cold_ns {
                p.err(
                    "cache.cold_ns",
                    format!("{cold_ns} must be above hot_ns ({hot_ns}): the cost ramps from hot_ns to cold_ns"),
                );
                return None;
            }
            Some(CacheSetting::Custom(schedlab_sim::CacheCost {
                refill_ns,
                migrate_ns,
                hot_ns,
                cold_ns,
            }))
        }
        v => {
            p.err(
                "cache",
                format!(
                    "expected \"measured\", \"off\" or {{\"refill_ns\", \"migrate_ns\", \"hot_ns\", \"cold_ns\"}}, got {}",
                    show(v)
                ),
            );
            None
        }
    }
}

const HOUSEKEEPING_KEYS: &[&str] = &["runs_per_s", "run_us"];

/// `"housekeeping"`: `"off"` or `{"runs_per_s": N, "run_us": M}`, both.
fn housekeeping(p: &mut P, v: &Value) -> Option<HousekeepingSetting> {
    match v {
        Value::String(s) if s == "off" => Some(HousekeepingSetting::Off),
        Value::Object(o) => {
            p.unknown_keys("housekeeping", o, HOUSEKEEPING_KEYS);
            let mut get = |key: &str, hi: u64| match o.get(key) {
                Some(v) => p.uint(&join("housekeeping", key), v, 0, hi),
                None => {
                    p.err(
                        &join("housekeeping", key),
                        format!(
                            "missing; \"housekeeping\" as an object needs both of: {}",
                            HOUSEKEEPING_KEYS.join(", ")
                        ),
                    );
                    None
                }
            };
            let runs_per_s = get("runs_per_s", limits::MAX_HOUSEKEEPING_RUNS_PER_S);
            let run_us = get("run_us", limits::MAX_HOUSEKEEPING_RUN_NS / 1000);
            Some(HousekeepingSetting::Custom(schedlab_sim::Housekeeping {
                runs_per_s: runs_per_s? as u32,
                run_ns: run_us? * 1000,
            }))
        }
        v => {
            p.err(
                "housekeeping",
                format!(
                    "expected \"off\" or {{\"runs_per_s\", \"run_us\"}}, got {}",
                    show(v)
                ),
            );
            None
        }
    }
}

/// `"idle_states": [{"after_ns": N, "wakeup_ns": M}, ...]`: at most
/// `limits::MAX_IDLE_STATES`, in increasing order of `after_ns`.
fn idle_states(p: &mut P, v: &Value) -> Option<Vec<schedlab_sim::IdleState>> {
    let Value::Array(a) = v else {
        p.err(
            "idle_states",
            format!(
                "expected a list of {{\"after_ns\", \"wakeup_ns\"}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    if a.len() > limits::MAX_IDLE_STATES {
        p.err(
            "idle_states",
            format!(
                "{} states; at most {} allowed",
                a.len(),
                limits::MAX_IDLE_STATES
            ),
        );
        return None;
    }
    let mut out = Vec::with_capacity(a.len());
    let mut ok = true;
    for (i, s) in a.iter().enumerate() {
        let path = format!("idle_states[{i}]");
        let Value::Object(o) = s else {
            p.err(
                &path,
                format!("expected {{\"after_ns\", \"wakeup_ns\"}}, got {}", show(s)),
            );
            ok = false;
            continue;
        };
        p.unknown_keys(&path, o, &["after_ns", "wakeup_ns"]);
        let mut get = |key: &str, lo: u64, hi: u64| match o.get(key) {
            Some(v) => p.uint(&join(&path, key), v, lo, hi),
            None => {
                p.err(&join(&path, key), "missing");
                None
            }
        };
        let after_ns = get("after_ns", 1, limits::MAX_DURATION_NS);
        let wakeup_ns = get("wakeup_ns", 0, limits::MAX_IDLE_WAKEUP_NS);
        match (after_ns, wakeup_ns) {
            (Some(after_ns), Some(wakeup_ns)) => {
                if let Some(prev) = out.last().map(|x: &schedlab_sim::IdleState| x.after_ns) {
                    if after_ns <= prev {
                        p.err(
                            &join(&path, "after_ns"),
                            format!("{after_ns} must be above the previous state's ({prev}): states deepen with the time idle"),
                        );
                        ok = false;
                    }
                }
                out.push(schedlab_sim::IdleState {
                    after_ns,
                    wakeup_ns,
                });
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
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
