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

/// Puts the link in the address bar without reloading, and tries the clipboard.
pub fn publish_link(url: &str, copy: bool) {
    let Some(w) = web_sys::window() else { return };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
    if copy {
        let _ = w.navigator().clipboard().write_text(url);
    }
}
