//! The variant picker: up to eight kernels (the format's limit), each a preset with its features.h toggles and
//! tunable overrides.

use schedlab_sim::{kernel_version, KERNEL_VERSIONS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::components::{ctx::Ctx, field_errors};
use crate::state::{Action, MAX_VARIANTS};

#[function_component(VariantPicker)]
pub fn variant_picker(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let add = {
        let d = ctx.dispatch.clone();
        Callback::from(move |_| d.emit(Action::AddVariant))
    };
    html! {
        <fieldset class="variants">
            <legend>{ "Kernel variants" }</legend>
            <div class="variant-cards">
            { for s.variants.iter().enumerate().map(|(index, v)| {
                let on_preset = { let d = ctx.dispatch.clone(); Callback::from(move |e: Event| {
                    let sel: HtmlSelectElement = e.target_unchecked_into();
                    d.emit(Action::SetVariantPreset { index, preset: sel.value() });
                }) };
                let on_tunables = { let d = ctx.dispatch.clone(); Callback::from(move |e: InputEvent| {
                    let i: HtmlInputElement = e.target_unchecked_into();
                    d.emit(Action::SetTunables { index, value: i.value() });
                }) };
                let del = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::DeleteVariant(index))) };
                let features = kernel_version(&v.preset).map(|p| p.available.to_vec()).unwrap_or_default();
                let errs: Vec<String> = s.variant_error(index).into_iter().collect();
                html! {
                    <div class="variant-card" data-variant={v.to_variant_string()}>
                        <div class="variant-head">
                            <select onchange={on_preset} aria-label="kernel version">
                                { for KERNEL_VERSIONS.iter().map(|p| html! { <option value={p.name} selected={p.name == v.preset} title={p.summary}>{ p.name }</option> }) }
                            </select>
                            <button onclick={del} title="remove">{ "✕" }</button>
                        </div>
                        <code class="variant-string">{ v.to_variant_string() }</code>
                        <div class="features">
                        { for features.iter().map(|f| {
                            let name = f.name().to_string();
                            let d = ctx.dispatch.clone();
                            let n2 = name.clone();
                            let onchange = Callback::from(move |e: Event| {
                                let i: HtmlInputElement = e.target_unchecked_into();
                                d.emit(Action::ToggleFeature { index, feature: n2.clone(), on: i.checked() });
                            });
                            html! {
                                <label class="feature" title={f.summary()}>
                                    <input type="checkbox" checked={v.feature_on(*f)} onchange={onchange} />
                                    <span>{ name }</span>
                                </label>
                            }
                        }) }
                        </div>
                        <label class="field">
                            <span title="debugfs tunables, e.g. base_slice_ns=3000000">{ "tunables" }</span>
                            <input value={v.tunables.clone()} oninput={on_tunables} placeholder="name=value,…" />
                        </label>
                        { field_errors(&format!("variants[{index}]"), errs) }
                    </div>
                }
            }) }
            </div>
            if s.variants.len() < MAX_VARIANTS {
                <button class="add" onclick={add}>{ "+ variant" }</button>
            }
        </fieldset>
    }
}
