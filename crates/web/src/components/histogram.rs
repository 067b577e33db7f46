//! A latency histogram on a canvas, drawn with plotters: shared axes across variants, and the
//! p50/p90/p99/p99.9 markers.

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::model::HistView;

#[derive(Properties, PartialEq)]
pub struct HistProps {
    pub view: HistView,
    pub title: String,
    pub kind: String,
    pub log: bool,
}

fn draw(canvas: HtmlCanvasElement, p: &HistProps) -> Option<()> {
    let backend = CanvasBackend::with_canvas_object(canvas)?;
    let root = backend.into_drawing_area();
    schedlab_report::plot::draw_histogram(&root, &p.view, &p.title).ok()
}

#[function_component(Histogram)]
pub fn histogram(p: &HistProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let props = HistProps {
            view: p.view.clone(),
            title: p.title.clone(),
            kind: p.kind.clone(),
            log: p.log,
        };
        use_effect_with((p.view.clone(), p.log), move |_| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let _ = draw(c, &props);
            }
        });
    }
    let [p50, p90, p99, p999] = p.view.percentiles_ns;
    let png = crate::browser::save_png(canvas.clone(), format!("schedlab-{}.png", p.kind));
    let svg = {
        let view = p.view.clone();
        let title = p.title.clone();
        let name = format!("schedlab-{}.svg", p.kind);
        Callback::from(move |_| {
            // The same drawing code as the canvas, on plotters' SVG backend.
            if let Ok(text) = schedlab_report::plot::histogram_svg(&view, &title, 420, 200) {
                crate::browser::download(&name, "image/svg+xml", &text);
            }
        })
    };
    html! {
        <figure class="histogram">
            <canvas ref={canvas} class="histogram" data-kind={p.kind.clone()} width="420" height="200" />
            <button class="png" onclick={png} title="save as PNG">{ "PNG" }</button>
            <button class="svg" onclick={svg} title="save as SVG">{ "SVG" }</button>
            <figcaption>{ format!("{} samples; p50 {:.3} ms, p90 {:.3}, p99 {:.3}, p99.9 {:.3} (markers: green, amber, red, purple)",
                p.view.samples, p50 as f64 / 1e6, p90 as f64 / 1e6, p99 as f64 / 1e6, p999 as f64 / 1e6) }</figcaption>
        </figure>
    }
}
