//! Bounded cost: a run's budget counts zero-time program steps, so a program that spins
//! without advancing time still stops at the caller's budget; and a run whose tasks are all
//! blocked with nothing pending ends at once and says who waits on what.

mod common;
use common::*;
use schedlab_sim::*;

fn channels(names: &[&str]) -> Vec<Channel> {
    names
        .iter()
        .map(|n| Channel {
            name: n.to_string(),
            capacity: 0,
            wake_writer_at: None,
            futex: false,
            poll: false,
            device: None,
            wait_ns: 0,
            page_msgs: 0,
        })
        .collect()
}

#[test]
fn a_spinning_program_still_stops_at_the_budget() {
    // [{"loop": 1000000, "steps": [{"send": "c"}, {"recv": "c"}]}, {"run_ns": 1}]: two million
    // zero-time steps per nanosecond of simulated time.
    let spin = task(
        "spin",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Send(0),
            Op::Recv(0),
            Op::Loop {
                start: 0,
                times: 1_000_000,
            },
            Op::Run(Some(Dist::Fixed(1))),
        ],
    );
    let mut c = cfg(1, 1000, 100 * MS, vec![spin]);
    c.channels = channels(&["c"]);
    let mut sim = Simulator::new(&c, &Variant::parse("eevdf-6.6").unwrap()).unwrap();
    assert_eq!(sim.run(100_000), Status::Running);
    let work = sim.work_done();
    assert!(
        (100_000..100_000 + 5_000).contains(&work),
        "the budget is work, not events: {work} work after a budget of 100000"
    );
    assert!(
        sim.events_processed() < 100,
        "hardly any events: {}",
        sim.events_processed()
    );
    assert_eq!(
        sim.now_ns(),
        DELTA,
        "and time stands where the task was first switched in (δ after its creation)"
    );
}

#[test]
fn a_deadlock_ends_the_run_and_names_who_waits_on_what() {
    // Both read first: nobody ever writes.
    let ping = task(
        "ping",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Recv(1),
            Op::Run(Some(Dist::Fixed(10 * US))),
            Op::Send(0),
        ],
    );
    let pong = task(
        "pong",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Recv(0),
            Op::Run(Some(Dist::Fixed(10 * US))),
            Op::Send(1),
        ],
    );
    let mut c = cfg(1, 1000, 1_000 * MS, vec![ping, pong]);
    c.channels = channels(&["p0", "p1"]);
    let out = simulate(&c, &Variant::parse("cfs-6.1").unwrap()).unwrap();
    let d = out.deadlock.as_ref().expect("a deadlock");
    // Found once nothing is pending: after the last tick that was armed while they ran, not
    // at the end of the 1 s run.
    assert!(d.t_ns <= MS, "found at once, not at the end: {}", d.t_ns);
    assert_eq!(out.trace.end_ns, d.t_ns, "the run ends there");
    assert_eq!(
        d.blocked,
        vec![
            (1, "ping".to_string(), "p1".to_string(), false),
            (2, "pong".to_string(), "p0".to_string(), false)
        ]
    );
    let msg = d.to_string();
    assert!(
        msg.contains("ping:1 reads empty p1") && msg.contains("pong:2 reads empty p0"),
        "{msg}"
    );
    // A run whose tasks all exit is not a deadlock.
    let quick = task(
        "quick",
        0,
        SchedPolicy::Normal,
        vec![Op::Run(Some(Dist::Fixed(MS))), Op::Exit],
    );
    let out = simulate(
        &cfg(1, 1000, 100 * MS, vec![quick]),
        &Variant::parse("cfs-6.1").unwrap(),
    )
    .unwrap();
    assert_eq!(out.deadlock, None);
}

/// Housekeeping (`Housekeeping::tasks`, never exiting, waking on timers) keeps no run going:
/// a run whose other tasks exit ends when they do, and one whose other tasks all wait on
/// channels nobody will write is a deadlock, found at a housekeeping wakeup.
#[test]
fn housekeeping_neither_keeps_a_run_going_nor_hides_a_deadlock() {
    let hk = Housekeeping {
        runs_per_s: 100,
        run_ns: 20 * US,
    };
    let quick = task(
        "quick",
        0,
        SchedPolicy::Normal,
        vec![Op::Run(Some(Dist::Fixed(MS))), Op::Exit],
    );
    let mut tasks = vec![quick];
    tasks.extend(hk.tasks(2, 1));
    let out = simulate(
        &cfg(2, 1000, 1_000 * MS, tasks),
        &Variant::parse("eevdf-6.19").unwrap(),
    )
    .unwrap();
    assert_eq!(out.deadlock, None);
    assert!(
        out.trace.end_ns < 3 * MS,
        "ends with its task, not at 1 s: {}",
        out.trace.end_ns
    );
    let reader = |comm: &str, chan| {
        task(
            comm,
            0,
            SchedPolicy::Normal,
            vec![
                Op::Recv(chan),
                Op::Run(Some(Dist::Fixed(10 * US))),
                Op::Send(1 - chan),
            ],
        )
    };
    let mut tasks = vec![reader("ping", 1), reader("pong", 0)];
    tasks.extend(hk.tasks(2, 1));
    let mut c = cfg(2, 1000, 1_000 * MS, tasks);
    c.channels = channels(&["p0", "p1"]);
    let out = simulate(&c, &Variant::parse("eevdf-6.19").unwrap()).unwrap();
    let d = out.deadlock.as_ref().expect("a deadlock");
    // Found at a housekeeping wakeup (100 a second per CPU): well before the end.
    assert!(d.t_ns < 200 * MS, "found at {}", d.t_ns);
    assert_eq!(out.trace.end_ns, d.t_ns);
    assert_eq!(d.blocked.len(), 2);
}

/// A writer blocked on a full channel: a pipe's read wakes it at once (`pipe_read`), a unix
/// socket's only once the reader has drained it to its `wake_writer_at` (`unix_write_space`
/// waits for `unix_writable`).
#[test]
fn a_socket_wakes_its_blocked_writer_only_at_the_low_watermark() {
    let woken_after_reads = |wake_writer_at: Option<u64>| {
        // The writer fills the 8-message channel and blocks on the 9th; the reader starts
        // 1 ms later and reads one message per 100 µs.
        let writer = task(
            "w",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Send(0),
                Op::Loop {
                    start: 0,
                    times: 12,
                },
                Op::Exit,
            ],
        );
        let reader = task(
            "r",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Sleep(Dist::Fixed(MS)),
                Op::Recv(0),
                Op::Run(Some(Dist::Fixed(100 * US))),
                Op::Loop {
                    start: 1,
                    times: 12,
                },
                Op::Exit,
            ],
        );
        let mut c = cfg(1, 1000, 10 * MS, vec![writer, reader]);
        c.channels = vec![Channel {
            name: "c".into(),
            capacity: 8,
            wake_writer_at,
            futex: false,
            poll: false,
            device: None,
            wait_ns: 0,
            page_msgs: 0,
        }];
        let out = run(&c, "eevdf-6.6");
        let wakeups: Vec<u64> = out
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Wakeup { pid: 1, .. } => Some(e.t_ns),
                _ => None,
            })
            .collect();
        let first_read = out
            .trace
            .events
            .iter()
            .find(|e| matches!(e.kind, EventKind::Switch { next_pid: 2, .. }) && e.t_ns >= MS)
            .expect("the reader runs after its sleep")
            .t_ns;
        assert_eq!(wakeups.len(), 1, "one wakeup of the writer: {wakeups:?}");
        (wakeups[0] - first_read + 50 * US) / (100 * US)
    };
    // Reads at 0, 100, 200 … µs after the reader's first switch-in.
    assert_eq!(woken_after_reads(None), 0, "a pipe: the first read");
    assert_eq!(
        woken_after_reads(Some(2)),
        5,
        "a socket at 2: the sixth read leaves 2 of 8"
    );
}

/// A futex channel (`Channel::futex`): the message a send wakes a waiting reader with is that
/// reader's (fpost sets the waiter's own futex word), so the sender reading the channel right
/// after finds nothing; a pipe leaves the message in the buffer for whoever reads first.
#[test]
fn a_futex_wake_belongs_to_the_waiter_it_wakes() {
    let exits = |futex: bool| {
        let reader = task(
            "reader",
            0,
            SchedPolicy::Normal,
            vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(10_000))), Op::Exit],
        );
        let sender = task(
            "sender",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Run(Some(Dist::Fixed(50_000))),
                Op::Send(0),
                Op::Recv(0),
                Op::Exit,
            ],
        );
        let mut c = cfg(1, 1000, 10 * MS, vec![reader, sender]);
        c.channels = vec![Channel {
            futex,
            ..Channel::unbounded("c")
        }];
        let out = run(&c, "eevdf-6.6");
        let mut dead: Vec<u32> = out
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Switch {
                    prev_pid,
                    prev_state: PrevState::Dead,
                    ..
                } => Some(prev_pid),
                _ => None,
            })
            .collect();
        dead.sort_unstable();
        dead
    };
    assert_eq!(exits(true), [1], "the woken reader exits; the sender waits");
    assert_eq!(exits(false), [2], "the sender takes its own message back");
}

/// A pipe of pages (`Channel::page_msgs`): a writer blocked on the full ring waits until a
/// read frees a whole page (`pipe_read` frees a `pipe_buffer` only when it is empty, and
/// wakes a writer only if every slot was in use), then fills the new page. 20 messages
/// through 2 slots of 4: the writer blocks after 8 and is woken three times, each after the
/// reader emptied a page. Counted per message instead, it is woken after every read once the
/// pipe has filled: twelve times.
#[test]
fn a_paged_pipes_writer_waits_for_a_whole_page() {
    let wakeups = |page_msgs: u64| {
        let mut writer = task(
            "writer",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Send(0),
                Op::Loop {
                    start: 0,
                    times: 20,
                },
                Op::Exit,
            ],
        );
        writer.affinity = vec![0];
        let mut reader = task(
            "reader",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Run(Some(Dist::Fixed(MS))),
                Op::Recv(0),
                Op::Run(Some(Dist::Fixed(100 * US))),
                Op::Loop {
                    start: 1,
                    times: 20,
                },
                Op::Exit,
            ],
        );
        reader.affinity = vec![1];
        let mut c = cfg(2, 1000, 50 * MS, vec![writer, reader]);
        c.channels = vec![Channel {
            capacity: 8,
            page_msgs,
            ..Channel::unbounded("pipe")
        }];
        let out = run(&c, "eevdf-6.19");
        assert_eq!(
            out.tasks[1].sum_exec_runtime_ns,
            3 * MS,
            "the reader read all 20"
        );
        out.tasks[0].wakeups
    };
    assert_eq!(wakeups(4), 3);
    assert_eq!(wakeups(0), 12);
}
