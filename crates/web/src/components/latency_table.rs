//! One variant's perf-sched-latency table, sortable by clicking a column.

use yew::prelude::*;

use schedlab_report::latency::LatencyRow;

use crate::model::{ms, sorted_rows, SortKey};
use crate::state::{Action, TimelineAction};

#[derive(Properties, PartialEq)]
pub struct TableProps {
    pub rows: Vec<LatencyRow>,
    pub sort: SortKey,
    pub dispatch: Callback<Action>,
    /// Each row's task group by its label; empty: no group column.
    #[prop_or_default]
    pub groups: std::collections::BTreeMap<String, String>,
}

#[function_component(LatencyTable)]
pub fn latency_table(p: &TableProps) -> Html {
    let head = |label: &str, key: SortKey| {
        let d = p.dispatch.clone();
        let onclick = Callback::from(move |_| d.emit(Action::SortBy(key)));
        let d = p.dispatch.clone();
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                d.emit(Action::SortBy(key));
            }
        });
        let cls = if p.sort == key { "sorted" } else { "" };
        let sorted = match (p.sort == key, key) {
            (false, _) => "none",
            (true, SortKey::Name) => "ascending",
            (true, _) => "descending",
        };
        html! {
            <th class={cls} onclick={onclick} onkeydown={onkeydown} tabindex="0" aria-sort={sorted} title="sort by this column">
                { label.to_string() }
            </th>
        }
    };
    // The rows perf prints, and its TOTAL over them (with the Sum layout's max and sum).
    let mut rows = sorted_rows(&p.rows, p.sort);
    rows.retain(|r| schedlab_report::latency::perf_prints(&r.comm, r.count));
    let total_runtime: u64 = rows.iter().map(|r| r.runtime_ns).sum();
    let total_count: u64 = rows.iter().map(|r| r.count).sum();
    let total_max = rows.iter().map(|r| r.delay_max_ns).max().unwrap_or(0);
    let total_sum: u64 = rows.iter().map(|r| r.delay_sum_ns).sum();
    let grouped = !p.groups.is_empty();
    html! {
        <table class="latency">
            <thead><tr>
                { head("Task", SortKey::Name) }
                { head("Runtime ms", SortKey::Runtime) }
                { head("Switches", SortKey::Switches) }
                { head("Avg delay ms", SortKey::Avg) }
                { head("Max delay ms", SortKey::Max) }
                { head("Sum delay ms", SortKey::Sum) }
                if grouped {
                    <th class="group">{ "Group" }</th>
                }
            </tr></thead>
            <tbody>
            { for rows.iter().map(|r| {
                let d = p.dispatch.clone();
                let comm = r.comm.clone();
                let select = Action::Timeline(TimelineAction::Select(Some(comm.clone())));
                let (d2, select2) = (d.clone(), select.clone());
                let onclick = Callback::from(move |_| d.emit(select.clone()));
                let onkeydown = Callback::from(move |e: KeyboardEvent| {
                    if e.key() == "Enter" || e.key() == " " {
                        e.prevent_default();
                        d2.emit(select2.clone());
                    }
                });
                html! {
                <tr class="task" data-task={r.comm.clone()} onclick={onclick} onkeydown={onkeydown} tabindex="0" title="select in the timeline (Enter)">
                    <td>{ r.label() }</td>
                    <td class="n">{ ms(r.runtime_ns) }</td>
                    <td class="n">{ r.count }</td>
                    <td class="n">{ ms(r.delay_avg_ns()) }</td>
                    <td class="n">{ ms(r.delay_max_ns) }</td>
                    <td class="n">{ ms(r.delay_sum_ns) }</td>
                    if grouped {
                        <td class="group">{ p.groups.get(&r.label()).cloned().unwrap_or_else(|| "/".into()) }</td>
                    }
                </tr>
            } }) }
            </tbody>
            <tfoot><tr><td>{ "TOTAL" }</td><td class="n">{ ms(total_runtime) }</td><td class="n">{ total_count }</td><td></td><td class="n">{ ms(total_max) }</td><td class="n">{ ms(total_sum) }</td>if grouped { <td></td> }</tr></tfoot>
        </table>
    }
}
