//! Task groups in a scenario: the top-level `"cgroups"` list and `"autogroup"` switch, and each
//! task group's `"cgroup"`, `"session"` and `"autogroup_nice"`, with the kernel's file names as
//! keys (`cpu.weight`, `cpu.weight.nice`, the v1 alias `cpu.shares`, `cpu.idle`, `cpu.max` and
//! `cpu.max.burst` with their v1 aliases `cpu.cfs_quota_us`, `cpu.cfs_period_us`,
//! `cpu.cfs_burst_us`).
//!
//! ```json
//! "cgroups": [{"path": "/db", "cpu.weight": 300}, {"path": "/batch", "cpu.idle": 1},
//!             {"path": "/ct", "cpu.max": "50000 100000"}],
//! "tasks": [{"name": "pg", "cgroup": "/db", "program": [{"run": "forever"}]}]
//! ```

use serde_json::{Map, Value};

use schedlab_sim::cgroup::{
    Bandwidth, Group, MAX_CFS_PERIOD_NS, MAX_CFS_RUNTIME_NS, MAX_SHARES, MIN_CFS_QUOTA_NS,
    MIN_SHARES,
};
use schedlab_sim::weight::LoadWeight;

use super::{join, show, P};

/// Keys of one `"cgroups"` entry.
const CGROUP_KEYS: &[&str] = &[
    "path",
    "cpu.weight",
    "cpu.weight.nice",
    "cpu.shares",
    "cpu.idle",
    "cpu.max",
    "cpu.max.burst",
    "cpu.cfs_quota_us",
    "cpu.cfs_period_us",
    "cpu.cfs_burst_us",
];
/// The default period of `cpu.max` and `cpu.cfs_period_us`: 100 ms.
pub const DEFAULT_PERIOD_US: u64 = 100_000;
const MIN_US: u64 = MIN_CFS_QUOTA_NS / 1_000;
const MAX_PERIOD_US: u64 = MAX_CFS_PERIOD_NS / 1_000;
const MAX_QUOTA_US: u64 = MAX_CFS_RUNTIME_NS / 1_000;
/// Longest cgroup path accepted.
const MAX_PATH: usize = 200;
/// Most cgroups in one scenario.
pub const MAX_CGROUPS: usize = 256;
/// Largest session number.
const MAX_SESSION: u64 = 1_000_000;

/// How a cgroup's weight was written (one of the three files, or none: the default 100).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CgroupWeight {
    /// Not set: `cpu.weight` 100.
    Default,
    /// `cpu.weight` 1..=10000 (100 = 1024 shares).
    Weight(u64),
    /// `cpu.weight.nice` -20..=19 (the nice table's weight).
    Nice(i64),
    /// `cpu.shares` (cgroup v1) 2..=262144.
    Shares(u64),
}

impl CgroupWeight {
    /// `tg->shares` in user units: `sched_weight_from_cgroup` rounds weight·1024/100 to the
    /// closest; `cpu.weight.nice` takes the nice table's weight; `cpu.shares` is the value.
    pub fn shares(self) -> u64 {
        match self {
            CgroupWeight::Default => 1024,
            CgroupWeight::Weight(w) => (w * 1024 + 50) / 100,
            CgroupWeight::Nice(n) => LoadWeight::from_nice(n as i32).user(),
            CgroupWeight::Shares(s) => s,
        }
    }
}

/// A cgroup's bandwidth limit as written: `cpu.max` ("QUOTA PERIOD", "max PERIOD", or one of
/// them alone) with `cpu.max.burst`, or the cgroup v1 files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuMax {
    /// QUOTA in µs; `None`: "max" (`cpu.cfs_quota_us` -1), no limit.
    pub quota_us: Option<u64>,
    /// PERIOD in µs (default 100000).
    pub period_us: u64,
    /// `cpu.max.burst` in µs (default 0).
    pub burst_us: u64,
    /// Written with the cgroup v1 names (`cpu.cfs_quota_us`, `cpu.cfs_period_us`,
    /// `cpu.cfs_burst_us`).
    pub v1: bool,
}

impl CpuMax {
    /// The engine's limit (`None` for "max").
    pub fn bandwidth(&self) -> Option<Bandwidth> {
        self.quota_us.map(|q| Bandwidth {
            quota_ns: q * 1_000,
            period_ns: self.period_us * 1_000,
            burst_ns: self.burst_us * 1_000,
        })
    }
}

/// One cgroup as written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CgroupSpec {
    /// `/a/b`: its parent `/a` must be listed before it.
    pub path: String,
    /// Its weight.
    pub weight: CgroupWeight,
    /// `cpu.idle = 1`.
    pub idle: bool,
    /// Its bandwidth limit, if any key of it was written.
    #[cfg_attr(feature = "serde", serde(default))]
    pub max: Option<CpuMax>,
}

/// Where one task group's tasks run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Membership {
    /// `"cgroup"`: a listed cgroup's path.
    pub cgroup: Option<String>,
    /// `"session"`: the autogroup session (with `"autogroup": true`).
    pub session: Option<u64>,
    /// `"autogroup_nice"`: the session's `/proc/<pid>/autogroup` nice.
    pub autogroup_nice: Option<i64>,
}

/// The task groups of a scenario. The default (no cgroups, autogroup off, no memberships) is
/// a flat machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cgroups {
    /// `"autogroup": true` (`sched_autogroup_enabled`).
    pub autogroup: bool,
    /// `"cgroups"`, in the order written.
    pub groups: Vec<CgroupSpec>,
    /// One per entry of `"tasks"` (empty when no task group names a cgroup or session).
    pub members: Vec<Membership>,
    /// One per entry of `"workloads"`: the `"cgroup"` or `"session"` of all its tasks (empty
    /// when no workload names one).
    #[cfg_attr(feature = "serde", serde(default))]
    pub workloads: Vec<Membership>,
}

impl Cgroups {
    /// The engine's hierarchy for the task groups of the expanded scenario: `counts` tasks per
    /// group (the entries of `"tasks"`, then the workloads' groups), each in `members`' group
    /// (as [`crate::Scenario::memberships`] lists them).
    pub fn sim(&self, counts: &[u64], members: &[Membership]) -> schedlab_sim::cgroup::Cgroups {
        if members.iter().all(|m| *m == Membership::default()) {
            return Default::default();
        }
        let mut groups = vec![Group {
            path: "/".into(),
            parent: 0,
            shares: 1024,
            idle: false,
            bandwidth: None,
        }];
        for g in &self.groups {
            let parent = parent_of(&g.path)
                .and_then(|pp| groups.iter().position(|x| x.path == pp))
                .unwrap_or(0) as u32;
            groups.push(Group {
                path: g.path.clone(),
                parent,
                shares: if g.idle { 3 } else { g.weight.shares() },
                idle: g.idle,
                bandwidth: g.max.and_then(|m| m.bandwidth()),
            });
        }
        let mut task_group = Vec::new();
        for (m, &n) in members.iter().zip(counts) {
            let g = if let Some(path) = &m.cgroup {
                groups.iter().position(|x| &x.path == path).unwrap_or(0)
            } else if let Some(s) = m.session {
                let path = format!("/autogroup-{s}");
                match groups.iter().position(|x| x.path == path) {
                    Some(i) => i,
                    None => {
                        // The session's nice: the first task group of the session that sets
                        // it (the parser made sure they agree).
                        let nice = members
                            .iter()
                            .filter(|x| x.session == Some(s))
                            .find_map(|x| x.autogroup_nice)
                            .unwrap_or(0);
                        groups.push(Group {
                            path,
                            parent: 0,
                            shares: LoadWeight::from_nice(nice as i32).user(),
                            idle: false,
                            bandwidth: None,
                        });
                        groups.len() - 1
                    }
                }
            } else {
                0
            };
            task_group.extend((0..n).map(|_| g as u32));
        }
        schedlab_sim::cgroup::Cgroups { groups, task_group }
    }

    /// Writes the top-level keys into `m` and each task group's keys into `m["tasks"]`.
    pub(crate) fn write(&self, m: &mut Map<String, Value>) {
        if self.autogroup {
            m.insert("autogroup".into(), true.into());
        }
        if !self.groups.is_empty() {
            let gs = self
                .groups
                .iter()
                .map(|g| {
                    let mut o = Map::new();
                    o.insert("path".into(), g.path.clone().into());
                    match g.weight {
                        CgroupWeight::Default => {}
                        CgroupWeight::Weight(w) => {
                            o.insert("cpu.weight".into(), w.into());
                        }
                        CgroupWeight::Nice(n) => {
                            o.insert("cpu.weight.nice".into(), n.into());
                        }
                        CgroupWeight::Shares(s) => {
                            o.insert("cpu.shares".into(), s.into());
                        }
                    }
                    if g.idle {
                        o.insert("cpu.idle".into(), 1.into());
                    }
                    if let Some(m) = g.max {
                        write_max(&mut o, &m);
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("cgroups".into(), Value::Array(gs));
        }
        if let Some(Value::Array(ts)) = m.get_mut("tasks") {
            for (t, mb) in ts.iter_mut().zip(&self.members) {
                if let Value::Object(o) = t {
                    if let Some(c) = &mb.cgroup {
                        o.insert("cgroup".into(), c.clone().into());
                    }
                    if let Some(s) = mb.session {
                        o.insert("session".into(), s.into());
                    }
                    if let Some(n) = mb.autogroup_nice {
                        o.insert("autogroup_nice".into(), n.into());
                    }
                }
            }
        }
        // A workload is `{"kind": {params}}`: its membership goes among its parameters.
        if let Some(Value::Array(ws)) = m.get_mut("workloads") {
            for (w, mb) in ws.iter_mut().zip(&self.workloads) {
                if let Some(Value::Object(o)) =
                    w.as_object_mut().and_then(|k| k.values_mut().next())
                {
                    if let Some(c) = &mb.cgroup {
                        o.insert("cgroup".into(), c.clone().into());
                    }
                    if let Some(s) = mb.session {
                        o.insert("session".into(), s.into());
                    }
                }
            }
        }
    }
}

/// Writes a bandwidth limit under the names it was written with.
fn write_max(o: &mut Map<String, Value>, m: &CpuMax) {
    if m.v1 {
        let q: Value = match m.quota_us {
            Some(q) => q.into(),
            None => (-1).into(),
        };
        o.insert("cpu.cfs_quota_us".into(), q);
        o.insert("cpu.cfs_period_us".into(), m.period_us.into());
        if m.burst_us > 0 {
            o.insert("cpu.cfs_burst_us".into(), m.burst_us.into());
        }
    } else {
        let q = m.quota_us.map_or("max".to_string(), |q| q.to_string());
        o.insert("cpu.max".into(), format!("{q} {}", m.period_us).into());
        if m.burst_us > 0 {
            o.insert("cpu.max.burst".into(), m.burst_us.into());
        }
    }
}

/// Reads `cpu.max` (or its v1 aliases) and the burst; `Err(())` after reporting an error.
fn cpu_max(p: &mut P, path: &str, o: &Map<String, Value>) -> Result<Option<CpuMax>, ()> {
    let v2 = ["cpu.max", "cpu.max.burst"];
    let v1 = ["cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.cfs_burst_us"];
    let has_v2 = v2.iter().any(|k| o.contains_key(*k));
    let has_v1 = v1.iter().any(|k| o.contains_key(*k));
    if !has_v2 && !has_v1 {
        return Ok(None);
    }
    if has_v2 && has_v1 {
        p.err(
            path,
            "set cpu.max (cgroup v2) or cpu.cfs_quota_us / cpu.cfs_period_us (cgroup v1), not both: they are one limit",
        );
        return Err(());
    }
    let mut ok = true;
    let (mut quota_us, mut period_us) = (None, DEFAULT_PERIOD_US);
    let burst_key = if has_v1 {
        "cpu.cfs_burst_us"
    } else {
        "cpu.max.burst"
    };
    if has_v2 {
        if let Some(v) = o.get("cpu.max") {
            let at = join(path, "cpu.max");
            match v.as_str() {
                Some(text) => match parse_cpu_max(text) {
                    Ok((q, per)) => {
                        quota_us = q;
                        period_us = per.unwrap_or(DEFAULT_PERIOD_US);
                    }
                    Err(e) => {
                        p.err(&at, e);
                        ok = false;
                    }
                },
                None => {
                    p.err(
                        &at,
                        format!(
                            "expected \"QUOTA PERIOD\" in microseconds, like \"50000 100000\" (or \"max 100000\"), got {}",
                            show(v)
                        ),
                    );
                    ok = false;
                }
            }
        }
    } else {
        if let Some(v) = o.get("cpu.cfs_quota_us") {
            let at = join(path, "cpu.cfs_quota_us");
            match v.as_i64() {
                Some(-1) => {}
                Some(q) if q >= MIN_US as i64 && q as u64 <= MAX_QUOTA_US => {
                    quota_us = Some(q as u64)
                }
                _ => {
                    p.err(
                        &at,
                        format!(
                            "expected -1 (no limit) or a quota of {MIN_US}..={MAX_QUOTA_US} microseconds, got {}",
                            show(v)
                        ),
                    );
                    ok = false;
                }
            }
        }
        if let Some(v) = o.get("cpu.cfs_period_us") {
            match p.uint(&join(path, "cpu.cfs_period_us"), v, MIN_US, MAX_PERIOD_US) {
                Some(n) => period_us = n,
                None => ok = false,
            }
        }
    }
    let mut burst_us = 0;
    if let Some(v) = o.get(burst_key) {
        match p.uint(&join(path, burst_key), v, 0, MAX_QUOTA_US) {
            Some(b) => burst_us = b,
            None => ok = false,
        }
    }
    if ok {
        if let Some(q) = quota_us {
            if burst_us > q || q + burst_us > MAX_QUOTA_US {
                p.err(
                    &join(path, burst_key),
                    format!("a burst of {burst_us} µs is more than the quota ({q} µs); the kernel refuses it"),
                );
                ok = false;
            }
        }
    }
    if !ok {
        return Err(());
    }
    Ok(Some(CpuMax {
        quota_us,
        period_us,
        burst_us,
        v1: has_v1,
    }))
}

/// `cpu_period_quota_parse`: "QUOTA PERIOD", "max PERIOD", "QUOTA" or "max" (µs); the period
/// is `None` when not given.
fn parse_cpu_max(text: &str) -> Result<(Option<u64>, Option<u64>), String> {
    let mut it = text.split_whitespace();
    let (Some(q), per, None) = (it.next(), it.next(), it.next()) else {
        return Err(format!(
            "{text:?} is not \"QUOTA PERIOD\": write two numbers of microseconds like \"50000 100000\", or \"max 100000\" for no limit"
        ));
    };
    let period = match per {
        None => None,
        Some(x) => match x.parse::<u64>() {
            Ok(n) if (MIN_US..=MAX_PERIOD_US).contains(&n) => Some(n),
            Ok(n) => {
                return Err(format!(
                    "the period {n} µs is out of range (allowed {MIN_US}..={MAX_PERIOD_US})"
                ))
            }
            Err(_) => {
                return Err(format!(
                    "the period {x:?} is not a whole number of microseconds"
                ))
            }
        },
    };
    let quota = if q == "max" {
        None
    } else {
        match q.parse::<u64>() {
            Ok(n) if (MIN_US..=MAX_QUOTA_US).contains(&n) => Some(n),
            Ok(n) => {
                return Err(format!(
                "the quota {n} µs is out of range (allowed {MIN_US}..={MAX_QUOTA_US}, or \"max\")"
            ))
            }
            Err(_) => {
                return Err(format!(
                    "the quota {q:?} is not a whole number of microseconds or \"max\""
                ))
            }
        }
    };
    Ok((quota, period))
}

/// The parent path of `/a/b` (`/a`), `None` for a top-level group.
fn parent_of(path: &str) -> Option<&str> {
    match path.rfind('/') {
        Some(0) | None => None,
        Some(i) => Some(&path[..i]),
    }
}

/// Reads `"autogroup"`, `"cgroups"` and the task groups' membership keys.
pub(super) fn cgroups(p: &mut P, top: &Map<String, Value>) -> Option<Cgroups> {
    let mut ok = true;
    let autogroup = match top.get("autogroup") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            p.err(
                "autogroup",
                format!("expected true or false, got {}", show(v)),
            );
            ok = false;
            false
        }
    };
    let mut groups: Vec<CgroupSpec> = Vec::new();
    match top.get("cgroups") {
        None => {}
        Some(Value::Array(a)) => {
            if a.len() > MAX_CGROUPS {
                p.err(
                    "cgroups",
                    format!("{} cgroups; at most {MAX_CGROUPS} allowed", a.len()),
                );
                ok = false;
            }
            for (i, v) in a.iter().enumerate() {
                let path = format!("cgroups[{i}]");
                match cgroup(p, &path, v, &groups) {
                    Some(g) => groups.push(g),
                    None => ok = false,
                }
            }
        }
        Some(v) => {
            p.err(
                "cgroups",
                format!("expected an array of cgroups, got {}", show(v)),
            );
            ok = false;
        }
    }
    let mut members = Vec::new();
    if let Some(Value::Array(ts)) = top.get("tasks") {
        for (i, t) in ts.iter().enumerate() {
            let Value::Object(o) = t else {
                members.push(Membership::default());
                continue;
            };
            match membership(p, &format!("tasks[{i}]"), o, &groups, autogroup) {
                Some(m) => members.push(m),
                None => ok = false,
            }
        }
    }
    // One nice per session.
    for (i, m) in members.iter().enumerate() {
        if let (Some(s), Some(n)) = (m.session, m.autogroup_nice) {
            if let Some(other) = members[..i]
                .iter()
                .find(|x| x.session == Some(s) && x.autogroup_nice.is_some_and(|y| y != n))
            {
                p.err(
                    &format!("tasks[{i}].autogroup_nice"),
                    format!(
                        "session {s} already has autogroup_nice {} (a session is one group with one nice)",
                        other.autogroup_nice.unwrap_or(0)
                    ),
                );
                ok = false;
            }
        }
    }
    if members.iter().all(|m| *m == Membership::default()) {
        members.clear();
    }
    // A workload's tasks join a cgroup or a session as a task group's do (its object is
    // `{"kind": {params}}`; the workload parser reports any other shape).
    let mut workloads = Vec::new();
    if let Some(Value::Array(ws)) = top.get("workloads") {
        for (i, w) in ws.iter().enumerate() {
            let params = w
                .as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.iter().next())
                .and_then(|(k, v)| Some((k, v.as_object()?)));
            let Some((kind, o)) = params else {
                workloads.push(Membership::default());
                continue;
            };
            match membership(p, &format!("workloads[{i}].{kind}"), o, &groups, autogroup) {
                Some(m) => workloads.push(m),
                None => ok = false,
            }
        }
    }
    if workloads.iter().all(|m| *m == Membership::default()) {
        workloads.clear();
    }
    ok.then_some(Cgroups {
        autogroup,
        groups,
        members,
        workloads,
    })
}

fn cgroup(p: &mut P, path: &str, v: &Value, before: &[CgroupSpec]) -> Option<CgroupSpec> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "expected a cgroup object like {{\"path\": \"/db\", \"cpu.weight\": 300}}, got {}",
                show(v)
            ),
        );
        return None;
    };
    p.unknown_keys(path, o, CGROUP_KEYS);
    let mut ok = o.keys().all(|k| CGROUP_KEYS.contains(&k.as_str()));
    let cpath = match o.get("path") {
        None => {
            p.err(&join(path, "path"), "missing (required)");
            None
        }
        Some(v) => p.string(&join(path, "path"), v, MAX_PATH),
    };
    if let Some(cp) = &cpath {
        let at = join(path, "path");
        let bad_char = cp.chars().find(|c| {
            !(c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.' | ':' | '@'))
        });
        if !cp.starts_with('/') || cp == "/" || cp.ends_with('/') || cp.contains("//") {
            p.err(
                &at,
                format!("{cp:?} is not a cgroup path: write \"/name\" or \"/parent/name\" (the root \"/\" cannot be configured)"),
            );
            ok = false;
        } else if let Some(c) = bad_char {
            p.err(
                &at,
                format!("{cp:?} contains {c:?}; a path has letters, digits and - _ . : @"),
            );
            ok = false;
        } else if cp.starts_with("/autogroup-") {
            p.err(
                &at,
                "autogroup paths are made by \"session\"; name the cgroup otherwise",
            );
            ok = false;
        } else if before.iter().any(|g| &g.path == cp) {
            p.err(&at, format!("{cp} is listed twice"));
            ok = false;
        } else if let Some(pp) = parent_of(cp) {
            if !before.iter().any(|g| g.path == pp) {
                p.err(
                    &at,
                    format!("its parent {pp} is not listed before it (list every level of a nested path, parents first)"),
                );
                ok = false;
            }
        }
    }
    let mut weights = Vec::new();
    if let Some(v) = o.get("cpu.weight") {
        weights.push(
            p.uint(&join(path, "cpu.weight"), v, 1, 10_000)
                .map(CgroupWeight::Weight),
        );
    }
    if let Some(v) = o.get("cpu.weight.nice") {
        weights.push(
            super::program::nice(p, &join(path, "cpu.weight.nice"), v).map(CgroupWeight::Nice),
        );
    }
    if let Some(v) = o.get("cpu.shares") {
        weights.push(
            p.uint(&join(path, "cpu.shares"), v, MIN_SHARES, MAX_SHARES)
                .map(CgroupWeight::Shares),
        );
    }
    if weights.len() > 1 {
        p.err(
            path,
            "set one of cpu.weight, cpu.weight.nice and cpu.shares (they are views of one weight)",
        );
        ok = false;
    }
    let weight = match weights.pop() {
        None => CgroupWeight::Default,
        Some(Some(w)) => w,
        Some(None) => {
            ok = false;
            CgroupWeight::Default
        }
    };
    let idle = match o.get("cpu.idle") {
        None => false,
        Some(v) => match p.uint(&join(path, "cpu.idle"), v, 0, 1) {
            Some(n) => n == 1,
            None => {
                ok = false;
                false
            }
        },
    };
    if idle && weight != CgroupWeight::Default {
        p.err(
            &join(path, "cpu.idle"),
            "an idle cgroup has the weight WEIGHT_IDLEPRIO (3); drop its weight or cpu.idle",
        );
        ok = false;
    }
    let max = match cpu_max(p, path, o) {
        Ok(m) => m,
        Err(()) => {
            ok = false;
            None
        }
    };
    if ok {
        cpath.map(|path| CgroupSpec {
            path,
            weight,
            idle,
            max,
        })
    } else {
        None
    }
}

fn membership(
    p: &mut P,
    path: &str,
    o: &Map<String, Value>,
    groups: &[CgroupSpec],
    autogroup: bool,
) -> Option<Membership> {
    let mut ok = true;
    let cgroup = match o.get("cgroup") {
        None => None,
        Some(v) => {
            let at = join(path, "cgroup");
            match p.string(&at, v, MAX_PATH) {
                Some(c) if c == "/" => None,
                Some(c) if groups.iter().any(|g| g.path == c) => Some(c),
                Some(c) => {
                    let known: Vec<&str> = groups.iter().map(|g| g.path.as_str()).collect();
                    let list = if known.is_empty() {
                        "none is listed in \"cgroups\"".to_string()
                    } else {
                        format!("listed: {}", known.join(", "))
                    };
                    p.err(&at, format!("{c:?} is not a listed cgroup ({list})"));
                    ok = false;
                    None
                }
                None => {
                    ok = false;
                    None
                }
            }
        }
    };
    let session = match o.get("session") {
        None => None,
        Some(v) => {
            let at = join(path, "session");
            let s = p.uint(&at, v, 1, MAX_SESSION);
            if s.is_none() {
                ok = false;
            } else if !autogroup {
                p.err(
                    &at,
                    "a session is an autogroup: set \"autogroup\": true at the top level",
                );
                ok = false;
            } else if cgroup.is_some() {
                p.err(
                    &at,
                    "a task in a cgroup other than the root is not in its session's autogroup (the kernel ignores the session there); drop one of cgroup and session",
                );
                ok = false;
            }
            s
        }
    };
    let autogroup_nice = match o.get("autogroup_nice") {
        None => None,
        Some(v) => {
            let at = join(path, "autogroup_nice");
            let n = super::program::nice(p, &at, v);
            if n.is_none() {
                ok = false;
            } else if session.is_none() {
                p.err(
                    &at,
                    "autogroup_nice sets a session's nice: give the task group a \"session\"",
                );
                ok = false;
            }
            n
        }
    };
    ok.then_some(Membership {
        cgroup,
        session,
        autogroup_nice,
    })
}
