//! The sweep panel: one parameter of the scenario in the editor (a tunable, a feature or a
//! path into the scenario, as `schedlab sweep --param` takes it) across a range, every point
//! and variant run in a worker of its own, a figure plotted against it (one line per variant,
//! drawn by `schedlab_report::plot::sweep_svg`, the command line's chart), CSV and SVG exports.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{JobState, State, COMMON_PARAMS};
use schedlab_report::sweep::FIGURES;

#[derive(Properties, PartialEq)]
pub struct SweepProps {
    pub state: std::rc::Rc<crate::components::ctx::Store>,
    pub dispatch: Callback<crate::state::Action>,
    pub on_start: Callback<()>,
    pub on_cancel: Callback<()>,
}

/// The figures the picker offers: the fixed ones, then a share per task group of the last run.
fn figure_choices(s: &State) -> Vec<String> {
    let mut v: Vec<String> = FIGURES
        .iter()
        .filter(|f| !f.ends_with("NAME"))
        .map(|f| f.to_string())
        .collect();
    let shares = s
        .sweep
        .as_ref()
        .map(|r| schedlab_report::sweep::share_labels(&r.rows()))
        .unwrap_or_default();
    v.extend(shares.into_iter().map(|l| format!("share:{l}")));
    v
}

#[function_component(SweepPanel)]
pub fn sweep_panel(p: &SweepProps) -> Html {
    use crate::state::Action;
    let s = &p.state.0;
    let form = &s.sweep_form;
    let on_param = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            d.emit(Action::SetSweepParam(i.value()));
        })
    };
    let on_figure = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            d.emit(Action::SetSweepFigure(i.value()));
        })
    };
    let start = {
        let f = p.on_start.clone();
        Callback::from(move |_: MouseEvent| f.emit(()))
    };
    let cancel = {
        let f = p.on_cancel.clone();
        Callback::from(move |_: MouseEvent| f.emit(()))
    };
    let running = s.sweep.as_ref().is_some_and(|r| r.running());
    let body = s.sweep.as_ref().map(|r| {
        let done = r
            .states
            .iter()
            .filter(|x| matches!(x, JobState::Done(_)))
            .count();
        let state = if r.cancelled {
            "cancelled"
        } else if r.failure().is_some() {
            "failed"
        } else if r.finished() {
            "done"
        } else {
            "running"
        };
        let plot = r.svg(&form.figure);
        let csv = {
            let text = r.csv();
            Callback::from(move |_: MouseEvent| {
                crate::browser::download("schedlab-sweep.csv", "text/csv", &text)
            })
        };
        let svg_dl = plot.clone().ok().map(|svg| {
            Callback::from(move |_: MouseEvent| {
                crate::browser::download("schedlab-sweep.svg", "image/svg+xml", &svg)
            })
        });
        let n = r.labels.len();
        html! {
            <div class="sweep-result" data-sweep={r.id.to_string()} data-state={state}>
                <p role="status">{ format!("{}: {done} of {} runs done ({} points × {n} variants){}", r.spec, r.jobs.len(), r.points.len(),
                    match state { "cancelled" => ", cancelled", "failed" => ", failed", _ => "" }) }</p>
                if let Some(f) = r.failure() {
                    <p class="field-error" role="alert">{ f }</p>
                }
                <table class="sweep-points">
                    <tr><th>{ r.param.name.clone() }</th>{ for r.labels.iter().map(|l| html! { <th>{ l.clone() }</th> }) }</tr>
                    { for r.points.iter().enumerate().map(|(i, pt)| html! {
                        <tr data-point={pt[0].to_string()}>
                            <td>{ pt[0].to_string() }</td>
                            { for (0..n).map(|j| {
                                let k = i * n + j;
                                match &r.states[k] {
                                    JobState::Pending => html! { <td class="job" data-state="pending">{ "…" }</td> },
                                    JobState::Running => html! { <td class="job" data-state="running">{ "running" }</td> },
                                    JobState::Failed(_) => html! { <td class="job" data-state="failed">{ "failed" }</td> },
                                    JobState::Done(f) => html! {
                                        <td class="job n" data-state="done" data-switches={f.switches.to_string()} data-trace-hash={format!("{:016x}", f.trace_hash)}>
                                            { schedlab_report::sweep::Row { point: pt.clone(), variant: r.labels[j].clone(), f: (**f).clone() }.figure(&form.figure).map_or("—".to_string(), |v| format!("{v:.3}")) }
                                        </td>
                                    },
                                }
                            }) }
                        </tr>
                    }) }
                </table>
                if done > 0 {
                    <div class="sweep-plot">
                        { match &plot {
                            Ok(svg) => Html::from_html_unchecked(AttrValue::from(svg.clone())),
                            Err(e) => html! { <p class="hint">{ e.clone() }</p> },
                        } }
                    </div>
                    <span class="exports">{ "Export: " }
                        <button id="sweep-csv" onclick={csv}>{ "CSV" }</button>
                        if let Some(cb) = svg_dl {
                            <button id="sweep-svg" onclick={cb}>{ "SVG" }</button>
                        }
                    </span>
                }
            </div>
        }
    });
    html! {
        <section class="sweep" aria-label="sweep" id="sweep">
            <strong>{ "Sweep" }</strong>
            <p class="hint">{ "One parameter across a range, every point and variant run in a worker of its own, as schedlab sweep runs it: a tunable (base_slice_ns=500000..4000000:8), a feature (RUN_TO_PARITY: on and off) or a value of the scenario (hz=100,250,1000; workloads.0.hackbench.loops=50..400:8)." }</p>
            <label>{ "parameter " }
                <input id="sweep-param" list="sweep-params" value={form.param.clone()} oninput={on_param} size="36" />
            </label>
            <datalist id="sweep-params">{ for COMMON_PARAMS.iter().map(|c| html! { <option value={*c} /> }) }</datalist>
            <label>{ " figure " }
                <input id="sweep-figure" list="sweep-figures" value={form.figure.clone()} oninput={on_figure} size="16" />
            </label>
            <datalist id="sweep-figures">{ for figure_choices(s).into_iter().map(|c| html! { <option value={c} /> }) }</datalist>
            { " " }
            <button id="sweep-run" onclick={start} disabled={running}>{ "Sweep" }</button>
            <button id="sweep-cancel" onclick={cancel} disabled={!running}>{ "Cancel" }</button>
            if let Some(e) = &s.sweep_error {
                <p class="field-error" role="alert" id="sweep-error">{ e.clone() }</p>
            }
            { for body }
        </section>
    }
}
