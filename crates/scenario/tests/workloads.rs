//! Workload generators: the task groups they expand to, their parameters' errors, round trips.

use std::collections::BTreeMap;

use schedlab_scenario::{Placement, Role, Scenario, ScenarioErrors, Workload, WorkloadKind};
use schedlab_sim::{Dist, Op, SchedPolicy, SimConfig};

fn doc(cpus: u32, workloads: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "w", "cpus": {cpus}, "hz": 1000, "duration_ms": 100,
            "workloads": {workloads}}}"#
    )
}

/// The scenario and its config without the housekeeping that runs beside movable tasks
/// (tests/housekeeping.rs tests that): what the workloads expand to.
fn config(cpus: u32, workloads: &str) -> (Scenario, SimConfig) {
    let s = Scenario::from_json(&doc(cpus, workloads)).unwrap();
    let mut c = s.sim_config();
    assert!(c.check().is_ok(), "{:?}", c.check());
    c.tasks.retain(|t| !t.daemon);
    (s, c)
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

/// Runs a program's control flow (the engine's `Op::Loop` semantics) and returns the ops it
/// executes up to its exit, or the first `cap` of them.
fn trace(program: &[Op], cap: usize) -> Vec<Op> {
    let mut counts = vec![0u32; program.len()];
    let mut out = vec![];
    let mut pc = 0;
    while out.len() < cap {
        if pc == program.len() {
            pc = 0;
        }
        match program[pc] {
            Op::Loop { start, times } => {
                counts[pc] += 1;
                if counts[pc] < times {
                    pc = start as usize;
                } else {
                    counts[pc] = 0;
                    pc += 1;
                }
            }
            Op::Exit => {
                out.push(Op::Exit);
                return out;
            }
            op => {
                out.push(op);
                pc += 1;
            }
        }
    }
    out
}

fn chan<'a>(c: &'a SimConfig, op: &Op) -> &'a str {
    match op {
        Op::Send(i) | Op::Recv(i) | Op::Request { to: i, .. } => &c.channels[*i as usize].name,
        _ => panic!("{op:?} has no channel"),
    }
}

#[test]
fn hackbench_expands_to_receivers_and_senders_per_group() {
    let (s, c) = config(
        4,
        r#"[{"hackbench": {"groups": 2, "fds": 3, "loops": 4, "send_us": 7, "recv_us": 5}}]"#,
    );
    // main() and 2 groups × (3 receivers + 3 senders).
    assert_eq!(c.tasks.len(), 1 + 12);
    assert!(c.tasks.iter().all(|t| t.comm == "hackbench"));
    let info = &s.workloads()[0];
    assert_eq!(info.kind, WorkloadKind::Hackbench);
    assert_eq!(info.label, "hackbench 2 groups x 3 fds");
    assert_eq!(
        info.roles,
        vec![
            (Role::Main, vec![0]),
            (Role::Receiver, vec![1, 3]),
            (Role::Sender, vec![2, 4])
        ]
    );
    // main(): creates the 12 threads (20 µs each), reads a ready byte from each, then starts
    // them all with one write to the start pipe, which they poll, and joins them.
    let main = &c.tasks[0];
    assert_eq!(main.start_ns, 0);
    let ops = trace(&main.program, 10_000);
    assert_eq!(ops[0], Op::Run(Some(Dist::Fixed(12 * 20_000))));
    assert!(ops[1..13]
        .iter()
        .all(|o| chan(&c, o) == "hb.ready" && matches!(o, Op::Recv(_))));
    assert_eq!(chan(&c, &ops[13]), "hb.start");
    assert!(matches!(ops[13], Op::Send(_)));
    assert_eq!(ops[14..], [Op::Exit]);
    let start = c.channels.iter().find(|ch| ch.name == "hb.start").unwrap();
    let ready = c.channels.iter().find(|ch| ch.name == "hb.ready").unwrap();
    assert!(
        start.poll && !ready.poll,
        "the threads poll the start pipe, main reads the ready pipe"
    );
    for g in 0..2u32 {
        let receivers: Vec<_> = c.tasks.iter().filter(|t| t.group == 1 + 2 * g).collect();
        let senders: Vec<_> = c.tasks.iter().filter(|t| t.group == 2 + 2 * g).collect();
        assert_eq!((receivers.len(), senders.len()), (3, 3));
        // group() creates its receivers, then its senders: thread k at (k + 1) × 20 µs.
        for (j, t) in receivers.iter().enumerate() {
            assert_eq!(t.start_ns, (6 * g as u64 + j as u64 + 1) * 20_000);
        }
        for (j, t) in senders.iter().enumerate() {
            assert_eq!(t.start_ns, (6 * g as u64 + 3 + j as u64 + 1) * 20_000);
        }
        let mut received: BTreeMap<String, usize> = BTreeMap::new();
        for (j, r) in receivers.iter().enumerate() {
            let ops = trace(&r.program, 10_000);
            assert_eq!(ops.last(), Some(&Op::Exit), "receivers exit");
            // ready(): write the ready pipe, wait on the start pipe.
            assert_eq!(
                (chan(&c, &ops[0]), chan(&c, &ops[1])),
                ("hb.ready", "hb.start")
            );
            assert!(matches!((&ops[0], &ops[1]), (Op::Send(_), Op::Recv(_))));
            let ops = &ops[2..];
            let reads: Vec<_> = ops.iter().filter(|o| matches!(o, Op::Recv(_))).collect();
            // fds × loops = 12 messages, all from its own pipe, recv_us of work each.
            assert_eq!(reads.len(), 12);
            assert!(reads.iter().all(|o| chan(&c, o) == format!("hb{g}.r{j}")));
            let runs = ops
                .iter()
                .filter(|o| **o == Op::Run(Some(Dist::Fixed(5_000))))
                .count();
            assert_eq!(runs, 12);
        }
        for snd in &senders {
            let ops = trace(&snd.program, 10_000);
            assert_eq!(ops.last(), Some(&Op::Exit), "senders exit");
            assert_eq!(
                (chan(&c, &ops[0]), chan(&c, &ops[1])),
                ("hb.ready", "hb.start")
            );
            let ops = &ops[2..];
            let writes: Vec<_> = ops.iter().filter(|o| matches!(o, Op::Send(_))).collect();
            assert_eq!(writes.len(), 12);
            for w in writes {
                *received.entry(chan(&c, w).to_string()).or_default() += 1;
            }
            // Each write costs send_us first.
            assert_eq!(ops[0], Op::Run(Some(Dist::Fixed(7_000))));
            assert!(matches!(ops[1], Op::Send(_)));
        }
        // Every receiver's pipe gets fds × loops messages in all.
        let want: BTreeMap<String, usize> = (0..3).map(|j| (format!("hb{g}.r{j}"), 12)).collect();
        assert_eq!(received, want);
    }
}

#[test]
fn two_workloads_of_a_kind_do_not_share_channels() {
    let (_, c) = config(
        2,
        r#"[{"hackbench": {"groups": 1, "fds": 1, "loops": 1}}, {"pipe_pair": {}}, {"hackbench": {"groups": 1, "fds": 1, "loops": 1}}]"#,
    );
    assert_eq!(
        c.channels
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        [
            "hb.ready",
            "hb.start",
            "hb0.r0",
            "pp.req0",
            "pp.rsp0",
            "w2.hb.ready",
            "w2.hb.start",
            "w2.hb0.r0"
        ]
    );
    // hackbench's socketpairs hold 278 messages of 100 bytes (212992-byte sk_sndbuf / 768-byte
    // truesize, rounded up: measured on Linux 6.18); the pipe pair's are unbounded; main()'s
    // ready pipe holds a byte from each of the 2 threads (the start pipe, polled, as many).
    let caps: Vec<u64> = c.channels.iter().map(|c| c.capacity).collect();
    assert_eq!(caps, [2, 2, 278, 0, 0, 2, 2, 278]);
}

/// hackbench's fds: unix socketpairs by default, whose blocked writer wakes only when the
/// reader has drained the socket to a quarter of sk_sndbuf (`unix_writable`; measured: after
/// 209 of 278 reads), and pipes with `-p`: 16 pages of ⌊4096 / datasize⌋ messages, a writer
/// woken as soon as there is room.
#[test]
fn hackbench_sockets_by_default_and_pipes_with_p() {
    let chans = |w: &str| {
        let (_, c) = config(2, w);
        c.channels
            .iter()
            .filter(|c| !c.name.ends_with(".ready") && !c.name.ends_with(".start"))
            .map(|c| (c.capacity, c.wake_writer_at))
            .collect::<Vec<_>>()
    };
    let one = r#"{"groups": 1, "fds": 1, "loops": 1"#;
    assert_eq!(
        chans(&format!("[{{\"hackbench\": {one}}}}}]")),
        [(278, Some(69))]
    );
    assert_eq!(
        chans(&format!("[{{\"hackbench\": {one}, \"pipe\": true}}}}]")),
        [(640, None)]
    );
    // A 1000-byte message: a 2048-byte head (1024 + 320 rounded up) + 256 = 2304 bytes of
    // truesize, 93 messages, the writer woken at 23; a pipe holds 16 × 4 = 64.
    assert_eq!(
        chans(&format!("[{{\"hackbench\": {one}, \"datasize\": 1000}}}}]")),
        [(93, Some(23))]
    );
    assert_eq!(
        chans(&format!(
            "[{{\"hackbench\": {one}, \"datasize\": 1000, \"pipe\": true}}}}]"
        )),
        [(64, None)]
    );
}

/// `schbench -m 1 -t 2` as schbench.c v1.0 runs it: the message thread (`run_msg_thread`)
/// sleeps on its futex and wakes queued workers, doing no work of its own beyond the wakes; a
/// worker (`worker_thread`) posts its message thread and waits on its own futex
/// (`msg_and_wait`), then `usleep(100)` and `do_work`: `operations` (5) multiplications of
/// `matrix_size` = ⌊√(256 × 1024 / 3 / 8)⌋ = 104 matrices, holding the CPU's lock
/// (`lock_this_cpu`, one lock array for the run) unless `-L`. Both futexes wake without
/// WF_SYNC (`fpost` is a plain FUTEX_WAKE).
#[test]
fn schbench_follows_schbench_c() {
    let (s, c) = config(8, r#"[{"schbench": {"message_threads": 1, "workers": 2}}]"#);
    assert_eq!(c.tasks.len(), 1 + 2);
    let info = &s.workloads()[0];
    assert_eq!(info.label, "schbench 1 message thread x 2 workers");
    assert_eq!(
        info.roles,
        vec![(Role::MessageThread, vec![0]), (Role::Worker, vec![1])]
    );
    let Workload::Schbench(sb) = &info.params else {
        panic!("{:?}", info.params)
    };
    assert_eq!(sb.matrix_size(), 104);
    // The request's math: 5 × 104³ multiply-adds at the measured time of one.
    let madds = 5 * 104u64.pow(3);
    let request_ns = madds * schedlab_scenario::SCHBENCH_MADD_PS / 1000;
    assert_eq!(sb.request_ns(), request_ns);
    let mt = &c.tasks[0].program;
    assert_eq!(mt.len(), 3, "{mt:?}");
    assert!(matches!(mt[0], Op::Recv(_)));
    assert_eq!(chan(&c, &mt[0]), "sb0.post");
    assert_eq!(mt[1], Op::Run(Some(Dist::Fixed(5_000))));
    // xlist_wake_all's fpost of the worker whose request it took.
    assert_eq!(mt[2], Op::Reply);
    for (i, w) in c.tasks[1..].iter().enumerate() {
        let p = &w.program;
        assert_eq!(p.len(), 6, "{p:?}");
        // xlist_add of itself, then fpost of the message thread's futex; then fwait on its own.
        let Op::Request { reply_to, .. } = p[0] else {
            panic!("{:?}", p[0])
        };
        assert_eq!(chan(&c, &p[0]), "sb0.post");
        assert_eq!(c.channels[reply_to as usize].name, format!("sb0.wake{i}"));
        assert_eq!(p[1], Op::Recv(reply_to));
        assert_eq!(p[2], Op::Sleep(Dist::Fixed(100_000)));
        assert_eq!(p[3], Op::LockCpu(0));
        assert_eq!(p[4], Op::Run(Some(Dist::Fixed(request_ns))));
        assert_eq!(p[5], Op::UnlockCpu(0));
    }
    // -L: no lock around the math.
    let (_, c) = config(
        8,
        r#"[{"schbench": {"message_threads": 1, "workers": 2, "lock": false}}]"#,
    );
    assert_eq!(
        c.tasks[1].program[3..],
        [Op::Run(Some(Dist::Fixed(request_ns)))]
    );
    for ch in &c.channels {
        assert!(
            ch.futex,
            "{} wakes as FUTEX_WAKE does, without WF_SYNC",
            ch.name
        );
    }
    // -F and -n scale the math: 1024 KiB gives 209 × 209 matrices, -n 2 two of them.
    let (s, _) = config(
        8,
        r#"[{"schbench": {"cache_footprint_kb": 1024, "operations": 2}}]"#,
    );
    let Workload::Schbench(sb) = &s.workloads()[0].params else {
        panic!()
    };
    assert_eq!(sb.matrix_size(), 209);
    assert_eq!(
        sb.request_ns(),
        2 * 209u64.pow(3) * schedlab_scenario::SCHBENCH_MADD_PS / 1000
    );
}

/// schbench's defaults: one message thread (`-m`), ⌈CPUs / message threads⌉ workers each
/// (`-t`, from `get_nprocs()`), and each message thread with futexes of its own.
#[test]
fn schbench_defaults_and_channels_per_message_thread() {
    let (s, c) = config(6, r#"[{"schbench": {}}]"#);
    assert_eq!(
        s.workloads()[0].label,
        "schbench 1 message thread x 6 workers"
    );
    assert_eq!(c.tasks.len(), 7);
    let (s, c) = config(7, r#"[{"schbench": {"message_threads": 2}}]"#);
    assert_eq!(
        s.workloads()[0].label,
        "schbench 2 message threads x 4 workers"
    );
    assert_eq!(c.tasks.len(), 2 * 5);
    let (s, c) = config(
        8,
        r#"[{"schbench": {"message_threads": 3, "workers": 4, "request_us": 50, "think_us": 2}}]"#,
    );
    assert_eq!(c.tasks.len(), 3 * (1 + 4));
    assert_eq!(
        s.workloads()[0].roles,
        vec![
            (Role::MessageThread, vec![0, 2, 4]),
            (Role::Worker, vec![1, 3, 5])
        ]
    );
    for m in 0..3u32 {
        let mt: Vec<_> = c.tasks.iter().filter(|t| t.group == 2 * m).collect();
        assert_eq!(mt.len(), 1);
        assert_eq!(chan(&c, &mt[0].program[0]), format!("sb{m}.post"));
        assert_eq!(mt[0].program[1], Op::Run(Some(Dist::Fixed(2_000))));
        assert_eq!(mt[0].program[2], Op::Reply);
        let workers: Vec<_> = c.tasks.iter().filter(|t| t.group == 2 * m + 1).collect();
        assert_eq!(workers.len(), 4);
        for (i, t) in workers.into_iter().enumerate() {
            assert_eq!(chan(&c, &t.program[0]), format!("sb{m}.post"));
            assert_eq!(chan(&c, &t.program[1]), format!("sb{m}.wake{i}"));
            // One lock array for all the run's workers, whichever message thread they post.
            assert_eq!(t.program[3], Op::LockCpu(0));
            assert_eq!(t.program[4], Op::Run(Some(Dist::Fixed(50_000))));
        }
    }
    // Each message thread's futex word and each worker's.
    assert_eq!(c.channels.len(), 3 * (1 + 4));
}

#[test]
fn pipe_pair_placements() {
    let placed = |placement: &str| {
        let (s, c) = config(
            4,
            &format!(r#"[{{"pipe_pair": {{"pairs": 3, "placement": "{placement}"}}}}]"#),
        );
        let aff: Vec<(String, Vec<u32>)> = c
            .tasks
            .iter()
            .map(|t| (t.comm.clone(), t.affinity.clone()))
            .collect();
        (s, c, aff)
    };
    let all: Vec<u32> = (0..4).collect();
    let (s, c, free) = placed("free");
    assert_eq!(
        s.workloads()[0].roles,
        vec![(Role::Client, vec![0]), (Role::Server, vec![1])]
    );
    assert_eq!(free.len(), 6);
    assert!(free.iter().all(|(_, a)| *a == all));
    // Client i talks to server i.
    assert_eq!(chan(&c, &c.tasks[1].program[1]), "pp.req1");
    assert_eq!(chan(&c, &c.tasks[4].program[0]), "pp.req1");
    assert_eq!(chan(&c, &c.tasks[4].program[2]), "pp.rsp1");
    assert_eq!(c.tasks[0].program[0], Op::Run(Some(Dist::Fixed(60_000))));
    assert_eq!(c.tasks[3].program[1], Op::Run(Some(Dist::Fixed(40_000))));

    let (s, _, stacked) = placed("stacked");
    assert_eq!(
        s.workloads()[0].roles,
        vec![(Role::Client, vec![0, 2, 4]), (Role::Server, vec![1, 3, 5])]
    );
    let want = |v: &[(&str, u32)]| -> Vec<(String, Vec<u32>)> {
        v.iter().map(|(n, c)| (n.to_string(), vec![*c])).collect()
    };
    assert_eq!(
        stacked,
        want(&[
            ("tbench", 0),
            ("tbench_srv", 0),
            ("tbench", 1),
            ("tbench_srv", 1),
            ("tbench", 2),
            ("tbench_srv", 2)
        ])
    );
    let (_, _, cross) = placed("cross");
    assert_eq!(
        cross,
        want(&[
            ("tbench", 0),
            ("tbench_srv", 1),
            ("tbench", 2),
            ("tbench_srv", 3),
            ("tbench", 0),
            ("tbench_srv", 1)
        ])
    );
}

#[test]
fn massive_intr_defaults_to_one_hog_per_cpu() {
    let (s, c) = config(6, r#"[{"massive_intr": {}}]"#);
    assert_eq!(c.tasks.len(), 6);
    assert!(c.tasks.iter().all(|t| t.comm == "massive_intr"));
    assert_eq!(
        c.tasks[0].program,
        vec![
            Op::Run(Some(Dist::Fixed(8_000_000))),
            Op::Sleep(Dist::Fixed(1_000_000))
        ]
    );
    assert_eq!(s.workloads()[0].roles, vec![(Role::Hog, vec![0])]);
    assert_eq!(
        s.workloads()[0].label,
        "massive_intr 6 hogs (8 ms work, 1 ms sleep)"
    );
    let (_, c) = config(
        6,
        r#"[{"massive_intr": {"count": 2, "work_ms": 4, "sleep_ms": 0.5, "affinity": [5]}}]"#,
    );
    assert_eq!(c.tasks.len(), 2);
    assert_eq!(c.tasks[1].affinity, [5]);
    assert_eq!(c.tasks[1].program[1], Op::Sleep(Dist::Fixed(500_000)));
}

#[test]
fn periodic_and_fio_like_programs() {
    let (s, c) = config(
        4,
        r#"[{"periodic": {"name": "dav1d-worker", "count": 2, "period_us": 16667, "work_us": {"uniform": [1000, 3000]},
                          "slice_us": 300, "nice": -3, "policy": "batch", "affinity": [1, 2]}},
            {"periodic": {}},
            {"fio_like": {"jobs": 3}}]"#,
    );
    assert_eq!(c.tasks.len(), 2 + 1 + 3);
    let t = &c.tasks[0];
    assert_eq!(
        (
            t.comm.as_str(),
            t.nice,
            t.policy,
            t.slice_ns,
            t.affinity.clone()
        ),
        (
            "dav1d-worker",
            -3,
            SchedPolicy::Batch,
            Some(300_000),
            vec![1, 2]
        )
    );
    assert_eq!(
        t.program,
        vec![
            Op::Run(Some(Dist::Uniform(1_000_000, 3_000_000))),
            Op::WaitPeriod(16_667_000)
        ]
    );
    assert_eq!(c.tasks[2].comm, "periodic");
    assert_eq!(
        c.tasks[2].program,
        vec![
            Op::Run(Some(Dist::Fixed(2_000_000))),
            Op::WaitPeriod(16_667_000)
        ]
    );
    assert_eq!(c.tasks[3].comm, "fio");
    // fio's do_io at iodepth 1: submit one I/O, then for ever reap one and submit the next
    // (three nested loops of the longest count).
    let io = c.tasks[3].program[1];
    assert!(matches!(io, Op::Send(_)));
    let Op::Send(ch) = io else { unreachable!() };
    let far = Op::Loop {
        start: 3,
        times: 1_000_000,
    };
    assert_eq!(
        c.tasks[3].program,
        vec![
            Op::Run(Some(Dist::Fixed(24_000))),
            io,
            Op::Loop { start: 0, times: 1 },
            Op::Recv(ch),
            Op::Run(Some(Dist::Fixed(24_000))),
            io,
            far,
            far,
            far,
        ]
    );
    // Its own AIO context on the device (a read: completed in the interrupt, no kworker).
    let dev = c.channels[ch as usize].device.as_ref().unwrap();
    assert_eq!(dev.latency, Dist::Exp(280_000));
    assert_eq!(
        (dev.hardirq_ns, dev.irq_cpu, dev.rq_affinity),
        (5_200, None, 1)
    );
    assert!(dev.workqueue.is_empty());
    assert_eq!(c.tasks.len(), 2 + 1 + 3, "no kworkers for reads");
    let infos = s.workloads();
    assert_eq!(infos[0].roles, vec![(Role::Periodic, vec![0])]);
    assert_eq!(infos[1].roles, vec![(Role::Periodic, vec![1])]);
    assert_eq!(infos[2].roles, vec![(Role::Job, vec![2])]);
    assert_eq!(infos[2].kind.name(), "fio_like");
    assert!(matches!(&infos[0].params, Workload::Periodic(p) if p.count == 2));
}

#[test]
fn workloads_come_after_the_tasks_and_share_the_task_limit() {
    let text = r#"{"version": 1, "name": "w", "cpus": 2, "hz": 1000, "duration_ms": 100,
        "tasks": [{"name": "hog", "program": [{"run": "forever"}]}],
        "workloads": [{"fio_like": {"jobs": 2}}]}"#;
    let s = Scenario::from_json(text).unwrap();
    let c = s.sim_config();
    assert_eq!(
        c.tasks
            .iter()
            .map(|t| (t.comm.as_str(), t.group))
            .collect::<Vec<_>>(),
        [
            ("hog", 0),
            ("fio", 1),
            ("fio", 1),
            ("housekeep", 2),
            ("housekeep", 2)
        ]
    );
    assert_eq!(s.workloads()[0].roles, vec![(Role::Job, vec![1])]);

    let too_many = r#"{"version": 1, "name": "w", "cpus": 2, "hz": 1000, "duration_ms": 100,
        "tasks": [{"name": "hog", "count": 10000, "program": [{"run": "forever"}]}],
        "workloads": [{"hackbench": {"groups": 1000, "fds": 50, "loops": 1}}]}"#;
    has(
        &errors(too_many),
        "workloads: 110003 tasks in all (10000 from tasks, 100001 from workloads, 2 housekeeping); at most 100000 allowed",
    );
    // 50 001 tasks are allowed, but not 25 000 senders with 1 004-step programs each
    // (+ 25 000 receivers x 6, + main()'s 5).
    has(
        &errors(&doc(
            8,
            r#"[{"hackbench": {"groups": 50, "fds": 500, "loops": 1}}]"#,
        )),
        "workloads: the tasks' programs add up to 25250005 steps; at most 4000000 in all",
    );
}

#[test]
fn a_scenario_needs_tasks_or_workloads() {
    let none = r#"{"version": 1, "name": "w", "cpus": 2, "hz": 1000, "duration_ms": 100}"#;
    has(
        &errors(none),
        "tasks: no tasks: add at least one task group (or a workload)",
    );
    has(&errors(&doc(2, "[]")), "tasks: no tasks");
    // Workloads alone are enough, and the canonical form then has no "tasks".
    let s = Scenario::from_json(&doc(2, r#"[{"massive_intr": {}}]"#)).unwrap();
    assert!(s.tasks.is_empty());
    assert!(!s.to_json().contains("\"tasks\""));
}

#[test]
fn workload_errors_name_their_path_and_range() {
    let e = |w: &str| errors(&doc(8, w));
    has(
        &e(r#"[{"hackbench": {"fds": 0}}]"#),
        "workloads[0].hackbench.fds: 0 is out of range (allowed 1..=500)",
    );
    has(
        &e(r#"[{"hackbench": {"groups": 1001}}]"#),
        "workloads[0].hackbench.groups: 1001 is out of range (allowed 1..=1000)",
    );
    has(
        &e(r#"[{"hackbench": {"fds": 20, "loops": 60000}}]"#),
        "workloads[0].hackbench.loops: 60000 loops x 20 fds = 1200000 messages per receiver; at most 1000000 (allowed 1..=50000)",
    );
    has(
        &e(r#"[{"hackbench": {"threads": 1}}]"#),
        "workloads[0].hackbench.threads: expected true or false",
    );
    has(
        &e(r#"[{"hackbench": {"send_us": 0}}]"#),
        "workloads[0].hackbench.send_us: 0 is out of range (allowed 0.001..=1000000)",
    );
    has(
        &e(r#"[{"hackbench": {"affinity": [8]}}]"#),
        "workloads[0].hackbench.affinity[0]: 8 is not a CPU of this machine (allowed 0..=7)",
    );
    has(
        &e(r#"[{"hackbench": {"fd": 3}}]"#),
        "workloads[0].hackbench.fd: unknown field; expected one of: groups, fds, loops",
    );
    has(
        &e(r#"[{"massive_intr": {}}, {"schbench": {"workers": 1001}}]"#),
        "workloads[1].schbench.workers: 1001 is out of range (allowed 0..=1000)",
    );
    has(&e(r#"[{"pipe_pair": {"placement": "numa"}}]"#), "workloads[0].pipe_pair.placement: \"numa\" is not a placement (allowed \"free\", \"stacked\", \"cross\")");
    has(
        &e(r#"[{"massive_intr": {"work_ms": -1}}]"#),
        "workloads[0].massive_intr.work_ms: -1 is out of range",
    );
    has(
        &e(r#"[{"periodic": {"name": "a/b"}}]"#),
        "workloads[0].periodic.name: must not contain '/'",
    );
    has(
        &e(r#"[{"periodic": {"name": "a-very-long-thread"}}]"#),
        "workloads[0].periodic.name: is 18 bytes long; at most 15",
    );
    has(
        &e(r#"[{"periodic": {"work_us": {"exp": 0}}}]"#),
        "workloads[0].periodic.work_us.exp: 0 is out of range",
    );
    has(
        &e(r#"[{"periodic": {"slice_us": 50}}]"#),
        "workloads[0].periodic.slice_us: 50 is out of range (allowed 100..=100000)",
    );
    has(
        &e(r#"[{"periodic": {"nice": 20}}]"#),
        "workloads[0].periodic.nice: 20 is out of range (allowed -20..=19)",
    );
    has(
        &e(r#"[{"fio_like": {"io_us": "fast"}}]"#),
        "workloads[0].fio_like.io_us: expected a number or a distribution",
    );
    has(
        &e(r#"[{"fio_like": {"jobs": 0}}]"#),
        "workloads[0].fio_like.jobs: 0 is out of range (allowed 1..=10000)",
    );
    has(&e(r#"[{"tbench": {}}]"#), "workloads[0].tbench: unknown workload kind; expected one of: hackbench, schbench, pipe_pair");
    has(
        &e(r#"[{"hackbench": {}, "schbench": {}}]"#),
        "workloads[0]: a workload has exactly one key naming its kind",
    );
    has(
        &e(r#"[{"hackbench": 3}]"#),
        "workloads[0].hackbench: expected an object of parameters",
    );
    has(
        &e(r#"["hackbench"]"#),
        "workloads[0]: a workload is an object",
    );
    has(
        &e(r#"{"hackbench": {}}"#),
        "workloads: expected an array of workloads",
    );
    // Every error at once.
    assert_eq!(
        e(r#"[{"hackbench": {"fds": 0, "groups": 0}}, {"fio_like": {"jobs": 0}}]"#).len(),
        3
    );
}

const EVERYTHING: &str = r#"{"version": 1, "name": "all", "cpus": 8, "hz": 250, "duration_ms": 50,
  "topology": {"llc_size": 4, "smt": 2},
  "tasks": [{"name": "t", "program": [{"loop": 2, "steps": [{"run_us": 10}, {"wait_period_us": 100}]}]}],
  "workloads": [
    {"hackbench": {"groups": 2, "fds": 3, "loops": 4, "datasize": 512, "threads": true, "send_us": 1.5, "recv_us": 3, "affinity": [0, 1]}},
    {"schbench": {"message_threads": 1, "workers": 3, "request_us": 80, "think_us": 2.0, "affinity": [2]}},
    {"pipe_pair": {"pairs": 2, "client_us": 60, "server_us": 45, "placement": "cross"}},
    {"massive_intr": {"count": 3, "work_ms": 8, "sleep_ms": 1, "affinity": [3, 4]}},
    {"periodic": {"name": "Compositor", "count": 2, "period_us": 16667, "work_us": {"normal": [500, 50]}, "slice_us": 200, "nice": -5, "policy": "batch", "affinity": [5]}},
    {"fio_like": {"jobs": 2, "cpu_us": 20, "io_us": {"uniform": [50, 150]}, "affinity": [6, 7]}},
    {"fio_like": {}},
    {"fio_like": {"jobs": 3, "iodepth": 4, "rw": "write", "kworker_us": 9, "hardirq_ns": 3000}}
  ]}"#;

#[test]
fn documents_with_every_new_key_round_trip() {
    let s = Scenario::from_json(EVERYTHING).unwrap();
    let text = s.to_json();
    let again = Scenario::from_json(&text).unwrap();
    assert_eq!(s, again);
    assert_eq!(text, again.to_json());
    assert_eq!(s.sim_config(), again.sim_config());
    // Defaults are left out; numbers keep their form.
    assert!(text.contains("\"think_us\": 2.0"), "{text}");
    assert!(!text.contains("\"work_ms\": 8"), "{text}");
    assert!(text.contains("\"fio_like\": {}"), "{text}");
    assert!(text.contains("\"rw\": \"write\""), "{text}");
    assert!(matches!(&s.workloads[2], Workload::PipePair(p) if p.placement == Placement::Cross));
}

/// A hackbench longer to start than its scenario lasts (found by the `scenario` fuzz target):
/// main creates its 3 200 threads 20 µs apart, until 64 ms, in a 50-ms scenario. Its expansion
/// gave groups starting after the end, which the format refused (a start beyond the duration),
/// so the expanded scenario did not parse. A group created after the end never runs; the
/// expanded scenario parses and runs as the workload does.
#[test]
fn a_workload_that_creates_threads_past_the_end_expands_to_a_valid_scenario() {
    let s = Scenario::from_json(
        r#"{"version": 1, "name": "short", "cpus": 8, "hz": 250, "duration_ms": 50, "seed": 1,
            "variants": ["eevdf-6.6"],
            "workloads": [{"hackbench": {"groups": 8, "fds": 200, "loops": 1, "threads": true}}]}"#,
    )
    .unwrap();
    let x = s.expanded();
    let late = x.tasks.iter().filter(|t| {
        t.start_ms
            .as_ref()
            .and_then(|n| n.as_f64())
            .is_some_and(|ms| ms > 50.0)
    });
    assert!(late.count() > 0, "some groups start after the end");
    let parsed = Scenario::from_json(&x.to_json()).expect("the expansion parses");
    assert_eq!(parsed.sim_config(), s.sim_config());
}

#[test]
fn the_expansion_is_plain_tasks_with_the_same_config() {
    let s = Scenario::from_json(EVERYTHING).unwrap();
    let x = s.expanded();
    assert!(x.workloads.is_empty());
    // hackbench adds main(), the write fio its jobs and a kworker per CPU (8).
    assert_eq!(x.tasks.len(), 1 + 1 + 4 + 2 + 4 + 1 + 1 + 1 + 1 + 1 + 8);
    let parsed = Scenario::from_json(&x.to_json()).unwrap();
    assert_eq!(parsed, x);
    assert_eq!(parsed.sim_config(), s.sim_config());
    assert!(parsed.workloads().is_empty());
    // The roles point at the expanded groups.
    for info in s.workloads() {
        for (role, groups) in &info.roles {
            for &g in groups {
                let name = &x.tasks[g as usize].name;
                let want = match role {
                    Role::Main | Role::Sender | Role::Receiver => "hackbench",
                    Role::MessageThread | Role::Worker => "schbench",
                    Role::Client => "tbench",
                    Role::Server => "tbench_srv",
                    Role::Hog => "massive_intr",
                    Role::Periodic => "Compositor",
                    Role::Job => "fio",
                    Role::Kworker => "kworker-",
                };
                assert!(name.starts_with(want), "{} {}", info.label, role.name());
            }
        }
    }
}

#[test]
fn mutated_workload_documents_never_panic() {
    // The fuzz of format.rs, on a document using every new key.
    let mut r = schedlab_sim::rng::Rng::new(7, 0);
    let bytes = EVERYTHING.as_bytes();
    let mut parsed = 0;
    // 3000 mutations: the document is long enough that about one in twenty stays valid.
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
                parsed += 1;
                // Whatever parses must convert, pass the engine's own check, and expand.
                assert!(s.sim_config().check().is_ok(), "{text}");
                assert_eq!(
                    Scenario::from_json(&s.expanded().to_json()).map(|x| x.sim_config()),
                    Ok(s.sim_config()),
                    "{text}"
                );
            }
        }
    }
    assert!(
        parsed > 100,
        "the fuzz should also exercise valid documents ({parsed})"
    );
}

/// The parameter table the page's form shows agrees with the format: each default is the
/// generator's default, each example of a bad value is refused at that parameter, and an
/// unknown parameter is refused.
#[test]
fn the_parameter_table_matches_the_format() {
    let doc = |kind: &str, params: &str| {
        format!(
            r#"{{"version": 1, "name": "t", "cpus": 4, "hz": 1000, "duration_ms": 10, "variants": ["cfs-6.1"],
               "workloads": [{{"{kind}": {params}}}]}}"#
        )
    };
    for kind in WorkloadKind::ALL {
        let plain = Scenario::from_json(&doc(kind.name(), "{}")).unwrap();
        assert!(!kind.params().is_empty());
        for p in kind.params() {
            assert!(
                !p.help.is_empty() && !p.allowed.is_empty(),
                "{}.{}",
                kind.name(),
                p.name
            );
            if !p.default.is_empty() {
                let with = Scenario::from_json(&doc(
                    kind.name(),
                    &format!(r#"{{"{}": {}}}"#, p.name, p.default),
                ))
                .unwrap_or_else(|e| panic!("{}.{} = {}: {e}", kind.name(), p.name, p.default));
                assert_eq!(
                    with.workloads,
                    plain.workloads,
                    "{}.{}: the table's default is the generator's",
                    kind.name(),
                    p.name
                );
            }
            let errs = Scenario::from_json(&doc(
                kind.name(),
                &format!(r#"{{"{}": {}}}"#, p.name, p.bad),
            ))
            .expect_err(&format!(
                "{}.{} = {} is refused",
                kind.name(),
                p.name,
                p.bad
            ));
            let want = format!("workloads[0].{}.{}", kind.name(), p.name);
            assert!(
                errs.0.iter().any(|e| e.path.starts_with(&want)),
                "{want}: {errs}"
            );
        }
        let errs = Scenario::from_json(&doc(kind.name(), r#"{"bogus": 1}"#)).unwrap_err();
        assert!(errs.to_string().contains("bogus"), "{errs}");
    }
}

/// A workload's `"session"` or `"cgroup"` puts all its tasks there: kept in the canonical
/// JSON, carried by every expanded task group, and refused without autogroup.
#[test]
fn a_workloads_tasks_join_its_session_or_cgroup() {
    let doc = r#"{"version": 1, "name": "t", "cpus": 2, "hz": 250, "duration_ms": 10,
        "variants": ["eevdf-6.19"], "autogroup": true, "cgroups": [{"path": "/db"}],
        "workloads": [{"hackbench": {"groups": 1, "fds": 2, "session": 3}},
                      {"periodic": {"count": 2, "cgroup": "/db"}}]}"#;
    let s = Scenario::from_json(doc).unwrap();
    let back = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
    let e = s.expanded();
    let m = e.memberships();
    assert_eq!(m.len(), e.tasks.len());
    let hb = m.iter().filter(|x| x.session == Some(3)).count();
    let db = m
        .iter()
        .filter(|x| x.cgroup.as_deref() == Some("/db"))
        .count();
    assert_eq!((hb, db), (e.tasks.len() - 1, 1), "{m:?}");
    let cfg = s.sim_config();
    assert_eq!(cfg.cgroups.task_group.len(), cfg.tasks.len());
    assert_eq!(e.sim_config().cgroups, cfg.cgroups);
    let err = Scenario::from_json(&doc.replace(r#""autogroup": true,"#, "")).unwrap_err();
    assert!(
        err.0
            .iter()
            .any(|x| x.path == "workloads[0].hackbench.session"),
        "{err}"
    );
}

/// schbench's `request_us` takes a distribution, drawn per request: a real CPU's math time
/// varies (`schbench -C` on the EPYC VM: p50 4328 µs, p90 4392 µs). It survives a round trip,
/// its mean bounds the request, and a bad one is refused at its path.
#[test]
fn schbench_request_is_a_distribution() {
    let (s, c) = config(
        2,
        r#"[{"schbench": {"workers": 2, "request_us": {"normal": [4328, 50]}, "lock": false}}]"#,
    );
    let Workload::Schbench(sb) = &s.workloads()[0].params else {
        panic!()
    };
    assert_eq!(sb.request_ns(), 4_328_000);
    let worker = c.tasks.iter().find(|t| t.group == 1).unwrap();
    assert_eq!(
        worker.program.last(),
        Some(&Op::Run(Some(Dist::Normal(4_328_000, 50_000))))
    );
    let back = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(back.to_json(), s.to_json());
    let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(
        v["workloads"][0]["schbench"]["request_us"],
        serde_json::json!({"normal": [4328, 50]})
    );
    // A plain number is still a fixed cost.
    let (_, c) = config(2, r#"[{"schbench": {"workers": 2, "request_us": 80}}]"#);
    let worker = c.tasks.iter().find(|t| t.group == 1).unwrap();
    assert!(worker.program.contains(&Op::Run(Some(Dist::Fixed(80_000)))));
    has(
        &errors(&doc(
            2,
            r#"[{"schbench": {"request_us": {"uniform": [1000000, 1400000]}}}]"#,
        )),
        "workloads[0].schbench.request_us: a request's math averages 1200 ms of CPU; at most 1 s",
    );
    has(
        &errors(&doc(2, r#"[{"schbench": {"request_us": {"gamma": 3}}}]"#)),
        "workloads[0].schbench.request_us.gamma: unknown distribution",
    );
    has(
        &errors(&doc(2, r#"[{"schbench": {"request_us": -5}}]"#)),
        "workloads[0].schbench.request_us",
    );
}
