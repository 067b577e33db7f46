//! A latency histogram on a canvas, drawn with plotters: shared axes across variants, and the
//! p50/p90/p99/p99.9 markers.

use plotters::prelude::*;
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
    root.fill(&WHITE).ok()?;
    let v = &p.view;
    let n = v.counts.len();
    let y_max = v.y_max.max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(&p.title, ("sans-serif", 14))
        .margin(6)
        .x_label_area_size(28)
        .y_label_area_size(40)
        .build_cartesian_2d(0..n, 0..y_max + y_max / 10 + 1)
        .ok()?;
    let edges = v.edges_ns.clone();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(5)
        .x_label_formatter(&|i| format!("{:.2}", edges.get(*i).copied().unwrap_or(0) as f64 / 1e6))
        .x_desc("ms")
        .draw()
        .ok()?;
    chart
        .draw_series(
            v.counts.iter().enumerate().map(|(i, &c)| {
                Rectangle::new([(i, 0), (i + 1, c)], RGBColor(60, 110, 180).filled())
            }),
        )
        .ok()?;
    let colors = [
        RGBColor(40, 160, 60),
        RGBColor(220, 150, 0),
        RGBColor(210, 60, 40),
        RGBColor(140, 0, 140),
    ];
    for (k, &pv) in v.percentiles_ns.iter().enumerate() {
        let bin = v.edges_ns[1..]
            .partition_point(|&e| e < pv)
            .min(n.saturating_sub(1));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(bin, 0), (bin, y_max)],
                colors[k].stroke_width(2),
            )))
            .ok()?;
    }
    root.present().ok()
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
    let png = {
        let canvas = canvas.clone();
        let name = format!("schedlab-{}.png", p.kind);
        Callback::from(move |_| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                crate::browser::download_canvas(&c, &name);
            }
        })
    };
    html! {
        <figure class="histogram">
            <canvas ref={canvas} class="histogram" data-kind={p.kind.clone()} width="420" height="200" />
            <button class="png" onclick={png} title="save as PNG">{ "PNG" }</button>
            <figcaption>{ format!("{} samples; p50 {:.3} ms, p90 {:.3}, p99 {:.3}, p99.9 {:.3} (markers: green, amber, red, purple)",
                p.view.samples, p50 as f64 / 1e6, p90 as f64 / 1e6, p99 as f64 / 1e6, p999 as f64 / 1e6) }</figcaption>
        </figure>
    }
}
