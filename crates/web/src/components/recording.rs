//! The recording bar: open, drop or paste a real trace (perf script, perf sched timehist,
//! ftrace / trace-cmd report, schedlab's own exports), see it read with a progress bar and a
//! Cancel, what it could not read, and remove it or make a scenario from it. The trace is read
//! in the browser and never leaves it.

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::ctx::Store;
use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct RecordingBarProps {
    pub state: Rc<Store>,
    pub dispatch: Callback<Action>,
    /// Read this file (a trace or a scenario: told apart by its start).
    pub on_file: Callback<web_sys::File>,
    /// Read this file as a trace.
    pub on_trace: Callback<web_sys::File>,
    pub on_cancel: Callback<()>,
}

#[function_component(RecordingBar)]
pub fn recording_bar(p: &RecordingBarProps) -> Html {
    let s = &p.state.0;
    let paste = use_node_ref();
    let on_open = {
        let on_file = p.on_file.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(f) = input.files().and_then(|f| f.get(0)) {
                on_file.emit(f);
            }
            input.set_value("");
        })
    };
    let on_paste = {
        let paste = paste.clone();
        let on_trace = p.on_trace.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(t) = paste.cast::<HtmlTextAreaElement>() {
                if let Some(f) = crate::browser::text_file("pasted text", &t.value()) {
                    t.set_value("");
                    on_trace.emit(f);
                }
            }
        })
    };
    let cancel = {
        let cb = p.on_cancel.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let act = |a: Action| {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.emit(a.clone()))
    };
    html! {
        <section class="recording-bar" aria-label="recording">
            <div class="rec-open">
                <label class="button">{ "Open a recording…" }
                    <input id="open-trace" type="file" onchange={on_open} hidden=true />
                </label>
                <span class="hint">{ " or drop a perf script, perf sched timehist or trace-cmd report file (gzip too) anywhere on the page. " }
                    <strong id="privacy">{ "A recording is read here, in your browser, and never uploaded anywhere." }</strong>
                </span>
                <details class="rec-paste">
                    <summary>{ "paste trace text" }</summary>
                    <textarea id="paste-trace" ref={paste} rows="6" placeholder="perf script output, …" />
                    <button id="paste-read" onclick={on_paste}>{ "Read pasted text" }</button>
                </details>
            </div>
            if let Some(i) = &s.importing {
                <div class="rec-progress" id="import-progress" data-id={i.id.to_string()}>
                    <progress max={i.total.max(1).to_string()} value={i.bytes.to_string()} />
                    { format!(" reading {}: {:.1} of {:.1} MB", i.file, i.bytes as f64 / 1e6, i.total as f64 / 1e6) }
                    <button id="import-cancel" onclick={cancel}>{ "Cancel" }</button>
                </div>
            }
            if let Some(e) = &s.import_error {
                <div class="import-error failed" id="import-error" role="alert">{ e.clone() }</div>
            }
            if let Some(r) = &s.recording {
                <div class="rec-info" id="recording" data-file={r.file.clone()} data-format={r.format.clone()}>
                    <strong>{ format!("recorded: {}", r.file) }</strong>
                    { format!(" — {}{}, {} CPUs, {:.3} s, {} events, {} lines ", r.format, if r.gzip { " (gzip)" } else { "" }, r.cpus, r.end_ns as f64 / 1e9, r.events, r.lines) }
                    <button id="make-scenario" class="primary" onclick={act(Action::MakeScenario)} disabled={r.derived.is_err()}
                        title="fill the editor with a scenario that approximates this recording">{ "Make a scenario from this trace" }</button>
                    <button id="remove-recording" onclick={act(Action::RemoveRecording)}>{ "Remove recording" }</button>
                    if r.warnings_total > 0 {
                        <details class="rec-warnings" id="import-warnings" data-count={r.warnings_total.to_string()}>
                            <summary>{ format!("{} lines could not be read", r.warnings_total) }</summary>
                            <ul>{ for r.warnings.iter().map(|w| html! { <li>{ w.clone() }</li> }) }</ul>
                        </details>
                    }
                    <details class="rec-notes">
                        <summary>{ "what this recording can and cannot say" }</summary>
                        <ul>
                            { for r.missing.iter().map(|m| html! { <li class="missing">{ format!("not in a recording: {m}") }</li> }) }
                            { for r.notes.iter().map(|m| html! { <li>{ m.clone() }</li> }) }
                        </ul>
                    </details>
                </div>
            }
        </section>
    }
}
