//! The page.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::ctx::{Ctx, Store};
use crate::components::{
    json_view::JsonView, machine::MachineForm, presets_menu::PresetsMenu, results::ResultsView,
    run_bar::RunBar, share_bar::ShareBar, tasks::TaskTable, timeline::TimelinePanel,
    variants::VariantPicker, workloads::WorkloadTable,
};
use crate::hooks::use_sim_worker;
use crate::state::{Action, State};

#[function_component(App)]
pub fn app() -> Html {
    let store = use_reducer(|| Store(State::from_location(&crate::browser::href())));
    let dispatch = {
        let store = store.clone();
        Callback::from(move |a: Action| store.dispatch(a))
    };
    let sim = use_sim_worker(dispatch.clone());
    let state: Rc<Store> = Rc::new(Store(store.0.clone()));

    // A first visit opens with the default comparison already run.
    {
        let sim = sim.clone();
        let store = store.clone();
        use_effect_with((), move |_| {
            if let Some(scenario) = store.0.run_request() {
                sim.run(scenario);
                store.dispatch(Action::Run);
            }
        });
    }

    let on_run = {
        let sim = sim.clone();
        let store = store.clone();
        Callback::from(move |_| {
            if let Some(scenario) = store.0.run_request() {
                sim.run(scenario);
                // The address bar always holds a link to what was last run.
                if store.0.embed.is_none() {
                    if let Some(p) = store.0.link_payload() {
                        crate::browser::publish_link(
                            &format!("{}#{p}", crate::browser::base_url()),
                            false,
                        );
                    }
                }
            }
            store.dispatch(Action::Run);
        })
    };
    let on_cancel = {
        let store = store.clone();
        Callback::from(move |_| {
            sim.cancel();
            store.dispatch(Action::Cancel);
        })
    };
    let ctx = Ctx { state, dispatch };
    if let Some(view) = ctx.state.0.embed.clone() {
        // Embed mode: one view, sized by the iframe, and a way out to the full page.
        let open = ctx
            .state
            .0
            .link_payload()
            .map(|p| format!("{}#{p}", crate::browser::base_url()))
            .unwrap_or_default();
        let class = format!(
            "embed only-{}",
            if view.is_empty() {
                "results"
            } else {
                view.as_str()
            }
        );
        return html! {
            <div class={class} data-view={view.clone()}>
                <div class="embed-head">
                    <strong>{ ctx.state.0.machine.name.clone() }</strong>
                    <a class="open-full" href={open} target="_blank" rel="noopener">{ "open in schedlab ↗" }</a>
                </div>
                if let Some(n) = &ctx.state.0.notice {
                    <div class="notice" role="alert">{ n.clone() }</div>
                }
                if view == "timeline" {
                    <TimelinePanel ..ctx.clone() />
                } else {
                    <ResultsView ..ctx.clone() />
                }
            </div>
        };
    }
    // On narrow screens the editor is a drawer (closed at first: the results come first).
    let editor_open = use_state(|| false);
    let toggle_editor = {
        let editor_open = editor_open.clone();
        Callback::from(move |_: MouseEvent| editor_open.set(!*editor_open))
    };
    // A scenario file dropped anywhere on the page opens like "Open file…".
    let dropping = use_state(|| false);
    let on_dragover = {
        let dropping = dropping.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*dropping {
                dropping.set(true);
            }
        })
    };
    let on_dragleave = {
        let dropping = dropping.clone();
        Callback::from(move |_: DragEvent| dropping.set(false))
    };
    let on_drop = {
        let dropping = dropping.clone();
        let d = ctx.dispatch.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dropping.set(false);
            let Some(file) = e
                .data_transfer()
                .and_then(|t| t.files())
                .and_then(|f| f.get(0))
            else {
                d.emit(Action::Notice(Some(
                    "Nothing to open: drop a scenario .json file.".into(),
                )));
                return;
            };
            crate::browser::open_scenario_file(file, d.clone());
        })
    };
    html! {
        <div class={classes!("page", dropping.then_some("dropping"))}
            ondragover={on_dragover} ondragleave={on_dragleave} ondrop={on_drop}>
            <header>
                <h1>{ "schedlab" }</h1>
                <span class="tagline">{ "the Linux fair scheduler, simulated: CFS and EEVDF generations side by side" }</span>
                <PresetsMenu ..ctx.clone() />
            </header>
            if let Some(n) = &ctx.state.0.notice {
                <div class="notice" role="alert" id="notice">
                    { n.clone() }
                    <button onclick={{ let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::Notice(None))) }} aria-label="dismiss">{ "✕" }</button>
                </div>
            }
            <main>
                <section class={classes!("editor", (!*editor_open).then_some("closed"))} aria-label="scenario">
                    <button class="editor-toggle" aria-expanded={editor_open.to_string()} onclick={toggle_editor}>
                        { if *editor_open { "Hide the scenario editor ▴" } else { "Edit the scenario ▾" } }
                    </button>
                    <MachineForm ..ctx.clone() />
                    <TaskTable ..ctx.clone() />
                    <WorkloadTable ..ctx.clone() />
                    <VariantPicker ..ctx.clone() />
                    <RunBar state={ctx.state.clone()} on_run={on_run} on_cancel={on_cancel} />
                    <ShareBar ..ctx.clone() />
                    <JsonView ..ctx.clone() />
                </section>
                <section class="results" aria-label="results">
                    <ResultsView ..ctx.clone() />
                    <TimelinePanel ..ctx.clone() />
                </section>
            </main>
        </div>
    }
}
