//! Loops, periodic waits, requests and their replies, and the topology: parsing, errors, the
//! ops they become (and, for requests, who the answer wakes).

use schedlab_scenario::{Scenario, ScenarioErrors, Step, Topology};
use schedlab_sim::{Dist, EventKind, Op, Variant};

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

/// A server on CPU 0 answering two clients pinned to CPUs 1 and 2. Client `a` asks first and
/// reads its answer only 1 ms later; client `b` asks 50 µs after it (once the server, woken
/// by `a`'s request, has taken it) and waits at once. The server takes the requests in turn,
/// 100 µs each.
fn two_clients(channels: &str, a: &str, b: &str, server: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "rr", "cpus": 3, "hz": 1000, "duration_ms": 5,
            "channels": [{channels}],
            "tasks": [
              {{"name": "server", "affinity": [0], "program": {server}}},
              {{"name": "a", "affinity": [1], "program": {a}}},
              {{"name": "b", "affinity": [2], "program": {b}}}]}}"#
    )
}

const SERVER: &str =
    r#"[{"loop": 2, "steps": [{"recv": "q"}, {"run_us": 100}, {"reply": true}]}, {"exit": true}]"#;
const A: &str =
    r#"[{"send": "q", "reply_to": "ans_a"}, {"run_ms": 1}, {"recv": "ans_a"}, {"exit": true}]"#;
const B: &str =
    r#"[{"sleep_us": 50}, {"send": "q", "reply_to": "ans_b"}, {"recv": "ans_b"}, {"exit": true}]"#;
const FUTEXES: &str = r#"{"name": "q", "capacity": 2, "futex": true},
    {"name": "ans_a", "capacity": 1, "futex": true}, {"name": "ans_b", "capacity": 1, "futex": true}"#;

#[test]
fn a_request_and_a_reply_become_their_ops_and_round_trip() {
    let s = Scenario::from_json(&two_clients(FUTEXES, A, B, SERVER)).unwrap();
    let c = s.sim_config();
    assert!(c.check().is_ok(), "{:?}", c.check());
    let name = |i: u32| c.channels[i as usize].name.as_str();
    let Op::Request { to, reply_to } = c.tasks[1].program[0] else {
        panic!("{:?}", c.tasks[1].program)
    };
    assert_eq!((name(to), name(reply_to)), ("q", "ans_a"));
    assert!(c.tasks[0].program.contains(&Op::Reply));
    let step = Step::Request("q".into(), "ans{i}".into());
    assert_eq!(
        step.to_value().to_string(),
        r#"{"send":"q","reply_to":"ans{i}"}"#
    );
    assert_eq!(Step::Reply.to_value().to_string(), r#"{"reply":true}"#);
    let again = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(again.sim_config().tasks, c.tasks);
}

/// The answer to `a`'s request goes to `a` although `b` is the one waiting when it is sent:
/// `b` is woken by the second answer, after the server's second 100 µs, and `a`'s read finds
/// its answer kept (a futex word set before its owner waits). With one shared answer channel
/// the first answer wakes `b`, 100 µs earlier: the difference a request's return address
/// makes.
#[test]
fn the_answer_wakes_the_task_that_asked() {
    let when_b_wakes = |text: &str| {
        let s = Scenario::from_json(text).unwrap();
        let out = schedlab_sim::simulate(&s.sim_config(), &Variant::parse("eevdf-6.19").unwrap())
            .unwrap();
        let pid = |comm: &str| out.trace.tasks.iter().find(|t| t.comm == comm).unwrap().pid;
        let (a, b) = (pid("a"), pid("b"));
        let woken: Vec<u64> = out
            .trace
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Wakeup { pid, .. } if pid == b))
            .map(|e| e.t_ns)
            .collect();
        let a_waited = out
            .trace
            .events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Wakeup { pid, .. } if pid == a));
        (woken, a_waited)
    };
    let (woken, a_waited) = when_b_wakes(&two_clients(FUTEXES, A, B, SERVER));
    // b's sleep ends at 50 µs; its answer comes after two 100-µs requests.
    assert_eq!(woken.len(), 2, "{woken:?}");
    assert!(woken[0] < 100_000, "{woken:?}");
    assert!((200_000..260_000).contains(&woken[1]), "{woken:?}");
    assert!(!a_waited, "a's answer was kept for it");
    // One channel for both answers: whoever waits takes the first.
    let shared = r#"{"name": "q", "capacity": 2, "futex": true},
        {"name": "ans", "capacity": 2, "futex": true}"#;
    let server = r#"[{"loop": 2, "steps": [{"recv": "q"}, {"run_us": 100}, {"send": "ans"}]}, {"exit": true}]"#;
    let a = r#"[{"send": "q"}, {"run_ms": 1}, {"recv": "ans"}, {"exit": true}]"#;
    let b = r#"[{"sleep_us": 50}, {"send": "q"}, {"recv": "ans"}, {"exit": true}]"#;
    let (woken, _) = when_b_wakes(&two_clients(shared, a, b, server));
    assert!((100_000..160_000).contains(&woken[1]), "{woken:?}");
}

#[test]
fn request_and_reply_errors_name_the_step_and_the_rule() {
    let doc = |channels: &str, a: &str| two_clients(channels, a, B, SERVER);
    // A reply's value is true.
    has(
        &errors(&two_clients(
            FUTEXES,
            A,
            B,
            r#"[{"recv": "q"}, {"run_us": 1}, {"reply": 2}]"#,
        )),
        "tasks[0].program[2].reply: expected true",
    );
    // reply_to comes with send.
    has(
        &errors(&doc(FUTEXES, r#"[{"reply_to": "ans_a"}, {"run_ms": 1}]"#)),
        "tasks[1].program[0].send: missing",
    );
    has(
        &errors(&doc(
            FUTEXES,
            r#"[{"send": "q", "reply_to": "ans_a", "x": 1}, {"run_ms": 1}]"#,
        )),
        "tasks[1].program[0]",
    );
    // A channel requests are written to carries only requests.
    has(
        &errors(&doc(
            FUTEXES,
            r#"[{"send": "q"}, {"run_ms": 1}, {"recv": "ans_a"}]"#,
        )),
        "channel \"q\" carries requests",
    );
    // ... and is a pipe or a futex word.
    let polled = r#"{"name": "q", "capacity": 2, "poll": true},
        {"name": "ans_a", "capacity": 1, "futex": true}, {"name": "ans_b", "capacity": 1, "futex": true}"#;
    has(
        &errors(&two_clients(polled, A, B, SERVER)),
        "a request's channel is a pipe or a futex word",
    );
    // The answer's channel must be read by someone.
    has(
        &errors(&doc(
            FUTEXES,
            r#"[{"send": "q", "reply_to": "nobody"}, {"run_ms": 1}, {"recv": "ans_a"}]"#,
        )),
        "channel \"nobody\" is written here but no task reads it",
    );
}

/// Requests on a futex word are a list the reader takes whole and answers newest first
/// (schbench's `xlist_add` pushes at the head, `xlist_splice` takes the list when the woken
/// reader runs): `a` asks at 0 and the server, woken, takes it alone; `b` and `c` ask while
/// it works (50 and 60 µs), so its next read takes both and answers `c` first. On a pipe the
/// requests queue in order and `b` is answered first.
#[test]
fn a_futex_word_s_requests_are_taken_whole_and_answered_newest_first() {
    let doc = |futex: bool| {
        format!(
            r#"{{"version": 1, "name": "xlist", "cpus": 4, "hz": 1000, "duration_ms": 5,
            "channels": [{{"name": "q", "capacity": 3, "futex": {futex}}},
                         {{"name": "ans{{i}}", "capacity": 1, "futex": true}}],
            "tasks": [
              {{"name": "server", "affinity": [0], "program": [{{"loop": 3, "steps": [
                  {{"recv": "q"}}, {{"run_us": 100}}, {{"reply": true}}]}}, {{"exit": true}}]}},
              {{"name": "a", "affinity": [1], "program": [
                  {{"send": "q", "reply_to": "ans0"}}, {{"recv": "ans0"}}, {{"exit": true}}]}},
              {{"name": "b", "affinity": [2], "program": [{{"sleep_us": 50}},
                  {{"send": "q", "reply_to": "ans1"}}, {{"recv": "ans1"}}, {{"exit": true}}]}},
              {{"name": "c", "affinity": [3], "program": [{{"sleep_us": 60}},
                  {{"send": "q", "reply_to": "ans2"}}, {{"recv": "ans2"}}, {{"exit": true}}]}}]}}"#
        )
    };
    let answered = |text: &str| {
        let s = Scenario::from_json(text).unwrap();
        let out = schedlab_sim::simulate(&s.sim_config(), &Variant::parse("eevdf-6.19").unwrap())
            .unwrap();
        let pid = |comm: &str| out.trace.tasks.iter().find(|t| t.comm == comm).unwrap().pid;
        // Each client's last wakeup: its answer (b's and c's first is their sleep's end).
        ["a", "b", "c"].map(|c| {
            let p = pid(c);
            out.trace
                .events
                .iter()
                .rev()
                .find(|e| matches!(e.kind, EventKind::Wakeup { pid, .. } if pid == p))
                .map_or(0, |e| e.t_ns)
        })
    };
    let [a, b, c] = answered(&doc(true));
    assert!(a < 150_000 && c < b, "answers at a {a}, b {b}, c {c} ns");
    assert!((200_000..260_000).contains(&c) && (300_000..360_000).contains(&b));
    let [_, b, c] = answered(&doc(false));
    assert!(b < c, "a pipe's requests in order: b {b}, c {c} ns");
}
