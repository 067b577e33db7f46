//! The machine and run fields.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::components::{ctx::Ctx, field_errors};
use crate::state::{Action, MachineField};

#[function_component(MachineForm)]
pub fn machine_form(ctx: &Ctx) -> Html {
    let s = &ctx.state.0;
    let m = &s.machine;
    let field = |label: &str, path: &str, f: MachineField, value: &str, width: &str| {
        let dispatch = ctx.dispatch.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetMachine {
                field: f,
                value: i.value(),
            });
        });
        html! {
            <label class="field">
                <span>{ label.to_string() }</span>
                <input class={width.to_string()} data-path={path.to_string()} value={value.to_string()} oninput={oninput}
                    aria-invalid={(!s.errors_at(path).is_empty()).to_string()} />
                { field_errors(path, s.errors_at(path)) }
            </label>
        }
    };
    let set_machine = {
        let dispatch = ctx.dispatch.clone();
        Callback::from(move |e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            dispatch.emit(Action::SetMachine {
                field: MachineField::Machine,
                value: sel.value(),
            });
        })
    };
    // A name the menu does not list (typed in the JSON) is kept as an option so that the
    // validator's message and the menu agree.
    let known = schedlab_sim::MACHINES.iter().any(|k| k.name == m.machine);
    let machine_title = |name: &str| match schedlab_sim::machine(name) {
        Some(k) => format!(
            "{}: idle wakeup {} µs, context switch {} µs, remote wakeup {} µs{}{}; \
             housekeeping {} runs a second per CPU of {} µs",
            k.description,
            k.idle_wakeup_ns as f64 / 1e3,
            k.switch_cost_ns as f64 / 1e3,
            k.wakeup_cost_ns as f64 / 1e3,
            if k.ipi_cost_ns > 0 {
                format!(" (+{} µs when it sends an IPI)", k.ipi_cost_ns as f64 / 1e3)
            } else {
                String::new()
            },
            if k.cost_spread_ppm > 0 {
                format!(
                    ", each cost drawn with a standard deviation of {} % of its mean",
                    f64::from(k.cost_spread_ppm) / 1e4
                )
            } else {
                String::new()
            },
            k.housekeeping.runs_per_s,
            k.housekeeping.run_ns as f64 / 1e3
        ),
        None => format!(
            "no measured machine: idle wakeup {} µs, no switch or wakeup cost, housekeeping \
             {} runs a second per CPU of {} µs where a task may move between CPUs (unless the \
             scenario sets them)",
            schedlab_scenario::DEFAULT_IDLE_WAKEUP_NS as f64 / 1e3,
            schedlab_scenario::DEFAULT_HOUSEKEEPING.runs_per_s,
            schedlab_scenario::DEFAULT_HOUSEKEEPING.run_ns as f64 / 1e3
        ),
    };
    html! {
        <fieldset class="machine">
            <legend>{ "Scenario" }</legend>
            { field("name", "name", MachineField::Name, &m.name, "wide") }
            <div class="row">
                { field("CPUs", "cpus", MachineField::Cpus, &m.cpus, "num") }
                { field("HZ", "hz", MachineField::Hz, &m.hz, "num") }
                { field("LLC size", "topology.llc_size", MachineField::LlcSize, &m.llc_size, "num") }
                { field("SMT", "topology.smt", MachineField::Smt, &m.smt, "num") }
                { field("duration ms", "duration_ms", MachineField::DurationMs, &m.duration_ms, "num") }
                { field("seed", "seed", MachineField::Seed, &m.seed, "num") }
                <label class="field" title={machine_title(&m.machine)}>
                    <span>{ "machine costs" }</span>
                    <select data-path="machine" onchange={set_machine} aria-label="measured machine"
                        aria-invalid={(!s.errors_at("machine").is_empty()).to_string()}>
                        <option value="" selected={m.machine.is_empty()}>{ "default" }</option>
                        { for schedlab_sim::MACHINES.iter().map(|k| html! {
                            <option value={k.name} selected={m.machine == k.name} title={machine_title(k.name)}>{ k.name }</option>
                        }) }
                        if !known && !m.machine.is_empty() {
                            <option value={m.machine.clone()} selected=true>{ m.machine.clone() }</option>
                        }
                    </select>
                    { field_errors("machine", s.errors_at("machine")) }
                </label>
            </div>
            if !m.description.is_empty() {
                <p class="description">{ m.description.clone() }</p>
            }
        </fieldset>
    }
}
