//! View models: what the page shows of a run, computed from the simulator's output by pure
//! functions (in the worker, off the UI thread) and tested natively.

use schedlab_report::compare::VariantSummary;
use schedlab_report::export::RunReport;
use schedlab_report::latency::{latency_rows, LatencyRow};
use schedlab_report::timeline::RunTimeline;
use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
use schedlab_scenario::Scenario;
use schedlab_sim::Output;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most latency samples kept per variant for the histograms (a deterministic stride).
pub const MAX_SAMPLES: usize = 100_000;

/// Where a run is, as the worker reports it after every chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The run it belongs to (`State::runs` when it was started).
    pub run: u64,
    /// The variant being simulated, of `of`.
    pub index: usize,
    pub of: usize,
    pub variant: String,
    /// Simulated time reached and asked for, ns.
    pub sim_ns: u64,
    pub duration_ns: u64,
    /// Events simulated so far in this variant.
    pub events: u64,
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

/// What one variant's run shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    pub variant: String,
    /// Rows merged by task name, in perf's order.
    pub merged: Vec<LatencyRow>,
    /// One row per task.
    pub per_task: Vec<LatencyRow>,
    /// Wakeup latencies (sched_waking → running), ns, subsampled to [`MAX_SAMPLES`].
    pub wakeup_ns: Vec<u64>,
    /// Scheduling delays (every wait perf counts), ns, subsampled.
    pub delay_ns: Vec<u64>,
    /// schedstat totals over all CPUs, in display order.
    pub counters: Vec<(String, u64)>,
    /// The workloads' own figures as the tools print them.
    pub figures: String,
    /// Why the run ended early, when it did (a deadlock).
    pub note: Option<String>,
    /// The comparison figures (switches, delays, preemption ratio, CPU shares, throughput).
    pub summary: VariantSummary,
    pub events: u64,
    pub end_ns: u64,
    /// What the timeline draws.
    pub timeline: RunTimeline,
    /// The task group of each latency row, by [`LatencyRow::label`] (merged and per-task rows
    /// alike); empty when the scenario has no groups, and the table has no group column.
    #[serde(default)]
    pub row_groups: BTreeMap<String, String>,
    /// Each task's group path, by pid − 1 (empty without groups): the timeline names it.
    #[serde(default)]
    pub task_groups: Vec<String>,
    /// When the scenario is a preset's (its variants aside): the preset's name and the model's
    /// value of each figure its source reports (`schedlab_report::observed::model_values`).
    #[serde(default)]
    pub source_figures: Option<(String, Vec<Option<f64>>)>,
}

/// One line of a variant's group shares table.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupShareRow {
    /// The group's path (`/` is the whole machine's tasks).
    pub path: String,
    /// How deep it is (`/` 0, `/a` 1, `/a/b` 2), for indenting the tree.
    pub depth: usize,
    /// Tasks in it or below it.
    pub tasks: u32,
    /// CPU time of those tasks, ms (`%.3f`).
    pub cpu_ms: String,
    /// Share of the machine's CPU time (`25.0%`), as the command line prints it.
    pub share: String,
    /// `cpu.stat` of a `cpu.max` group: nr_periods, nr_throttled, throttled_time in ms.
    pub cpu_stat: Option<(u64, u64, String)>,
}

/// The group shares table of one variant (empty without groups).
pub fn group_share_rows(groups: &[schedlab_report::groups::GroupShare]) -> Vec<GroupShareRow> {
    groups
        .iter()
        .map(|g| GroupShareRow {
            path: g.path.clone(),
            depth: if g.path == "/" {
                0
            } else {
                g.path.matches('/').count()
            },
            tasks: g.tasks,
            cpu_ms: ms(g.runtime_ns),
            share: schedlab_report::groups::share_text(g.share),
            cpu_stat: g
                .cpu_stat
                .as_ref()
                .map(|b| (b.nr_periods, b.nr_throttled, ms(b.throttled_time_ns))),
        })
        .collect()
}

/// A shared, immutable value compared by identity: cheap to clone into the state and into
/// component properties, however large.
#[derive(Clone, Debug)]
pub struct Shared<T>(pub std::rc::Rc<T>);

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The run they belong to (`State::runs` when it was started).
    pub run: u64,
    pub scenario: String,
    pub variants: Vec<VariantResult>,
    /// The report the CSV and JSON exports print (the command line prints the same one).
    pub report: RunReport,
    /// Where each pair of variants `(a, b)`, `a < b`, first makes a different decision.
    pub divergences: Vec<DivergenceView>,
}

/// The page asks the worker why a switch happened: run `run`'s variant `variant` (its index),
/// the switch at (`t_ns`, `cpu`) that switched `prev` out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExplainReq {
    pub run: u64,
    pub variant: usize,
    pub t_ns: u64,
    pub cpu: u32,
    pub prev: u32,
}

/// The worker's answer: the lines of `schedlab_report::why::switch_explanation` (empty when
/// the run's records are gone) and the time of the wakeup that caused a preemption.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    pub req: ExplainReq,
    pub lines: Vec<String>,
    pub cause_ns: Option<u64>,
}

/// Where two variants of the run first part ways ([`schedlab_report::diff`], as `schedlab
/// diff` finds it): computed in the worker, which has the traces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DivergenceView {
    /// The two variants, by index in the run.
    pub a: usize,
    pub b: usize,
    /// The settings that differ (`RUN_TO_PARITY on / off`, `base_slice_ns 3000000 / 750000`).
    pub settings: Vec<String>,
    /// None: the two runs make the same decisions to the end.
    pub found: Option<DivergencePoint>,
    /// Events the runs have (when there is no divergence, both have this many).
    pub events: usize,
    /// When the page compared only a prefix of the first run (it keeps the first
    /// [`DIVERGENCE_EVENTS`] events of each finished variant, not the whole trace): how many
    /// compared events the two runs share in it. With `found` None, the runs agree that far.
    #[serde(default)]
    pub compared: Option<usize>,
}

impl DivergenceView {
    /// The same divergence seen from the other side (`b` first).
    pub fn swapped(&self) -> DivergenceView {
        let settings = self
            .settings
            .iter()
            .map(|x| {
                // "NAME x / y" → "NAME y / x".
                let Some((head, y)) = x.rsplit_once(" / ") else {
                    return x.clone();
                };
                match head.rsplit_once(' ') {
                    Some((name, xv)) => format!("{name} {y} / {xv}"),
                    None => x.clone(),
                }
            })
            .collect();
        DivergenceView {
            a: self.b,
            b: self.a,
            settings,
            found: self.found.as_ref().map(|f| {
                let mut f = f.clone();
                f.event.swap(0, 1);
                f.event_ns.swap(0, 1);
                f.state.swap(0, 1);
                f.why.swap(0, 1);
                f
            }),
            events: self.events,
            compared: self.compared,
        }
    }
}

/// The first differing event of two runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DivergencePoint {
    /// When: the earlier of the two events.
    pub t_ns: u64,
    /// Compared events the runs share before it.
    pub common: usize,
    /// Each side's event as a line (`None`: that run ends there).
    pub event: [Option<String>; 2],
    /// The event's time on each side.
    pub event_ns: [Option<u64>; 2],
    /// The shared event just before it, if any.
    pub before: Option<String>,
    /// The fair-class state on each side of the tasks the two events name, at their last
    /// snapshot at or before `t_ns`.
    pub state: [Vec<TaskState>; 2],
    /// Why, on each side: the engine's decision records behind the divergence (the same
    /// wakeup check on both sides, the rule that preempted or kept curr).
    #[serde(default)]
    pub why: [Vec<String>; 2],
}

/// What a snapshot says of a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskState {
    /// `comm:pid`.
    pub task: String,
    /// None: no snapshot of it yet.
    pub snapshot: Option<schedlab_sim::Snapshot>,
}

/// Where variants `a` and `b` of `scenario` (with outputs `outs`) first make a different
/// decision.
pub fn divergence(scenario: &Scenario, outs: &[Output], a: usize, b: usize) -> DivergenceView {
    let full = outs[a].trace.events.len();
    divergence_of(scenario, (a, &outs[a].trace, full), (b, &outs[b].trace))
}

/// The decision records a run's views read (the rest are not kept while it runs): the wakeup
/// checks and the preemptions, for the switch notes (`diff::preemption_reasons`) and the
/// first-divergence panel (`diff::explain_lines`). The explainer re-simulates with them all.
pub fn read_decision(k: &schedlab_sim::decision::DecisionKind) -> bool {
    use schedlab_sim::decision::DecisionKind;
    matches!(
        k,
        DecisionKind::Wakeup { .. } | DecisionKind::Preempt { .. }
    )
}

/// Most events of each finished variant the worker keeps to find divergences with the
/// variants that finish after it (with the snapshots and decision records up to the last of
/// them).
pub const DIVERGENCE_EVENTS: usize = 1_000_000;

/// The first `n` events of `t`, with its snapshots and decision records up to the time of the
/// last of them (what [`divergence_of`] reads of it).
pub fn trace_prefix(t: &schedlab_sim::Trace, n: usize) -> schedlab_sim::Trace {
    if t.events.len() <= n {
        return t.clone();
    }
    let end = t.events.get(n.saturating_sub(1)).map_or(0, |e| e.t_ns);
    schedlab_sim::Trace {
        cpus: t.cpus,
        tasks: t.tasks.clone(),
        events: t.events.range(..n).collect(),
        snapshots: t
            .snapshots
            .iter()
            .take_while(|s| s.t_ns <= end)
            .copied()
            .collect(),
        decisions: t
            .decisions
            .iter()
            .take_while(|d| d.t_ns <= end)
            .cloned()
            .collect(),
        end_ns: end,
    }
}

/// Where variant `a` (its trace `ta`, maybe a prefix of a run of `a_events` events) and
/// variant `b` (its whole trace `tb`) first make a different decision. When `ta` is a prefix
/// and the two agree to its end, no divergence is found and `compared` says how far they agree.
pub fn divergence_of(
    scenario: &Scenario,
    (a, ta, a_events): (usize, &schedlab_sim::Trace, usize),
    (b, tb): (usize, &schedlab_sim::Trace),
) -> DivergenceView {
    use schedlab_report::diff::{
        event_text, explain_lines, first_divergence, last_snapshot, setting_differences, task_label,
    };
    let vs = scenario.variants();
    let cut = ta.events.len() < a_events;
    let mut compared = None;
    let d = first_divergence(ta, tb, false).filter(|d| {
        // The prefix's end is no end of the run.
        if cut && d.a.is_none() {
            compared = Some(d.common);
            return false;
        }
        true
    });
    if cut && d.is_none() && compared.is_none() {
        // b's whole run agrees with the prefix: a goes on beyond it, unseen.
        compared = Some(
            ta.events
                .iter()
                .filter(|e| !matches!(e.kind, schedlab_sim::EventKind::StatRuntime { .. }))
                .count(),
        );
    }
    let found = d.map(|d| {
        let t_ns = d.t_ns();
        let involved = d.involved();
        let state = [ta, tb].map(|t| {
            involved
                .iter()
                .map(|&p| TaskState {
                    task: task_label(t, p),
                    snapshot: last_snapshot(t, p, t_ns).copied(),
                })
                .collect()
        });
        let before = ta
            .events
            .range(..d.index.0)
            .rev()
            .find(|e| !matches!(e.kind, schedlab_sim::EventKind::StatRuntime { .. }))
            .map(|e| event_text(ta, &e));
        DivergencePoint {
            t_ns,
            common: d.common,
            event: [
                d.a.map(|e| event_text(ta, &e)),
                d.b.map(|e| event_text(tb, &e)),
            ],
            event_ns: [d.a.map(|e| e.t_ns), d.b.map(|e| e.t_ns)],
            before,
            state,
            why: explain_lines(ta, tb, &d),
        }
    });
    DivergenceView {
        a,
        b,
        settings: setting_differences(&vs[a], &vs[b], scenario.cpus as u32),
        found,
        events: a_events,
        compared,
    }
}

pub(crate) fn subsample(mut v: Vec<u64>) -> Vec<u64> {
    if v.len() > MAX_SAMPLES {
        let step = v.len().div_ceil(MAX_SAMPLES);
        v = v.into_iter().step_by(step).collect();
    }
    v
}

/// Builds the view models of a scenario's runs (one output per variant of the scenario, in
/// order).
pub fn results(run: u64, scenario: &Scenario, outs: &[Output]) -> Results {
    let mut r: Option<Results> = None;
    for (index, o) in outs.iter().enumerate() {
        let divergences = (0..index)
            .map(|a| divergence(scenario, outs, a, index))
            .collect();
        let v = variant_views(run, scenario, index, o, divergences);
        r = Some(add_variant(r, v));
    }
    r.unwrap_or_else(|| Results {
        run,
        scenario: scenario.name.clone(),
        variants: vec![],
        report: RunReport::new(scenario, &[]),
        divergences: vec![],
    })
    .sorted_divergences()
}

/// One variant's views, sent as soon as it finishes (the page shows the variants as they come).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantViews {
    pub run: u64,
    /// Its index in the run, of `of`.
    pub index: usize,
    pub of: usize,
    pub scenario: String,
    pub result: VariantResult,
    /// The run's report with this variant alone (its `variants` and `summary` have one entry).
    pub report: RunReport,
    /// Where each earlier variant `a` and this one first differ (`a < index`, in order).
    pub divergences: Vec<DivergenceView>,
}

/// The views of variant `index` of `scenario` (its output `o`), with its divergences from the
/// variants before it.
pub fn variant_views(
    run: u64,
    scenario: &Scenario,
    index: usize,
    o: &Output,
    divergences: Vec<DivergenceView>,
) -> VariantViews {
    let infos = scenario.workloads();
    let variant = &scenario.variants()[index];
    let report = RunReport::new(scenario, std::slice::from_ref(o));
    let paths = schedlab_report::groups::task_group_paths(&scenario.sim_config().cgroups);
    let c = o
        .cpus
        .iter()
        .fold(schedlab_sim::CpuStats::default(), |mut a, c| {
            a.sched_count += c.sched_count;
            a.ttwu_count += c.ttwu_count;
            a.ttwu_local += c.ttwu_local;
            a.check_preempt_count += c.check_preempt_count;
            a.need_preempt_count += c.need_preempt_count;
            a.lb_pulled += c.lb_pulled;
            a
        });
    let migrations: u64 = o.tasks.iter().map(|t| t.migrations).sum();
    let merged = latency_rows(&o.trace, true);
    let per_task = latency_rows(&o.trace, false);
    let mut row_groups = BTreeMap::new();
    if !paths.is_empty() {
        for r in merged.iter().chain(&per_task) {
            let g = schedlab_report::groups::row_group(&paths, &o.trace, r);
            row_groups.insert(r.label(), g);
        }
    }
    let result = VariantResult {
        variant: o.variant.clone(),
        merged,
        per_task,
        row_groups,
        task_groups: paths.clone(),
        wakeup_ns: subsample(wakeup_latencies_ns(&o.trace, None)),
        delay_ns: subsample(sched_delays_ns(&o.trace)),
        counters: vec![
            ("sched_count".into(), c.sched_count),
            ("ttwu_count".into(), c.ttwu_count),
            ("ttwu_local".into(), c.ttwu_local),
            ("check_preempt_count".into(), c.check_preempt_count),
            ("need_preempt_count".into(), c.need_preempt_count),
            ("migrations".into(), migrations),
            ("lb_pulled".into(), c.lb_pulled),
        ],
        figures: schedlab_report::figures::workload_figures(&infos, o).text,
        note: o.deadlock.as_ref().map(|d| d.to_string()),
        summary: report.summary[0].clone(),
        events: o.events_processed,
        end_ns: o.trace.end_ns,
        timeline: RunTimeline::from_output(o, variant),
        // The report measured them already (one entry per figure, in the preset's order).
        source_figures: schedlab_scenario::presets::preset_of(scenario).map(|p| {
            (
                p.name.to_string(),
                report.variants[0]
                    .source_figures
                    .iter()
                    .map(|f| f.model)
                    .collect(),
            )
        }),
    };
    VariantViews {
        run,
        index,
        of: scenario.variants().len(),
        scenario: scenario.name.clone(),
        result,
        report,
        divergences,
    }
}

/// The run so far (`r`, None before the first variant) with variant `v` added.
pub fn add_variant(r: Option<Results>, v: VariantViews) -> Results {
    match r {
        None => Results {
            run: v.run,
            scenario: v.scenario,
            variants: vec![v.result],
            report: v.report,
            divergences: v.divergences,
        },
        Some(mut r) => {
            r.variants.push(v.result);
            r.report.variants.extend(v.report.variants);
            r.report.summary.extend(v.report.summary);
            r.divergences.extend(v.divergences);
            r
        }
    }
}

impl Results {
    /// The divergences in the order pairs `(a, b)`, `a < b`, are listed: by `a`, then `b`
    /// (they arrive by `b`, as the variants finish).
    fn sorted_divergences(mut self) -> Results {
        self.divergences.sort_by_key(|d| (d.a, d.b));
        self
    }
}

/// The table's rows, sorted by `key` (numbers descending, names ascending; `Perf` keeps perf's
/// order).
pub fn sorted_rows(rows: &[LatencyRow], key: SortKey) -> Vec<LatencyRow> {
    let mut v = rows.to_vec();
    match key {
        SortKey::Perf => {}
        SortKey::Runtime => v.sort_by_key(|r| std::cmp::Reverse(r.runtime_ns)),
        SortKey::Switches => v.sort_by_key(|r| std::cmp::Reverse(r.count)),
        SortKey::Avg => v.sort_by_key(|r| std::cmp::Reverse(r.delay_avg_ns())),
        SortKey::Max => v.sort_by_key(|r| std::cmp::Reverse(r.delay_max_ns)),
        SortKey::Sum => v.sort_by_key(|r| std::cmp::Reverse(r.delay_sum_ns)),
        SortKey::Name => v.sort_by(|a, b| a.comm.cmp(&b.comm).then(a.pid.cmp(&b.pid))),
    }
    v
}

pub use schedlab_report::plot::{shared_histograms, HistView};

/// The changes of every variant after the first against the first, as the command line's
/// comparison prints them: the header cells, then per further variant its cells (the first
/// cell names the variant).
pub fn deltas(r: &Results) -> Vec<Vec<String>> {
    schedlab_report::compare::comparison_cells(&r.report.summary).delta
}

/// `ns` as milliseconds with 3 decimals, as perf (and the CLI's tables) print them.
pub fn ms(ns: u64) -> String {
    schedlab_report::latency::fmt_fixed3(ns)
}

/// Exports of a run's results, as (file name, MIME type, contents).
pub mod export {
    use super::Results;

    /// The per-task table of every variant as CSV: the command line's `--format csv`.
    pub fn csv(r: &Results) -> String {
        schedlab_report::export::csv(&r.report)
    }

    /// The whole report as JSON: the command line's `--format json`.
    pub fn json(r: &Results) -> String {
        schedlab_report::export::json(&r.report)
    }

    /// The perf-sched-latency tables (the "Sum delay" layout of LKML mails), ready to paste.
    pub fn perf_text(r: &Results) -> String {
        let mut s = String::new();
        for v in &r.variants {
            s.push_str(&format!("{}\n", v.variant));
            // The group column when the scenario has groups, as the command line prints it.
            let groups: Vec<String> = if v.row_groups.is_empty() {
                vec![]
            } else {
                v.merged
                    .iter()
                    .map(|r| {
                        v.row_groups
                            .get(&r.label())
                            .cloned()
                            .unwrap_or_else(|| "/".into())
                    })
                    .collect()
            };
            s.push_str(
                schedlab_report::latency::format_sum_groups(&v.merged, &groups)
                    .trim_start_matches('\n'),
            );
        }
        s
    }

    /// Chrome/Perfetto trace-event JSON of the runs' timelines.
    pub fn perfetto(r: &Results) -> String {
        use schedlab_report::perfetto::{perfetto_json_from, PerfettoRun};
        use schedlab_report::timeline::Timeline;
        let tls: Vec<Timeline> = r
            .variants
            .iter()
            .map(|v| Timeline {
                slices: v.timeline.slices.clone(),
                waits: vec![],
                end_ns: v.timeline.end_ns,
                cpus: v.timeline.cpus,
            })
            .collect();
        let comms: Vec<Box<dyn Fn(u32) -> String + '_>> = r
            .variants
            .iter()
            .map(|v| Box::new(move |p: u32| v.timeline.comm(p)) as Box<dyn Fn(u32) -> String>)
            .collect();
        let runs: Vec<PerfettoRun> = r
            .variants
            .iter()
            .zip(&tls)
            .zip(&comms)
            .map(|((v, timeline), comm)| PerfettoRun {
                name: &v.variant,
                timeline,
                comm: comm.as_ref(),
                wakeups: vec![],
            })
            .collect();
        perfetto_json_from(&runs)
    }
}

/// What the trace and the snapshots say about one switch: the end of `slice` (its task
/// switched out, and why), with the fair-class state of it and of the task that took the CPU
/// at their last snapshots at or before the switch. The engine does not record the rule that
/// decided; this is the evidence a reader checks fair.c's rules against.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchNote {
    /// One sentence: who ran, when it was switched out and why.
    pub sentence: String,
    /// The task switched out and (when preempted) the one that took the CPU, each with its
    /// last snapshot (`comm:pid`, snapshot).
    pub tasks: Vec<(String, Option<schedlab_sim::Snapshot>)>,
    /// Why it was preempted, from the engine's decision records (empty for a recording, or
    /// when the task was not preempted).
    pub why: Vec<String>,
}

/// The note on the switch that ended `slice` of timeline `tl`.
pub fn switch_note(
    tl: &schedlab_report::timeline::RunTimeline,
    slice: &schedlab_report::timeline::Slice,
) -> SwitchNote {
    use schedlab_report::timeline::{fmt_duration, EndReason};
    let label = |p: u32| format!("{}:{p}", tl.comm(p));
    let sentence = format!(
        "{} ran {} on CPU {} from {}; {} at {}: {}",
        label(slice.pid),
        fmt_duration(slice.end_ns - slice.start_ns),
        slice.cpu,
        fmt_duration(slice.start_ns),
        if matches!(slice.reason, EndReason::TraceEnd) {
            "the trace ends"
        } else {
            "switched out"
        },
        fmt_duration(slice.end_ns),
        slice.reason.describe(label)
    );
    let mut pids = vec![slice.pid];
    if let EndReason::Preempted { by, .. } = slice.reason {
        pids.push(by);
    }
    // Snapshots are in time order: the last one of each task at or before the switch.
    let upto = tl.snapshots.partition_point(|s| s.t_ns <= slice.end_ns);
    let tasks = pids
        .into_iter()
        .filter(|&p| p != 0)
        .map(|p| {
            let snap = tl.snapshots[..upto]
                .iter()
                .rev()
                .find(|s| s.pid == p)
                .copied();
            (label(p), snap)
        })
        .collect();
    let why = if matches!(slice.reason, EndReason::Preempted { .. }) {
        tl.why
            .iter()
            .find(|(t, cpu, _)| *t == slice.end_ns && *cpu == slice.cpu)
            .map(|(_, _, lines)| lines.clone())
            .unwrap_or_default()
    } else {
        vec![]
    };
    SwitchNote {
        sentence,
        tasks,
        why,
    }
}
