//! The page's state and its one reducer. No Yew types here: everything is tested natively.
//!
//! The scenario form keeps every field as the text the user typed, so nothing is lost while
//! typing; the scenario document is rebuilt from the form on every edit and validated by the
//! scenario crate, and each error is shown next to the field its path names. The raw JSON view
//! edits the same document: a JSON object that parses is loaded back into the form.
//!
//! `form.rs` holds the form's rows and their round trip with the document, `timeline.rs` the
//! timeline's shared window and its actions; this file the state, the actions and the reducer.

use schedlab_scenario::Scenario;
use schedlab_sim::{Feature, KERNEL_VERSIONS};
use serde_json::{Map, Value};

pub use crate::model::SortKey;
use crate::model::{Progress, Results, Shared};
use crate::recording::Recording;

mod form;
mod sweep;
mod timeline;

pub use form::{
    CgroupField, CgroupRow, Machine, MachineField, TaskField, TaskRow, VariantChoice, WorkloadRow,
};
pub use sweep::{JobState, SweepForm, SweepRun, COMMON_PARAMS};
pub use timeline::{TimelineAction, TimelineView};

/// Most variants compared at once.
pub const MAX_VARIANTS: usize = schedlab_scenario::MAX_VARIANTS;

/// Where a run is.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum RunState {
    /// Nothing run yet.
    #[default]
    Idle,
    /// The worker is simulating: how far it got.
    Running(Progress),
    /// Results of the last run.
    Done(Shared<Results>),
    /// The run stopped: why.
    Failed(String),
}

/// How the results are shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOpts {
    /// The histograms' time axis: log, linear, or (None) chosen from the data
    /// ([`schedlab_report::plot::prefers_log_axis`]).
    pub log_axis: Option<bool>,
    pub timeline: TimelineView,
    /// Merge tasks with the same name, like perf (false: one row per task, `perf -p`).
    pub merged: bool,
    pub sort: SortKey,
    /// The two variants the "first divergence" control compares (indices into the run).
    pub diff_pair: (usize, usize),
    /// The divergence of `diff_pair` is shown (set by the control, cleared by a new run).
    pub diff_shown: bool,
}

/// The whole page state.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub machine: Machine,
    pub tasks: Vec<TaskRow>,
    pub workloads: Vec<WorkloadRow>,
    /// The cgroups (`"cgroups"`), in the order listed: a parent before its children.
    pub cgroups: Vec<CgroupRow>,
    /// `"autogroup": true` (`sched_autogroup_enabled`).
    pub autogroup: bool,
    /// Keys of the document the form does not edit (kept as they were).
    pub extra: Map<String, Value>,
    pub variants: Vec<VariantChoice>,
    /// The raw JSON view's text; while it holds a document that does not parse it is what the
    /// user is typing, and the form keeps the last good document.
    pub json_text: String,
    pub json_error: Option<String>,
    /// The scenario the form describes, when it is valid: the one value that the link, the
    /// embed code and the worker use (validated once per edit, never parsed again).
    pub scenario: Option<Scenario>,
    /// Validation errors of the current document: (path, message).
    pub errors: Vec<(String, String)>,
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
    /// The recording shown beside the variants (its "recorded" column and timeline).
    pub recording: Option<Shared<Recording>>,
    /// Recordings opened so far (each import is tagged with its number).
    pub imports: u64,
    /// The recording being read, if one is.
    pub importing: Option<ImportProgress>,
    /// Why the last recording could not be read, and its line warnings.
    pub import_error: Option<String>,
    /// What the scenario in the editor could not take from the recording it was derived from.
    pub derived_notes: Vec<String>,
    /// The sweep panel's fields.
    pub sweep_form: SweepForm,
    /// The last sweep started, in progress or done.
    pub sweep: Option<SweepRun>,
    /// Sweeps started so far.
    pub sweeps: u64,
    /// Why the last sweep could not start.
    pub sweep_error: Option<String>,
    /// The page was opened from a link with a sweep: run it once the page is up.
    pub sweep_from_link: bool,
    /// The switch whose explanation was asked of the worker (the effect sends it).
    pub explain: Option<crate::model::ExplainReq>,
    /// The worker's answer for `explain`.
    pub explained: Option<crate::model::Explained>,
    /// The variants of the run in progress that finished, shown while the others run.
    pub streamed: Option<Shared<Results>>,
}

/// A recording being read.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportProgress {
    pub id: u64,
    pub file: String,
    /// Bytes of the file read and handed to the worker, of `total`.
    pub bytes: u64,
    pub total: u64,
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
    /// One parameter of a workload, from its form field.
    SetWorkloadParam {
        row: usize,
        name: String,
        value: String,
    },
    AddWorkload,
    DeleteWorkload(usize),
    /// A text field of cgroup `row`; renaming a cgroup's path renames it in the task groups
    /// and workloads that name it and in its children's paths.
    SetCgroup {
        row: usize,
        field: CgroupField,
        value: String,
    },
    SetCgroupIdle {
        row: usize,
        idle: bool,
    },
    /// A new top-level cgroup, or (`Some(parent)`) a child of cgroup `parent`, listed after
    /// the parent's last descendant.
    AddCgroup(Option<usize>),
    /// Removes a cgroup (task groups and children that name it keep the name; the validator
    /// says what is missing, as the kernel refuses to remove a busy cgroup).
    DeleteCgroup(usize),
    SetAutogroup(bool),
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
    Progress(Progress),
    /// A variant of the run finished: its views (the last one finishes the run).
    VariantDone(Box<crate::model::VariantViews>),
    Finished(Box<Results>),
    /// Ask the worker why this switch happened (a click on a switch in the timeline).
    Explain(crate::model::ExplainReq),
    /// The worker's answer; kept if it answers the switch asked about last.
    Explained(Box<crate::model::Explained>),
    /// Run `run` failed (the worker's message, or the page's when the worker stopped answering).
    Failed {
        run: u64,
        message: String,
    },
    Cancel,
    SetLogAxis(bool),
    SetMerged(bool),
    SortBy(SortKey),
    /// Pick the variant on side `side` (0 or 1) of the "first divergence" control.
    SetDiffSide {
        side: usize,
        index: usize,
    },
    SetSweepParam(String),
    SetSweepFigure(String),
    /// A sweep was started (the page hands its work to the workers).
    SweepStarted(Box<SweepRun>),
    /// A sweep could not start: why.
    SweepRefused(String),
    /// Job `job` of sweep `id` is running in a worker.
    SweepJobRunning {
        id: u64,
        job: usize,
    },
    SweepRow {
        id: u64,
        job: usize,
        figures: Box<schedlab_report::sweep::RunFigures>,
    },
    SweepFailed {
        id: u64,
        job: usize,
        message: String,
    },
    SweepCancel,
    /// Show where the picked pair first diverges: both timelines jump there and mark it.
    ShowDivergence,
    Timeline(TimelineAction),
    /// A link was made (shown for copying).
    Linked(String),
    /// Show a message about the page (or clear it with None).
    Notice(Option<String>),
    /// Recording number `id` (`imports + 1`) is being read from `file` of `total` bytes.
    ImportStarted {
        id: u64,
        file: String,
        total: u64,
    },
    ImportProgress {
        id: u64,
        bytes: u64,
    },
    Imported(Box<Recording>),
    ImportFailed {
        id: u64,
        message: String,
    },
    ImportCancel,
    RemoveRecording,
    /// Fill the editor with the scenario derived from the recording.
    MakeScenario,
}

impl State {
    /// The page as a first visit sees it: the SCHED_IDLE pair under two kernels.
    pub fn initial() -> State {
        let mut s = State {
            machine: Machine::default(),
            tasks: vec![],
            workloads: vec![],
            cgroups: vec![],
            autogroup: false,
            extra: Map::new(),
            variants: vec![],
            json_text: String::new(),
            json_error: None,
            scenario: None,
            errors: vec![],
            run: RunState::Idle,
            view: ViewOpts {
                timeline: TimelineView::default(),
                log_axis: None,
                merged: true,
                sort: SortKey::Perf,
                diff_pair: (0, 1),
                diff_shown: false,
            },
            runs: 0,
            notice: None,
            embed: None,
            link: None,
            keep_window: false,
            recording: None,
            imports: 0,
            importing: None,
            import_error: None,
            derived_notes: vec![],
            sweep_form: SweepForm::default(),
            sweep: None,
            sweeps: 0,
            sweep_error: None,
            sweep_from_link: false,
            explain: None,
            explained: None,
            streamed: None,
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
                    if let Err(e) = s.load_value(l.scenario.to_value()) {
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
                    s.view.log_axis = l.view.log_axis;
                    if let Some(sw) = l.view.sweep {
                        s.sweep_form = SweepForm {
                            param: sw.param,
                            figure: sw.figure,
                        };
                        s.sweep_from_link = true;
                    }
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
        // While the JSON view holds text that does not parse, the page shows no scenario to link.
        if self.json_error.is_some() {
            return None;
        }
        let sc = self.scenario.as_ref()?;
        let tl = &self.view.timeline;
        let view = schedlab_scenario::link::LinkView {
            view: None,
            window_ns: (tl.t1_ns > 0).then_some((tl.t0_ns, tl.t1_ns)),
            selected: tl.selected.clone(),
            per_task: tl.per_task,
            log_axis: self.view.log_axis,
            // The last sweep started, with the figure shown now.
            sweep: self
                .sweep
                .as_ref()
                .map(|r| schedlab_scenario::link::LinkSweep {
                    param: r.spec.clone(),
                    figure: self.sweep_form.figure.clone(),
                }),
        };
        Some(schedlab_scenario::link::encode(sc, &view))
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

    /// The validator's message for variant `index`, if it rejected it.
    pub fn variant_error(&self, index: usize) -> Option<String> {
        let path = format!("variants[{index}]");
        self.errors
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, m)| m.clone())
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
        if matches!(self.run, RunState::Running(_)) {
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
        Ok(())
    }

    /// The number the next run will have and the validated scenario to hand to the worker (it
    /// holds the variants), if a run may start. Every reply of the worker carries that number;
    /// replies of any other run are dropped.
    pub fn run_request(&self) -> Option<(u64, Scenario)> {
        self.can_run().ok()?;
        Some((self.runs + 1, self.scenario.clone()?))
    }

    /// The results to show: the last run's, or the variants of the run in progress that
    /// finished.
    pub fn shown_results(&self) -> Option<Shared<Results>> {
        match &self.run {
            RunState::Done(r) => Some(r.clone()),
            RunState::Running(_) => self.streamed.clone(),
            _ => None,
        }
    }

    /// The divergence of the picked pair of variants, sides in the order picked, when the last
    /// run is done and has both. A variant against itself has none.
    pub fn divergence(&self) -> Option<crate::model::DivergenceView> {
        let RunState::Done(r) = &self.run else {
            return None;
        };
        let (a, b) = self.view.diff_pair;
        if a >= r.variants.len() || b >= r.variants.len() {
            return None;
        }
        if a == b {
            return Some(crate::model::DivergenceView {
                a,
                b,
                settings: vec![],
                found: None,
                events: 0,
                compared: None,
            });
        }
        // The run holds each pair once, lower index first.
        let (lo, hi) = (a.min(b), a.max(b));
        let d = r.divergences.iter().find(|d| d.a == lo && d.b == hi)?;
        Some(if a > b { d.swapped() } else { d.clone() })
    }

    /// Shows a 2 ms window centred on `t_ns` in every timeline, with the ruler marking `t_ns`.
    fn jump_to(&mut self, t_ns: u64) {
        const SPAN: u64 = 2_000_000;
        let a = t_ns.saturating_sub(SPAN / 2);
        self.timeline_action(TimelineAction::Range(a, a + SPAN));
        self.view.timeline.ruler = vec![t_ns];
    }

    /// The reducer.
    pub fn reduce(&self, action: Action) -> State {
        let mut s = self.clone();
        match action {
            Action::Load { json, source } => {
                // A document that cannot be opened leaves the form and the JSON view as they were.
                s.notice = s.load(&json).err().map(|e| {
                    let name = source.unwrap_or_else(|| "the scenario".into());
                    format!("Could not open {name}: {e}")
                });
                if s.notice.is_none() {
                    s.link = None;
                    s.derived_notes.clear();
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
                    MachineField::Machine => &mut m.machine,
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
                        TaskField::Cgroup => &mut t.cgroup,
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
                        w.set_kind(k);
                    }
                    if let Some(p) = params {
                        w.params = p;
                    }
                }
            }
            Action::SetWorkloadParam { row, name, value } => {
                if let Some(w) = s.workloads.get_mut(row) {
                    w.set_param(&name, &value);
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
            Action::SetCgroup { row, field, value } => {
                if let Some(g) = s.cgroups.get_mut(row) {
                    match field {
                        CgroupField::Path => {
                            let old = std::mem::replace(&mut g.path, value.clone());
                            s.rename_cgroup(row, &old, &value);
                        }
                        CgroupField::Weight => g.weight = value,
                        CgroupField::QuotaUs => g.quota_us = value,
                        CgroupField::PeriodUs => g.period_us = value,
                    }
                }
            }
            Action::SetCgroupIdle { row, idle } => {
                if let Some(g) = s.cgroups.get_mut(row) {
                    g.idle = idle;
                }
            }
            Action::AddCgroup(parent) => {
                if s.cgroups.len() < schedlab_scenario::MAX_CGROUPS {
                    s.add_cgroup(parent);
                }
            }
            Action::DeleteCgroup(i) => {
                if i < s.cgroups.len() {
                    s.cgroups.remove(i);
                }
            }
            Action::SetAutogroup(on) => s.autogroup = on,
            Action::SetJson(text) => {
                // Keep what is typed; load it into the form only once it is a JSON object.
                if let Err(e) = s.load(&text) {
                    s.json_error = Some(e);
                }
                s.json_text = text;
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
                        features: vec![],
                        tunables: v.tunables.clone(),
                    };
                }
            }
            Action::ToggleFeature { index, feature, on } => {
                if let Some(v) = s.variants.get_mut(index) {
                    let default_on = schedlab_sim::kernel_version(&v.preset)
                        .and_then(|p| Feature::from_name(&feature).map(|f| p.defaults.contains(&f)))
                        .unwrap_or(false);
                    v.set_feature(feature, (on != default_on).then_some(on));
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
                        RunState::Running(Progress {
                            run: s.runs,
                            index: 0,
                            of: s.variants.len(),
                            variant: s.variants[0].to_variant_string(),
                            sim_ns: 0,
                            duration_ns: 0,
                            events: 0,
                        })
                    }
                    Err(e) => RunState::Failed(format!("not run: {e}")),
                };
                s.streamed = None;
                return s;
            }
            Action::Progress(p) => {
                if matches!(s.run, RunState::Running(_)) && p.run == s.runs {
                    s.run = RunState::Running(p);
                }
                return s;
            }
            Action::VariantDone(v) => {
                if !(matches!(s.run, RunState::Running(_)) && v.run == s.runs) {
                    return s;
                }
                let last = v.index + 1 == v.of;
                let before = s.streamed.take().map(|r| (*r).clone());
                let r = crate::model::add_variant(before, *v);
                if !last {
                    s.streamed = Some(Shared(std::rc::Rc::new(r)));
                    return s;
                }
                return s.reduce(Action::Finished(Box::new(r)));
            }
            Action::Finished(r) => {
                if matches!(s.run, RunState::Running(_)) && r.run == s.runs {
                    s.streamed = None;
                    let n = r.variants.len();
                    s.run = RunState::Done(Shared(std::rc::Rc::new(*r)));
                    let end = s.run_end_ns().unwrap_or(0);
                    let keep = std::mem::take(&mut s.keep_window);
                    let tl = &mut s.view.timeline;
                    if !keep || tl.t1_ns > end || tl.t0_ns >= tl.t1_ns {
                        tl.t0_ns = 0;
                        tl.t1_ns = 0;
                    }
                    tl.ruler.clear();
                    let p = s.view.diff_pair;
                    if p.0 >= n || p.1 >= n {
                        s.view.diff_pair = (0, 1);
                    }
                    s.view.diff_shown = false;
                }
                return s;
            }
            Action::Explain(req) => {
                s.explain = Some(req);
                s.explained = None;
                return s;
            }
            Action::Explained(x) => {
                if s.explain == Some(x.req) {
                    s.explained = Some(*x);
                }
                return s;
            }
            Action::Failed { run, message } => {
                if matches!(s.run, RunState::Running(_)) && run == s.runs {
                    s.streamed = None;
                    s.run = RunState::Failed(message);
                }
                return s;
            }
            Action::Cancel => {
                if matches!(s.run, RunState::Running(_)) {
                    s.streamed = None;
                    s.run = RunState::Failed("cancelled".into());
                }
                return s;
            }
            Action::SetLogAxis(b) => {
                s.view.log_axis = Some(b);
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
            Action::SetDiffSide { side, index } => {
                let n = match &s.run {
                    RunState::Done(r) => r.variants.len(),
                    _ => 0,
                };
                if index < n {
                    let p = &mut s.view.diff_pair;
                    if side == 0 {
                        p.0 = index;
                    } else {
                        p.1 = index;
                    }
                    s.view.diff_shown = false;
                }
                return s;
            }
            Action::SetSweepParam(p) => {
                s.sweep_form.param = p;
                return s;
            }
            Action::SetSweepFigure(f) => {
                s.sweep_form.figure = f;
                return s;
            }
            Action::SweepStarted(r) => {
                s.sweeps = s.sweeps.max(r.id);
                s.sweep = Some(*r);
                s.sweep_error = None;
                s.sweep_from_link = false;
                return s;
            }
            Action::SweepRefused(e) => {
                s.sweep_error = Some(e);
                s.sweep_from_link = false;
                return s;
            }
            Action::SweepJobRunning { id, job } => {
                if let Some(r) = s.sweep.as_mut().filter(|r| r.id == id && r.running()) {
                    if let Some(st) = r.states.get_mut(job) {
                        *st = JobState::Running;
                    }
                }
                return s;
            }
            Action::SweepRow { id, job, figures } => {
                if let Some(r) = s.sweep.as_mut().filter(|r| r.id == id && r.running()) {
                    if let Some(st) = r.states.get_mut(job) {
                        *st = JobState::Done(figures);
                    }
                }
                return s;
            }
            Action::SweepFailed { id, job, message } => {
                if let Some(r) = s.sweep.as_mut().filter(|r| r.id == id && r.running()) {
                    if let Some(st) = r.states.get_mut(job) {
                        *st = JobState::Failed(message);
                    }
                }
                return s;
            }
            Action::SweepCancel => {
                if let Some(r) = s.sweep.as_mut().filter(|r| r.running()) {
                    r.cancelled = true;
                }
                return s;
            }
            Action::ShowDivergence => {
                s.view.diff_shown = true;
                if let Some(t) = s.divergence().and_then(|d| d.found.map(|f| f.t_ns)) {
                    s.jump_to(t);
                }
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
            Action::ImportStarted { id, file, total } => {
                s.imports = s.imports.max(id);
                s.import_error = None;
                s.importing = Some(ImportProgress {
                    id,
                    file,
                    bytes: 0,
                    total,
                });
                return s;
            }
            Action::ImportProgress { id, bytes } => {
                if let Some(p) = s.importing.as_mut().filter(|p| p.id == id) {
                    p.bytes = bytes;
                }
                return s;
            }
            Action::Imported(r) => {
                if s.importing.as_ref().is_some_and(|p| p.id == r.id) {
                    s.importing = None;
                    s.recording = Some(Shared(std::rc::Rc::new(*r)));
                    s.view.timeline.t0_ns = 0;
                    s.view.timeline.t1_ns = 0;
                    s.view.timeline.ruler.clear();
                }
                return s;
            }
            Action::ImportFailed { id, message } => {
                if s.importing.as_ref().is_some_and(|p| p.id == id) {
                    s.importing = None;
                    s.import_error = Some(message);
                }
                return s;
            }
            Action::ImportCancel => {
                if let Some(p) = s.importing.take() {
                    s.import_error = Some(format!("{}: reading cancelled", p.file));
                }
                return s;
            }
            Action::RemoveRecording => {
                s.recording = None;
                s.import_error = None;
                let end = s.run_end_ns().unwrap_or(0);
                let tl = &mut s.view.timeline;
                if tl.t1_ns > end {
                    tl.t0_ns = 0;
                    tl.t1_ns = 0;
                }
                return s;
            }
            Action::MakeScenario => {
                let Some(r) = s.recording.clone() else {
                    return s;
                };
                match &r.derived {
                    Ok(json) => {
                        // Under the variants picked now (the recording may have been read
                        // under others).
                        let mut json = json.clone();
                        if !s.variants.is_empty() {
                            if let Ok(Value::Object(mut doc)) = serde_json::from_str(&json) {
                                let vs = s
                                    .variants
                                    .iter()
                                    .map(|v| Value::String(v.to_variant_string()));
                                doc.insert("variants".into(), Value::Array(vs.collect()));
                                json = serde_json::to_string_pretty(&Value::Object(doc))
                                    .unwrap_or(json);
                            }
                        }
                        s.notice = s
                            .load(&json)
                            .err()
                            .map(|e| format!("Could not open the derived scenario: {e}"));
                        s.link = None;
                        s.derived_notes = r.derived_notes.clone();
                    }
                    Err(e) => s.notice = Some(format!("No scenario from this recording: {e}")),
                }
                return s;
            }
        }
        // Only edits of the scenario get here: the link shown under "Copy link" no longer
        // describes it.
        s.link = None;
        s.refresh();
        s
    }
}

impl State {
    /// After cgroup `row`'s path changed from `old` to `new`: the task groups and workloads in
    /// `old` or below it follow it, and so do the cgroups below it (`old/x` becomes `new/x`).
    fn rename_cgroup(&mut self, row: usize, old: &str, new: &str) {
        if old.is_empty()
            || new.is_empty()
            || old == new
            || self.cgroups.iter().any(|g| g.path == old)
        {
            // Nothing named it, the field was cleared (the tasks keep the last path), or
            // another cgroup still has the old path.
            return;
        }
        let prefix = format!("{old}/");
        for t in &mut self.tasks {
            if t.cgroup == old {
                t.cgroup = new.to_string();
            } else if let Some(rest) = t.cgroup.strip_prefix(&prefix) {
                t.cgroup = format!("{new}/{rest}");
            }
        }
        for w in &mut self.workloads {
            let c = w.param_text("cgroup");
            if c == old {
                w.set_param("cgroup", new);
            } else if let Some(rest) = c.strip_prefix(&prefix) {
                w.set_param("cgroup", &format!("{new}/{rest}"));
            }
        }
        for (i, g) in self.cgroups.iter_mut().enumerate() {
            if i != row {
                if let Some(rest) = g.path.strip_prefix(&prefix) {
                    g.path = format!("{new}/{rest}");
                }
            }
        }
    }

    /// Adds a cgroup with a path no other has: `/groupN`, or `PARENT/groupN` under cgroup
    /// `parent`, listed after the parent's last descendant (parents come first).
    fn add_cgroup(&mut self, parent: Option<usize>) {
        let (base, at) = match parent.and_then(|p| self.cgroups.get(p).map(|g| (p, g))) {
            Some((p, g)) => {
                let below = format!("{}/", g.path);
                let last = self
                    .cgroups
                    .iter()
                    .enumerate()
                    .skip(p + 1)
                    .take_while(|(_, x)| x.path.starts_with(&below))
                    .last()
                    .map_or(p, |(i, _)| i);
                (g.path.clone(), last + 1)
            }
            None => (String::new(), self.cgroups.len()),
        };
        let path = (1..)
            .map(|n| format!("{base}/group{n}"))
            .find(|p| !self.cgroups.iter().any(|g| &g.path == p))
            .unwrap_or_default();
        self.cgroups.insert(
            at,
            CgroupRow {
                path,
                ..CgroupRow::default()
            },
        );
    }

    /// The cgroup paths a task group may pick (the form's, in order), plus the one it names
    /// if that is not among them (so that the select never drops what was typed).
    pub fn cgroup_choices(&self, task: usize) -> Vec<String> {
        let mut v: Vec<String> = self
            .cgroups
            .iter()
            .map(|g| g.path.clone())
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(t) = self.tasks.get(task) {
            if !t.cgroup.is_empty() && !v.contains(&t.cgroup) {
                v.push(t.cgroup.clone());
            }
        }
        v
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
