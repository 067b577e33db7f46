//! The raw JSON of the scenario: edits here load into the form once they parse.
//!
//! The text area exists only while its section is open: setting a large document as a text
//! area's value costs the browser a layout of the whole text (about a second for a scenario at
//! the 1 MiB cap), which a closed section would otherwise pay on every edit of the form.

use web_sys::{HtmlDetailsElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::ctx::Ctx;
use crate::state::Action;

#[function_component(JsonView)]
pub fn json_view(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let d = ctx.dispatch.clone();
    let open = use_state(|| false);
    let oninput = Callback::from(move |e: InputEvent| {
        let t: HtmlTextAreaElement = e.target_unchecked_into();
        d.emit(Action::SetJson(t.value()));
    });
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            let el: HtmlDetailsElement = e.target_unchecked_into();
            open.set(el.open());
        })
    };
    html! {
        <details class="json" ontoggle={ontoggle} open={*open}>
            <summary>{ "Scenario JSON" }</summary>
            if *open {
                <textarea id="scenario-json" value={s.json_text.clone()} oninput={oninput} rows="16" spellcheck="false" aria-label="scenario JSON" />
            }
            if let Some(e) = &s.json_error {
                <div class="field-error" data-path="json" role="alert">{ e.clone() }</div>
            }
        </details>
    }
}
