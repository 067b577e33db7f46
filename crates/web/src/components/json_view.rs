//! The raw JSON of the scenario: edits here load into the form once they parse.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::components::ctx::Ctx;
use crate::state::Action;

#[function_component(JsonView)]
pub fn json_view(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let d = ctx.dispatch.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        let t: HtmlTextAreaElement = e.target_unchecked_into();
        d.emit(Action::SetJson(t.value()));
    });
    html! {
        <details class="json">
            <summary>{ "Scenario JSON" }</summary>
            <textarea id="scenario-json" value={s.json_text.clone()} oninput={oninput} rows="16" spellcheck="false" aria-label="scenario JSON" />
            if let Some(e) = &s.json_error {
                <div class="field-error" data-path="json" role="alert">{ e.clone() }</div>
            }
        </details>
    }
}
