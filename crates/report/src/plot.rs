//! Charts, drawn with plotters on any `DrawingBackend`: the page draws them on a canvas, the
//! command line and the page's exports write the same drawing as SVG. Latency histograms
//! ([`draw_histogram`]) and the timeline ([`draw_timeline`]).

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::timeline::{
    fmt_duration, tick_step_ns, wait_spans, Block, Lane, LaneKey, RunTimeline, TaskRuns, Viewport,
};

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

/// Whether a latency histogram of these samples reads better on a log time axis: when a linear
/// axis up to the largest sample would put more than half of all samples into its first bin of
/// `bins` (one long tail squeezing everything else into one bar).
pub fn prefers_log_axis(samples: &[&[u64]], bins: usize) -> bool {
    let max = samples
        .iter()
        .flat_map(|s| s.iter())
        .copied()
        .max()
        .unwrap_or(0);
    let total: usize = samples.iter().map(|s| s.len()).sum();
    if max == 0 || total == 0 {
        return false;
    }
    let first_edge = max / bins.max(1) as u64;
    let in_first: usize = samples
        .iter()
        .map(|s| s.iter().filter(|&&x| x <= first_edge).count())
        .sum();
    in_first * 2 > total
}

/// A time-axis label: three significant digits and the unit that fits (`850 ns`, `12.5 µs`,
/// `3.21 ms`, `1.50 s`), short enough that five of them never overlap on a histogram.
pub fn axis_duration(ns: u64) -> String {
    let (v, unit) = match ns {
        0 => return "0".into(),
        n if n < 1_000 => return format!("{n} ns"),
        n if n < 1_000_000 => (n as f64 / 1e3, "µs"),
        n if n < 1_000_000_000 => (n as f64 / 1e6, "ms"),
        n => (n as f64 / 1e9, "s"),
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// Draws a latency histogram: bars, the time axis, and the p50/p90/p99/p99.9 markers
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
        // Room for half of the last x label, centred on the right edge.
        .margin_right(24)
        .x_label_area_size(28)
        .y_label_area_size(40)
        .build_cartesian_2d(0..n, 0..y_max + y_max / 10 + 1)
        .map_err(|e| err(&e))?;
    let edges = v.edges_ns.clone();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(5)
        .x_label_formatter(&|i| axis_duration(edges.get(*i).copied().unwrap_or(0)))
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

/// Width of a timeline's plot area in pixels (its viewport).
pub const TIMELINE_PLOT_W: u32 = 1000;
/// Width of the lane-label column left of the plot.
pub const TIMELINE_LABEL_W: u32 = 120;
/// Height of the time axis above the lanes.
pub const TIMELINE_AXIS_H: u32 = 20;
/// Height of one lane.
pub const TIMELINE_LANE_H: u32 = 16;
/// Height of the lag/deadline overlay under the lanes.
pub const TIMELINE_OVERLAY_H: u32 = 90;

/// What of a timeline to draw: the window, the highlighted task, the overlay, the shared
/// cursor and the ruler marks.
#[derive(Clone, Copy, Debug)]
pub struct TimelineView<'a> {
    /// The visible window, [`TIMELINE_PLOT_W`] pixels wide.
    pub viewport: Viewport,
    /// The highlighted task (by comm, so it matches across variants).
    pub selected: Option<&'a str>,
    /// The selected task's runs and snapshots, indexed, when the caller keeps them (built
    /// for the frame otherwise).
    pub runs: Option<&'a TaskRuns>,
    /// Draw the selected task's lag/deadline (EEVDF) or vruntime (CFS) overlay.
    pub overlay: bool,
    /// The shared hover cursor.
    pub hover_ns: Option<u64>,
    /// Ruler marks.
    pub ruler: &'a [u64],
}

/// The timeline's size in pixels for `lanes` lanes, with or without the overlay.
pub fn timeline_size(lanes: usize, overlay: bool) -> (u32, u32) {
    let overlay_h = if overlay { TIMELINE_OVERLAY_H } else { 0 };
    (
        TIMELINE_LABEL_W + TIMELINE_PLOT_W,
        TIMELINE_AXIS_H + lanes as u32 * TIMELINE_LANE_H + overlay_h,
    )
}

/// A distinct, stable colour for a key (a task, or a CPU).
fn lane_color(key: u32) -> HSLColor {
    let hue = (key.wrapping_mul(2_654_435_761) >> 7) % 360;
    HSLColor(hue as f64 / 360.0, 0.6, 0.52)
}

/// Draws a timeline: the time axis, one lane per entry of `lanes` (per CPU coloured by task,
/// or per task coloured by CPU with its waits shaded), the selected task outlined, its overlay
/// under the lanes when asked, and the cursor and ruler. A lane never draws more blocks than
/// it has pixels ([`LaneIndex::layout`]).
pub fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    tl: &RunTimeline,
    lanes: &[Lane],
    view: &TimelineView,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let vp = view.viewport;
    let (_, h) = timeline_size(lanes.len(), view.overlay && view.selected.is_some());
    let (lw, aw, lh) = (
        TIMELINE_LABEL_W as i32,
        TIMELINE_AXIS_H as i32,
        TIMELINE_LANE_H as i32,
    );
    let rect = |x0: f64, y0: f64, w: f64, h: f64| {
        [
            (x0.round() as i32, y0.round() as i32),
            ((x0 + w).round() as i32, (y0 + h).round() as i32),
        ]
    };
    let fill =
        |r: [(i32, i32); 2], st: ShapeStyle| root.draw(&Rectangle::new(r, st)).map_err(|e| err(&e));
    let text = |s: &str, x: i32, y: i32, c: RGBColor| {
        root.draw_text(s, &("sans-serif", 11).into_font().color(&c), (x, y))
            .map_err(|e| err(&e))
    };
    root.fill(&WHITE).map_err(|e| err(&e))?;
    // The time axis.
    let step = tick_step_ns(vp.t1_ns - vp.t0_ns, TIMELINE_PLOT_W);
    let mut t = vp.t0_ns.div_ceil(step) * step;
    while t < vp.t1_ns {
        let x = lw as f64 + vp.x(t);
        fill(
            rect(x, aw as f64 - 5.0, 1.0, 5.0),
            RGBColor(0x44, 0x44, 0x44).filled(),
        )?;
        text(
            &fmt_duration(t),
            x as i32 + 2,
            1,
            RGBColor(0x44, 0x44, 0x44),
        )?;
        t += step;
    }
    for (i, lane) in lanes.iter().enumerate() {
        let y = aw + i as i32 * lh;
        let band = if i % 2 == 0 {
            RGBColor(0xf6, 0xf7, 0xf9)
        } else {
            WHITE
        };
        fill(
            [(lw, y), (lw + TIMELINE_PLOT_W as i32, y + lh)],
            band.filled(),
        )?;
        text(&lane.label, 4, y + 2, RGBColor(0x22, 0x22, 0x22))?;
        // A task lane's waits (runnable, not running): shaded.
        if lane.pid.is_some() {
            let shade = RGBAColor(150, 150, 150, 0.35);
            for (x0, x1) in wait_spans(&lane.waits, vp) {
                let r = rect(lw as f64 + x0, y as f64 + 4.0, x1 - x0, lh as f64 - 8.0);
                fill(r, shade.filled())?;
            }
        }
        let key = if lane.pid.is_some() {
            LaneKey::Cpu
        } else {
            LaneKey::Pid
        };
        // The lane's shapes grouped by colour (they do not overlap), so the canvas changes
        // its fill colour once per task or CPU in the lane rather than at every block; the
        // selected task's outlines go on top.
        let mut shapes: Vec<(u32, [(i32, i32); 2])> = vec![];
        let mut outlines: Vec<[(i32, i32); 2]> = vec![];
        for b in lane.index.layout(vp, key) {
            match b {
                Block::Slice { x0, x1, index } => {
                    let s = &lane.index.slices[index];
                    let (x0, x1) = (lw + x0 as i32, lw + x1 as i32);
                    shapes.push((key.of(s), [(x0, y + 2), (x1, y + lh - 2)]));
                    if view.selected.is_some_and(|n| tl.comm_is(s.pid, n)) {
                        outlines.push([(x0, y + 1), (x1 - 1, y + lh - 2)]);
                    }
                }
                Block::Aggregate { x, busy, dominant } => {
                    let bh = (lh as f64 - 4.0) * busy as f64;
                    let r = rect((lw + x as i32) as f64, (y + lh) as f64 - 2.0 - bh, 1.0, bh);
                    shapes.push((dominant, r));
                }
            }
        }
        shapes.sort_by_key(|s| s.0);
        for (k, r) in shapes {
            fill(r, lane_color(k).filled())?;
        }
        for r in outlines {
            root.draw(&Rectangle::new(r, BLACK.stroke_width(1)))
                .map_err(|e| err(&e))?;
        }
    }
    if view.overlay {
        if let Some(name) = view.selected {
            let top = aw + lanes.len() as i32 * lh;
            // The selection's index when the caller keeps one (the page, per selection),
            // else built here (an export draws once).
            let built;
            let runs = match view.runs {
                Some(r) => r,
                None => {
                    built = TaskRuns::new(tl, name);
                    &built
                }
            };
            draw_overlay(root, tl, runs, vp, top)?;
        }
    }
    // The shared cursor and the ruler, over everything.
    if let Some(t) = view.hover_ns {
        fill(
            rect(lw as f64 + vp.x(t), 0.0, 1.0, h as f64),
            RGBAColor(0, 0, 0, 0.5).filled(),
        )?;
    }
    for &t in view.ruler {
        fill(
            rect(lw as f64 + vp.x(t), 0.0, 1.0, h as f64),
            RGBColor(0xc0, 0x39, 0x2b).filled(),
        )?;
    }
    root.present().map_err(|e| err(&e))
}

/// Under EEVDF: the selected task's lag (V − vruntime, blue) and deadline − V (orange), and its
/// eligibility as a band (green eligible, red not); under CFS: vruntime − min_vruntime. Each
/// series is scaled to the largest magnitude in view.
fn draw_overlay<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    tl: &RunTimeline,
    runs: &TaskRuns,
    vp: Viewport,
    top: i32,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let (lw, oh) = (TIMELINE_LABEL_W as i32, TIMELINE_OVERLAY_H as f64);
    let fill = |x0: f64, y0: f64, w: f64, h: f64, st: ShapeStyle| {
        let r = [
            (x0.round() as i32, y0.round() as i32),
            ((x0 + w).round() as i32, (y0 + h).round() as i32),
        ];
        root.draw(&Rectangle::new(r, st)).map_err(|e| err(&e))
    };
    let cols = runs.overlay_columns(vp);
    let (top_f, mid) = (top as f64, top as f64 + oh / 2.0);
    fill(
        lw as f64,
        top_f,
        TIMELINE_PLOT_W as f64,
        oh,
        RGBColor(0xfb, 0xfb, 0xfd).filled(),
    )?;
    let title = if tl.eevdf {
        "lag (blue), deadline − V (orange)"
    } else {
        "vruntime − min_vruntime"
    };
    root.draw_text(
        title,
        &("sans-serif", 11)
            .into_font()
            .color(&RGBColor(0x22, 0x22, 0x22)),
        (4, top + 2),
    )
    .map_err(|e| err(&e))?;
    fill(
        lw as f64,
        mid,
        TIMELINE_PLOT_W as f64,
        1.0,
        RGBColor(0xbb, 0xbb, 0xbb).filled(),
    )?;
    let scale = cols
        .iter()
        .map(|c| {
            c.a.0
                .abs()
                .max(c.a.1.abs())
                .max(c.b.0.abs())
                .max(c.b.1.abs())
        })
        .fold(1.0, f64::max);
    let y = |v: f64| mid - v / scale * (oh / 2.0 - 6.0);
    // A 3-pixel mark per value; a column's range is one mark stretched from its top value to
    // its bottom one.
    let mark = |x: f64, (lo, hi): (f64, f64), c: RGBColor| {
        fill(x - 1.0, y(hi) - 1.0, 3.0, y(lo) - y(hi) + 3.0, c.filled())
    };
    // One colour at a time (the canvas then changes its fill colour a few times a frame, not
    // three times a column): the eligibility bands, then deadline − V, then the lag on top.
    if tl.eevdf {
        for (eligible, band) in [
            (true, RGBAColor(40, 160, 60, 0.6)),
            (false, RGBAColor(200, 50, 40, 0.6)),
        ] {
            for c in cols.iter().filter(|c| c.eligible_band() == eligible) {
                fill(lw as f64 + c.x, top_f + oh - 5.0, 2.0, 4.0, band.filled())?;
            }
        }
        for c in &cols {
            mark(lw as f64 + c.x, c.b, RGBColor(0xe6, 0x7e, 0x22))?;
        }
    }
    for c in &cols {
        mark(lw as f64 + c.x, c.a, RGBColor(0x2d, 0x6d, 0xb4))?;
    }
    Ok(())
}

/// The timeline as an SVG document (the same drawing as the page's canvas).
pub fn timeline_svg(
    tl: &RunTimeline,
    lanes: &[Lane],
    view: &TimelineView,
) -> Result<String, String> {
    let size = timeline_size(lanes.len(), view.overlay && view.selected.is_some());
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        draw_timeline(&root, tl, lanes, view)?;
    }
    Ok(s)
}

/// One line of a sweep plot: its label and its (x, y) points in sweep order.
pub type SweepSeries = (String, Vec<(f64, f64)>);

/// A sweep's figure against its parameter, one line (with markers) per variant, as an SVG
/// document of `width` × `height` pixels.
pub fn sweep_svg(
    series: &[SweepSeries],
    title: &str,
    x_label: &str,
    y_label: &str,
    width: u32,
    height: u32,
) -> Result<String, String> {
    let err = |e: &dyn std::fmt::Display| format!("cannot draw the sweep: {e}");
    let pts = || series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0f64, f64::MIN);
    for &(x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err("cannot draw the sweep: no points".into());
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let y1 = y1 + (y1 - y0) * 0.05;
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .margin_right(48)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_labels(8)
            .y_labels(6)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y}"))
            .draw()
            .map_err(|e| err(&e))?;
        for (i, (label, p)) in series.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(p.iter().copied(), colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(p.iter().map(|&xy| Circle::new(xy, 3, colour.filled())))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_short_with_their_unit() {
        assert_eq!(axis_duration(0), "0");
        assert_eq!(axis_duration(850), "850 ns");
        assert_eq!(axis_duration(12_500), "12.5 µs");
        assert_eq!(axis_duration(3_210_000), "3.21 ms");
        assert_eq!(axis_duration(74_490_000), "74.5 ms");
        assert_eq!(axis_duration(1_500_000_000), "1.50 s");
    }

    #[test]
    fn a_long_tail_chooses_the_log_axis() {
        // 99 samples of 10 µs and one of 100 ms: linearly, all but one share the first bin.
        let mut tail = vec![10_000u64; 99];
        tail.push(100_000_000);
        assert!(prefers_log_axis(&[&tail], 40));
        // Evenly spread samples read well on a linear axis.
        let even: Vec<u64> = (1..=100).map(|i| i * 1_000).collect();
        assert!(!prefers_log_axis(&[&even], 40));
        assert!(!prefers_log_axis(&[&[]], 40));
    }
}
