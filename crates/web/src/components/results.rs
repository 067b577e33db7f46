//! Results: one column per variant (same seed), with the latency table, histograms on shared
//! axes, counters, the workload's figures, and a delta row against the first variant; a
//! recording's "recorded" column first, when there is one, and the deltas against it.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::{ctx::Ctx, histogram::Histogram, latency_table::LatencyTable};
use crate::model::{deltas, group_share_rows, ms, shared_histograms, HistView, VariantResult};
use crate::recording::deltas_vs_recording;
use crate::state::Action;
use schedlab_report::plot::prefers_log_axis;

/// A variant's group shares table (nothing without groups): each group's CPU time and share of
/// the machine, indented by depth, and the `cpu.stat` of groups with `cpu.max`.
fn group_shares(groups: &[schedlab_report::groups::GroupShare]) -> Html {
    let rows = group_share_rows(groups);
    if rows.is_empty() {
        return html! {};
    }
    let limited = rows.iter().any(|r| r.cpu_stat.is_some());
    html! {
        <table class="group-shares">
            <caption>{ "CPU share per group" }</caption>
            <thead><tr>
                <th>{ "group" }</th><th>{ "tasks" }</th><th>{ "CPU ms" }</th><th title="of the machine's CPU time (CPUs × run length)">{ "share" }</th>
                if limited {
                    <th title="cpu.stat nr_periods">{ "periods" }</th><th title="cpu.stat nr_throttled">{ "throttled" }</th><th title="cpu.stat throttled_time">{ "throttled ms" }</th>
                }
            </tr></thead>
            <tbody>
            { for rows.iter().map(|r| html! {
                <tr class="group-share" data-group={r.path.clone()}>
                    <td style={format!("padding-left: {}em", r.depth.saturating_sub(1))}>{ r.path.clone() }</td>
                    <td class="n">{ r.tasks }</td>
                    <td class="n">{ r.cpu_ms.clone() }</td>
                    <td class="n share">{ r.share.clone() }</td>
                    if limited {
                        if let Some((periods, throttled, ms)) = &r.cpu_stat {
                            <td class="n">{ *periods }</td><td class="n">{ *throttled }</td><td class="n">{ ms.clone() }</td>
                        } else {
                            <td></td><td></td><td></td>
                        }
                    }
                </tr>
            }) }
            </tbody>
        </table>
    }
}

/// The results view's figures that depend only on the run, the recording and the axis choice.
struct Derived {
    /// Log axes (the user's choice, else the one the data reads best on).
    log: bool,
    /// Row k is variant k − 1's deltas (with a recording) or variant k's.
    deltas: Vec<Vec<String>>,
    /// What the deltas are taken against.
    base: String,
    /// Wakeup-latency histograms, the recording's first, on shared axes.
    wake_h: Vec<HistView>,
    /// Scheduling-delay histograms, likewise.
    delay_h: Vec<HistView>,
}

fn derive(
    results: Option<&crate::model::Results>,
    rec: Option<&crate::recording::Recording>,
    log_axis: Option<bool>,
) -> Derived {
    let variants: &[crate::model::VariantResult] = results.map_or(&[], |r| r.variants.as_slice());
    let bins = 40;
    // The recording's samples first: every histogram shares its axes with the others.
    let mut wake: Vec<&[u64]> = rec.iter().map(|r| r.wakeup_ns.as_slice()).collect();
    wake.extend(variants.iter().map(|v| v.wakeup_ns.as_slice()));
    let mut delay: Vec<&[u64]> = rec.iter().map(|r| r.delay_ns.as_slice()).collect();
    delay.extend(variants.iter().map(|v| v.delay_ns.as_slice()));
    let log =
        log_axis.unwrap_or_else(|| prefers_log_axis(&wake, bins) || prefers_log_axis(&delay, bins));
    // Deltas against the recording when there is one (how close each kernel comes to the
    // machine), else against the first variant.
    let (deltas, base) = match (results, rec) {
        (Some(r), Some(rec)) => (
            deltas_vs_recording(rec, &r.report.summary),
            crate::recording::RECORDED.to_string(),
        ),
        (Some(r), None) => (
            deltas(r),
            r.variants
                .first()
                .map(|v| v.variant.clone())
                .unwrap_or_default(),
        ),
        _ => (vec![], String::new()),
    };
    Derived {
        log,
        deltas,
        base,
        wake_h: shared_histograms(&wake, bins, log),
        delay_h: shared_histograms(&delay, bins, log),
    }
}

#[function_component(ResultsView)]
pub fn results_view(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let results = s.shown_results();
    let rec = s.recording.clone();
    // What the histograms and the delta table show, computed once per (run, recording, axis
    // choice): the page re-renders this view on every action (a timeline zoom, a hover), and
    // binning every sample each time would cost more than the timeline's frame.
    let derived = use_memo(
        (results.clone(), rec.clone(), s.view.log_axis),
        |(results, rec, log_axis)| derive(results.as_deref(), rec.as_deref(), *log_axis),
    );
    if results.is_none() && rec.is_none() {
        return html! { <p class="hint">{ "Results appear here after a run." }</p> };
    }
    let variants: &[crate::model::VariantResult] =
        results.as_ref().map_or(&[], |r| r.variants.as_slice());
    let off = rec.is_some() as usize;
    let auto = s.view.log_axis.is_none();
    let Derived {
        log,
        deltas,
        base,
        wake_h,
        delay_h,
    } = &*derived;
    let log = *log;
    let export =
        |name: &'static str, mime: &'static str, f: fn(&crate::model::Results) -> String| {
            let r = results.clone();
            Callback::from(move |_| {
                if let Some(r) = &r {
                    crate::browser::download(name, mime, &f(r))
                }
            })
        };
    let on_log = {
        let d = ctx.dispatch.clone();
        Callback::from(move |e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            d.emit(Action::SetLogAxis(i.checked()));
        })
    };
    let on_merge = {
        let d = ctx.dispatch.clone();
        Callback::from(move |e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            d.emit(Action::SetMerged(i.checked()));
        })
    };
    let recorded = rec.as_ref().map(|r| {
        let rows = if s.view.merged { r.merged.clone() } else { r.per_task.clone() };
        html! {
            <div class="recorded-result" data-variant={crate::recording::RECORDED} data-file={r.file.clone()}>
                <h2>{ crate::recording::RECORDED }<span class="rec-file">{ format!(" {}", r.file) }</span></h2>
                <LatencyTable rows={rows} sort={s.view.sort} dispatch={ctx.dispatch.clone()} />
                if r.has_wakeups {
                    <Histogram view={wake_h[0].clone()} title={"wakeup latency".to_string()} kind={"wakeup".to_string()} log={log} />
                } else {
                    <p class="hint missing-wakeups">{ format!("wakeup latency: a {} recording has no wakeup events", r.format) }</p>
                }
                <Histogram view={delay_h[0].clone()} title={"scheduling delay".to_string()} kind={"delay".to_string()} log={log} />
                <table class="counters">
                    { for r.counters.iter().map(|(k, n)| html! {
                        <tr><td>{ k.clone() }</td><td class="n" title={if n.is_none() { "not in a recording" } else { "" }}>{ n.map_or("—".to_string(), |n| n.to_string()) }</td></tr>
                    }) }
                    <tr><td>{ "wakeup preempt ratio" }</td><td class="n" title="not in a recording">{ "—" }</td></tr>
                    <tr><td>{ "avg / max delay ms" }</td><td class="n">{ format!("{} / {}", ms(r.summary.delay_avg_ns), ms(r.summary.delay_max_ns)) }</td></tr>
                    <tr><td>{ "events" }</td><td class="n">{ r.events }</td></tr>
                </table>
                <p class="hint">{ "— : not in a recording (the scheduler's own counters)" }</p>
            </div>
        }
    });
    html! {
        <div class="results-body">
            <div class="view-opts">
                <label><input type="checkbox" checked={s.view.merged} onchange={on_merge} />{ " merge tasks by name (perf's default)" }</label>
                <label><input id="log-axis" type="checkbox" checked={log} onchange={on_log} />{ if auto { " log time axis (chosen from the data)" } else { " log time axis" } }</label>
                if results.is_some() {
                <span class="exports">{ "Export: " }
                    <button id="export-csv" onclick={export("schedlab-tasks.csv", "text/csv", crate::model::export::csv)}>{ "CSV" }</button>
                    <button id="export-json" onclick={export("schedlab-results.json", "application/json", crate::model::export::json)}>{ "JSON" }</button>
                    <button id="export-perf" onclick={export("schedlab-perf-sched-latency.txt", "text/plain", crate::model::export::perf_text)} title="the tables as perf prints them, for a mail">{ "perf text" }</button>
                    <button id="export-perfetto" onclick={export("schedlab-trace.json", "application/json", crate::model::export::perfetto)} title="opens in ui.perfetto.dev">{ "Perfetto" }</button>
                </span>
                }
            </div>
            <div class="columns">
            { for recorded }
            { for variants.iter().enumerate().map(|(i, v)| {
                let rows = if s.view.merged { v.merged.clone() } else { v.per_task.clone() };
                let trace_hash = results.as_ref().and_then(|r| r.report.variants.get(i)).map(|x| format!("{:016x}", x.trace_hash)).unwrap_or_default();
                // This variant's row of deltas: against the recording every variant has one,
                // against the first variant every later one.
                let drow = if off == 1 { deltas.get(i + 1) } else { deltas.get(i).filter(|_| i > 0) };
                html! {
                    <div class="variant-result" data-variant={v.variant.clone()} data-trace-hash={trace_hash}>
                        <h2>{ v.variant.clone() }</h2>
                        <LatencyTable rows={rows} sort={s.view.sort} dispatch={ctx.dispatch.clone()} groups={v.row_groups.clone()} />
                        { group_shares(results.as_ref().and_then(|r| r.report.variants.get(i)).map_or(&[], |x| x.groups.as_slice())) }
                        <Histogram view={wake_h[i + off].clone()} title={"wakeup latency".to_string()} kind={"wakeup".to_string()} log={log} />
                        <Histogram view={delay_h[i + off].clone()} title={"scheduling delay".to_string()} kind={"delay".to_string()} log={log} />
                        <table class="counters">
                            { for v.counters.iter().map(|(k, n)| html! { <tr><td>{ k.clone() }</td><td class="n">{ *n }</td></tr> }) }
                            if let Some(pr) = v.summary.preempt_ratio {
                                <tr><td>{ "wakeup preempt ratio" }</td><td class="n">{ format!("{:.1}%", pr * 100.0) }</td></tr>
                            }
                            <tr><td>{ "avg / max delay ms" }</td><td class="n">{ format!("{} / {}", ms(v.summary.delay_avg_ns), ms(v.summary.delay_max_ns)) }</td></tr>
                            <tr><td>{ "events" }</td><td class="n">{ v.events }</td></tr>
                        </table>
                        if let Some(n) = &v.note {
                            <p class="run-note" role="status">{ n.clone() }</p>
                        }
                        if !v.figures.is_empty() {
                            <pre class="figures">{ v.figures.clone() }</pre>
                        }
                        if let (Some(head), Some(cells)) = (deltas.first(), drow) {
                            <table class="delta" data-base={base.clone()}>
                                <caption>{ format!("vs {base}") }</caption>
                                { for head.iter().zip(cells).skip(1).map(|(k, d)| html! { <tr><td>{ k.clone() }</td><td class="n">{ d.clone() }</td></tr> }) }
                            </table>
                        }
                    </div>
                }
            }) }
            </div>
            { source_figures(variants) }
            if rec.is_some() && results.is_some() {
                <p class="hint">{ "Deltas are against the recording; \"-\" where the recording cannot give the figure (the wakeup-preemption ratio is the scheduler's own count)." }</p>
            }
        </div>
    }
}

/// The preset's source figures beside the model's (`schedlab run --preset` prints the same),
/// when every variant shown ran the same preset.
fn source_figures(variants: &[VariantResult]) -> Html {
    let Some((name, _)) = variants.first().and_then(|v| v.source_figures.as_ref()) else {
        return Html::default();
    };
    let Some(p) = schedlab_scenario::presets::preset(name) else {
        return Html::default();
    };
    let runs: Option<Vec<(String, Vec<Option<f64>>)>> = variants
        .iter()
        .map(|v| match &v.source_figures {
            Some((n, vals)) if n == name => Some((v.variant.clone(), vals.clone())),
            _ => None,
        })
        .collect();
    let Some(runs) = runs else {
        return Html::default();
    };
    let text = schedlab_report::observed::format_values(p.figures, &runs);
    if text.is_empty() {
        return Html::default();
    }
    html! { <pre class="figures source-figures">{ text.trim_start().to_string() }</pre> }
}
