//! The page's state and its one reducer. No Yew types here: everything is tested natively.
//!
//! The scenario form keeps every field as the text the user typed, so nothing is lost while
//! typing; the scenario document is rebuilt from the form on every edit and validated by the
//! scenario crate, and each error is shown next to the field its path names. The raw JSON view
//! edits the same document: a JSON object that parses is loaded back into the form.

use std::collections::BTreeMap;

use schedlab_scenario::Scenario;
use schedlab_sim::{Feature, Variant, KERNEL_VERSIONS};
use serde_json::{Map, Value};

use crate::model::{Results, Shared};

/// Most variants compared at once.
pub const MAX_VARIANTS: usize = 4;

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
}

/// One workload of the form: its kind and its parameters as JSON text.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct WorkloadRow {
    pub kind: String,
    pub params: String,
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
}

/// A kernel variant as picked: a preset, feature overrides and tunables (`name=value,…`).
#[derive(Clone, Debug, PartialEq)]
pub struct VariantChoice {
    pub preset: String,
    /// Features set against the preset's default (true = on).
    pub features: BTreeMap<String, bool>,
    pub tunables: String,
}

impl VariantChoice {
    /// Parses a variant string (`eevdf-6.6:NO_RUN_TO_PARITY,base_slice_ns=3000000`) into a choice.
    pub fn from_string(s: &str) -> VariantChoice {
        let (preset, rest) = s.split_once(':').unwrap_or((s, ""));
        let mut features = BTreeMap::new();
        let mut tunables = vec![];
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if item.contains('=') {
                tunables.push(item.to_string());
            } else if let Some(f) = item.strip_prefix("NO_") {
                features.insert(f.to_string(), false);
            } else {
                features.insert(item.to_string(), true);
            }
        }
        VariantChoice {
            preset: preset.trim().to_string(),
            features,
            tunables: tunables.join(","),
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
        if let Some(on) = self.features.get(f.name()) {
            return *on;
        }
        schedlab_sim::kernel_version(&self.preset).is_some_and(|p| p.defaults.contains(&f))
    }
}

/// Where a run is.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum RunState {
    /// Nothing run yet.
    #[default]
    Idle,
    /// The worker is simulating variant `index` of `of`.
    Running {
        index: usize,
        of: usize,
        variant: String,
        sim_ns: u64,
        duration_ns: u64,
        events: u64,
    },
    /// Results of the last run.
    Done(Shared<Results>),
    /// The run stopped: why.
    Failed(String),
}

/// The timeline's view: one time window shared by every variant, so A/B differences line up.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimelineView {
    /// Visible window `[t0, t1)` in ns; `t1 == 0` means the whole run.
    pub t0_ns: u64,
    pub t1_ns: u64,
    /// Lanes per task (colour = CPU, waiting hatched) instead of per CPU (colour = task).
    pub per_task: bool,
    /// The highlighted task (by comm, so that it matches across variants).
    pub selected: Option<String>,
    /// Show the selected task's vruntime/lag/deadline/eligibility overlay.
    pub overlay: bool,
    /// Ruler marks (at most two).
    pub ruler: Vec<u64>,
    /// The keyboard help is open.
    pub help: bool,
}

/// Timeline actions.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineAction {
    /// Zoom by `factor` (< 1 zooms in) keeping `center_ns` where it is.
    Zoom {
        factor: f64,
        center_ns: u64,
    },
    /// Move the window by a fraction of its width (negative: earlier).
    Pan(f64),
    /// Show the whole run.
    Fit,
    /// Show exactly this window (drag-select).
    Range(u64, u64),
    ToggleLayout,
    Select(Option<String>),
    ToggleOverlay,
    /// Add a ruler mark (a third click starts over).
    Ruler(u64),
    ToggleHelp,
    /// Close the help and clear the ruler.
    Escape,
}

/// How the results are shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOpts {
    pub log_axis: bool,
    pub timeline: TimelineView,
    /// Merge tasks with the same name, like perf (false: one row per task, `perf -p`).
    pub merged: bool,
    pub sort: SortKey,
}

/// Column to sort the latency table by (numbers descending, like perf; names ascending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// perf's default: avg, max, switches, runtime.
    Perf,
    Runtime,
    Switches,
    Avg,
    Max,
    Sum,
    Name,
}

/// The whole page state.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub machine: Machine,
    pub tasks: Vec<TaskRow>,
    pub workloads: Vec<WorkloadRow>,
    /// Keys of the document the form does not edit (kept as they were).
    pub extra: Map<String, Value>,
    pub variants: Vec<VariantChoice>,
    /// The raw JSON view's text; while it holds a document that does not parse it is what the
    /// user is typing, and the form keeps the last good document.
    pub json_text: String,
    pub json_error: Option<String>,
    /// Validation errors of the current document: (path, message).
    pub errors: Vec<(String, String)>,
    /// Variant errors: (index, message).
    pub variant_errors: Vec<(usize, String)>,
    pub run: RunState,
    pub view: ViewOpts,
    /// Runs started so far (lets the page and its tests tell one run's outcome from the last).
    pub runs: u64,
    /// A message about the page itself (a link that could not be opened, an import that failed).
    pub notice: Option<String>,
    /// Embed mode and its view (`""` = the default view).
    pub embed: Option<String>,
    /// The last link made with "Copy link".
    pub link: Option<String>,
    /// The timeline window came from a link: keep it for the first run's results.
    pub keep_window: bool,
}

/// Everything that changes the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Load a scenario document (preset, example, file, link).
    Load {
        json: String,
        source: Option<String>,
    },
    SetMachine {
        field: MachineField,
        value: String,
    },
    SetTask {
        row: usize,
        field: TaskField,
        value: String,
    },
    AddTask,
    DuplicateTask(usize),
    DeleteTask(usize),
    SetWorkload {
        row: usize,
        kind: Option<String>,
        params: Option<String>,
    },
    AddWorkload,
    DeleteWorkload(usize),
    SetJson(String),
    AddVariant,
    DeleteVariant(usize),
    SetVariantPreset {
        index: usize,
        preset: String,
    },
    ToggleFeature {
        index: usize,
        feature: String,
        on: bool,
    },
    SetTunables {
        index: usize,
        value: String,
    },
    /// The user asked to run; the effect starts the worker only if the state says it may.
    Run,
    Progress {
        index: usize,
        of: usize,
        variant: String,
        sim_ns: u64,
        duration_ns: u64,
        events: u64,
    },
    Finished(Box<Results>),
    Failed(String),
    Cancel,
    SetLogAxis(bool),
    SetMerged(bool),
    SortBy(SortKey),
    Timeline(TimelineAction),
    /// A link was made (shown for copying).
    Linked(String),
    /// Show a message about the page (or clear it with None).
    Notice(Option<String>),
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
}

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
    /// The page as a first visit sees it: the SCHED_IDLE pair under two kernels.
    pub fn initial() -> State {
        let mut s = State {
            machine: Machine::default(),
            tasks: vec![],
            workloads: vec![],
            extra: Map::new(),
            variants: vec![],
            json_text: String::new(),
            json_error: None,
            errors: vec![],
            variant_errors: vec![],
            run: RunState::Idle,
            view: ViewOpts {
                timeline: TimelineView::default(),
                log_axis: false,
                merged: true,
                sort: SortKey::Perf,
            },
            runs: 0,
            notice: None,
            embed: None,
            link: None,
            keep_window: false,
        };
        let loaded = s.load(crate::examples::DEFAULT.1);
        debug_assert_eq!(loaded, Ok(()), "the bundled default scenario loads");
        s
    }

    /// The page's first state for the URL `href`: a scenario link opens that scenario and view
    /// (and the page runs it); a link that cannot be decoded leaves the default scenario with a
    /// notice saying why; `#embed[=view]` or `?embed=1` asks for the minimal embed layout.
    pub fn from_location(href: &str) -> State {
        use schedlab_scenario::link;
        let mut s = State::initial();
        s.embed = link::embed_view(href);
        if link::find_payload(href.rsplit_once('#').map_or("", |(_, f)| f)).is_some() {
            match link::decode(href) {
                Ok(l) => {
                    if let Err(e) = s.load(&l.scenario.to_json()) {
                        s.notice = Some(format!("This link could not be opened: {e}."));
                    }
                    let tl = &mut s.view.timeline;
                    if let Some((a, b)) = l.view.window_ns {
                        tl.t0_ns = a;
                        tl.t1_ns = b;
                        s.keep_window = true;
                    }
                    tl.selected = l.view.selected;
                    tl.per_task = l.view.per_task;
                }
                Err(e) => {
                    s.notice = Some(format!(
                        "This link could not be opened: {e}. Showing the default scenario instead."
                    ));
                }
            }
        }
        s
    }

    /// The link payload (`v1.…`) of the current scenario and view, if the scenario is valid.
    pub fn link_payload(&self) -> Option<String> {
        let sc = Scenario::from_json(&self.json_text).ok()?;
        let tl = &self.view.timeline;
        let view = schedlab_scenario::link::LinkView {
            view: None,
            window_ns: (tl.t1_ns > 0).then_some((tl.t0_ns, tl.t1_ns)),
            selected: tl.selected.clone(),
            per_task: tl.per_task,
        };
        Some(schedlab_scenario::link::encode(&sc, &view))
    }

    /// The iframe snippet that embeds `view` (`comparison`, `table`, `histogram` or `timeline`)
    /// of the current scenario, served from `base` (the page's address without fragment), or
    /// None if the scenario is invalid. The height is clamped to 120..=4000 px.
    pub fn embed_snippet(&self, base: &str, view: &str, height: u32) -> Option<String> {
        use schedlab_scenario::link::{embed_fragment, embed_view_name};
        let frag = embed_fragment(view, &self.link_payload()?);
        let title = html_escape(&format!(
            "schedlab: {}, {}",
            self.machine.name,
            embed_view_name(view)
        ));
        let src = html_escape(&format!("{base}#{frag}"));
        Some(format!(
            "<iframe title=\"{title}\" src=\"{src}\" width=\"100%\" height=\"{}\" loading=\"lazy\" style=\"border:1px solid #ccc;border-radius:6px\"></iframe>",
            height.clamp(120, 4000)
        ))
    }

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
                Value::Object(g)
            })
            .collect();
        if !tasks.is_empty() {
            o.insert("tasks".into(), Value::Array(tasks));
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
    fn load(&mut self, json: &str) -> Result<(), String> {
        let v: Value = serde_json::from_str(json).map_err(|e| format!("not valid JSON: {e}"))?;
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
        };
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
        self.extra = o;
        self.json_error = None;
        self.refresh();
        Ok(())
    }

    /// Rebuilds the JSON view from the form and revalidates.
    fn refresh(&mut self) {
        let doc = self.document();
        self.json_text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        self.validate();
    }

    fn validate(&mut self) {
        self.errors = match Scenario::from_json(&self.json_text) {
            Ok(_) => vec![],
            Err(es) => es.0.into_iter().map(|e| (e.path, e.message)).collect(),
        };
        self.variant_errors = self
            .variants
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                Variant::parse(&v.to_variant_string())
                    .err()
                    .map(|e| (i, e.0))
            })
            .collect();
    }

    /// The errors of the field at `path` (`tasks[2].nice`) or below it.
    pub fn errors_at(&self, path: &str) -> Vec<String> {
        self.errors
            .iter()
            .filter(|(p, _)| {
                p == path
                    || p.starts_with(&format!("{path}."))
                    || p.starts_with(&format!("{path}["))
            })
            .map(|(p, m)| {
                if p == path {
                    m.clone()
                } else {
                    format!("{}: {m}", &p[path.len()..].trim_start_matches('.'))
                }
            })
            .collect()
    }

    /// Whether a run may start: a valid scenario, at least one variant, all of them valid, and
    /// no run in progress. `Err` says what stops it.
    pub fn can_run(&self) -> Result<(), String> {
        if matches!(self.run, RunState::Running { .. }) {
            return Err("a run is in progress".into());
        }
        if self.json_error.is_some() {
            return Err("the JSON view holds a document that does not parse".into());
        }
        if let Some((p, m)) = self.errors.first() {
            let n = self.errors.len();
            let more = if n > 1 {
                format!(" (and {} more)", n - 1)
            } else {
                String::new()
            };
            return Err(format!("the scenario is invalid: {p}: {m}{more}"));
        }
        if self.variants.is_empty() {
            return Err("pick at least one kernel variant".into());
        }
        if let Some((i, m)) = self.variant_errors.first() {
            return Err(format!("variant {}: {m}", i + 1));
        }
        Ok(())
    }

    /// The validated scenario and variant strings to hand to the worker.
    pub fn run_request(&self) -> Option<(String, Vec<String>)> {
        self.can_run().ok()?;
        Some((
            self.json_text.clone(),
            self.variants
                .iter()
                .map(VariantChoice::to_variant_string)
                .collect(),
        ))
    }

    /// The end of the longest run shown (the timeline's full range), if there are results.
    pub fn run_end_ns(&self) -> Option<u64> {
        match &self.run {
            RunState::Done(r) => r.variants.iter().map(|v| v.end_ns).max().filter(|&e| e > 0),
            _ => None,
        }
    }

    /// The timeline's visible window, resolved (`t1 == 0` is the whole run).
    pub fn timeline_window(&self) -> Option<(u64, u64)> {
        let end = self.run_end_ns()?;
        let tl = &self.view.timeline;
        Some(if tl.t1_ns == 0 {
            (0, end)
        } else {
            (tl.t0_ns, tl.t1_ns)
        })
    }

    fn timeline_action(&mut self, a: TimelineAction) {
        /// Narrowest window: 1 µs.
        const MIN_SPAN: u64 = 1_000;
        let end = self.run_end_ns();
        let window = self.timeline_window();
        let tl = &mut self.view.timeline;
        let set = |tl: &mut TimelineView, t0: i128, t1: i128, end: u64| {
            let span = (t1 - t0).clamp(MIN_SPAN as i128, end as i128);
            let t0 = t0.clamp(0, end as i128 - span);
            tl.t0_ns = t0 as u64;
            tl.t1_ns = (t0 + span) as u64;
        };
        match a {
            TimelineAction::Zoom { factor, center_ns } => {
                if let (Some(end), Some((t0, t1))) = (end, window) {
                    let f = factor.clamp(0.01, 100.0);
                    let c = center_ns.clamp(t0, t1) as f64;
                    let n0 = c - (c - t0 as f64) * f;
                    let n1 = c + (t1 as f64 - c) * f;
                    set(tl, n0.round() as i128, n1.round() as i128, end);
                }
            }
            TimelineAction::Pan(frac) => {
                if let (Some(end), Some((t0, t1))) = (end, window) {
                    let d = ((t1 - t0) as f64 * frac).round() as i128;
                    set(tl, t0 as i128 + d, t1 as i128 + d, end);
                }
            }
            TimelineAction::Fit => {
                tl.t0_ns = 0;
                tl.t1_ns = 0;
            }
            TimelineAction::Range(a, b) => {
                if let Some(end) = end {
                    let (a, b) = (a.min(b), a.max(b));
                    set(tl, a as i128, b as i128, end);
                }
            }
            TimelineAction::ToggleLayout => tl.per_task = !tl.per_task,
            TimelineAction::Select(t) => tl.selected = t,
            TimelineAction::ToggleOverlay => tl.overlay = !tl.overlay,
            TimelineAction::Ruler(t) => {
                if tl.ruler.len() >= 2 {
                    tl.ruler.clear();
                }
                tl.ruler.push(t);
            }
            TimelineAction::ToggleHelp => tl.help = !tl.help,
            TimelineAction::Escape => {
                tl.help = false;
                tl.ruler.clear();
            }
        }
    }

    /// The reducer.
    pub fn reduce(&self, action: Action) -> State {
        let mut s = self.clone();
        let edited = !matches!(
            action,
            Action::Load { .. }
                | Action::Run
                | Action::Progress { .. }
                | Action::Finished(_)
                | Action::Failed(_)
                | Action::Cancel
                | Action::SetLogAxis(_)
                | Action::SetMerged(_)
                | Action::SortBy(_)
                | Action::Timeline(_)
                | Action::Linked(_)
                | Action::Notice(_)
        );
        match action {
            Action::Load { json, source } => {
                // A document that cannot be opened leaves the form and the JSON view as they were.
                s.notice = s.load(&json).err().map(|e| {
                    let name = source.unwrap_or_else(|| "the scenario".into());
                    format!("Could not open {name}: {e}")
                });
                if s.notice.is_none() {
                    s.link = None;
                }
                return s;
            }
            Action::SetMachine { field, value } => {
                let m = &mut s.machine;
                let slot = match field {
                    MachineField::Name => &mut m.name,
                    MachineField::Description => &mut m.description,
                    MachineField::Cpus => &mut m.cpus,
                    MachineField::Hz => &mut m.hz,
                    MachineField::LlcSize => &mut m.llc_size,
                    MachineField::Smt => &mut m.smt,
                    MachineField::DurationMs => &mut m.duration_ms,
                    MachineField::Seed => &mut m.seed,
                };
                *slot = value;
            }
            Action::SetTask { row, field, value } => {
                if let Some(t) = s.tasks.get_mut(row) {
                    let slot = match field {
                        TaskField::Name => &mut t.name,
                        TaskField::Count => &mut t.count,
                        TaskField::Nice => &mut t.nice,
                        TaskField::Policy => &mut t.policy,
                        TaskField::Affinity => &mut t.affinity,
                        TaskField::SliceUs => &mut t.slice_us,
                        TaskField::Program => &mut t.program,
                    };
                    *slot = value;
                }
            }
            Action::AddTask => s.tasks.push(TaskRow {
                name: format!("task{}", s.tasks.len() + 1),
                program: r#"[{"run": "forever"}]"#.into(),
                ..TaskRow::default()
            }),
            Action::DuplicateTask(i) => {
                if let Some(t) = s.tasks.get(i).cloned() {
                    s.tasks.insert(i + 1, t);
                }
            }
            Action::DeleteTask(i) => {
                if i < s.tasks.len() {
                    s.tasks.remove(i);
                }
            }
            Action::SetWorkload { row, kind, params } => {
                if let Some(w) = s.workloads.get_mut(row) {
                    if let Some(k) = kind {
                        w.kind = k;
                    }
                    if let Some(p) = params {
                        w.params = p;
                    }
                }
            }
            Action::AddWorkload => s.workloads.push(WorkloadRow {
                kind: "massive_intr".into(),
                params: "{}".into(),
            }),
            Action::DeleteWorkload(i) => {
                if i < s.workloads.len() {
                    s.workloads.remove(i);
                }
            }
            Action::SetJson(text) => {
                // Keep what is typed; load it into the form only once it is a JSON object.
                let loaded = s.load(&text);
                s.json_text = text;
                match loaded {
                    Ok(()) => s.validate(),
                    Err(e) => s.json_error = Some(e),
                }
                s.link = None;
                return s;
            }
            Action::AddVariant => {
                if s.variants.len() < MAX_VARIANTS {
                    let next = KERNEL_VERSIONS
                        .iter()
                        .map(|p| p.name)
                        .find(|n| !s.variants.iter().any(|v| v.preset == *n))
                        .unwrap_or("eevdf-6.12");
                    s.variants.push(VariantChoice::from_string(next));
                }
            }
            Action::DeleteVariant(i) => {
                if i < s.variants.len() {
                    s.variants.remove(i);
                }
            }
            Action::SetVariantPreset { index, preset } => {
                if let Some(v) = s.variants.get_mut(index) {
                    // Features of the old preset may not exist in the new one.
                    *v = VariantChoice {
                        preset,
                        features: BTreeMap::new(),
                        tunables: v.tunables.clone(),
                    };
                }
            }
            Action::ToggleFeature { index, feature, on } => {
                if let Some(v) = s.variants.get_mut(index) {
                    let default_on = schedlab_sim::kernel_version(&v.preset)
                        .and_then(|p| Feature::from_name(&feature).map(|f| p.defaults.contains(&f)))
                        .unwrap_or(false);
                    if on == default_on {
                        v.features.remove(&feature);
                    } else {
                        v.features.insert(feature, on);
                    }
                }
            }
            Action::SetTunables { index, value } => {
                if let Some(v) = s.variants.get_mut(index) {
                    v.tunables = value;
                }
            }
            Action::Run => {
                s.run = match s.can_run() {
                    Ok(()) => {
                        s.runs += 1;
                        RunState::Running {
                            index: 0,
                            of: s.variants.len(),
                            variant: s.variants[0].to_variant_string(),
                            sim_ns: 0,
                            duration_ns: 0,
                            events: 0,
                        }
                    }
                    Err(e) => RunState::Failed(format!("not run: {e}")),
                };
                return s;
            }
            Action::Progress {
                index,
                of,
                variant,
                sim_ns,
                duration_ns,
                events,
            } => {
                if matches!(s.run, RunState::Running { .. }) {
                    s.run = RunState::Running {
                        index,
                        of,
                        variant,
                        sim_ns,
                        duration_ns,
                        events,
                    };
                }
                return s;
            }
            Action::Finished(r) => {
                if matches!(s.run, RunState::Running { .. }) {
                    s.run = RunState::Done(Shared(std::rc::Rc::new(*r)));
                    let end = s.run_end_ns().unwrap_or(0);
                    let keep = std::mem::take(&mut s.keep_window);
                    let tl = &mut s.view.timeline;
                    if !keep || tl.t1_ns > end || tl.t0_ns >= tl.t1_ns {
                        tl.t0_ns = 0;
                        tl.t1_ns = 0;
                    }
                    tl.ruler.clear();
                }
                return s;
            }
            Action::Failed(m) => {
                s.run = RunState::Failed(m);
                return s;
            }
            Action::Cancel => {
                if matches!(s.run, RunState::Running { .. }) {
                    s.run = RunState::Failed("cancelled".into());
                }
                return s;
            }
            Action::SetLogAxis(b) => {
                s.view.log_axis = b;
                return s;
            }
            Action::SetMerged(b) => {
                s.view.merged = b;
                return s;
            }
            Action::SortBy(k) => {
                s.view.sort = k;
                return s;
            }
            Action::Timeline(a) => {
                s.timeline_action(a);
                return s;
            }
            Action::Linked(l) => {
                s.link = Some(l);
                return s;
            }
            Action::Notice(n) => {
                s.notice = n;
                return s;
            }
        }
        if edited {
            // The link shown under "Copy link" no longer describes the scenario.
            s.link = None;
        }
        s.refresh();
        s
    }
}

/// Escapes text for an HTML attribute value.
fn html_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}
