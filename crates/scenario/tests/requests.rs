//! Requests that name where their answer goes (`{"send": …, "reply_to": …}`) and the reader's
//! `{"reply": true}`: parsing, errors, the ops they become, and who the answer wakes.

use schedlab_scenario::{Scenario, ScenarioErrors, Step};
use schedlab_sim::{EventKind, Op, Variant};

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
