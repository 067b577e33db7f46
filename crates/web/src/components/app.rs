//! The page.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::ctx::{Ctx, Store};
use crate::components::{
    divergence::DivergencePanel, groups::GroupsForm, json_view::JsonView, machine::MachineForm,
    presets_menu::PresetsMenu, recording::RecordingBar, results::ResultsView, run_bar::RunBar,
    share_bar::ShareBar, sweep::SweepPanel, tasks::TaskTable, timeline::TimelinePanel,
    variants::VariantPicker, workloads::WorkloadTable,
};
use crate::hooks::{use_sim_worker, use_sweep_workers};
use crate::state::{Action, State, TimelineAction};

#[function_component(App)]
pub fn app() -> Html {
    let store = use_reducer(|| Store(State::from_location(&crate::browser::href())));
    let dispatch = {
        let store = store.clone();
        Callback::from(move |a: Action| store.dispatch(a))
    };
    let sim = use_sim_worker(dispatch.clone());
    let sweeper = use_sweep_workers(dispatch.clone());
    let state: Rc<Store> = Rc::new(Store(store.0.clone()));
    let on_sweep = {
        let store = store.clone();
        let sweeper = sweeper.clone();
        Callback::from(move |_: ()| match store.0.sweep_request() {
            Ok(run) => {
                sweeper.start(&run);
                store.dispatch(Action::SweepStarted(Box::new(run)));
            }
            Err(e) => store.dispatch(Action::SweepRefused(e)),
        })
    };
    let on_sweep_cancel = {
        let store = store.clone();
        let sweeper = sweeper.clone();
        Callback::from(move |_: ()| {
            sweeper.cancel();
            store.dispatch(Action::SweepCancel);
        })
    };
    // A link with a sweep runs it once the page is up.
    {
        let on_sweep = on_sweep.clone();
        use_effect_with(store.0.sweep_from_link, move |from_link| {
            if *from_link {
                on_sweep.emit(());
            }
        });
    }

    // A first visit opens with the default comparison already run.
    {
        let sim = sim.clone();
        let store = store.clone();
        use_effect_with((), move |_| {
            if let Some((run, scenario)) = store.0.run_request() {
                sim.run(run, scenario);
                store.dispatch(Action::Run);
            }
        });
    }

    // A schedlab link opened while the page is open changes only the fragment: load the link's
    // scenario and view and run it, as a fresh visit would. The run starts in the effect below,
    // once the loaded state has rendered.
    let link_runs = use_state(|| 0u32);
    let links_seen = use_mut_ref(|| 0u32);
    // The link's timeline window, applied once its run is done (a window needs the run's end).
    let pending_window = use_mut_ref(|| None::<(u64, u64)>);
    // The listener outlives this render; it reads the layout in force through this cell.
    let per_task = use_mut_ref(|| false);
    *per_task.borrow_mut() = store.0.view.timeline.per_task;
    {
        let store = store.clone();
        let link_runs = link_runs.clone();
        let embed = store.0.embed.clone();
        let pending_window = pending_window.clone();
        use_effect_with((), move |_| {
            let listener = crate::browser::on_hash_change(move |href| {
                use schedlab_scenario::link;
                if link::embed_view(&href) != embed {
                    // Into or out of the embed layout: that is a different page.
                    if let Some(w) = web_sys::window() {
                        let _ = w.location().reload();
                    }
                    return;
                }
                let fragment = href.rsplit_once('#').map_or("", |(_, f)| f);
                if link::find_payload(fragment).is_none() {
                    return; // not a scenario link (an empty or foreign fragment)
                }
                match link::decode(&href) {
                    Ok(l) => {
                        store.dispatch(Action::Load {
                            json: l.scenario.to_json(),
                            source: Some("this link".into()),
                        });
                        store.dispatch(Action::Timeline(TimelineAction::Select(l.view.selected)));
                        if *per_task.borrow() != l.view.per_task {
                            store.dispatch(Action::Timeline(TimelineAction::ToggleLayout));
                        }
                        *pending_window.borrow_mut() = l.view.window_ns;
                        // Counted here, not from `link_runs`: this closure keeps the first render's.
                        let n = {
                            let mut seen = links_seen.borrow_mut();
                            *seen += 1;
                            *seen
                        };
                        link_runs.set(n);
                    }
                    Err(e) => store.dispatch(Action::Notice(Some(format!(
                        "This link could not be opened: {e}."
                    )))),
                }
            });
            move || drop(listener)
        });
    }
    {
        let sim = sim.clone();
        let store = store.clone();
        use_effect_with(*link_runs, move |n| {
            if *n > 0 {
                sim.cancel();
                if let Some((run, scenario)) = store.0.run_request() {
                    sim.run(run, scenario);
                }
                store.dispatch(Action::Run);
            }
        });
    }

    {
        use crate::state::RunState;
        let store = store.clone();
        let outcome = match store.0.run {
            RunState::Done(_) => Some(true),
            RunState::Failed(_) => Some(false),
            _ => None,
        };
        let sim = sim.clone();
        use_effect_with((store.0.runs, outcome), move |(runs, outcome)| {
            if let Some(done) = *outcome {
                // The run is over: its worker needs no more watching.
                sim.settled(*runs);
                if let Some((t0, t1)) = pending_window.borrow_mut().take() {
                    if done {
                        store.dispatch(Action::Timeline(TimelineAction::Range(t0, t1)));
                    }
                }
            }
        });
    }

    {
        // A click on a switch asks the run's worker why it happened.
        let sim = sim.clone();
        use_effect_with(store.0.explain, move |req| {
            if let Some(req) = *req {
                sim.explain(req);
            }
        });
    }

    let on_run = {
        let sim = sim.clone();
        let store = store.clone();
        Callback::from(move |_| {
            if let Some((run, scenario)) = store.0.run_request() {
                sim.run(run, scenario);
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
        let sim = sim.clone();
        Callback::from(move |_| {
            sim.cancel();
            store.dispatch(Action::Cancel);
        })
    };
    // A recording is read by its own worker; its derived scenario runs under the variants
    // picked now.
    let on_trace = {
        let store = store.clone();
        let sim = sim.clone();
        Callback::from(move |file: web_sys::File| {
            let variants = store
                .0
                .variants
                .iter()
                .map(|v| v.to_variant_string())
                .collect();
            sim.import(file, variants);
        })
    };
    let on_file = {
        let d = dispatch.clone();
        let on_trace = on_trace.clone();
        Callback::from(move |file: web_sys::File| {
            crate::browser::open_file(file, d.clone(), on_trace.clone())
        })
    };
    let on_cancel_import = {
        let store = store.clone();
        Callback::from(move |_| {
            sim.cancel_import();
            store.dispatch(Action::ImportCancel);
        })
    };
    // The error panel's report names the scenario in the editor (its link is made again only
    // when the document changes).
    {
        let state = state.clone();
        use_effect_with(store.0.json_text.clone(), move |_| {
            if let Some(p) = state.0.link_payload() {
                crate::browser::remember_link(format!("{}#{p}", crate::browser::base_url()));
            }
        });
    }
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
    // A file dropped anywhere on the page: a scenario opens like "Open file…", anything else is
    // read as a recording.
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
        let on_file = on_file.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dropping.set(false);
            let Some(file) = e
                .data_transfer()
                .and_then(|t| t.files())
                .and_then(|f| f.get(0))
            else {
                d.emit(Action::Notice(Some(
                    "Nothing to open: drop a scenario .json file or a recording.".into(),
                )));
                return;
            };
            on_file.emit(file);
        })
    };
    html! {
        <div class={classes!("page", dropping.then_some("dropping"))}
            ondragover={on_dragover} ondragleave={on_dragleave} ondrop={on_drop}>
            <header>
                <h1>{ "schedlab" }</h1>
                <span class="tagline">{ "Replay a scheduler experiment under CFS and EEVDF kernels, with fair.c's own features and tunables, and see what each kernel does, side by side." }</span>
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
                    <GroupsForm ..ctx.clone() />
                    <WorkloadTable ..ctx.clone() />
                    <VariantPicker ..ctx.clone() />
                    <RunBar state={ctx.state.clone()} on_run={on_run} on_cancel={on_cancel} />
                    if !ctx.state.0.derived_notes.is_empty() {
                        <div class="derived-notes" id="derived-notes">
                            <strong>{ "Derived from the recording; what it could not take from it:" }</strong>
                            <ul>{ for ctx.state.0.derived_notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                        </div>
                    }
                    <ShareBar ..ctx.clone() />
                    <JsonView ..ctx.clone() />
                </section>
                <section class="results" aria-label="results">
                    <RecordingBar state={ctx.state.clone()} dispatch={ctx.dispatch.clone()}
                        on_file={on_file} on_trace={on_trace} on_cancel={on_cancel_import} />
                    <ResultsView ..ctx.clone() />
                    <DivergencePanel ..ctx.clone() />
                    <TimelinePanel ..ctx.clone() />
                    <SweepPanel state={ctx.state.clone()} dispatch={ctx.dispatch.clone()} on_start={on_sweep} on_cancel={on_sweep_cancel} />
                </section>
            </main>
        </div>
    }
}
