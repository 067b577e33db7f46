//! The machine and run fields.

use web_sys::HtmlInputElement;
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
            </div>
            if !m.description.is_empty() {
                <p class="description">{ m.description.clone() }</p>
            }
        </fieldset>
    }
}
