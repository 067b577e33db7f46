//! The task-group table: add, duplicate, delete; every field as typed, errors beside it.

use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::{ctx::Ctx, field_errors};
use crate::state::{Action, TaskField};

/// The cgroup select of task group `row` (empty value: the root group).
fn cgroup_select(ctx: &Ctx, row: usize, current: &str) -> Html {
    let s = &ctx.state.0;
    let d = ctx.dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let sel: HtmlSelectElement = e.target_unchecked_into();
        d.emit(Action::SetTask {
            row,
            field: TaskField::Cgroup,
            value: sel.value(),
        });
    });
    let path = format!("tasks[{row}].cgroup");
    let errs = s.errors_at(&path);
    html! {
        <td>
            <select data-path={path.clone()} onchange={onchange} aria-label="cgroup" aria-invalid={(!errs.is_empty()).to_string()}>
                <option value="" selected={current.is_empty()}>{ "/ (root)" }</option>
                { for s.cgroup_choices(row).into_iter().map(|p| html! { <option value={p.clone()} selected={current == p}>{ p.clone() }</option> }) }
            </select>
            { field_errors(&path, errs) }
        </td>
    }
}

#[function_component(TaskTable)]
pub fn task_table(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let input = |row: usize, f: TaskField, key: &str, value: &str, class: &str| {
        let path = format!("tasks[{row}].{key}");
        let dispatch = ctx.dispatch.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetTask {
                row,
                field: f,
                value: i.value(),
            });
        });
        let errs = s.errors_at(&path);
        html! {
            <td>
                <input class={class.to_string()} data-path={path.clone()} value={value.to_string()} oninput={oninput}
                    aria-label={key.to_string()} aria-invalid={(!errs.is_empty()).to_string()} />
                { field_errors(&path, errs) }
            </td>
        }
    };
    let add = {
        let d = ctx.dispatch.clone();
        Callback::from(move |_| d.emit(Action::AddTask))
    };
    // The cgroup column once there is a cgroup to pick (or a task group names one).
    let grouped = !s.cgroups.is_empty() || s.tasks.iter().any(|t| !t.cgroup.is_empty());
    html! {
        <fieldset class="tasks">
            <legend>{ "Task groups" }</legend>
            <table>
                <thead><tr>
                    <th>{ "name" }</th><th>{ "count" }</th><th>{ "nice" }</th><th>{ "policy" }</th>
                    <th title="CPUs, comma-separated; empty = all">{ "affinity" }</th>
                    <th title="custom slice (sched_runtime), 6.12+">{ "slice µs" }</th>
                    if grouped {
                        <th title="the cgroup its tasks run in (edit cgroups under Groups)">{ "cgroup" }</th>
                    }
                    <th title="steps, e.g. [{&quot;run_us&quot;: 100}, {&quot;sleep_us&quot;: {&quot;exp&quot;: 900}}]">{ "program" }</th>
                    <th></th>
                </tr></thead>
                <tbody>
                { for s.tasks.iter().enumerate().map(|(row, t)| {
                    let policy = {
                        let d = ctx.dispatch.clone();
                        Callback::from(move |e: Event| {
                            let sel: HtmlSelectElement = e.target_unchecked_into();
                            d.emit(Action::SetTask { row, field: TaskField::Policy, value: sel.value() });
                        })
                    };
                    let program = {
                        let d = ctx.dispatch.clone();
                        Callback::from(move |e: InputEvent| {
                            let t: HtmlTextAreaElement = e.target_unchecked_into();
                            d.emit(Action::SetTask { row, field: TaskField::Program, value: t.value() });
                        })
                    };
                    let dup = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::DuplicateTask(row))) };
                    let del = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::DeleteTask(row))) };
                    let ppath = format!("tasks[{row}].program");
                    let perrs = s.errors_at(&ppath);
                    let current = if t.policy.is_empty() { "normal".to_string() } else { t.policy.clone() };
                    html! {
                        <tr class="task-row" data-row={row.to_string()}>
                            { input(row, TaskField::Name, "name", &t.name, "name") }
                            { input(row, TaskField::Count, "count", &t.count, "num") }
                            { input(row, TaskField::Nice, "nice", &t.nice, "num") }
                            <td>
                                <select data-path={format!("tasks[{row}].policy")} onchange={policy} aria-label="policy">
                                    { for ["normal", "batch", "idle"].iter().map(|p| html! { <option value={*p} selected={current == *p}>{ *p }</option> }) }
                                </select>
                                { field_errors(&format!("tasks[{row}].policy"), s.errors_at(&format!("tasks[{row}].policy"))) }
                            </td>
                            { input(row, TaskField::Affinity, "affinity", &t.affinity, "cpus") }
                            { input(row, TaskField::SliceUs, "slice_us", &t.slice_us, "num") }
                            if grouped {
                                { cgroup_select(ctx, row, &t.cgroup) }
                            }
                            <td>
                                <textarea class="program" data-path={ppath.clone()} value={t.program.clone()} oninput={program} rows="2" aria-label="program" />
                                { field_errors(&ppath, perrs) }
                            </td>
                            <td class="actions">
                                <button onclick={dup} title="duplicate">{ "⧉" }</button>
                                <button onclick={del} title="delete">{ "✕" }</button>
                            </td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            <button class="add" onclick={add}>{ "+ task group" }</button>
            { field_errors("tasks", s.errors.iter().filter(|(p, _)| p == "tasks").map(|(_, m)| m.clone()).collect()) }
        </fieldset>
    }
}
