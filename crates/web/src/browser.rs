//! Effects on the browser: downloads, the clipboard, the address bar.

use wasm_bindgen::JsCast;

/// Offers `text` for download as `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    download_url(&doc, name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Offers the data URL of a canvas (`canvas.toDataURL`) for download.
pub fn download_canvas(canvas: &web_sys::HtmlCanvasElement, name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Ok(url) = canvas.to_data_url() {
        download_url(&doc, name, &url);
    }
}

/// A click handler that saves the canvas behind `canvas` as the PNG `name`.
pub fn save_png(canvas: yew::NodeRef, name: String) -> yew::Callback<yew::MouseEvent> {
    yew::Callback::from(move |_| {
        if let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() {
            download_canvas(&c, &name);
        }
    })
}

fn download_url(doc: &web_sys::Document, name: &str, url: &str) {
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() else {
        return;
    };
    a.set_href(url);
    a.set_download(name);
    if let Some(body) = doc.body() {
        let _ = body.append_child(&a);
        a.click();
        let _ = body.remove_child(&a);
    }
}

/// Reads a scenario file the user chose or dropped and loads it (a read failure becomes a notice
/// naming the file; a file that is not a scenario is refused by the reducer, also by name).
pub fn open_scenario_file(file: web_sys::File, dispatch: yew::Callback<crate::state::Action>) {
    use crate::state::Action;
    let name = file.name();
    // Refuse by size before reading anything: a scenario is at most this big.
    let cap = schedlab_scenario::MAX_SCENARIO_BYTES as f64;
    if file.size() > cap {
        dispatch.emit(Action::Notice(Some(format!(
            "Could not open {name}: it is {:.1} MB, and a scenario is at most {} bytes ({} MiB).",
            file.size() / 1e6,
            cap,
            schedlab_scenario::MAX_SCENARIO_BYTES >> 20
        ))));
        return;
    }
    let file = gloo::file::File::from(file);
    yew::platform::spawn_local(async move {
        match gloo::file::futures::read_as_text(&file).await {
            Ok(text) => dispatch.emit(Action::Load {
                json: text,
                source: Some(name),
            }),
            Err(e) => dispatch.emit(Action::Notice(Some(format!("Could not read {name}: {e}")))),
        }
    });
}

/// Opens a file the user chose or dropped: a scenario goes to the editor, anything else is
/// read as a recording by `on_trace` (which refuses a file that is no trace, naming the formats
/// it tried). Which it is, is told from the file's name and first 64 KiB
/// ([`crate::recording::classify`]).
pub fn open_file(
    file: web_sys::File,
    dispatch: yew::Callback<crate::state::Action>,
    on_trace: yew::Callback<web_sys::File>,
) {
    use crate::recording::{classify, Dropped};
    let head = match file.slice_with_f64_and_f64(0.0, file.size().min(65536.0)) {
        Ok(b) => b,
        Err(_) => return on_trace.emit(file),
    };
    yew::platform::spawn_local(async move {
        let bytes = gloo::file::futures::read_as_bytes(&gloo::file::Blob::from(head))
            .await
            .unwrap_or_default();
        match classify(&file.name(), &bytes) {
            Dropped::Scenario => open_scenario_file(file, dispatch),
            Dropped::Trace => on_trace.emit(file),
        }
    });
}

/// A file holding `text` (pasted text, read like a dropped file).
pub fn text_file(name: &str, text: &str) -> Option<web_sys::File> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    web_sys::File::new_with_str_sequence(&parts, name).ok()
}

/// The page's address without its fragment.
pub fn base_url() -> String {
    let href = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    href.split('#').next().unwrap_or("").to_string()
}

/// The page's full address.
pub fn href() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// The address of `file`, one of the site's own files, next to the page: resolved against the
/// document's base URL, so the site works from any host at any sub-path (`/`, `/schedlab/`).
pub fn asset_url(file: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .unwrap_or_else(base_url);
    web_sys::Url::new_with_base(file, &base)
        .map(|u| u.href())
        .unwrap_or_else(|_| file.to_string())
}

thread_local! {
    /// The last address the page itself put in the address bar.
    static PUBLISHED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Puts the link in the address bar without reloading, and tries the clipboard.
pub fn publish_link(url: &str, copy: bool) {
    let Some(w) = web_sys::window() else { return };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
    // What the address bar holds now, as the browser spells it.
    PUBLISHED.with(|p| *p.borrow_mut() = href());
    if copy {
        let _ = w.navigator().clipboard().write_text(url);
    }
}

/// Calls `on_link` with the page's address whenever its fragment changes from outside the page:
/// a schedlab link pasted into the address bar or followed from another page while this one is
/// open. The page's own address-bar updates ([`publish_link`], which uses
/// `history.replaceState`) fire no `hashchange`; they are also skipped by address, in case a
/// browser fires one anyway. The listener lives as long as the returned guard.
pub fn on_hash_change(on_link: impl Fn(String) + 'static) -> Option<gloo::events::EventListener> {
    let w = web_sys::window()?;
    Some(gloo::events::EventListener::new(
        &w,
        "hashchange",
        move |_| {
            let now = href();
            // Taken, not read: the same address typed again later is the user's.
            if PUBLISHED.with(|p| std::mem::take(&mut *p.borrow_mut()) == now) {
                return;
            }
            on_link(now);
        },
    ))
}

thread_local! {
    /// A link to the scenario in the editor (kept up to date by the page), for error reports.
    static SCENARIO_LINK: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Remembers the link to the scenario in the editor, for an error report.
pub fn remember_link(link: String) {
    SCENARIO_LINK.with(|l| *l.borrow_mut() = link);
}

/// Turns any panic of the page's code into a visible error panel (never a blank or frozen
/// page): what happened, a report to copy (the scenario's link and the error) and a reload
/// button. Built with the DOM alone: after a panic the app's own state is gone. (Installed
/// through Yew, whose renderer would otherwise put its own hook in place.)
pub fn install_panic_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let error = info.to_string();
        web_sys::console::error_1(&format!("schedlab: {error}").into());
        let link = SCENARIO_LINK
            .try_with(|l| l.try_borrow().map(|l| l.clone()).unwrap_or_default())
            .unwrap_or_default();
        let link = if link.is_empty() { href() } else { link };
        show_error_panel(&error, &link);
    }));
}

fn show_error_panel(error: &str, link: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = doc.body() else { return };
    if doc.get_element_by_id("error-panel").is_some() {
        return; // the first error is the one to report
    }
    let report = format!(
        "schedlab error report\nerror: {error}\nscenario: {link}\nbrowser: {}\n",
        web_sys::window()
            .and_then(|w| w.navigator().user_agent().ok())
            .unwrap_or_default()
    );
    let el = |tag: &str, text: &str| {
        let e = doc.create_element(tag).ok()?;
        e.set_text_content(Some(text));
        Some(e)
    };
    let Some(panel) = el("div", "") else { return };
    panel.set_id("error-panel");
    panel.set_class_name("error-panel");
    let _ = panel.set_attribute("role", "alert");
    let parts = [
        el("h2", "schedlab stopped: an error in the page"),
        el("p", "The page hit a bug and cannot go on. Reload to start again (the scenario is in the link below). Please send the report: it holds the scenario's link and the error, nothing else."),
        el("pre", &report),
    ];
    for p in parts.into_iter().flatten() {
        let _ = panel.append_child(&p);
    }
    if let Some(copy) = el("button", "copy report") {
        copy.set_id("copy-report");
        let report = report.clone();
        let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            if let Some(w) = web_sys::window() {
                let _ = w.navigator().clipboard().write_text(&report);
            }
        });
        let _ = copy.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
        cb.forget();
        let _ = panel.append_child(&copy);
    }
    if let Some(reload) = el("a", "reload") {
        let _ = reload.set_attribute("href", link);
        let _ = reload.set_attribute("style", "margin-left: 1em");
        let _ = panel.append_child(&reload);
    }
    let _ = body.append_child(&panel);
}
