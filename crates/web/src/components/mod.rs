//! The page's components, one per file. They render [`crate::state::State`] and dispatch
//! [`crate::state::Action`]s; canvases are drawn in effects (histograms through
//! `schedlab_report::plot`, the timeline on a 2D context), the worker bridge is in [`crate::hooks`].

pub mod app;
pub mod ctx;
pub mod divergence;
pub mod groups;
pub mod histogram;
pub mod json_view;
pub mod latency_table;
pub mod machine;
pub mod presets_menu;
pub mod recording;
pub mod results;
pub mod run_bar;
pub mod share_bar;
pub mod sweep;
pub mod tasks;
pub mod timeline;
pub mod variants;
pub mod workloads;

use yew::prelude::*;

/// The error messages of one field, shown under it (`data-path` names the field).
pub fn field_errors(path: &str, errors: Vec<String>) -> Html {
    if errors.is_empty() {
        return html! {};
    }
    html! {
        <div class="field-error" data-path={path.to_string()} role="alert">
            { for errors.iter().map(|e| html! { <div>{ e.clone() }</div> }) }
        </div>
    }
}
