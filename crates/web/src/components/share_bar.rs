//! Sharing: copy a link that restores the scenario and view, open a scenario file, save the
//! scenario as a file.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::browser;
use crate::components::app::Ctx;
use crate::state::Action;

#[function_component(ShareBar)]
pub fn share_bar(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let reader: Rc<RefCell<Option<gloo::file::callbacks::FileReader>>> = use_mut_ref(|| None);
    let copy = {
        let d = ctx.dispatch.clone();
        let payload = s.link_payload();
        Callback::from(move |_| match &payload {
            Some(p) => {
                let url = format!("{}#{p}", browser::base_url());
                browser::publish_link(&url, true);
                d.emit(Action::Linked(url));
            }
            None => d.emit(Action::Notice(Some(
                "The scenario is invalid: fix it before making a link.".into(),
            ))),
        })
    };
    let save = {
        let json = s.json_text.clone();
        Callback::from(move |_| browser::download("scenario.json", "application/json", &json))
    };
    let open = {
        let d = ctx.dispatch.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let name = file.name();
            let d = d.clone();
            let task =
                gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |res| {
                    match res {
                        Ok(text) => d.emit(Action::Load {
                            json: text,
                            source: Some(name.clone()),
                        }),
                        Err(e) => {
                            d.emit(Action::Notice(Some(format!("Could not read {name}: {e}"))))
                        }
                    }
                });
            *reader.borrow_mut() = Some(task);
            input.set_value("");
        })
    };
    html! {
        <div class="share-bar">
            <button id="copy-link" onclick={copy} title="a link that opens this scenario and view">{ "Copy link" }</button>
            if let Some(l) = &s.link {
                <input id="link" class="link" readonly=true value={l.clone()} aria-label="link to this scenario" />
            }
            <button id="save-scenario" onclick={save}>{ "Save scenario" }</button>
            <label class="open-file">{ "Open file… " }
                <input id="open-scenario" type="file" accept=".json,application/json" onchange={open} />
            </label>
        </div>
    }
}
