//! The scenario form: every field as typed, and its round trip with the JSON document.

use schedlab_scenario::Scenario;
use schedlab_sim::Feature;
use serde_json::{Map, Value};

use super::{State, MAX_VARIANTS};

/// One task group of the form: every field as typed. `program` is the steps as JSON text.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TaskRow {
    pub name: String,
    pub count: String,
    pub nice: String,
    pub policy: String,
    pub affinity: String,
    pub slice_us: String,
    pub program: String,
    /// `"cgroup"`: the path of the cgroup its tasks run in (empty: the root group).
    pub cgroup: String,
    /// Keys of the group the form does not edit (`start_ms`, or a misspelt key the validator
    /// names), kept as they were.
    pub extra: Map<String, Value>,
}

/// One cgroup of the form (an entry of `"cgroups"`): every field as typed.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CgroupRow {
    /// `/name` or `/parent/name` (the parent listed before it).
    pub path: String,
    /// `cpu.weight` 1..=10000 (empty: the default 100).
    pub weight: String,
    /// `cpu.idle = 1`.
    pub idle: bool,
    /// `cpu.max`'s QUOTA in µs (empty or `max`: no limit).
    pub quota_us: String,
    /// `cpu.max`'s PERIOD in µs (empty: the default 100000).
    pub period_us: String,
    /// Keys of the cgroup the form does not edit (`cpu.weight.nice`, `cpu.shares`,
    /// `cpu.max.burst`, the cgroup v1 names, a misspelt key the validator names), kept as they
    /// were.
    pub extra: Map<String, Value>,
}

impl CgroupRow {
    /// The cgroup's entry of `"cgroups"`.
    fn document(&self) -> Value {
        let mut o = Map::new();
        o.insert("path".into(), self.path.clone().into());
        if !self.weight.trim().is_empty() {
            o.insert("cpu.weight".into(), num_or_text(&self.weight));
        }
        if self.idle {
            o.insert("cpu.idle".into(), 1.into());
        }
        let (q, p) = (self.quota_us.trim(), self.period_us.trim());
        if !q.is_empty() || !p.is_empty() {
            let q = if q.is_empty() { "max" } else { q };
            let max = if p.is_empty() {
                q.to_string()
            } else {
                format!("{q} {p}")
            };
            o.insert("cpu.max".into(), max.into());
        }
        for (k, v) in &self.extra {
            o.insert(k.clone(), v.clone());
        }
        Value::Object(o)
    }

    /// The form's row of an entry of `"cgroups"`; what the row cannot show as typed stays in
    /// `extra`, so that nothing is lost and the validator still names it.
    fn from_value(v: &Value) -> CgroupRow {
        let Some(o) = v.as_object() else {
            // Not an object: keep it whole under "path", where the validator's message lands.
            return CgroupRow {
                path: text_of(Some(v)),
                ..CgroupRow::default()
            };
        };
        let mut r = CgroupRow {
            extra: o.clone(),
            ..CgroupRow::default()
        };
        if let Some(p) = r.extra.remove("path") {
            r.path = text_of(Some(&p));
        }
        if let Some(w) = r.extra.remove("cpu.weight") {
            r.weight = text_of(Some(&w));
        }
        match r.extra.get("cpu.idle").and_then(Value::as_u64) {
            Some(0) => {
                r.extra.remove("cpu.idle");
            }
            Some(1) => {
                r.extra.remove("cpu.idle");
                r.idle = true;
            }
            _ => {}
        }
        if let Some(text) = r.extra.get("cpu.max").and_then(Value::as_str) {
            let parts: Vec<&str> = text.split_whitespace().collect();
            if parts.len() <= 2 {
                r.quota_us = parts.first().map_or("max", |q| q).to_string();
                r.period_us = parts.get(1).map_or("", |p| p).to_string();
                if r.quota_us == "max" && r.period_us.is_empty() {
                    r.quota_us.clear();
                }
                r.extra.remove("cpu.max");
            }
        }
        r
    }
}

/// The cgroup-row fields edited as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupField {
    Path,
    Weight,
    QuotaUs,
    PeriodUs,
}

/// One workload of the form: its kind and its parameters as JSON text.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct WorkloadRow {
    pub kind: String,
    pub params: String,
}

impl WorkloadRow {
    /// The parameters as a JSON object, or None while the text is not one.
    pub fn params_object(&self) -> Option<Map<String, Value>> {
        match serde_json::from_str(&self.params) {
            Ok(Value::Object(o)) => Some(o),
            _ => None,
        }
    }

    /// Parameter `name` as a form field shows it: a string without quotes, a CPU list as
    /// `0,1`, anything else as JSON; empty when absent (the field shows the default).
    pub fn param_text(&self, name: &str) -> String {
        match self.params_object().as_ref().and_then(|o| o.get(name)) {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) if name == "affinity" => a
                .iter()
                .map(|c| text_of(Some(c)))
                .collect::<Vec<_>>()
                .join(","),
            Some(v) => v.to_string(),
        }
    }

    /// Sets parameter `name` from a form field's text (empty: back to the default). Text that
    /// is not JSON stays text, for the validator to name; a CPU list may be written `0,1`.
    /// Does nothing while the parameters are not a JSON object (the raw field shows why).
    pub fn set_param(&mut self, name: &str, text: &str) {
        let Some(mut o) = self.params_object() else {
            return;
        };
        let t = text.trim();
        if t.is_empty() {
            o.remove(name);
        } else if name == "affinity" && !t.starts_with('[') {
            o.insert(
                name.into(),
                Value::Array(t.split(',').map(num_or_text).collect()),
            );
        } else {
            o.insert(name.into(), json_or_text(t));
        }
        self.params = Value::Object(o).to_string();
    }

    /// Changes the kind, keeping the parameters the new kind also has.
    pub fn set_kind(&mut self, kind: String) {
        if let (Some(mut o), Some(k)) = (
            self.params_object(),
            schedlab_scenario::WorkloadKind::from_name(&kind),
        ) {
            let keys = k.keys();
            o.retain(|name, _| keys.contains(&name.as_str()));
            self.params = Value::Object(o).to_string();
        }
        self.kind = kind;
    }
}

/// The machine and run fields, as typed.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Machine {
    pub name: String,
    pub description: String,
    pub cpus: String,
    pub hz: String,
    pub llc_size: String,
    pub smt: String,
    pub duration_ms: String,
    pub seed: String,
    /// The measured machine's name (`"machine"`), empty for none.
    pub machine: String,
}

/// A kernel variant as picked: a preset, feature overrides and tunables (`name=value,…`).
#[derive(Clone, Debug, PartialEq)]
pub struct VariantChoice {
    pub preset: String,
    /// Features set against the preset's default (true = on), in the order they were written,
    /// so the variant string keeps the user's order.
    pub features: Vec<(String, bool)>,
    pub tunables: String,
}

impl VariantChoice {
    /// Parses a variant string (`eevdf-6.6:NO_RUN_TO_PARITY,base_slice_ns=3000000`) into a choice.
    pub fn from_string(s: &str) -> VariantChoice {
        let (preset, rest) = s.split_once(':').unwrap_or((s, ""));
        let mut v = VariantChoice {
            preset: preset.trim().to_string(),
            features: vec![],
            tunables: String::new(),
        };
        let mut tunables = vec![];
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if item.contains('=') {
                tunables.push(item.to_string());
            } else if let Some(f) = item.strip_prefix("NO_") {
                v.set_feature(f.to_string(), Some(false));
            } else {
                v.set_feature(item.to_string(), Some(true));
            }
        }
        v.tunables = tunables.join(",");
        v
    }

    /// Sets feature `name` on or off against the preset's default (None: back to the default),
    /// keeping its place among the others.
    pub fn set_feature(&mut self, name: String, on: Option<bool>) {
        let at = self.features.iter().position(|(f, _)| *f == name);
        match (at, on) {
            (Some(i), Some(on)) => self.features[i].1 = on,
            (Some(i), None) => {
                self.features.remove(i);
            }
            (None, Some(on)) => self.features.push((name, on)),
            (None, None) => {}
        }
    }

    /// The variant string in the debugfs syntax.
    pub fn to_variant_string(&self) -> String {
        let mut items: Vec<String> = self
            .features
            .iter()
            .map(|(f, on)| if *on { f.clone() } else { format!("NO_{f}") })
            .collect();
        items.extend(
            self.tunables
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from),
        );
        if items.is_empty() {
            self.preset.clone()
        } else {
            format!("{}:{}", self.preset, items.join(","))
        }
    }

    /// Whether feature `f` is on in this choice (the override, else the preset's default).
    pub fn feature_on(&self, f: Feature) -> bool {
        if let Some((_, on)) = self.features.iter().find(|(n, _)| n == f.name()) {
            return *on;
        }
        schedlab_sim::kernel_version(&self.preset).is_some_and(|p| p.defaults.contains(&f))
    }
}

/// The machine fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineField {
    Name,
    Description,
    Cpus,
    Hz,
    LlcSize,
    Smt,
    DurationMs,
    Seed,
    Machine,
}

/// The task-row fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskField {
    Name,
    Count,
    Nice,
    Policy,
    Affinity,
    SliceUs,
    Program,
    /// The cgroup select (empty: the root group).
    Cgroup,
}

/// The keys of a task group that [`TaskRow`] edits.
const TASK_ROW_KEYS: &[&str] = &[
    "name", "count", "nice", "policy", "affinity", "slice_us", "program", "cgroup",
];

/// A field's text as a JSON value: a number when it reads as one, else the text itself (so that
/// the validator names the field and what it expected, instead of the input vanishing).
fn num_or_text(s: &str) -> Value {
    let t = s.trim();
    if let Ok(v) = t.parse::<i64>() {
        return Value::from(v);
    }
    if let Ok(v) = t.parse::<u64>() {
        return Value::from(v);
    }
    if let Some(n) = t.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        return Value::Number(n);
    }
    Value::String(s.to_string())
}

/// A JSON fragment typed in a field; text that does not parse stays text.
fn json_or_text(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

impl State {
    /// The document the form describes.
    pub fn document(&self) -> Value {
        let m = &self.machine;
        let mut o = Map::new();
        o.insert("version".into(), 1.into());
        o.insert("name".into(), m.name.clone().into());
        if !m.description.is_empty() {
            o.insert("description".into(), m.description.clone().into());
        }
        o.insert("cpus".into(), num_or_text(&m.cpus));
        o.insert("hz".into(), num_or_text(&m.hz));
        o.insert("duration_ms".into(), num_or_text(&m.duration_ms));
        o.insert("seed".into(), num_or_text(&m.seed));
        if !m.machine.is_empty() {
            o.insert("machine".into(), m.machine.clone().into());
        }
        let llc = m.llc_size.trim();
        let smt = m.smt.trim();
        if !(llc.is_empty() || llc == "0") || !(smt.is_empty() || smt == "1") {
            let mut t = Map::new();
            if !llc.is_empty() {
                t.insert("llc_size".into(), num_or_text(llc));
            }
            if !smt.is_empty() {
                t.insert("smt".into(), num_or_text(smt));
            }
            o.insert("topology".into(), Value::Object(t));
        }
        o.insert(
            "variants".into(),
            Value::Array(
                self.variants
                    .iter()
                    .map(|v| v.to_variant_string().into())
                    .collect(),
            ),
        );
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .map(|t| {
                let mut g = Map::new();
                g.insert("name".into(), t.name.clone().into());
                let opt = |g: &mut Map<String, Value>, k: &str, s: &str, dflt: &str| {
                    if !s.trim().is_empty() && s.trim() != dflt {
                        g.insert(k.into(), num_or_text(s));
                    }
                };
                opt(&mut g, "count", &t.count, "1");
                opt(&mut g, "nice", &t.nice, "0");
                if !t.policy.is_empty() && t.policy != "normal" {
                    g.insert("policy".into(), t.policy.clone().into());
                }
                if !t.affinity.trim().is_empty() {
                    let cpus: Vec<Value> = t.affinity.split(',').map(num_or_text).collect();
                    g.insert("affinity".into(), Value::Array(cpus));
                }
                opt(&mut g, "slice_us", &t.slice_us, "");
                g.insert("program".into(), json_or_text(&t.program));
                if !t.cgroup.is_empty() {
                    g.insert("cgroup".into(), t.cgroup.clone().into());
                }
                for (k, v) in &t.extra {
                    g.insert(k.clone(), v.clone());
                }
                Value::Object(g)
            })
            .collect();
        if !tasks.is_empty() {
            o.insert("tasks".into(), Value::Array(tasks));
        }
        if self.autogroup {
            o.insert("autogroup".into(), true.into());
        }
        if !self.cgroups.is_empty() {
            let gs = self.cgroups.iter().map(CgroupRow::document).collect();
            o.insert("cgroups".into(), Value::Array(gs));
        }
        let workloads: Vec<Value> = self
            .workloads
            .iter()
            .map(|w| {
                let mut k = Map::new();
                k.insert(w.kind.clone(), json_or_text(&w.params));
                Value::Object(k)
            })
            .collect();
        if !workloads.is_empty() {
            o.insert("workloads".into(), Value::Array(workloads));
        }
        for (k, v) in &self.extra {
            o.insert(k.clone(), v.clone());
        }
        Value::Object(o)
    }

    /// Loads a document into the form. A document that is not a JSON object is refused with a
    /// message and changes nothing.
    pub(super) fn load(&mut self, json: &str) -> Result<(), String> {
        let v = schedlab_scenario::parse_json(json).map_err(|e| format!("not valid JSON: {e}"))?;
        self.load_value(v)
    }

    /// Loads a document that is already a JSON value (a decoded link's scenario).
    pub(super) fn load_value(&mut self, v: Value) -> Result<(), String> {
        let Value::Object(mut o) = v else {
            return Err("a scenario is a JSON object".into());
        };
        let topo = o.remove("topology");
        let t = topo.as_ref().and_then(Value::as_object);
        self.machine = Machine {
            name: text_of(o.remove("name").as_ref()),
            description: text_of(o.remove("description").as_ref()),
            cpus: text_of(o.remove("cpus").as_ref()),
            hz: text_of(o.remove("hz").as_ref()),
            llc_size: text_of(t.and_then(|t| t.get("llc_size"))),
            smt: text_of(t.and_then(|t| t.get("smt"))),
            duration_ms: text_of(o.remove("duration_ms").as_ref()),
            seed: text_of(o.remove("seed").as_ref()),
            machine: String::new(),
        };
        // A string "machine" is the menu's; anything else stays for the validator to name.
        if let Some(Value::String(m)) = o.get("machine") {
            self.machine.machine = m.clone();
            o.remove("machine");
        }
        if self.machine.seed.is_empty() {
            self.machine.seed = "1".into();
        }
        o.remove("version");
        self.variants = match o.remove("variants") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .take(MAX_VARIANTS)
                .map(VariantChoice::from_string)
                .collect(),
            _ => vec![],
        };
        self.tasks = match o.remove("tasks") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|t| TaskRow {
                    extra: t.as_object().map_or_else(Map::new, |o| {
                        o.iter()
                            .filter(|(k, _)| !TASK_ROW_KEYS.contains(&k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect()
                    }),
                    name: text_of(t.get("name")),
                    count: text_of(t.get("count")),
                    nice: text_of(t.get("nice")),
                    policy: text_of(t.get("policy")),
                    affinity: match t.get("affinity") {
                        Some(Value::Array(a)) => a
                            .iter()
                            .map(|c| text_of(Some(c)))
                            .collect::<Vec<_>>()
                            .join(","),
                        other => text_of(other),
                    },
                    slice_us: text_of(t.get("slice_us")),
                    program: t.get("program").map(|p| p.to_string()).unwrap_or_default(),
                    cgroup: text_of(t.get("cgroup")),
                })
                .collect(),
            _ => vec![],
        };
        self.workloads = match o.remove("workloads") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|w| w.as_object().and_then(|m| m.iter().next()))
                .map(|(k, v)| WorkloadRow {
                    kind: k.clone(),
                    params: v.to_string(),
                })
                .collect(),
            _ => vec![],
        };
        // A boolean "autogroup" is the checkbox; anything else stays for the validator to name.
        self.autogroup = false;
        if let Some(Value::Bool(b)) = o.get("autogroup") {
            self.autogroup = *b;
            o.remove("autogroup");
        }
        self.cgroups = match o.get("cgroups") {
            Some(Value::Array(a)) => {
                let rows = a.iter().map(CgroupRow::from_value).collect();
                o.remove("cgroups");
                rows
            }
            _ => vec![],
        };
        self.extra = o;
        self.json_error = None;
        self.refresh();
        Ok(())
    }

    /// Rebuilds the JSON view from the form and validates the document, once: a valid one
    /// becomes [`State::scenario`], an invalid one leaves its errors by field.
    pub(super) fn refresh(&mut self) {
        let doc = self.document();
        self.json_text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        match Scenario::from_value(doc) {
            Ok(sc) => {
                self.scenario = Some(sc);
                self.errors = vec![];
            }
            Err(es) => {
                self.scenario = None;
                self.errors = es.0.into_iter().map(|e| (e.path, e.message)).collect();
            }
        }
    }
}
