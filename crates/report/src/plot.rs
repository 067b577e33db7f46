//! Charts, drawn with plotters on any `DrawingBackend`: the page draws them on a canvas, the
//! command line writes the same drawing as SVG.

use plotters::coord::Shift;
use plotters::prelude::*;

/// A histogram laid out for drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct HistView {
    /// Bin edges in ns (bins + 1), the same for every variant.
    pub edges_ns: Vec<u64>,
    /// Samples per bin.
    pub counts: Vec<u64>,
    /// p50, p90, p99, p99.9 in ns (nearest rank).
    pub percentiles_ns: [u64; 4],
    /// The largest count over all variants: the same y axis for all.
    pub y_max: u64,
    /// How many samples.
    pub samples: usize,
}

/// Histograms of several variants' samples on the same axes: the same bin edges (linear, or
/// log-spaced from 1 µs) up to the largest sample of any variant, and the same y maximum.
pub fn shared_histograms(samples: &[&[u64]], bins: usize, log: bool) -> Vec<HistView> {
    let bins = bins.max(1);
    let max = samples
        .iter()
        .flat_map(|s| s.iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1);
    let edges: Vec<u64> = if log {
        let lo = 1_000f64.min(max as f64);
        let hi = (max as f64).max(lo * 1.0000001);
        (0..=bins)
            .map(|i| {
                if i == 0 {
                    0
                } else {
                    crate::histogram::log_edge_ns(lo, hi, i, bins)
                }
            })
            .collect()
    } else {
        (0..=bins)
            .map(|i| (max as u128 * i as u128 / bins as u128) as u64)
            .collect()
    };
    let mut views: Vec<HistView> = samples
        .iter()
        .map(|s| {
            let mut counts = vec![0u64; bins];
            for &x in s.iter() {
                // The first bin whose upper edge is ≥ x.
                let i = edges[1..].partition_point(|&e| e < x).min(bins - 1);
                counts[i] += 1;
            }
            let mut sorted = s.to_vec();
            sorted.sort_unstable();
            let pct = |p: f64| crate::histogram::percentile_ns(&sorted, p);
            HistView {
                edges_ns: edges.clone(),
                counts,
                percentiles_ns: [pct(50.0), pct(90.0), pct(99.0), pct(99.9)],
                y_max: 0,
                samples: s.len(),
            }
        })
        .collect();
    let y_max = views
        .iter()
        .flat_map(|v| v.counts.iter())
        .copied()
        .max()
        .unwrap_or(0);
    for v in &mut views {
        v.y_max = y_max;
    }
    views
}

/// Draws a latency histogram: bars, the time axis in ms, and the p50/p90/p99/p99.9 markers
/// (green, amber, red, purple).
pub fn draw_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    v: &HistView,
    title: &str,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let n = v.counts.len();
    let y_max = v.y_max.max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 14))
        .margin(6)
        .x_label_area_size(28)
        .y_label_area_size(40)
        .build_cartesian_2d(0..n, 0..y_max + y_max / 10 + 1)
        .map_err(|e| err(&e))?;
    let edges = v.edges_ns.clone();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(5)
        .x_label_formatter(&|i| format!("{:.2}", edges.get(*i).copied().unwrap_or(0) as f64 / 1e6))
        .x_desc("ms")
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(
            v.counts.iter().enumerate().map(|(i, &c)| {
                Rectangle::new([(i, 0), (i + 1, c)], RGBColor(60, 110, 180).filled())
            }),
        )
        .map_err(|e| err(&e))?;
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
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// The histogram as an SVG document of `width` × `height` pixels.
pub fn histogram_svg(v: &HistView, title: &str, width: u32, height: u32) -> Result<String, String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (width, height)).into_drawing_area();
        draw_histogram(&root, v, title)?;
    }
    Ok(s)
}
