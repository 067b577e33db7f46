//! Loops, periodic waits and the topology: parsing, errors, the ops they become.

use schedlab_scenario::{Scenario, ScenarioErrors, Step, Topology};
use schedlab_sim::{Dist, Op};

fn doc(extra_top: &str, program: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "t", "cpus": 8, "hz": 1000, "duration_ms": 100{extra_top},
            "tasks": [{{"name": "a", "program": {program}}}]}}"#
    )
}

fn errors(text: &str) -> Vec<String> {
    match Scenario::from_json(text) {
        Ok(s) => panic!("expected errors for {text}, got {s:?}"),
        Err(ScenarioErrors(e)) => e.iter().map(|e| e.to_string()).collect(),
    }
}

fn has(errs: &[String], want: &str) {
    assert!(
        errs.iter().any(|e| e.contains(want)),
        "wanted `{want}` in {errs:#?}"
    );
}

fn ops(program: &str) -> Vec<Op> {
    let s = Scenario::from_json(&doc("", program)).unwrap();
    let c = s.sim_config();
    assert!(c.check().is_ok(), "{:?}", c.check());
    c.tasks[0].program.clone()
}

#[test]
fn a_loop_becomes_its_body_then_a_backward_jump() {
    let p = ops(
        r#"[{"sleep_us": 5}, {"loop": 3, "steps": [{"run_us": 1}, {"sleep_us": 2}]}, {"exit": true}]"#,
    );
    assert_eq!(
        p,
        vec![
            Op::Sleep(Dist::Fixed(5_000)),
            Op::Run(Some(Dist::Fixed(1_000))),
            Op::Sleep(Dist::Fixed(2_000)),
            Op::Loop { start: 1, times: 3 },
            Op::Exit,
        ]
    );
}

#[test]
fn nested_loops_jump_to_their_own_first_op() {
    let p = ops(r#"[{"run_us": 1},
            {"loop": 2, "steps": [{"sleep_us": 1}, {"loop": 5, "steps": [{"run_us": 2}]}, {"run_us": 3}]},
            {"loop": 4, "steps": [{"loop": 6, "steps": [{"sleep_ms": 1}]}]}]"#);
    assert_eq!(
        p,
        vec![
            Op::Run(Some(Dist::Fixed(1_000))),
            Op::Sleep(Dist::Fixed(1_000)),
            Op::Run(Some(Dist::Fixed(2_000))),
            Op::Loop { start: 2, times: 5 },
            Op::Run(Some(Dist::Fixed(3_000))),
            Op::Loop { start: 1, times: 2 },
            Op::Sleep(Dist::Fixed(1_000_000)),
            Op::Loop { start: 6, times: 6 },
            Op::Loop { start: 6, times: 4 },
        ]
    );
}

#[test]
fn wait_period_is_in_ns_in_every_unit() {
    assert_eq!(
        ops(r#"[{"run_us": 100}, {"wait_period_us": 16667}]"#)[1],
        Op::WaitPeriod(16_667_000)
    );
    assert_eq!(
        ops(r#"[{"run_us": 100}, {"wait_period_ms": 2.5}]"#)[1],
        Op::WaitPeriod(2_500_000)
    );
    assert_eq!(
        ops(r#"[{"run_us": 100}, {"wait_period_ns": 700}]"#)[1],
        Op::WaitPeriod(700)
    );
    // A periodic wait alone is progress: the program takes time.
    assert_eq!(
        ops(r#"[{"wait_period_ms": 1}]"#),
        vec![Op::WaitPeriod(1_000_000)]
    );
}

#[test]
fn loop_and_wait_period_errors_name_their_path_and_range() {
    has(
        &errors(&doc("", r#"[{"loop": 0, "steps": [{"run_us": 1}]}]"#)),
        "tasks[0].program[0].loop: 0 is out of range (allowed 1..=1000000)",
    );
    has(
        &errors(&doc("", r#"[{"loop": 1000001, "steps": [{"run_us": 1}]}]"#)),
        "tasks[0].program[0].loop: 1000001 is out of range (allowed 1..=1000000)",
    );
    has(
        &errors(&doc("", r#"[{"run_us": 1}, {"loop": 2, "steps": []}]"#)),
        "tasks[0].program[1].steps: empty loop",
    );
    has(
        &errors(&doc("", r#"[{"loop": 2}]"#)),
        "tasks[0].program[0].steps: missing",
    );
    has(
        &errors(&doc("", r#"[{"steps": [{"run_us": 1}]}]"#)),
        "tasks[0].program[0].loop: missing",
    );
    has(
        &errors(&doc(
            "",
            r#"[{"loop": 2, "steps": [{"run_us": 1}], "times": 3}]"#,
        )),
        "tasks[0].program[0].times: unknown field; expected one of: loop, steps",
    );
    has(
        &errors(&doc(
            "",
            r#"[{"loop": 2, "steps": [{"loop": 3, "steps": [{"run_us": -4}]}]}]"#,
        )),
        "tasks[0].program[0].steps[0].steps[0].run_us: -4 is out of range",
    );
    has(
        &errors(&doc("", r#"[{"run_us": 1}, {"wait_period_us": 0}]"#)),
        "tasks[0].program[1].wait_period_us: 0 is out of range (allowed 0.001..=3600000000)",
    );
    has(
        &errors(&doc(
            "",
            r#"[{"run_us": 1}, {"wait_period_ms": {"exp": 3}}]"#,
        )),
        "tasks[0].program[1].wait_period_ms: expected a number",
    );
    has(
        &errors(&doc("", r#"[{"run_us": 1}, {"wait_period_s": 1}]"#)),
        "tasks[0].program[1].wait_period_s: unknown step",
    );
}

#[test]
fn the_progress_and_reachability_rules_look_inside_loops() {
    // Only sends and reads, even inside a loop: no progress.
    has(
        &errors(&doc(
            "",
            r#"[{"loop": 3, "steps": [{"send": "c"}, {"recv": "c"}]}]"#,
        )),
        "tasks[0].program: the program never runs, sleeps or exits",
    );
    // A run inside a loop is progress.
    assert!(Scenario::from_json(&doc(
        "",
        r#"[{"loop": 3, "steps": [{"send": "c"}, {"recv": "c"}, {"run_us": 1}]}]"#
    ))
    .is_ok());
    // Nothing after an exit inside a loop body...
    has(
        &errors(&doc(
            "",
            r#"[{"loop": 3, "steps": [{"exit": true}, {"run_us": 1}]}]"#,
        )),
        "tasks[0].program[0].steps[1]: never reached",
    );
    // ...and nothing after a loop whose body always exits or runs forever.
    has(
        &errors(&doc(
            "",
            r#"[{"loop": 3, "steps": [{"run_us": 1}, {"run": "forever"}]}, {"sleep_us": 1}]"#,
        )),
        "tasks[0].program[1]: never reached",
    );
}

#[test]
fn loops_count_towards_the_program_length() {
    // 1023 runs inside a loop make 1024 ops: fine. One more is too many.
    let body = |n: usize| vec![r#"{"run_us": 1}"#; n].join(",");
    let ok = doc(
        "",
        &format!(r#"[{{"loop": 2, "steps": [{}]}}]"#, body(1023)),
    );
    assert_eq!(
        Scenario::from_json(&ok).unwrap().sim_config().tasks[0]
            .program
            .len(),
        1024
    );
    let bad = doc(
        "",
        &format!(r#"[{{"loop": 2, "steps": [{}]}}]"#, body(1024)),
    );
    has(
        &errors(&bad),
        "tasks[0].program: 1025 steps once loops are expanded (each loop adds one); at most 1024",
    );
}

#[test]
fn loop_channels_are_checked() {
    let text = r#"{"version": 1, "name": "t", "cpus": 2, "hz": 1000, "duration_ms": 10,
      "tasks": [{"name": "a", "count": 2, "program": [{"loop": 3, "steps": [{"run_us": 1}, {"send": "x{i}"}]}]},
                {"name": "b", "count": 2, "program": [{"loop": 3, "steps": [{"recv": "y{i}"}]}, {"run_us": 1}]}]}"#;
    let e = errors(text);
    has(
        &e,
        "tasks[0].program[0].steps[1].send: channel \"x0\" is written here but no task reads it",
    );
    has(
        &e,
        "tasks[1].program[0].steps[0].recv: channel \"y0\" is read here but no task writes to it",
    );
}

#[test]
fn topology_sets_llc_and_smt() {
    let s = Scenario::from_json(&doc(
        r#", "topology": {"llc_size": 4, "smt": 2}"#,
        r#"[{"run": "forever"}]"#,
    ))
    .unwrap();
    assert_eq!(
        s.topology,
        Topology {
            llc_size: 4,
            smt: 2
        }
    );
    let c = s.sim_config();
    assert_eq!((c.llc_size, c.smt), (4, 2));
    assert!(c.check().is_ok());
    // Absent: one LLC, no SMT.
    let c = Scenario::from_json(&doc("", r#"[{"run": "forever"}]"#))
        .unwrap()
        .sim_config();
    assert_eq!((c.llc_size, c.smt), (0, 1));
    // An empty object is the default, and the canonical form drops it.
    let s = Scenario::from_json(&doc(r#", "topology": {}"#, r#"[{"run": "forever"}]"#)).unwrap();
    assert_eq!(s.topology, Topology::default());
    assert!(!s.to_json().contains("topology"));
}

#[test]
fn topology_errors_name_the_field_and_what_is_allowed() {
    let t = |top: &str| {
        errors(&doc(
            &format!(r#", "topology": {top}"#),
            r#"[{"run": "forever"}]"#,
        ))
    };
    has(
        &t(r#"{"smt": 0}"#),
        "topology.smt: 0 is out of range (allowed 1..=8)",
    );
    has(
        &t(r#"{"smt": 16}"#),
        "topology.smt: 16 is out of range (allowed 1..=8)",
    );
    has(
        &t(r#"{"smt": 3}"#),
        "topology.smt: 3 does not divide cpus (8)",
    );
    has(
        &t(r#"{"llc_size": 3}"#),
        "topology.llc_size: 3 does not divide cpus (8)",
    );
    has(
        &t(r#"{"llc_size": 16}"#),
        "topology.llc_size: 16 is out of range (allowed 0..=8)",
    );
    has(
        &t(r#"{"llc_size": 2, "smt": 4}"#),
        "topology.llc_size: 2 is not a multiple of smt (4)",
    );
    has(
        &t(r#"{"l3": 4}"#),
        "topology.l3: unknown field; expected one of: llc_size, smt",
    );
    has(&t("4"), "topology: expected an object");
}

#[test]
fn every_new_step_round_trips() {
    let text = doc(
        r#", "topology": {"llc_size": 4, "smt": 2}"#,
        r#"[{"loop": 3, "steps": [{"run_us": {"uniform": [1, 2.5]}}, {"loop": 2, "steps": [{"sleep_ns": 9}]}]},
            {"wait_period_us": 1000.5}, {"wait_period_ms": 3}]"#,
    );
    let s = Scenario::from_json(&text).unwrap();
    assert!(matches!(&s.tasks[0].program[0], Step::Loop(3, body) if body.len() == 2));
    let out = s.to_json();
    let again = Scenario::from_json(&out).unwrap();
    assert_eq!(s, again);
    assert_eq!(out, again.to_json());
    assert!(out.contains("\"wait_period_us\": 1000.5"), "{out}");
    assert!(out.contains("\"loop\": 3"), "{out}");
    assert_eq!(s.sim_config(), again.sim_config());
}

/// `{"affinity": [..]}` as a program step: a contiguous range of CPUs becomes
/// `Op::Affinity { first, last }`; a range with a gap or a CPU the machine lacks is refused
/// by name.
#[test]
fn an_affinity_step_becomes_a_cpu_range() {
    let p = ops(r#"[{"run_ms": 10}, {"affinity": [3, 2, 4]}, {"run": "forever"}]"#);
    assert_eq!(p[1], Op::Affinity { first: 2, last: 4 });
    let s = Scenario::from_json(&doc("", r#"[{"affinity": [0, 1]}, {"run": "forever"}]"#)).unwrap();
    let back = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(
        back.sim_config().tasks[0].program,
        s.sim_config().tasks[0].program
    );
    has(
        &errors(&doc("", r#"[{"affinity": [0, 2]}, {"run": "forever"}]"#)),
        "contiguous range",
    );
    has(
        &errors(&doc("", r#"[{"affinity": []}, {"run": "forever"}]"#)),
        "at least one CPU",
    );
    let s = Scenario::from_json(&doc("", r#"[{"affinity": [8]}, {"run": "forever"}]"#)).unwrap();
    assert!(s
        .sim_config()
        .check()
        .unwrap_err()
        .contains("affinity 8..=8"));
}

/// `{"lock_cpu": name}` / `{"unlock_cpu": name}`: one array of per-CPU locks per name, numbered
/// in the order the programs first name them; they round-trip, and an unlock of an array the
/// program never takes is refused at its path.
#[test]
fn per_cpu_lock_steps_name_their_arrays() {
    let p = ops(
        r#"[{"lock_cpu": "m"}, {"lock_cpu": "n"}, {"run_ms": 1}, {"unlock_cpu": "n"}, {"unlock_cpu": "m"}]"#,
    );
    assert_eq!(
        p,
        vec![
            Op::LockCpu(0),
            Op::LockCpu(1),
            Op::Run(Some(Dist::Fixed(1_000_000))),
            Op::UnlockCpu(1),
            Op::UnlockCpu(0),
        ]
    );
    let s = Scenario::from_json(&doc(
        "",
        r#"[{"lock_cpu": "m"}, {"run_ms": 1}, {"unlock_cpu": "m"}]"#,
    ))
    .unwrap();
    let again = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(s, again);
    assert!(s.to_json().contains("\"lock_cpu\": \"m\""));
    has(
        &errors(&doc("", r#"[{"run_ms": 1}, {"unlock_cpu": "m"}]"#)),
        "tasks[0].program[1].unlock_cpu: unlock_cpu \"m\" in a program that never takes it",
    );
    has(
        &errors(&doc("", r#"[{"lock_cpu": ""}, {"run_ms": 1}]"#)),
        "tasks[0].program[0].lock_cpu: lock name must not be empty",
    );
    has(
        &errors(&doc("", r#"[{"lock_cpu": 3}, {"run_ms": 1}]"#)),
        "tasks[0].program[0].lock_cpu",
    );
}
