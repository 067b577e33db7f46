//! Results: one column per variant (same seed), with the latency table, histograms on shared
//! axes, counters, the workload's figures, and a delta row against the first variant.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::{ctx::Ctx, histogram::Histogram, latency_table::LatencyTable};
use crate::model::{deltas, ms, shared_histograms};
use crate::state::{Action, RunState};
use schedlab_report::plot::prefers_log_axis;

#[function_component(ResultsView)]
pub fn results_view(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let RunState::Done(r) = &s.run else {
        return html! { <p class="hint">{ "Results appear here after a run." }</p> };
    };

    let bins = 40;
    let wake: Vec<&[u64]> = r.variants.iter().map(|v| v.wakeup_ns.as_slice()).collect();
    let delay: Vec<&[u64]> = r.variants.iter().map(|v| v.delay_ns.as_slice()).collect();
    // The user's choice, else the axis the data reads best on.
    let auto = s.view.log_axis.is_none();
    let log = s
        .view
        .log_axis
        .unwrap_or_else(|| prefers_log_axis(&wake, bins) || prefers_log_axis(&delay, bins));
    let deltas = deltas(r);
    let wake_h = shared_histograms(&wake, bins, log);
    let delay_h = shared_histograms(&delay, bins, log);
    let export =
        |name: &'static str, mime: &'static str, f: fn(&crate::model::Results) -> String| {
            let r = r.clone();
            Callback::from(move |_| crate::browser::download(name, mime, &f(&r)))
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
    html! {
        <div class="results-body">
            <div class="view-opts">
                <label><input type="checkbox" checked={s.view.merged} onchange={on_merge} />{ " merge tasks by name (perf's default)" }</label>
                <label><input id="log-axis" type="checkbox" checked={log} onchange={on_log} />{ if auto { " log time axis (chosen from the data)" } else { " log time axis" } }</label>
                <span class="exports">{ "Export: " }
                    <button id="export-csv" onclick={export("schedlab-tasks.csv", "text/csv", crate::model::export::csv)}>{ "CSV" }</button>
                    <button id="export-json" onclick={export("schedlab-results.json", "application/json", crate::model::export::json)}>{ "JSON" }</button>
                    <button id="export-perf" onclick={export("schedlab-perf-sched-latency.txt", "text/plain", crate::model::export::perf_text)} title="the tables as perf prints them, for a mail">{ "perf text" }</button>
                    <button id="export-perfetto" onclick={export("schedlab-trace.json", "application/json", crate::model::export::perfetto)} title="opens in ui.perfetto.dev">{ "Perfetto" }</button>
                </span>
            </div>
            <div class="columns">
            { for r.variants.iter().enumerate().map(|(i, v)| {
                let rows = if s.view.merged { v.merged.clone() } else { v.per_task.clone() };
                html! {
                    <div class="variant-result" data-variant={v.variant.clone()}
                        data-trace-hash={r.report.variants.get(i).map(|x| format!("{:016x}", x.trace_hash)).unwrap_or_default()}>
                        <h2>{ v.variant.clone() }</h2>
                        <LatencyTable rows={rows} sort={s.view.sort} dispatch={ctx.dispatch.clone()} />
                        <Histogram view={wake_h[i].clone()} title={"wakeup latency".to_string()} kind={"wakeup".to_string()} log={log} />
                        <Histogram view={delay_h[i].clone()} title={"scheduling delay".to_string()} kind={"delay".to_string()} log={log} />
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
                        if let (Some(head), Some(cells)) = (deltas.first(), deltas.get(i).filter(|_| i > 0)) {
                            <table class="delta">
                                <caption>{ format!("vs {}", r.variants[0].variant) }</caption>
                                { for head.iter().zip(cells).skip(1).map(|(k, d)| html! { <tr><td>{ k.clone() }</td><td class="n">{ d.clone() }</td></tr> }) }
                            </table>
                        }
                    </div>
                }
            }) }
            </div>
        </div>
    }
}
