//! "First divergence": pick two variants of the run; the page shows the first event where
//! their traces differ (as `schedlab diff` finds it), jumps every timeline there and marks it
//! with the ruler, and shows the two events side by side with the settings that differ and
//! what the fair class saw of the tasks involved on each side.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::components::ctx::Ctx;
use crate::model::TaskState;
use crate::state::{Action, RunState};
use schedlab_report::timeline::fmt_duration;

/// Tasks and their last snapshots as a table.
pub(crate) fn state_rows(states: &[TaskState]) -> Html {
    html! {
        <table class="div-state">
            <tr><th>{ "task" }</th><th>{ "snapshot" }</th><th>{ "vruntime" }</th><th>{ "deadline" }</th><th>{ "V" }</th><th>{ "lag" }</th><th>{ "eligible" }</th></tr>
            { for states.iter().map(|t| match &t.snapshot {
                Some(s) => html! {
                    <tr data-task={t.task.clone()}>
                        <td>{ t.task.clone() }</td>
                        <td class="n">{ format!("{:.6} s cpu {}", s.t_ns as f64 / 1e9, s.cpu) }</td>
                        <td class="n">{ s.vruntime }</td>
                        <td class="n">{ s.deadline }</td>
                        <td class="n">{ s.v }</td>
                        <td class="n">{ s.lag }</td>
                        <td>{ if s.eligible { "eligible" } else { "ineligible" } }</td>
                    </tr>
                },
                None => html! { <tr data-task={t.task.clone()}><td>{ t.task.clone() }</td><td colspan="6">{ "no snapshot yet" }</td></tr> },
            }) }
        </table>
    }
}

#[function_component(DivergencePanel)]
pub fn divergence_panel(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let RunState::Done(r) = &s.run else {
        return html! {};
    };
    if r.variants.len() < 2 {
        return html! {};
    }
    let (pa, pb) = s.view.diff_pair;
    let pick = |side: usize, cur: usize| {
        let d = ctx.dispatch.clone();
        let onchange = Callback::from(move |e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(index) = sel.value().parse() {
                d.emit(Action::SetDiffSide { side, index });
            }
        });
        let id = if side == 0 { "diff-a" } else { "diff-b" };
        html! {
            <select id={id} aria-label={if side == 0 { "first variant" } else { "second variant" }} onchange={onchange}>
                { for r.variants.iter().enumerate().map(|(i, v)| html! {
                    <option value={i.to_string()} selected={i == cur}>{ format!("{}: {}", i + 1, v.variant) }</option>
                }) }
            </select>
        }
    };
    let go = {
        let d = ctx.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.emit(Action::ShowDivergence))
    };
    let names = [
        r.variants[pa].variant.clone(),
        r.variants[pb].variant.clone(),
    ];
    let body = if s.view.diff_shown {
        s.divergence().map(|d| {
            let settings = if pa == pb {
                "the same variant on both sides".to_string()
            } else if d.settings.is_empty() {
                "settings: identical".to_string()
            } else {
                format!("settings that differ: {}", d.settings.join(", "))
            };
            match &d.found {
                None if d.compared.is_some() => html! {
                    <div class="div-result" data-found="false" data-compared={d.compared.unwrap_or(0).to_string()}>
                        <p class="div-settings">{ settings }</p>
                        <p class="div-none">{ format!("no divergence in the first {} compared events: the page keeps the first {} events of each variant to compare them (schedlab diff on the command line compares the whole runs)", d.compared.unwrap_or(0), crate::model::DIVERGENCE_EVENTS) }</p>
                    </div>
                },
                None => html! {
                    <div class="div-result" data-found="false">
                        <p class="div-settings">{ settings }</p>
                        <p class="div-none">{ format!("no divergence: {} and {} make the same scheduling decisions to the end of the run", names[0], names[1]) }</p>
                    </div>
                },
                Some(f) => {
                    html! {
                        <div class="div-result" data-found="true" data-t-ns={f.t_ns.to_string()}>
                            <p class="div-settings">{ settings }</p>
                            <p class="div-at">{ format!("first divergence at {:.6} s ({}), after {} shared events; the timelines show it, marked by the ruler", f.t_ns as f64 / 1e9, fmt_duration(f.t_ns), f.common) }</p>
                            if let Some(b) = &f.before {
                                <p class="div-before">{ "shared, just before: " }<code>{ b.clone() }</code></p>
                            }
                            <div class="div-sides">
                            { for names.iter().enumerate().map(|(k, name)| html! {
                                <div class="div-side" data-variant={name.clone()}>
                                    <h3>{ name.clone() }</h3>
                                    <pre class="div-event">{ f.event[k].clone().unwrap_or_else(|| "(the run ends here)".into()) }</pre>
                                    if !f.why[k].is_empty() {
                                        <pre class="div-why">{ f.why[k].join("\n") }</pre>
                                    }
                                    { state_rows(&f.state[k]) }
                                </div>
                            }) }
                            </div>
                            <p class="hint">{ "Each task's fair-class state at its last snapshot (a switch or tick) at or before the divergence: lag = V − vruntime; eligible when lag ≥ 0." }</p>
                        </div>
                    }
                }
            }
        })
    } else {
        None
    };
    html! {
        <section class="divergence" aria-label="first divergence" id="divergence">
            <strong>{ "First divergence" }</strong>
            { " between " }{ pick(0, pa) }{ " and " }{ pick(1, pb) }{ " " }
            <button id="diff-go" onclick={go} title="find the first event where the two runs differ and show it in the timelines">{ "Find" }</button>
            <div role="status" aria-live="polite">{ for body }</div>
        </section>
    }
}
