//! The presets menu: the LKML experiments and the teaching examples.

use schedlab_scenario::presets::presets;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::components::ctx::Ctx;
use crate::examples::EXAMPLES;
use crate::state::Action;

#[function_component(PresetsMenu)]
pub fn presets_menu(ctx: &Ctx) -> Html {
    let dispatch = ctx.dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let sel: HtmlSelectElement = e.target_unchecked_into();
        let v = sel.value();
        if let Some(name) = v.strip_prefix("preset:") {
            if let Some(p) = schedlab_scenario::presets::preset(name) {
                dispatch.emit(Action::Load {
                    json: p.json.to_string(),
                    source: Some(p.title.to_string()),
                });
            }
        } else if let Some(i) = v
            .strip_prefix("example:")
            .and_then(|i| i.parse::<usize>().ok())
        {
            if let Some((label, json)) = EXAMPLES.get(i) {
                dispatch.emit(Action::Load {
                    json: json.to_string(),
                    source: Some(label.to_string()),
                });
            }
        }
        sel.set_value("");
    });
    html! {
        <label class="presets">
            { "Open an LKML experiment or an example: " }
            <select id="presets" onchange={onchange} aria-label="open a preset or example">
                <option value="" selected=true>{ "a preset or example…" }</option>
                <optgroup label="LKML experiments">
                    { for presets().iter().map(|p| html! { <option value={format!("preset:{}", p.name)}>{ p.title }</option> }) }
                </optgroup>
                <optgroup label="Examples">
                    { for EXAMPLES.iter().enumerate().map(|(i, (label, _))| html! { <option value={format!("example:{i}")}>{ *label }</option> }) }
                </optgroup>
            </select>
        </label>
    }
}
