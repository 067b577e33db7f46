//! Task groups: the cgroup tree (add, nest, delete; each cgroup's path, `cpu.weight`,
//! `cpu.idle` and `cpu.max` quota and period) and the machine's autogroup switch. Task groups
//! pick their cgroup in the task table. Every field as typed, errors beside it.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::{ctx::Ctx, field_errors};
use crate::state::{Action, CgroupField};

#[function_component(GroupsForm)]
pub fn groups_form(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let input = |row: usize,
                 f: CgroupField,
                 label: &str,
                 path: &str,
                 value: &str,
                 class: &str,
                 hint: &str| {
        let dispatch = ctx.dispatch.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetCgroup {
                row,
                field: f,
                value: i.value(),
            });
        });
        let errs = s.errors_at(path);
        html! {
            <td>
                <input class={class.to_string()} data-path={path.to_string()} value={value.to_string()} oninput={oninput}
                    aria-label={label.to_string()} placeholder={hint.to_string()} aria-invalid={(!errs.is_empty()).to_string()} />
            </td>
        }
    };
    let add = {
        let d = ctx.dispatch.clone();
        Callback::from(move |_| d.emit(Action::AddCgroup(None)))
    };
    let autogroup = {
        let d = ctx.dispatch.clone();
        Callback::from(move |e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            d.emit(Action::SetAutogroup(i.checked()));
        })
    };
    html! {
        <fieldset class="groups">
            <legend>{ "Groups" }</legend>
            <label class="field" title="sched_autogroup_enabled: each task group's \"session\" is one group entity, so nice acts only inside a session">
                <input id="autogroup" type="checkbox" data-path="autogroup" checked={s.autogroup} onchange={autogroup} />
                { " autogroup (sessions)" }
            </label>
            { field_errors("autogroup", s.errors_at("autogroup")) }
            if !s.cgroups.is_empty() {
            <table>
                <thead><tr>
                    <th title="/name, or /parent/name under a cgroup listed before it">{ "path" }</th>
                    <th title="cpu.weight 1..10000 (100 = nice 0); empty: 100">{ "cpu.weight" }</th>
                    <th title="cpu.idle: the group weighs WEIGHT_IDLEPRIO (3) and counts as idle">{ "cpu.idle" }</th>
                    <th title="cpu.max QUOTA in µs; empty or max: no limit">{ "quota µs" }</th>
                    <th title="cpu.max PERIOD in µs; empty: 100000">{ "period µs" }</th>
                    <th></th>
                </tr></thead>
                <tbody>
                { for s.cgroups.iter().enumerate().map(|(row, g)| {
                    let at = format!("cgroups[{row}]");
                    let idle = {
                        let d = ctx.dispatch.clone();
                        Callback::from(move |e: Event| {
                            let i: HtmlInputElement = e.target_unchecked_into();
                            d.emit(Action::SetCgroupIdle { row, idle: i.checked() });
                        })
                    };
                    let nest = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::AddCgroup(Some(row)))) };
                    let del = { let d = ctx.dispatch.clone(); Callback::from(move |_| d.emit(Action::DeleteCgroup(row))) };
                    // Every error of this cgroup, under its row (the path, a weight, cpu.max or a
                    // key the form does not edit).
                    let errs = s.errors_at(&at);
                    html! {
                        <>
                        <tr class="cgroup-row" data-row={row.to_string()}>
                            { input(row, CgroupField::Path, "cgroup path", &format!("{at}.path"), &g.path, "name", "/name") }
                            { input(row, CgroupField::Weight, "cpu.weight", &format!("{at}.cpu.weight"), &g.weight, "num", "100") }
                            <td>
                                <input type="checkbox" data-path={format!("{at}.cpu.idle")} checked={g.idle} onchange={idle} aria-label="cpu.idle" />
                            </td>
                            { input(row, CgroupField::QuotaUs, "cpu.max quota µs", &format!("{at}.cpu.max"), &g.quota_us, "num", "max") }
                            { input(row, CgroupField::PeriodUs, "cpu.max period µs", &format!("{at}.cpu.max"), &g.period_us, "num", "100000") }
                            <td class="actions">
                                <button onclick={nest} title="add a cgroup inside this one" aria-label={format!("add a cgroup inside {}", g.path)}>{ "+ child" }</button>
                                <button onclick={del} title="delete" aria-label={format!("delete cgroup {}", g.path)}>{ "✕" }</button>
                            </td>
                        </tr>
                        if !errs.is_empty() {
                            <tr class="cgroup-errors"><td colspan="6">{ field_errors(&at, errs) }</td></tr>
                        }
                        </>
                    }
                }) }
                </tbody>
            </table>
            }
            <button class="add" onclick={add}>{ "+ cgroup" }</button>
            { field_errors("cgroups", s.errors.iter().filter(|(p, _)| p == "cgroups").map(|(_, m)| m.clone()).collect()) }
        </fieldset>
    }
}
