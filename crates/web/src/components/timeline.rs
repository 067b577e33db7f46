//! The timeline: a Gantt chart per variant, one time window and one cursor shared by all of
//! them. Lanes per CPU (colour = task) or per task (colour = CPU, waiting hatched, sleeping
//! empty), laid out by `schedlab_report::timeline::layout` so that a lane never draws more
//! blocks than it has pixels. Every action has a key (press `?`).

use schedlab_report::plot::{
    draw_timeline, timeline_size, timeline_svg, TimelineView, TIMELINE_AXIS_H as AXIS_H,
    TIMELINE_LABEL_W as LABEL_W, TIMELINE_LANE_H as LANE_H, TIMELINE_PLOT_W as PLOT_W,
};
use schedlab_report::timeline::{fmt_duration, EndReason, RunTimeline, Slice, TaskRuns, Viewport};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::components::ctx::Ctx;
use crate::model::{ExplainReq, Explained, Shared};
use crate::state::{Action, TimelineAction};

/// What is under the pointer in a lane: the tooltip text, the task's comm and its run.
type Picked = (String, String, Slice);

/// A timeline shown: its name, its data, and (run, variant index) when the worker can explain
/// its switches.
/// A shown timeline: its name, its data, each task group's cgroup, and the (run, variant)
/// whose switches can be explained (none for a recording).
type ShownTimeline = (
    String,
    Shared<RunTimeline>,
    Shared<Vec<String>>,
    Option<(u64, usize)>,
);

/// Most lanes drawn per variant.
const MAX_LANES: usize = 48;

#[derive(Properties, PartialEq)]
struct LanesProps {
    data: Shared<RunTimeline>,
    variant: String,
    window: (u64, u64),
    per_task: bool,
    show_idle_cpus: bool,
    selected: Option<String>,
    overlay: bool,
    /// Each task's group path by pid − 1 (empty without groups), named in the tooltip.
    groups: Shared<Vec<String>>,
    ruler: Vec<u64>,
    hover_ns: Option<u64>,
    on_hover: Callback<Option<(u64, String)>>,
    dispatch: Callback<Action>,
    /// The run and this variant's index in it, when the worker can explain its switches (a
    /// recording's timeline has no decision records).
    explain_for: Option<(u64, usize)>,
    /// The worker's last explanation of a switch (of any variant).
    explained: Option<Explained>,
}

impl LanesProps {
    /// What to draw of the timeline (the page's canvas and the SVG export alike).
    fn view<'a>(&'a self, vp: Viewport, runs: &'a TaskRuns) -> TimelineView<'a> {
        TimelineView {
            viewport: vp,
            selected: self.selected.as_deref(),
            runs: Some(runs),
            overlay: self.overlay,
            hover_ns: self.hover_ns,
            ruler: &self.ruler,
        }
    }
}

#[function_component(Lanes)]
fn lanes_view(p: &LanesProps) -> Html {
    let canvas = use_node_ref();
    let drag = use_mut_ref(|| None::<(f64, bool)>);
    let vp = Viewport {
        t0_ns: p.window.0,
        t1_ns: p.window.1.max(p.window.0 + 1),
        width_px: PLOT_W,
    };
    let lanes = use_memo(
        (
            p.data.clone(),
            p.per_task,
            p.selected.clone(),
            p.show_idle_cpus,
            p.groups.clone(),
        ),
        |(d, per_task, sel, show_idle, groups)| {
            let mut lanes = d.lanes(*per_task, sel.as_deref(), MAX_LANES, !*show_idle);
            // A task's lane names its cgroup when the scenario has groups (cut to what the
            // label column holds; the tooltip has the whole path).
            for l in &mut lanes {
                if let Some(g) = l.pid.and_then(|p| groups.get((p as usize).wrapping_sub(1))) {
                    let full = format!("{} {g}", l.label);
                    l.label = if full.chars().count() > 20 {
                        full.chars().take(19).chain(['…']).collect()
                    } else {
                        full
                    };
                }
            }
            lanes
        },
    );
    // The selected task's runs and snapshots, indexed once per (run, selection): a frame then
    // finds those in view with binary searches, however many runs the whole run has.
    let task_runs = use_memo((p.data.clone(), p.selected.clone()), |(d, sel)| {
        sel.as_deref()
            .map(|name| TaskRuns::new(d, name))
            .unwrap_or_default()
    });
    let (width, height) = timeline_size(lanes.len(), p.overlay && p.selected.is_some());
    {
        let canvas = canvas.clone();
        let deps = (
            p.window,
            p.per_task,
            p.show_idle_cpus,
            p.selected.clone(),
            p.overlay,
            p.ruler.clone(),
            p.hover_ns,
            p.data.clone(),
        );
        let props = LanesProps {
            data: p.data.clone(),
            variant: p.variant.clone(),
            window: p.window,
            per_task: p.per_task,
            show_idle_cpus: p.show_idle_cpus,
            selected: p.selected.clone(),
            overlay: p.overlay,
            groups: p.groups.clone(),
            ruler: p.ruler.clone(),
            hover_ns: p.hover_ns,
            on_hover: p.on_hover.clone(),
            dispatch: p.dispatch.clone(),
            explain_for: p.explain_for,
            explained: None,
        };
        let lanes = lanes.clone();
        let runs = task_runs.clone();
        use_effect_with(deps, move |_| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                if let Some(backend) = crate::canvas::Canvas::new(c) {
                    let _ =
                        draw_timeline(&backend.area(), &props.data, &lanes, &props.view(vp, &runs));
                }
            }
        });
    }
    // What is under the pointer: (time, tooltip text, task comm).
    let pick = {
        let data = p.data.clone();
        let lanes = lanes.clone();
        let groups = p.groups.clone();
        move |x: f64, y: f64| -> Option<(u64, Option<Picked>)> {
            if x < LABEL_W as f64 {
                return None;
            }
            let t = vp.t(x - LABEL_W as f64);
            if y < AXIS_H as f64 {
                return Some((t, None));
            }
            let lane = lanes.get(((y - AXIS_H as f64) / LANE_H as f64) as usize)?;
            let i = lane.index.slices.partition_point(|s| s.end_ns <= t);
            let s = lane.index.slices.get(i).filter(|s| s.start_ns <= t)?;
            let comm = data.comm(s.pid);
            let why = s.reason.describe(|q| format!("{}:{q}", data.comm(q)));
            let group = (s.pid as usize)
                .checked_sub(1)
                .and_then(|i| groups.get(i))
                .map_or(String::new(), |g| format!(" (cgroup {g})"));
            let text = format!(
                "{}:{}{} on CPU {}, from {} for {}; ended: {}",
                comm,
                s.pid,
                group,
                s.cpu,
                fmt_duration(s.start_ns),
                fmt_duration(s.end_ns - s.start_ns),
                if matches!(s.reason, EndReason::TraceEnd) {
                    "—".to_string()
                } else {
                    why
                }
            );
            Some((t, Some((text, comm, *s))))
        }
    };
    // The switch clicked (a run's end), explained from the trace and the snapshots; it goes
    // with the run it belongs to.
    let note = use_state(|| None::<Slice>);
    {
        let note = note.clone();
        use_effect_with(p.data.clone(), move |_| note.set(None));
    }
    // Clicking a switch shows its note and asks the worker for its decision records.
    let ask = {
        let d = p.dispatch.clone();
        let explain_for = p.explain_for;
        move |sl: &Slice| {
            if let (Some((run, variant)), false) =
                (explain_for, matches!(sl.reason, EndReason::TraceEnd))
            {
                d.emit(Action::Explain(ExplainReq {
                    run,
                    variant,
                    t_ns: sl.end_ns,
                    cpu: sl.cpu,
                    prev: sl.pid,
                }));
            }
        }
    };
    let onmousemove = {
        let on_hover = p.on_hover.clone();
        let pick = pick.clone();
        Callback::from(move |e: MouseEvent| {
            let r = pick(e.offset_x() as f64, e.offset_y() as f64);
            on_hover.emit(r.map(|(t, tip)| (t, tip.map(|(text, _, _)| text).unwrap_or_default())));
        })
    };
    let onmouseleave = {
        let on_hover = p.on_hover.clone();
        Callback::from(move |_: MouseEvent| on_hover.emit(None))
    };
    let onmousedown = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            *drag.borrow_mut() = Some((e.offset_x() as f64, e.shift_key()));
        })
    };
    let onmouseup = {
        let d = p.dispatch.clone();
        let drag = drag.clone();
        let note = note.clone();
        let ask = ask.clone();
        Callback::from(move |e: MouseEvent| {
            let Some((x0, shift)) = drag.borrow_mut().take() else {
                return;
            };
            let x1 = e.offset_x() as f64;
            let dt = |x: f64| vp.t((x - LABEL_W as f64).max(0.0));
            if (x1 - x0).abs() > 3.0 {
                if shift {
                    d.emit(Action::Timeline(TimelineAction::Range(dt(x0), dt(x1))));
                } else {
                    d.emit(Action::Timeline(TimelineAction::Pan(
                        -(x1 - x0) / PLOT_W as f64,
                    )));
                }
                return;
            }
            match pick(x1, e.offset_y() as f64) {
                Some((t, None)) => d.emit(Action::Timeline(TimelineAction::Ruler(t))),
                Some((_, Some((_, comm, slice)))) => {
                    note.set(Some(slice));
                    ask(&slice);
                    d.emit(Action::Timeline(TimelineAction::Select(Some(comm))))
                }
                None => {}
            }
        })
    };
    let onwheel = {
        let d = p.dispatch.clone();
        Callback::from(move |e: WheelEvent| {
            e.prevent_default();
            let x = e.offset_x() as f64 - LABEL_W as f64;
            let factor = if e.delta_y() > 0.0 { 1.25 } else { 0.8 };
            d.emit(Action::Timeline(TimelineAction::Zoom {
                factor,
                center_ns: vp.t(x.max(0.0)),
            }));
        })
    };
    // The selected task's visible runs, as a table (also what assistive tech and tests read).
    // At most MAX_ROWS rows are listed; the summary counts them all.
    const MAX_ROWS: usize = 200;
    let (runs_in_view, rows) = task_runs.in_window(vp.t0_ns, vp.t1_ns, MAX_ROWS);
    let png = crate::browser::save_png(
        canvas.clone(),
        format!("schedlab-timeline-{}.png", file_part(&p.variant)),
    );
    let svg = {
        let data = p.data.clone();
        let lanes = lanes.clone();
        let (selected, overlay, ruler) = (p.selected.clone(), p.overlay, p.ruler.clone());
        let runs = task_runs.clone();
        let name = format!("schedlab-timeline-{}.svg", file_part(&p.variant));
        Callback::from(move |_: MouseEvent| {
            let view = TimelineView {
                viewport: vp,
                selected: selected.as_deref(),
                runs: Some(&runs),
                overlay,
                hover_ns: None,
                ruler: &ruler,
            };
            if let Ok(text) = timeline_svg(&data, &lanes, &view) {
                crate::browser::download(&name, "image/svg+xml", &text);
            }
        })
    };
    html! {
        <div class="tl-variant" data-variant={p.variant.clone()}>
            <h3>{ p.variant.clone() }
                <button class="png" onclick={png} title="save this timeline as PNG">{ "PNG" }</button>
                <button class="svg" onclick={svg} title="save this timeline as SVG (the same drawing)">{ "SVG" }</button>
            </h3>
            <canvas ref={canvas} class="timeline" width={width.to_string()} height={height.to_string()}
                onmousemove={onmousemove} onmouseleave={onmouseleave} onmousedown={onmousedown} onmouseup={onmouseup} onwheel={onwheel} />
            if let Some(sl) = *note {
                { switch_note_view(&p.data, &sl, explained_for(p, &sl), { let note = note.clone(); Callback::from(move |_: MouseEvent| note.set(None)) }, jump_to(p)) }
            }
            if let Some(name) = p.selected.clone() {
                <details class="tl-runs">
                    <summary>{ if runs_in_view > rows.len() {
                        format!("{name}: {runs_in_view} runs in view (the first {} listed)", rows.len())
                    } else {
                        format!("{name}: {runs_in_view} runs in view")
                    } }</summary>
                    <table class="tl-slices" data-task={name}>
                        <thead><tr><th>{ "start" }</th><th>{ "run" }</th><th>{ "CPU" }</th><th>{ "ended" }</th></tr></thead>
                        <tbody>
                        { for rows.iter().map(|s| html! {
                            <tr class="tl-slice" data-start-ns={s.start_ns.to_string()} data-duration-ns={(s.end_ns - s.start_ns).to_string()}>
                                <td>{ fmt_duration(s.start_ns) }</td>
                                <td>{ fmt_duration(s.end_ns - s.start_ns) }</td>
                                <td>{ s.cpu }</td>
                                <td>{ s.reason.describe(|q| p.data.comm(q)) }
                                    { " " }<button class="tl-why" onclick={{ let note = note.clone(); let ask = ask.clone(); let s = *s; Callback::from(move |_: MouseEvent| { note.set(Some(s)); ask(&s); }) }}
                                        title="what the trace and the snapshots say about this switch">{ "why?" }</button></td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                </details>
            }
        </div>
    }
}

/// The worker's explanation of the switch that ended `sl`, if it is the one it answered.
fn explained_for<'a>(p: &'a LanesProps, sl: &Slice) -> Option<&'a Explained> {
    let (run, variant) = p.explain_for?;
    p.explained.as_ref().filter(|x| {
        x.req
            == ExplainReq {
                run,
                variant,
                t_ns: sl.end_ns,
                cpu: sl.cpu,
                prev: sl.pid,
            }
    })
}

/// Moves the window (keeping its width) to center on a time: the cause of a preemption.
fn jump_to(p: &LanesProps) -> Callback<u64> {
    let d = p.dispatch.clone();
    let half = p.window.1.saturating_sub(p.window.0).max(2) / 2;
    Callback::from(move |t: u64| {
        let t0 = t.saturating_sub(half);
        d.emit(Action::Timeline(TimelineAction::Range(t0, t0 + 2 * half)));
    })
}

/// The note on the switch that ended `slice`: who was switched out and why (the worker's
/// decision records for it, when it has sent them), and the fair-class state of it and of the
/// task that took the CPU.
fn switch_note_view(
    data: &RunTimeline,
    slice: &Slice,
    explained: Option<&Explained>,
    close: Callback<MouseEvent>,
    jump: Callback<u64>,
) -> Html {
    let n = crate::model::switch_note(data, slice);
    let why = n.why.clone();
    let states: Vec<crate::model::TaskState> = n
        .tasks
        .into_iter()
        .map(|(task, snapshot)| crate::model::TaskState { task, snapshot })
        .collect();
    html! {
        <div class="tl-switch" role="status" data-pid={slice.pid.to_string()} data-end-ns={slice.end_ns.to_string()}>
            <p class="tl-switch-what">{ n.sentence }</p>
            if let Some(x) = explained.filter(|x| !x.lines.is_empty()) {
                <pre class="tl-switch-decisions">{ x.lines.join("\n") }</pre>
                if let Some(c) = x.cause_ns {
                    <button class="tl-switch-cause" data-cause-ns={c.to_string()}
                        onclick={Callback::from(move |_: MouseEvent| jump.emit(c))}
                        title="move the timeline to the wakeup that caused this preemption">
                        { format!("go to the cause (the wakeup at {})", fmt_duration(c)) }
                    </button>
                }
            } else if !why.is_empty() {
                <pre class="tl-switch-why">{ why.join("\n") }</pre>
            }
            { crate::components::divergence::state_rows(&states) }
            <p class="hint">{ "Why: the engine's decision records, one line each (what became of prev; for a preemption the rule of fair.c that raised the reschedule and the wakeup check with its inputs; the pick that chose the next task; that task's CPU selection, move and placement). The table: each task's fair-class state at its last snapshot (a switch or tick) at or before the switch." }</p>
            <button class="tl-switch-close" onclick={close}>{ "close" }</button>
        </div>
    }
}

/// A variant string as part of a file name.
fn file_part(variant: &str) -> String {
    variant.replace([':', ',', '/', '='], "_")
}

const HELP: &[(&str, &str)] = &[
    (
        "+ / −",
        "zoom in / out (or the mouse wheel, at the pointer)",
    ),
    ("← / →", "pan (or drag)"),
    ("shift-drag", "zoom to the selected range"),
    ("f", "fit the whole run"),
    ("l", "lanes per CPU / per task"),
    ("i", "show or fold the CPUs that never ran a task"),
    ("o", "lag and deadline overlay of the selected task"),
    (
        "click",
        "a run: select its task in every lane and variant; the time axis: ruler marks",
    ),
    ("?", "this help"),
    ("Esc", "close the help, clear the ruler"),
];

#[function_component(TimelinePanel)]
pub fn timeline_panel(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let hover = use_state(|| None::<(u64, String)>);
    let results = s.shown_results();
    // One shared copy of each variant's timeline per run, the recording's first.
    let rec = s.recording.clone();
    let tls = use_memo((results.clone(), rec.clone()), |(r, rec)| {
        let mut v: Vec<ShownTimeline> = rec
            .iter()
            .map(|rec| {
                (
                    crate::recording::RECORDED.to_string(),
                    Shared(std::rc::Rc::new(rec.timeline.clone())),
                    Shared(std::rc::Rc::new(vec![])),
                    None,
                )
            })
            .collect();
        if let Some(r) = r {
            v.extend(r.variants.iter().enumerate().map(|(i, v)| {
                (
                    v.variant.clone(),
                    Shared(std::rc::Rc::new(v.timeline.clone())),
                    Shared(std::rc::Rc::new(v.task_groups.clone())),
                    Some((r.run, i)),
                )
            }));
        }
        v
    });
    if tls.is_empty() {
        return html! {};
    }
    let Some(window) = s.timeline_window() else {
        return html! {};
    };
    let tl = &s.view.timeline;
    let d = ctx.dispatch.clone();
    let act = move |a: TimelineAction| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.emit(Action::Timeline(a.clone())))
    };
    let center = (window.0 + window.1) / 2;
    let onkeydown = {
        let d = ctx.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            let a = match e.key().as_str() {
                "+" | "=" => TimelineAction::Zoom {
                    factor: 0.5,
                    center_ns: center,
                },
                "-" | "_" => TimelineAction::Zoom {
                    factor: 2.0,
                    center_ns: center,
                },
                "ArrowLeft" => TimelineAction::Pan(-0.2),
                "ArrowRight" => TimelineAction::Pan(0.2),
                "f" => TimelineAction::Fit,
                "l" => TimelineAction::ToggleLayout,
                "i" => TimelineAction::ToggleIdleCpus,
                "o" => TimelineAction::ToggleOverlay,
                "?" => TimelineAction::ToggleHelp,
                "Escape" => TimelineAction::Escape,
                _ => return,
            };
            e.prevent_default();
            d.emit(Action::Timeline(a));
        })
    };
    let on_hover = {
        let hover = hover.clone();
        Callback::from(move |h| hover.set(h))
    };
    let ruler = match tl.ruler[..] {
        [a, b] => format!("ruler: {}", fmt_duration(a.abs_diff(b))),
        [a] => format!("ruler: from {}", fmt_duration(a)),
        _ => String::new(),
    };
    html! {
        <section class="timeline-panel" tabindex="0" onkeydown={onkeydown} aria-label="timeline"
            data-t0-ns={window.0.to_string()} data-t1-ns={window.1.to_string()} data-layout={if tl.per_task { "task" } else { "cpu" }}
            data-overlay={tl.overlay.to_string()}>
            <div class="tl-bar">
                <strong>{ "Timeline" }</strong>
                <button id="tl-zoom-in" onclick={act(TimelineAction::Zoom { factor: 0.5, center_ns: center })} title="zoom in (+)">{ "+" }</button>
                <button id="tl-zoom-out" onclick={act(TimelineAction::Zoom { factor: 2.0, center_ns: center })} title="zoom out (−)">{ "−" }</button>
                <button id="tl-fit" onclick={act(TimelineAction::Fit)} title="fit (f)">{ "fit" }</button>
                <button id="tl-layout" onclick={act(TimelineAction::ToggleLayout)} title="lanes per CPU / per task (l)">{ if tl.per_task { "per task" } else { "per CPU" } }</button>
                if !tl.per_task {
                    <button id="tl-idle" onclick={act(TimelineAction::ToggleIdleCpus)} title="show or fold the CPUs that never ran a task (i)" aria-pressed={tl.show_idle_cpus.to_string()}>{ "idle CPUs" }</button>
                }
                <button id="tl-overlay" onclick={act(TimelineAction::ToggleOverlay)} title="overlay (o)" aria-pressed={tl.overlay.to_string()}>{ "overlay" }</button>
                <button id="tl-help" onclick={act(TimelineAction::ToggleHelp)} title="keys (?)">{ "?" }</button>
                <span class="tl-range">{ format!("{} – {} ({})", fmt_duration(window.0), fmt_duration(window.1), fmt_duration(window.1 - window.0)) }</span>
                <span class="tl-ruler">{ ruler }</span>
                if let Some(sel) = &tl.selected {
                    <span class="tl-selected">{ format!("selected: {sel}") }</span>
                }
            </div>
            if tl.help {
                <div class="tl-help" role="dialog" aria-label="timeline keys">
                    <table>{ for HELP.iter().map(|(k, v)| html! { <tr><td><kbd>{ *k }</kbd></td><td>{ *v }</td></tr> }) }</table>
                </div>
            }
            <div class="tl-tooltip" role="status">{ hover.as_ref().map(|h| h.1.clone()).unwrap_or_default() }</div>
            { for tls.iter().map(|(name, data, groups, explain_for)| html! {
                <Lanes data={data.clone()} variant={name.clone()} window={window} groups={groups.clone()}
                    per_task={tl.per_task} show_idle_cpus={tl.show_idle_cpus} selected={tl.selected.clone()} overlay={tl.overlay} ruler={tl.ruler.clone()}
                    hover_ns={hover.as_ref().map(|h| h.0)} on_hover={on_hover.clone()} dispatch={ctx.dispatch.clone()}
                    explain_for={*explain_for} explained={s.explained.clone()} />
            }) }
        </section>
    }
}
