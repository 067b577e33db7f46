//! Workload generators: a kind and a form of its parameters (each with its default, what is
//! allowed and a line of help), expanded into tasks by the scenario. The parameters are also
//! editable as JSON, here and in the scenario's JSON view.

use schedlab_scenario::WorkloadKind;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
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
                let specs = WorkloadKind::from_name(&w.kind).map(|k| k.params()).unwrap_or_default();
                let is_object = w.params_object().is_some();
                html! {
                    <div class="workload-row" data-row={row.to_string()}>
                        <div class="workload-head">
                            <select onchange={kind} aria-label="workload kind">
                                { for WorkloadKind::ALL.iter().map(|k| html! { <option value={k.name()} selected={w.kind == k.name()}>{ k.name() }</option> }) }
                            </select>
                            <button onclick={del} title="delete">{ "✕" }</button>
                        </div>
                        if is_object {
                            <div class="params-grid">
                            { for specs.iter().map(|p| {
                                let field = format!("{path}.{}.{}", w.kind, p.name);
                                let errs = s.errors_at(&field);
                                let name = p.name.to_string();
                                let oninput = { let d = ctx.dispatch.clone(); Callback::from(move |e: InputEvent| {
                                    let i: HtmlInputElement = e.target_unchecked_into();
                                    d.emit(Action::SetWorkloadParam { row, name: name.clone(), value: i.value() });
                                }) };
                                let placeholder = if p.default.is_empty() { "none".to_string() } else { p.default.trim_matches('"').to_string() };
                                html! {
                                    <label class="field param" title={format!("{}. Allowed: {}.", p.help, p.allowed)}>
                                        <span>{ p.name }</span>
                                        <input class="param" name={p.name} data-path={field.clone()} value={w.param_text(p.name)}
                                            placeholder={placeholder} oninput={oninput} aria-invalid={(!errs.is_empty()).to_string()}
                                            aria-description={format!("{} ({})", p.help, p.allowed)} />
                                        <small class="help">{ p.help }</small>
                                        { field_errors(&field, errs) }
                                    </label>
                                }
                            }) }
                            </div>
                        }
                        <details class="params-json" open={!is_object}>
                            <summary>{ "as JSON" }</summary>
                            <textarea class="params" data-path={path.clone()} value={w.params.clone()} oninput={params} rows="1" aria-label="parameters as JSON" />
                        </details>
                        // What no field shows: a misspelt key, or parameters that are not an object.
                        { field_errors(&path, s.errors_at(&path).into_iter().filter(|m| {
                            !is_object || !specs.iter().any(|p| m.starts_with(&format!("{}.{}", w.kind, p.name)))
                        }).collect()) }
                    </div>
                }
            }) }
            <button class="add" onclick={add}>{ "+ workload" }</button>
        </fieldset>
    }
}
