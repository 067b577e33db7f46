//! Run, Cancel, progress and the outcome of the last run.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::ctx::Store;
use crate::state::RunState;

#[derive(Properties, PartialEq)]
pub struct RunBarProps {
    pub state: Rc<Store>,
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
}

#[function_component(RunBar)]
pub fn run_bar(p: &RunBarProps) -> Html {
    let s = &p.state.0;
    let blocked = s.can_run().err();
    let running = matches!(s.run, RunState::Running(_));
    let run = {
        let cb = p.on_run.clone();
        Callback::from(move |_| cb.emit(()))
    };
    let cancel = {
        let cb = p.on_cancel.clone();
        Callback::from(move |_| cb.emit(()))
    };
    let (state, status): (&str, Html) = match &s.run {
        RunState::Idle => ("idle", html! { { "Not run yet." } }),
        RunState::Running(crate::model::Progress {
            index,
            of,
            variant,
            sim_ns,
            duration_ns,
            events,
            ..
        }) => {
            let frac = if *duration_ns > 0 {
                *sim_ns as f64 / *duration_ns as f64
            } else {
                0.0
            };
            let total = (*index as f64 + frac.min(1.0)) / (*of).max(1) as f64;
            (
                "running",
                html! {
                    <>
                        <progress id="progress" max="1000" value={((total * 1000.0) as u64).to_string()} />
                        { format!(" {variant} ({}/{of}): {:.3} s of {:.3} s simulated, {events} events", index + 1, *sim_ns as f64 / 1e9, *duration_ns as f64 / 1e9) }
                    </>
                },
            )
        }
        RunState::Done(r) => (
            "done",
            html! { { format!("Done: {} variants of \"{}\".", r.variants.len(), r.scenario) } },
        ),
        RunState::Failed(m) => (
            "failed",
            html! { <span class="failed" role="alert">{ m.clone() }</span> },
        ),
    };
    html! {
        <div class="run-bar">
            <button id="run" class="primary" onclick={run} disabled={running} title={blocked.clone().unwrap_or_default()}>{ "Run" }</button>
            <button id="cancel" onclick={cancel} disabled={!running}>{ "Cancel" }</button>
            <span id="status" data-state={state} data-run={s.runs.to_string()} aria-live="polite">{ status }</span>
            if let (Some(b), false) = (&blocked, running) {
                <div class="blocked" id="blocked">{ b.clone() }</div>
            }
        </div>
    }
}
