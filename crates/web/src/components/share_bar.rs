//! Sharing: copy a link that restores the scenario and view, open a scenario file, save the
//! scenario as a file.

use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::browser;
use crate::components::ctx::Ctx;
use crate::state::Action;

#[function_component(ShareBar)]
pub fn share_bar(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
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
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                browser::open_scenario_file(file, d.clone());
            }
            input.set_value("");
        })
    };
    let embed_open = use_state(|| false);
    let embed_view = use_state(|| "comparison".to_string());
    let embed_height = use_state(|| 480u32);
    let snippet_ref = use_node_ref();
    let view_ref = use_node_ref();
    {
        // Opening the dialog moves the keyboard focus into it.
        let view_ref = view_ref.clone();
        use_effect_with(*embed_open, move |open| {
            if *open {
                if let Some(sel) = view_ref.cast::<HtmlSelectElement>() {
                    let _ = sel.focus();
                }
            }
        });
    }
    let toggle_embed = {
        let o = embed_open.clone();
        Callback::from(move |_| o.set(!*o))
    };
    let close_embed = {
        let o = embed_open.clone();
        Callback::from(move |_| o.set(false))
    };
    let esc_closes = {
        let o = embed_open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                o.set(false);
            }
        })
    };
    let set_view = {
        let v = embed_view.clone();
        Callback::from(move |e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            v.set(sel.value());
        })
    };
    let set_height = {
        let h = embed_height.clone();
        Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = i.value().trim().parse::<u32>() {
                h.set(n);
            }
        })
    };
    let snippet = s.embed_snippet(&browser::base_url(), &embed_view, *embed_height);
    let copy_snippet = {
        let r = snippet_ref.clone();
        let text = snippet.clone();
        Callback::from(move |_| {
            if let Some(t) = r.cast::<HtmlTextAreaElement>() {
                t.select();
            }
            if let (Some(w), Some(t)) = (web_sys::window(), &text) {
                let _ = w.navigator().clipboard().write_text(t);
            }
        })
    };
    let dialog = if *embed_open {
        html! {
            <div id="embed-dialog" class="embed-dialog" role="dialog" aria-label="embed code" onkeydown={esc_closes}>
                <label>{ "View " }
                    <select id="embed-view" ref={view_ref} onchange={set_view}>
                        { for [("comparison", "comparison (tables, histograms, counters)"), ("table", "latency table"), ("histogram", "histograms"), ("timeline", "timeline")].iter().map(|(v, l)| html! {
                            <option value={*v} selected={*embed_view == *v}>{ *l }</option>
                        }) }
                    </select>
                </label>
                <label>{ " Height (px) " }
                    <input id="embed-height" type="number" min="120" max="4000" step="10" value={embed_height.to_string()} oninput={set_height} />
                </label>
                if let Some(code) = &snippet {
                    <textarea id="embed-snippet" ref={snippet_ref} readonly=true rows="4" aria-label="iframe code to paste into a page" value={code.clone()} />
                    <div>
                        <button id="copy-embed" onclick={copy_snippet}>{ "Copy code" }</button>
                        <button onclick={close_embed.clone()}>{ "Close" }</button>
                    </div>
                } else {
                    <p class="error">{ "The scenario is invalid: fix it to get embed code." }</p>
                    <button onclick={close_embed}>{ "Close" }</button>
                }
            </div>
        }
    } else {
        html! {}
    };
    html! {
        <div class="share-bar">
            <button id="copy-link" onclick={copy} title="a link that opens this scenario and view">{ "Copy link" }</button>
            if let Some(l) = &s.link {
                <input id="link" class="link" readonly=true value={l.clone()} aria-label="link to this scenario" />
            }
            <button id="embed-code" onclick={toggle_embed} aria-expanded={embed_open.to_string()} title="an iframe snippet for a blog post">{ "Embed code…" }</button>
            <button id="save-scenario" onclick={save}>{ "Save scenario" }</button>
            <label class="open-file">{ "Open file… " }
                <input id="open-scenario" type="file" accept=".json,application/json" onchange={open} />
            </label>
            { dialog }
        </div>
    }
}
