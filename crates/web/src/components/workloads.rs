//! Workload generators: a kind and its parameters (JSON), expanded into tasks by the scenario.

use schedlab_scenario::WorkloadKind;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::{ctx::Ctx, field_errors};
use crate::state::Action;

#[function_component(WorkloadTable)]
pub fn workload_table(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let add = {
        let d = ctx.dispatch.clone();
        Callback::from(move |_| d.emit(Action::AddWorkload))
    };
    html! {
        <fieldset class="workloads">
            <legend>{ "Workloads" }</legend>
            { for s.workloads.iter().enumerate().map(|(row, w)| {
                let kind = { let d = ctx.dispatch.clone(); Callback::from(move |e: Event| {
                    let sel: HtmlSelectElement = e.target_unchecked_into();
                    d.emit(Action::SetWorkload { row, kind: Some(sel.value()), params: None });
                }) };
                let params = { let d = ctx.dispatch.clone(); Callback::from(move |e: InputEvent| {
                    let t: HtmlTextAreaElement = e.target_unchecked_into();
                    d.emit(Action::SetWorkload { row, kind: None, params: Some(t.value()) });
                }) };
                let del = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::DeleteWorkload(row))) };
                let path = format!("workloads[{row}]");
                html! {
                    <div class="workload-row" data-row={row.to_string()}>
                        <select onchange={kind} aria-label="workload kind">
                            { for WorkloadKind::ALL.iter().map(|k| html! { <option value={k.name()} selected={w.kind == k.name()}>{ k.name() }</option> }) }
                        </select>
                        <textarea class="params" data-path={path.clone()} value={w.params.clone()} oninput={params} rows="1" aria-label="parameters" />
                        <button onclick={del} title="delete">{ "✕" }</button>
                        { field_errors(&path, s.errors_at(&path)) }
                    </div>
                }
            }) }
            <button class="add" onclick={add}>{ "+ workload" }</button>
        </fieldset>
    }
}
