//! The scenario format through its public boundary: one `check` per kind of input.

use schedlab_scenario::{Scenario, ScenarioErrors};
use schedlab_sim::{Dist, Op, SchedPolicy};

const EXAMPLE: &str = include_str!("../../../scenarios/issue-example.json");

fn errors(text: &str) -> Vec<String> {
    match Scenario::from_json(text) {
        Ok(_) => panic!("expected errors for {text}"),
        Err(ScenarioErrors(e)) => e.iter().map(|e| e.to_string()).collect(),
    }
}

/// Replaces `from` with `to` in the example and expects an error mentioning `want`.
fn check_err(from: &str, to: &str, want: &str) {
    assert!(EXAMPLE.contains(from), "fixture lacks {from}");
    let text = EXAMPLE.replacen(from, to, 1);
    let errs = errors(&text);
    assert!(
        errs.iter().any(|e| e.contains(want)),
        "wanted `{want}` in {errs:#?}"
    );
}

#[test]
fn the_issue_example_parses_with_its_defaults() {
    let s = Scenario::from_json(EXAMPLE).unwrap();
    assert_eq!(
        s.variant_names(),
        ["cfs-5.14", "cfs-6.1", "eevdf-6.6:NO_RUN_TO_PARITY"]
    );
    let c = s.sim_config();
    assert_eq!(
        (c.cpus, c.hz, c.duration_ns, c.seed),
        (16, 1000, 3_000_000_000, 1)
    );
    // Its five tasks, then (some of them may move) the default housekeeping, one per CPU.
    assert_eq!(c.tasks.len(), 5 + 16);
    assert!(c.tasks[5..]
        .iter()
        .all(|t| t.daemon && t.comm == "housekeep"));
    assert_eq!(c.tasks[1].policy, SchedPolicy::Idle);
    // Defaults: count 1, nice 0, normal, affinity all CPUs; programs repeat.
    assert_eq!(c.tasks[3].nice, 0);
    assert_eq!(c.tasks[3].affinity, (0..16).collect::<Vec<u32>>());
    assert_eq!(c.tasks[2].nice, -5);
    assert_eq!(c.tasks[2].slice_ns, Some(500_000));
    assert_eq!(
        c.tasks[2].program,
        vec![
            Op::Run(Some(Dist::Fixed(1_000_000))),
            Op::Sleep(Dist::Exp(9_000_000))
        ]
    );
    assert_eq!(
        c.channels
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["p0", "p1"]
    );
    assert!(
        c.channels.iter().all(|c| c.capacity == 0),
        "unlisted channels are unbounded"
    );
    assert_eq!(c.tasks[3].program[1], Op::Send(0));
    assert_eq!(c.tasks[4].program[0], Op::Recv(0));
    assert!(c.check().is_ok());
}

/// `idle_wakeup_ns` defaults to the measured 17 µs and reaches the engine.
#[test]
fn idle_wakeup_defaults_to_the_measured_cost() {
    let s = Scenario::from_json(EXAMPLE).unwrap();
    assert_eq!(s.idle_wakeup_ns, None);
    assert_eq!(s.sim_config().idle_wakeup_ns, 17_000);
    let text = EXAMPLE.replacen(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_wakeup_ns\": 0",
        1,
    );
    let s = Scenario::from_json(&text).unwrap();
    assert_eq!(s.sim_config().idle_wakeup_ns, 0);
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

/// `switch_cost_ns` and `wakeup_cost_ns` default to 0 (the measured values are opt-in) and
/// reach the engine; the canonical JSON keeps them.
#[test]
fn switch_and_wakeup_costs_default_to_zero() {
    let s = Scenario::from_json(EXAMPLE).unwrap();
    assert_eq!((s.switch_cost_ns, s.wakeup_cost_ns), (None, None));
    let c = s.sim_config();
    assert_eq!((c.switch_cost_ns, c.wakeup_cost_ns), (0, 0));
    let text = EXAMPLE.replacen(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"switch_cost_ns\": 960, \"wakeup_cost_ns\": 9000",
        1,
    );
    let s = Scenario::from_json(&text).unwrap();
    let c = s.sim_config();
    assert_eq!((c.switch_cost_ns, c.wakeup_cost_ns), (960, 9_000));
    assert_eq!(c.ipi_cost_ns, 0);
    assert!(c.check().is_ok());
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    let s = Scenario::from_json(&text.replacen("9000", "9000, \"ipi_cost_ns\": 8900", 1)).unwrap();
    assert_eq!(s.sim_config().ipi_cost_ns, 8_900);
    assert!(s.to_json().contains("\"ipi_cost_ns\": 8900"));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    // The waker's own local wakeup cost: 0 unless given (no machine profile has it apart).
    assert_eq!(s.sim_config().local_wakeup_ns, 0);
    let s =
        Scenario::from_json(&text.replacen("9000", "9000, \"local_wakeup_ns\": 440", 1)).unwrap();
    assert_eq!(s.sim_config().local_wakeup_ns, 440);
    assert!(s.to_json().contains("\"local_wakeup_ns\": 440"));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    // The costs' spread: fixed unless given (here no machine is named).
    assert_eq!(s.sim_config().cost_spread_ppm, 0);
    let s =
        Scenario::from_json(&text.replacen("9000", "9000, \"cost_spread_ppm\": 20000", 1)).unwrap();
    assert_eq!(s.sim_config().cost_spread_ppm, 20_000);
    assert!(s.to_json().contains("\"cost_spread_ppm\": 20000"));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    // The launcher's wakee_flips: an interactive shell's 4 unless given.
    assert_eq!(s.sim_config().launcher_wakee_flips, 4);
    let s = Scenario::from_json(&text.replacen("9000", "9000, \"launcher_wakee_flips\": 0", 1))
        .unwrap();
    assert_eq!(s.sim_config().launcher_wakee_flips, 0);
    assert!(s.to_json().contains("\"launcher_wakee_flips\": 0"));
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

/// `machine` fills in the measured machine's costs where the scenario gives none; a cost the
/// scenario gives wins; the canonical JSON keeps the name.
#[test]
fn a_named_machine_supplies_its_measured_costs() {
    let with = |extra: &str| {
        let text = EXAMPLE.replacen(
            "\"duration_ms\": 3000",
            &format!("\"duration_ms\": 3000, {extra}"),
            1,
        );
        Scenario::from_json(&text).unwrap()
    };
    // docs/measurements.md: the EPYC VM's wake-to-run onto an idle CPU 8 µs (less δ), its
    // switch 2.3–3.6 µs, its remote wakeup's write 1.9–2.8 µs more than a plain write.
    let s = with("\"machine\": \"epyc-vm\"");
    let c = s.sim_config();
    assert_eq!(
        (c.idle_wakeup_ns, c.switch_cost_ns, c.wakeup_cost_ns),
        (3_000, 2_400, 2_000)
    );
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    assert!(s.to_json().contains("\"machine\": \"epyc-vm\""));
    // The Xeon VM's idle wakeup is the scenario default; its switch and IPI costs are not.
    let c = with("\"machine\": \"xeon-vm\"").sim_config();
    assert_eq!(
        (c.idle_wakeup_ns, c.switch_cost_ns, c.wakeup_cost_ns),
        (17_000, 960, 9_000)
    );
    // The haltpoll boot's remote wakeup, split into the busy target's cost and the IPI's.
    let c = with("\"machine\": \"epyc-vm-haltpoll\"").sim_config();
    assert_eq!(
        (c.idle_wakeup_ns, c.wakeup_cost_ns, c.ipi_cost_ns),
        (32_000, 3_700, 8_900)
    );
    let c = with("\"machine\": \"epyc-vm\", \"switch_cost_ns\": 0").sim_config();
    assert_eq!((c.idle_wakeup_ns, c.switch_cost_ns), (3_000, 0));
    // The costs' spread (`switchcost spread` on the EPYC VM: 2 %), not measured on the Xeon VM;
    // the scenario's own wins.
    assert_eq!(
        with("\"machine\": \"epyc-vm\"")
            .sim_config()
            .cost_spread_ppm,
        20_000
    );
    assert_eq!(
        with("\"machine\": \"xeon-vm\"")
            .sim_config()
            .cost_spread_ppm,
        0
    );
    let c = with("\"machine\": \"epyc-vm\", \"cost_spread_ppm\": 0").sim_config();
    assert_eq!(c.cost_spread_ppm, 0);
    // Its idle states (idlelat: +15 µs from 200 µs of idle), unless the scenario gives its own.
    let c = with("\"machine\": \"epyc-vm\"").sim_config();
    assert_eq!(c.idle_states.len(), 3);
    assert_eq!(
        (c.idle_states[0].after_ns, c.idle_states[0].wakeup_ns),
        (200_000, 18_000)
    );
    let s = with("\"machine\": \"epyc-vm\", \"idle_states\": []");
    assert!(s.sim_config().idle_states.is_empty());
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    let s = with("\"idle_states\": [{\"after_ns\": 100000, \"wakeup_ns\": 40000}]");
    let c = s.sim_config();
    assert_eq!(
        (c.idle_wakeup_ns, c.idle_states[0].wakeup_ns),
        (17_000, 40_000)
    );
    assert!(c.check().is_ok());
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn canonical_json_round_trips() {
    let s = Scenario::from_json(EXAMPLE).unwrap();
    let text = s.to_json();
    let again = Scenario::from_json(&text).unwrap();
    assert_eq!(s, again);
    assert_eq!(text, again.to_json());
    // Integers stay integers.
    assert!(text.contains("\"run_us\": 1000"), "{text}");
}

#[test]
fn bad_values_name_the_field_and_the_allowed_range() {
    check_err(
        "\"nice\": -5",
        "\"nice\": -25",
        "tasks[2].nice: -25 is out of range (allowed -20..=19)",
    );
    check_err(
        "\"hz\": 1000",
        "\"hz\": 200",
        "hz: 200 is not a CONFIG_HZ value",
    );
    check_err(
        "\"cpus\": 16",
        "\"cpus\": 0",
        "cpus: 0 is out of range (allowed 1..=1024)",
    );
    check_err(
        "\"affinity\": [0], \"program\": [{\"run\": \"forever\"}]}",
        "\"affinity\": [16], \"program\": [{\"run\": \"forever\"}]}",
        "tasks[0].affinity[0]: 16 is not a CPU of this machine (allowed 0..=15)",
    );
    check_err(
        "\"slice_us\": 500",
        "\"slice_us\": 50",
        "tasks[2].slice_us: 50 is out of range (allowed 100..=100000): the kernel clamps",
    );
    check_err(
        "\"policy\": \"idle\"",
        "\"policy\": \"other\"",
        "tasks[1].policy: \"other\" is not a policy",
    );
    check_err(
        "\"policy\": \"idle\"",
        "\"policy\": \"deadline\"",
        "tasks[1].policy: \"deadline\" (SCHED_DEADLINE) is not modelled",
    );
    check_err(
        "{\"run_us\": 60}",
        "{\"run_us\": -1}",
        "tasks[3].program[0].run_us: -1 is out of range",
    );
    check_err(
        "{\"exp\": 9000}",
        "{\"gamma\": 9000}",
        "tasks[2].program[1].sleep_us.gamma: unknown distribution",
    );
    check_err(
        "\"count\": 1",
        "\"count\": 0",
        "tasks[0].count: 0 is out of range (allowed 1..=10000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 0",
        "duration_ms: 0 is out of range",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_wakeup_ns\": 20000000",
        "idle_wakeup_ns: 20000000 is out of range (allowed 0..=10000000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"switch_cost_ns\": 2000000",
        "switch_cost_ns: 2000000 is out of range (allowed 0..=1000000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"wakeup_cost_ns\": -1",
        "wakeup_cost_ns",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"ipi_cost_ns\": 2000000",
        "ipi_cost_ns: 2000000 is out of range (allowed 0..=1000000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"local_wakeup_ns\": 2000000",
        "local_wakeup_ns: 2000000 is out of range (allowed 0..=1000000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"cost_spread_ppm\": 600000",
        "cost_spread_ppm: 600000 is out of range (allowed 0..=500000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"launcher_wakee_flips\": 100001",
        "launcher_wakee_flips: 100001 is out of range (allowed 0..=100000)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"launcher_wakee_flips\": -1",
        "launcher_wakee_flips: expected a whole number 0..=100000, got -1",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"machine\": \"pdp-11\"",
        "machine: \"pdp-11\" is not a measured machine (known: xeon-vm, epyc-vm, epyc-vm-haltpoll)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"machine\": 7",
        "machine: expected a string",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_states\": [{\"after_ns\": 500, \"wakeup_ns\": 1}, {\"after_ns\": 400, \"wakeup_ns\": 1}]",
        "idle_states[1].after_ns: 400 must be above the previous state's (500)",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_states\": [{\"after_ns\": 0, \"wakeup_ns\": 1}]",
        "idle_states[0].after_ns: 0 is out of range",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_states\": [{\"after_ns\": 10, \"wakeup\": 1}]",
        "idle_states[0].wakeup_ns: missing",
    );
    check_err(
        "\"duration_ms\": 3000",
        "\"duration_ms\": 3000, \"idle_states\": {}",
        "idle_states: expected a list",
    );
    check_err(
        "\"version\": 1",
        "\"version\": 2",
        "version: unsupported format version 2",
    );
    check_err(
        "\"cfs-6.1\"",
        "\"cfs-6.2\"",
        "variants[1]: unknown kernel variant `cfs-6.2`",
    );
    check_err(
        "NO_RUN_TO_PARITY",
        "NO_RUN_TO_PARTY",
        "variants[2]: unknown feature `RUN_TO_PARTY`",
    );
    check_err(
        "\"name\": \"per\"",
        "\"name\": \"a-very-long-task-name\"",
        "tasks[2].name: is 21 bytes long; at most 15",
    );
}

#[test]
fn unknown_keys_are_rejected() {
    check_err(
        "\"nice\": -5",
        "\"nicee\": -5",
        "tasks[2].nicee: unknown field; expected one of: name, count, nice",
    );
    check_err(
        "\"seed\": 1",
        "\"seed\": 1, \"sed\": 2",
        "sed: unknown field",
    );
    check_err(
        "{\"run_us\": 60}",
        "{\"run_us\": 60, \"sleep_us\": 1}",
        "tasks[3].program[0]: a step has exactly one key",
    );
    check_err(
        "{\"run_us\": 60}",
        "{\"walk_us\": 60}",
        "tasks[3].program[0].walk_us: unknown step",
    );
}

#[test]
fn channels_must_be_both_written_and_read() {
    check_err(
        "{\"recv\": \"p1\"}",
        "{\"recv\": \"p2\"}",
        "tasks[3].program[2].recv: channel \"p2\" is read here but no task writes to it",
    );
}

#[test]
fn programs_must_make_progress() {
    check_err(
        "[{\"recv\": \"p0\"}, {\"run_us\": 45}, {\"send\": \"p1\"}]",
        "[{\"recv\": \"p0\"}, {\"send\": \"p1\"}]",
        "tasks[4].program: the program never runs, sleeps or exits",
    );
    check_err(
        "[{\"run\": \"forever\"}]}",
        "[{\"exit\": true}, {\"run\": \"forever\"}]}",
        "program[1]: never reached",
    );
}

#[test]
fn all_errors_are_reported_at_once() {
    let text = EXAMPLE
        .replacen("\"nice\": -5", "\"nice\": 99", 1)
        .replacen("\"hz\": 1000", "\"hz\": 7", 1);
    assert_eq!(errors(&text).len(), 2, "{:#?}", errors(&text));
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for text in [
        "",
        "{",
        "[]",
        "null",
        "42",
        "{\"version\": 1}",
        "\u{0}",
        &"[".repeat(10_000),
    ] {
        let e = errors(text);
        assert!(!e.is_empty());
    }
    assert!(errors("[1,2]")[0].contains("a scenario is a JSON object"));
    assert!(errors("{")[0].contains("not valid JSON"));
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(2 << 20));
    assert!(errors(&big)[0].contains("at most 1048576"));
}

#[test]
fn mutated_documents_never_panic() {
    // A deterministic mutation fuzz: flip, drop and duplicate bytes of the example.
    let mut r = schedlab_sim::rng::Rng::new(42, 0);
    let bytes = EXAMPLE.as_bytes();
    for _ in 0..3000 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + r.below(4) {
            let i = r.below(b.len() as u64) as usize;
            match r.below(3) {
                0 => b[i] = b"{}[]\",:0123456789-.e aZ"[r.below(23) as usize],
                1 => {
                    b.remove(i);
                }
                _ => {
                    let c = b[i];
                    b.insert(i, c);
                }
            }
        }
        if let Ok(text) = String::from_utf8(b) {
            if let Ok(s) = Scenario::from_json(&text) {
                // Whatever parses must convert and pass the engine's own check.
                assert!(s.sim_config().check().is_ok(), "{text}");
            }
        }
    }
}

#[test]
fn group_instances_get_their_own_channels() {
    let text = r#"{"version":1,"name":"pairs","cpus":2,"hz":250,"duration_ms":10,
      "tasks":[{"name":"ping","count":3,"program":[{"run_us":5},{"send":"a{i}"},{"recv":"b{i}"}]},
               {"name":"pong","count":3,"program":[{"recv":"a{i}"},{"run_us":5},{"send":"b{i}"}]}]}"#;
    let c = Scenario::from_json(text).unwrap().sim_config();
    assert_eq!(
        c.channels
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["a0", "b0", "a1", "b1", "a2", "b2"]
    );
    assert_eq!(c.tasks[4].program[0], Op::Recv(2));
}

#[test]
fn channel_capacities_apply_by_name_and_template() {
    let text = r#"{"version":1,"name":"pipes","cpus":2,"hz":250,"duration_ms":10,
      "channels":[{"name":"a{i}","capacity":3},{"name":"b1","capacity":7}],
      "tasks":[{"name":"ping","count":2,"program":[{"run_us":5},{"send":"a{i}"},{"recv":"b{i}"}]},
               {"name":"pong","count":2,"program":[{"recv":"a{i}"},{"run_us":5},{"send":"b{i}"}]}]}"#;
    let s = Scenario::from_json(text).unwrap();
    let caps: Vec<(String, u64)> = s
        .sim_config()
        .channels
        .into_iter()
        .map(|c| (c.name, c.capacity))
        .collect();
    assert_eq!(
        caps,
        [
            ("a0".into(), 3),
            ("b0".into(), 0),
            ("a1".into(), 3),
            ("b1".into(), 7)
        ]
    );
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    let bad = text.replace("\"capacity\":3", "\"capacity\":0");
    let e = Scenario::from_json(&bad).unwrap_err().to_string();
    assert!(
        e.contains("channels[0].capacity: 0 is out of range (allowed 1..=1000000)"),
        "{e}"
    );
    let bad = text.replace("\"name\":\"b1\"", "\"name\":\"a{i}\"");
    let e = Scenario::from_json(&bad).unwrap_err().to_string();
    assert!(
        e.contains("channels[1].name: channel \"a{i}\" is listed twice"),
        "{e}"
    );
}

#[test]
fn names_with_control_or_direction_characters_are_refused() {
    // U+202E (right-to-left override) would reorder the perf-style tables that print the name.
    check_err(
        "\"name\": \"ping\"",
        "\"name\": \"pi\\u202eng\"",
        "tasks[3].name: must not contain the control character U+202E",
    );
    check_err(
        "\"name\": \"ping\"",
        "\"name\": \"pi\\nng\"",
        "tasks[3].name: must not contain control characters",
    );
}

#[test]
fn a_declared_channel_no_task_uses_is_an_error() {
    let text = EXAMPLE.replacen(
        "\"tasks\": [",
        "\"channels\": [{\"name\": \"p9\", \"capacity\": 4}, {\"name\": \"p{i}\", \"capacity\": 8}],\n \"tasks\": [",
        1,
    );
    let errs = errors(&text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        errs[0].starts_with("channels[0].name: no task sends to or reads channel \"p9\""),
        "{errs:#?}"
    );
}

#[test]
fn a_key_given_twice_is_an_error_not_the_last_one_silently() {
    check_err(
        "\"nice\": -5",
        "\"nice\": -5, \"nice\": 5",
        "not valid JSON: the key \"nice\" appears twice in one object at line",
    );
    check_err(
        "\"seed\": 1",
        "\"seed\": 1, \"seed\": 2",
        "the key \"seed\" appears twice",
    );
}

/// An interrupt that queues a work item for a kworker: `"irq"`'s `"queue_work"`.
const IRQ_WORK: &str = r#"{"version": 1, "name": "w", "cpus": 2, "hz": 1000, "duration_ms": 10,
  "tasks": [{"name": "kworker-1", "affinity": [1], "program": [{"recv": "events1"}, {"run_us": 5}]}],
  "irq": [{"cpu": 1, "mean_interval_ns": 200000, "cost_ns": 1000, "queue_work": "events1"}]}"#;

#[test]
fn irq_queue_work_resolves_to_the_kworkers_channel_and_round_trips() {
    let s = Scenario::from_json(IRQ_WORK).unwrap();
    assert_eq!(s.irq[0].queue_work.as_deref(), Some("events1"));
    let c = s.sim_config();
    let w = c.irq_load[0].queue_work.expect("a workqueue channel");
    assert_eq!(c.channels[w as usize].name, "events1");
    assert_eq!(c.tasks[0].program[0], Op::Recv(w));
    assert!(c.check().is_ok());
    let again = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(again.irq, s.irq);
}

#[test]
fn irq_queue_work_errors_name_what_is_wrong() {
    let with = |from: &str, to: &str| errors(&IRQ_WORK.replacen(from, to, 1));
    let has = |errs: Vec<String>, want: &str| {
        assert!(
            errs.iter().any(|e| e.contains(want)),
            "wanted `{want}` in {errs:#?}"
        );
    };
    // Nobody reads it (a misspelt name).
    has(
        with("\"queue_work\": \"events1\"", "\"queue_work\": \"event1\""),
        "irq[0].queue_work: no task reads workqueue channel \"event1\"",
    );
    // A task writes it too.
    has(
        with(
            "{\"run_us\": 5}]}",
            "{\"run_us\": 5}]}, {\"name\": \"w\", \"program\": [{\"send\": \"events1\"}, {\"sleep_ms\": 1}]}",
        ),
        "also written by tasks[1]",
    );
    has(
        with("\"queue_work\": \"events1\"", "\"queue_work\": 3"),
        "irq[0].queue_work: expected a string",
    );
    has(
        with(
            "\"queue_work\": \"events1\"",
            "\"queue_work\": \"events{cpu}\"",
        ),
        "must name one channel",
    );
    has(with("\"queue_work\"", "\"queue_wrk\""), "queue_wrk");
    // A device's channel is not a workqueue.
    has(
        with(
            "\"irq\":",
            "\"channels\": [{\"name\": \"events1\", \"capacity\": 4, \"futex\": true}], \"irq\":",
        ),
        "listed in channels as a futex",
    );
}

#[test]
fn kthread_is_a_fair_task_groups_flag() {
    let s = Scenario::from_json(r#"{"version": 1, "name": "k", "cpus": 2, "hz": 250, "duration_ms": 10,
        "tasks": [
          {"name": "kworker-0", "affinity": [0], "kthread": true, "program": [{"run_ms": 1}, {"sleep_ms": 1}]},
          {"name": "job", "program": [{"run_ms": 1}, {"sleep_ms": 1}]}]}"#)
    .unwrap();
    let c = s.sim_config();
    assert!(c.tasks[0].kthread && !c.tasks[1].kthread);
    // It survives the canonical JSON (links, `expand`) and is left out when false.
    let text = s.to_json();
    assert_eq!(text.matches("\"kthread\": true").count(), 1, "{text}");
    assert!(Scenario::from_json(&text).unwrap().sim_config().tasks[0].kthread);
    for (bad, want) in [
        (r#""kthread": 1"#, "tasks[0].kthread: expected true or false, got 1"),
        (
            r#""kthread": true, "policy": "fifo", "rt_priority": 10"#,
            "tasks[0].kthread: only a fair task group (normal, batch or idle) can be a kthread here",
        ),
    ] {
        let text = format!(
            r#"{{"version": 1, "name": "k", "cpus": 2, "hz": 250, "duration_ms": 10, "tasks": [{{"name": "k", {bad}, "program": [{{"run_ms": 1}}, {{"sleep_ms": 1}}]}}]}}"#
        );
        let errs = errors(&text);
        assert!(errs.iter().any(|e| e.contains(want)), "{want}: {errs:#?}");
    }
}

#[test]
fn cpu_clock_is_a_fair_task_groups_flag() {
    let s = Scenario::from_json(
        r#"{"version": 1, "name": "c", "cpus": 2, "hz": 250, "duration_ms": 10,
        "tasks": [
          {"name": "polls", "cpu_clock": true, "program": [{"run_ms": 2}, {"sleep_ms": 1}]},
          {"name": "loop", "program": [{"run": "forever"}]}]}"#,
    )
    .unwrap();
    let c = s.sim_config();
    assert!(c.tasks[0].cpu_clock && !c.tasks[1].cpu_clock);
    // It survives the canonical JSON (links, `expand`) and is left out when false.
    let text = s.to_json();
    assert_eq!(text.matches("\"cpu_clock\": true").count(), 1, "{text}");
    assert!(Scenario::from_json(&text).unwrap().sim_config().tasks[0].cpu_clock);
    for (bad, want) in [
        (r#""cpu_clock": "yes""#, "tasks[0].cpu_clock: expected true or false, got \"yes\""),
        (
            r#""cpu_clock": true, "policy": "rr", "rt_priority": 10"#,
            "tasks[0].cpu_clock: only a fair task group (normal, batch or idle) reads its CPU clock here",
        ),
    ] {
        let text = format!(
            r#"{{"version": 1, "name": "c", "cpus": 2, "hz": 250, "duration_ms": 10, "tasks": [{{"name": "c", {bad}, "program": [{{"run_ms": 1}}, {{"sleep_ms": 1}}]}}]}}"#
        );
        let errs = errors(&text);
        assert!(errs.iter().any(|e| e.contains(want)), "{want}: {errs:#?}");
    }
}

#[test]
fn a_polled_channel_is_a_pipe_and_says_so() {
    let doc = |chan: &str| {
        format!(
            r#"{{"version": 1, "name": "p", "cpus": 1, "hz": 250, "duration_ms": 10,
            "channels": [{chan}],
            "tasks": [
              {{"name": "main", "program": [{{"run_ms": 1}}, {{"send": "start"}}, {{"sleep_ms": 5}}]}},
              {{"name": "t", "program": [{{"recv": "start"}}, {{"run_ms": 1}}]}}]}}"#
        )
    };
    let s = Scenario::from_json(&doc(r#"{"name": "start", "capacity": 1, "poll": true}"#)).unwrap();
    let c = s.sim_config();
    assert!(c.channels.iter().any(|ch| ch.name == "start" && ch.poll));
    // It survives the canonical JSON and is left out when false.
    let text = s.to_json();
    assert_eq!(text.matches("\"poll\": true").count(), 1, "{text}");
    assert_eq!(Scenario::from_json(&text).unwrap().sim_config(), c);
    let plain = Scenario::from_json(&doc(r#"{"name": "start", "capacity": 1}"#)).unwrap();
    assert!(!plain.to_json().contains("poll"));
    let err = |chan: &str, want: &str| {
        let errs = errors(&doc(chan));
        assert!(
            errs.iter().any(|e| e.contains(want)),
            "wanted `{want}` in {errs:#?}"
        );
    };
    err(
        r#"{"name": "start", "capacity": 1, "poll": 1}"#,
        "channels[0].poll: expected true or false, got 1",
    );
    err(
        r#"{"name": "start", "capacity": 1, "poll": true, "futex": true}"#,
        "channels[0].poll: a polled channel is a pipe; this one is also a futex word",
    );
    err(
        r#"{"name": "start", "capacity": 1, "poll": true, "device": {"latency_us": 100}}"#,
        "channels[0].poll: a polled channel is a pipe; this one is also a device",
    );
    err(
        r#"{"name": "start", "capacity": 4, "poll": true, "wake_writer_at": 1}"#,
        "channels[0].poll: a polled channel's reads take nothing",
    );
    // Nor a device's workqueue: its kworker's read would take no work item.
    let errs = errors(
        r#"{"version": 1, "name": "p", "cpus": 1, "hz": 250, "duration_ms": 10,
        "channels": [{"name": "io", "capacity": 4, "device": {"latency_us": 100, "workqueue": "wq{cpu}"}},
                     {"name": "wq{i}", "capacity": 4, "poll": true}],
        "tasks": [
          {"name": "job", "program": [{"run_us": 20}, {"send": "io"}, {"recv": "io"}]},
          {"name": "kworker", "affinity": [0], "program": [{"recv": "wq0"}, {"run_us": 10}, {"complete": "wq0"}]}]}"#,
    );
    assert!(
        errs.iter().any(|e| e.contains(
            "channels[0].device.workqueue: channel \"wq0\" is listed in channels as a polled pipe"
        )),
        "{errs:#?}"
    );
}

/// A channel's `wait_ns` reaches the engine, survives the canonical JSON and `expand`, and a
/// channel listed only for it stays unbounded; a bad value or a writer wake on a channel
/// that never fills is an error naming the field.
#[test]
fn a_channels_wait_cost_round_trips_and_bad_values_are_named() {
    let doc = |chan: &str| {
        format!(
            r#"{{"version": 1, "name": "w", "cpus": 1, "hz": 250, "duration_ms": 10,
            "channels": [{chan}],
            "tasks": [
              {{"name": "ping", "program": [{{"run_us": 10}}, {{"send": "req"}}, {{"recv": "rsp"}}]}},
              {{"name": "pong", "program": [{{"recv": "req"}}, {{"run_us": 10}}, {{"send": "rsp"}}]}}]}}"#
        )
    };
    let s = Scenario::from_json(&doc(r#"{"name": "req", "wait_ns": 3500}"#)).unwrap();
    let c = s.sim_config();
    let req = c.channels.iter().find(|ch| ch.name == "req").unwrap();
    assert_eq!((req.wait_ns, req.capacity), (3500, 0));
    let text = s.to_json();
    assert!(
        text.contains("\"wait_ns\": 3500") && !text.contains("capacity"),
        "{text}"
    );
    assert_eq!(Scenario::from_json(&text).unwrap().sim_config(), c);
    let err = |chan: &str, want: &str| {
        let errs = errors(&doc(chan));
        assert!(
            errs.iter().any(|e| e.contains(want)),
            "wanted `{want}` in {errs:#?}"
        );
    };
    err(r#"{"name": "req", "wait_ns": -1}"#, "channels[0].wait_ns");
    err(
        r#"{"name": "req", "wait_ns": "3 us"}"#,
        "channels[0].wait_ns",
    );
    err(
        r#"{"name": "req", "wake_writer_at": 1}"#,
        "channels[0].wake_writer_at: an unbounded channel",
    );
    err(
        r#"{"name": "req", "page_msgs": 4}"#,
        "channels[0].page_msgs: an unbounded channel",
    );
    err(
        r#"{"name": "req", "capacity": 10, "page_msgs": 4}"#,
        "channels[0].page_msgs: a pipe's capacity is a whole number of pages",
    );
    err(
        r#"{"name": "req", "capacity": 8, "page_msgs": 4, "futex": true}"#,
        "channels[0].page_msgs: pages are a plain pipe's",
    );
    // hackbench's pipes hold 16 pages of ⌊4096 / datasize⌋ messages, and `expand` keeps them.
    let hb = Scenario::from_json(
        r#"{"version": 1, "name": "hb", "cpus": 2, "hz": 250, "duration_ms": 10,
        "workloads": [{"hackbench": {"groups": 1, "fds": 2, "loops": 10, "pipe": true}}]}"#,
    )
    .unwrap();
    let c = hb.sim_config();
    let pipe = c
        .channels
        .iter()
        .find(|ch| ch.page_msgs > 0)
        .expect("a paged pipe");
    assert_eq!((pipe.capacity, pipe.page_msgs), (640, 40), "{}", pipe.name);
    let expanded = Scenario::from_json(&hb.expanded().to_json()).unwrap();
    assert_eq!(expanded.sim_config().channels, c.channels);
    // pipe_pair's wait costs become its channels', and `expand` keeps them.
    let pp = Scenario::from_json(
        r#"{"version": 1, "name": "pp", "cpus": 1, "hz": 250, "duration_ms": 10,
        "workloads": [{"pipe_pair": {"client_us": 5, "server_us": 5, "server_post_us": 2,
                       "client_wait_us": 1.5, "server_wait_us": 3}}]}"#,
    )
    .unwrap();
    let c = pp.sim_config();
    let wait = |name: &str| {
        c.channels
            .iter()
            .find(|ch| ch.name == name)
            .unwrap()
            .wait_ns
    };
    assert_eq!((wait("pp.req0"), wait("pp.rsp0")), (3000, 1500));
    let expanded = Scenario::from_json(&pp.expanded().to_json()).unwrap();
    assert_eq!(expanded.sim_config().channels, c.channels);
}
