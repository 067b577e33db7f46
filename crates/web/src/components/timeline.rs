//! The timeline: a Gantt chart per variant, one time window and one cursor shared by all of
//! them. Lanes per CPU (colour = task) or per task (colour = CPU, waiting hatched, sleeping
//! empty), laid out by `schedlab_report::timeline::layout` so that a lane never draws more
//! blocks than it has pixels. Every action has a key (press `?`).

use schedlab_report::timeline::{
    fmt_duration, tick_step_ns, Block, EndReason, LaneIndex, Slice, Viewport,
};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::components::app::Ctx;
use crate::model::{Shared, TimelineData};
use crate::state::{Action, RunState, TimelineAction};

/// Plot width in pixels (the viewport), and the label column before it.
const PLOT_W: u32 = 1000;
const LABEL_W: u32 = 120;
const AXIS_H: u32 = 20;
const LANE_H: u32 = 16;
const OVERLAY_H: u32 = 90;
/// Most lanes drawn per variant.
const MAX_LANES: usize = 48;

/// A distinct, stable colour for a key (task or CPU).
fn color(key: u32) -> String {
    let hue = (key.wrapping_mul(2_654_435_761) >> 7) % 360;
    format!("hsl({hue}, 60%, 52%)")
}

/// One lane: its label, the pid it belongs to (per-task layout), and its indexed slices.
struct Lane {
    label: String,
    pid: Option<u32>,
    index: LaneIndex,
}

fn lanes(data: &TimelineData, per_task: bool, selected: Option<&str>) -> Vec<Lane> {
    let all = data.slices();
    if !per_task {
        return (0..data.cpus.min(MAX_LANES as u32))
            .map(|cpu| Lane {
                label: format!("CPU {cpu}"),
                pid: None,
                index: LaneIndex::new(all.iter().filter(|s| s.cpu == cpu).copied().collect()),
            })
            .collect();
    }
    let mut pids: Vec<u32> = data
        .tasks
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| all.iter().any(|s| s.pid == *p))
        .collect();
    // The selected task's lanes first, so they are never cut off.
    pids.sort_by_key(|p| (Some(data.comm(*p).as_str()) != selected, *p));
    pids.into_iter()
        .take(MAX_LANES)
        .map(|pid| Lane {
            label: format!("{}:{pid}", data.comm(pid)),
            pid: Some(pid),
            index: LaneIndex::new(all.iter().filter(|s| s.pid == pid).copied().collect()),
        })
        .collect()
}

#[derive(Properties, PartialEq)]
struct LanesProps {
    data: Shared<TimelineData>,
    variant: String,
    window: (u64, u64),
    per_task: bool,
    selected: Option<String>,
    overlay: bool,
    ruler: Vec<u64>,
    hover_ns: Option<u64>,
    on_hover: Callback<Option<(u64, String)>>,
    dispatch: Callback<Action>,
}

fn draw(canvas: &HtmlCanvasElement, p: &LanesProps, lanes: &[Lane], vp: Viewport) -> Option<()> {
    let cx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    let h = canvas.height() as f64;
    let w = canvas.width() as f64;
    cx.set_fill_style_str("#ffffff");
    cx.fill_rect(0.0, 0.0, w, h);
    // Axis.
    let span = vp.t1_ns - vp.t0_ns;
    let step = tick_step_ns(span, PLOT_W);
    cx.set_font("11px sans-serif");
    cx.set_fill_style_str("#444");
    let mut t = vp.t0_ns.div_ceil(step) * step;
    while t < vp.t1_ns {
        let x = LABEL_W as f64 + vp.x(t);
        cx.fill_rect(x, AXIS_H as f64 - 5.0, 1.0, 5.0);
        let _ = cx.fill_text(&fmt_duration(t), x + 2.0, 11.0);
        t += step;
    }
    let selected = p.selected.as_deref();
    for (i, lane) in lanes.iter().enumerate() {
        let y = (AXIS_H + i as u32 * LANE_H) as f64;
        cx.set_fill_style_str(if i % 2 == 0 { "#f6f7f9" } else { "#ffffff" });
        cx.fill_rect(LABEL_W as f64, y, PLOT_W as f64, LANE_H as f64);
        cx.set_fill_style_str("#222");
        let _ = cx.fill_text(&lane.label, 4.0, y + 12.0);
        // Waiting (runnable, not running) bands of a task lane: hatched.
        if let Some(pid) = lane.pid {
            cx.set_fill_style_str("rgba(150,150,150,0.35)");
            for &(wp, a, b) in p.data.waits.iter().filter(|w| w.0 == pid) {
                if b <= vp.t0_ns || a >= vp.t1_ns {
                    continue;
                }
                let x0 = vp.x(a).max(0.0);
                let x1 = vp.x(b).min(PLOT_W as f64);
                cx.fill_rect(
                    LABEL_W as f64 + x0,
                    y + 4.0,
                    (x1 - x0).max(1.0),
                    LANE_H as f64 - 8.0,
                );
                let _ = wp;
            }
        }
        let key = |s: &Slice| if lane.pid.is_some() { s.cpu } else { s.pid };
        for b in lane.index.layout(vp, key) {
            match b {
                Block::Slice { x0, x1, index } => {
                    let s = &lane.index.slices[index];
                    let hl = selected.is_some_and(|n| p.data.comm(s.pid) == n);
                    cx.set_fill_style_str(&color(key(s)));
                    cx.fill_rect(
                        (LABEL_W + x0) as f64,
                        y + 2.0,
                        (x1 - x0) as f64,
                        LANE_H as f64 - 4.0,
                    );
                    if hl {
                        cx.set_stroke_style_str("#000");
                        cx.stroke_rect(
                            (LABEL_W + x0) as f64 + 0.5,
                            y + 1.5,
                            (x1 - x0) as f64 - 1.0,
                            LANE_H as f64 - 3.0,
                        );
                    }
                }
                Block::Aggregate { x, busy, dominant } => {
                    cx.set_fill_style_str(&color(dominant));
                    let bh = (LANE_H as f64 - 4.0) * busy as f64;
                    cx.fill_rect((LABEL_W + x) as f64, y + LANE_H as f64 - 2.0 - bh, 1.0, bh);
                }
            }
        }
    }
    // The selected task's overlay under the lanes.
    let lanes_h = (AXIS_H + lanes.len() as u32 * LANE_H) as f64;
    if p.overlay {
        if let Some(name) = selected {
            overlay(&cx, p, name, vp, lanes_h);
        }
    }
    // Shared cursor and ruler.
    if let Some(t) = p.hover_ns {
        cx.set_fill_style_str("rgba(0,0,0,0.5)");
        cx.fill_rect(LABEL_W as f64 + vp.x(t), 0.0, 1.0, h);
    }
    cx.set_fill_style_str("#c0392b");
    for &t in &p.ruler {
        cx.fill_rect(LABEL_W as f64 + vp.x(t), 0.0, 1.0, h);
    }
    Some(())
}

/// Under EEVDF: the selected task's lag (V − vruntime) and its deadline − V, and its
/// eligibility as a band (green eligible, red not); under CFS: vruntime − min_vruntime.
fn overlay(cx: &CanvasRenderingContext2d, p: &LanesProps, name: &str, vp: Viewport, top: f64) {
    let pts: Vec<_> = p
        .data
        .snapshots
        .iter()
        .filter(|s| s.0 >= vp.t0_ns && s.0 < vp.t1_ns && p.data.comm(s.1) == name)
        .collect();
    let mid = top + OVERLAY_H as f64 / 2.0;
    cx.set_fill_style_str("#fbfbfd");
    cx.fill_rect(LABEL_W as f64, top, PLOT_W as f64, OVERLAY_H as f64);
    cx.set_fill_style_str("#222");
    let title = if p.data.eevdf {
        "lag (blue), deadline − V (orange)"
    } else {
        "vruntime − min_vruntime"
    };
    let _ = cx.fill_text(title, 4.0, top + 12.0);
    cx.set_fill_style_str("#bbb");
    cx.fill_rect(LABEL_W as f64, mid, PLOT_W as f64, 1.0);
    let series = |s: &(u64, u32, i64, i64, i64, i64, bool)| -> (f64, f64) {
        if p.data.eevdf {
            (s.5 as f64, (s.3 - s.4) as f64)
        } else {
            (-(s.5 as f64), 0.0)
        }
    };
    let scale = pts
        .iter()
        .map(|s| {
            let (a, b) = series(s);
            a.abs().max(b.abs())
        })
        .fold(1.0, f64::max);
    let y = |v: f64| mid - v / scale * (OVERLAY_H as f64 / 2.0 - 6.0);
    for s in &pts {
        let x = LABEL_W as f64 + vp.x(s.0);
        let (a, b) = series(s);
        if p.data.eevdf {
            cx.set_fill_style_str(if s.6 {
                "rgba(40,160,60,0.6)"
            } else {
                "rgba(200,50,40,0.6)"
            });
            cx.fill_rect(x, top + OVERLAY_H as f64 - 5.0, 2.0, 4.0);
            cx.set_fill_style_str("#e67e22");
            cx.fill_rect(x - 1.0, y(b) - 1.0, 3.0, 3.0);
        }
        cx.set_fill_style_str("#2d6db4");
        cx.fill_rect(x - 1.0, y(a) - 1.0, 3.0, 3.0);
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
        (p.data.clone(), p.per_task, p.selected.clone()),
        |(d, per_task, sel)| lanes(d, *per_task, sel.as_deref()),
    );
    let overlay_h = if p.overlay && p.selected.is_some() {
        OVERLAY_H
    } else {
        0
    };
    let height = AXIS_H + lanes.len() as u32 * LANE_H + overlay_h;
    {
        let canvas = canvas.clone();
        let deps = (
            p.window,
            p.per_task,
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
            selected: p.selected.clone(),
            overlay: p.overlay,
            ruler: p.ruler.clone(),
            hover_ns: p.hover_ns,
            on_hover: p.on_hover.clone(),
            dispatch: p.dispatch.clone(),
        };
        let lanes = lanes.clone();
        use_effect_with(deps, move |_| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let _ = draw(&c, &props, &lanes, vp);
            }
        });
    }
    // What is under the pointer: (time, tooltip text, task comm).
    let pick = {
        let data = p.data.clone();
        let lanes = lanes.clone();
        move |x: f64, y: f64| -> Option<(u64, Option<(String, String)>)> {
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
            let text = format!(
                "{}:{} on CPU {}, from {} for {}; ended: {}",
                comm,
                s.pid,
                s.cpu,
                fmt_duration(s.start_ns),
                fmt_duration(s.end_ns - s.start_ns),
                if matches!(s.reason, EndReason::TraceEnd) {
                    "—".to_string()
                } else {
                    why
                }
            );
            Some((t, Some((text, comm))))
        }
    };
    let onmousemove = {
        let on_hover = p.on_hover.clone();
        let pick = pick.clone();
        Callback::from(move |e: MouseEvent| {
            let r = pick(e.offset_x() as f64, e.offset_y() as f64);
            on_hover.emit(r.map(|(t, tip)| (t, tip.map(|(text, _)| text).unwrap_or_default())));
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
                Some((_, Some((_, comm)))) => {
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
    let mut rows: Vec<Slice> = match p.selected.as_deref() {
        Some(name) => p
            .data
            .slices()
            .into_iter()
            .filter(|s| p.data.comm(s.pid) == name && s.end_ns > vp.t0_ns && s.start_ns < vp.t1_ns)
            .collect(),
        None => vec![],
    };
    let runs_in_view = rows.len();
    rows.truncate(MAX_ROWS);
    let png = crate::browser::save_png(
        canvas.clone(),
        format!(
            "schedlab-timeline-{}.png",
            p.variant.replace([':', ',', '/', '='], "_")
        ),
    );
    html! {
        <div class="tl-variant" data-variant={p.variant.clone()}>
            <h3>{ p.variant.clone() } <button class="png" onclick={png} title="save this timeline as PNG">{ "PNG" }</button></h3>
            <canvas ref={canvas} class="timeline" width={(LABEL_W + PLOT_W).to_string()} height={height.to_string()}
                onmousemove={onmousemove} onmouseleave={onmouseleave} onmousedown={onmousedown} onmouseup={onmouseup} onwheel={onwheel} />
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
                                <td>{ s.reason.describe(|q| p.data.comm(q)) }</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                </details>
            }
        </div>
    }
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
    let results = match &s.run {
        RunState::Done(r) => Some(r.clone()),
        _ => None,
    };
    // One shared copy of each variant's timeline per run.
    let tls = use_memo(results.clone(), |r| {
        r.as_ref()
            .map(|r| {
                r.variants
                    .iter()
                    .map(|v| Shared(std::rc::Rc::new(v.timeline.clone())))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    let Some(r) = results else { return html! {} };
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
            { for r.variants.iter().zip(tls.iter()).map(|(v, data)| html! {
                <Lanes data={data.clone()} variant={v.variant.clone()} window={window}
                    per_task={tl.per_task} selected={tl.selected.clone()} overlay={tl.overlay} ruler={tl.ruler.clone()}
                    hover_ns={hover.as_ref().map(|h| h.0)} on_hover={on_hover.clone()} dispatch={ctx.dispatch.clone()} />
            }) }
        </section>
    }
}
