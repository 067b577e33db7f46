//! Per-workload figures: exits, completions, request and wakeup latencies, and the hackbench,
//! schbench and rate texts.
mod common;
use common::*;

use schedlab_report::percentiles::{format_schbench_block, Hist};
use schedlab_report::wakeup;
use schedlab_report::workload::*;
use schedlab_sim::{Event, Trace};

const SEC: u64 = 1_000_000_000;

fn exits() -> Trace {
    grouped_trace(
        2,
        &[
            (1, "a", Some(0)),
            (2, "a", Some(0)),
            (3, "b", Some(1)),
            (4, "c", None),
        ],
        vec![
            wakeup_new(0, 0, 1),
            wakeup_new(0, 1, 2),
            sw(10, 0, 0, 'R', 1),
            sw(10, 1, 0, 'R', 2),
            runtime(100, 0, 1, 90),
            sw(100, 0, 1, 'X', 3),
            runtime(250, 1, 2, 240),
            sw(250, 1, 2, 'X', 0),
            runtime(400, 0, 3, 300),
        ],
        400,
    )
}

#[test]
fn groups_and_cpu_time() {
    let t = exits();
    assert_eq!(pids_of_groups(&t, &[0]), [1, 2]);
    assert_eq!(pids_of_groups(&t, &[1, 0]), [1, 2, 3]);
    assert_eq!(pids_of_groups(&t, &[7]), Vec::<u32>::new());
    assert_eq!(cpu_time_ns(&t, &[1, 2]), 330);
    assert_eq!(cpu_time_ns(&t, &[2, 1, 2]), 330);
    assert_eq!(cpu_time_ns(&t, &[3]), 300);
}

#[test]
fn exit_time_only_when_all_exited() {
    let t = exits();
    assert_eq!(exit_time_ns(&t, &[1, 2]), Some(250));
    assert_eq!(exit_time_ns(&t, &[2, 1, 2]), Some(250));
    assert_eq!(exit_time_ns(&t, &[1]), Some(100));
    assert_eq!(exit_time_ns(&t, &[1, 2, 3]), None); // 3 is still alive
    assert_eq!(exit_time_ns(&t, &[4]), None); // never ran
    assert_eq!(exit_time_ns(&t, &[]), None);
}

/// hackbench's Time runs from the kick-off (the threads' first `sched_wakeup`, on the start
/// pipe) to the last exit, not from the run's start.
#[test]
fn hackbench_time_from_the_first_wakeup() {
    let t = grouped_trace(
        1,
        &[(1, "hackbench", Some(0)), (2, "hackbench", Some(0))],
        vec![
            wakeup_new(0, 0, 1),
            wakeup_new(20, 0, 2),
            wakeup(60, 0, 2),
            wakeup(61, 0, 1),
            sw(70, 0, 0, 'R', 1),
            sw(100, 0, 1, 'X', 2),
            sw(250, 0, 2, 'X', 0),
        ],
        400,
    );
    assert_eq!(hackbench_time_ns(&t, &[1, 2]), Some(250 - 60));
    assert_eq!(hackbench_time_ns(&t, &[1]), Some(100 - 61));
    assert_eq!(exit_time_ns(&t, &[1, 2]), Some(250));
}

#[test]
fn completions_and_per_second_buckets() {
    let t = grouped_trace(
        1,
        &[(1, "w", Some(0)), (2, "other", Some(1))],
        vec![
            sw(SEC / 2, 0, 1, 'S', 2),
            sw(SEC / 2 + 10, 0, 2, 'S', 1),
            sw(9 * SEC / 10, 0, 1, 'S', 0),
            sw(SEC, 0, 0, 'R', 1),
            sw(SEC + SEC / 5, 0, 1, 'R', 2), // preempted: not a completion
            sw(SEC + SEC / 4, 0, 2, 'S', 1),
            sw(SEC + SEC / 3, 0, 1, 'S', 0),
            sw(2 * SEC, 0, 0, 'R', 1),
            sw(3 * SEC - 1, 0, 1, 'S', 0),
            sw(3 * SEC + SEC / 2, 0, 1, 'S', 0), // in the partial 4th second: dropped
        ],
        3 * SEC + 7 * SEC / 10,
    );
    assert_eq!(completions(&t, &[1]), 5);
    assert_eq!(completions(&t, &[2]), 2);
    assert_eq!(completions(&t, &[1, 2]), 7);
    assert_eq!(completions_per_second(&t, &[1]), [2, 1, 1]);
    assert_eq!(completions_per_second(&t, &[1, 2]), [3, 2, 1]);
    // Shorter than a second: no whole second at all.
    let short = Trace {
        end_ns: SEC - 1,
        ..t.clone()
    };
    assert_eq!(completions_per_second(&short, &[1]), Vec::<u64>::new());
    // Exactly three seconds: an event at t = 3 s belongs to the (empty) 4th.
    let exact = Trace {
        end_ns: 3 * SEC,
        ..t
    };
    assert_eq!(completions_per_second(&exact, &[1]), [2, 1, 1]);
}

/// Task 1 is a request server on CPU 0, woken from CPU 1; task 2 shares CPU 0.
fn requests() -> Trace {
    grouped_trace(
        2,
        &[(1, "server", Some(0)), (2, "client", Some(1))],
        vec![
            wakeup_new(0, 0, 1),
            sw(0, 0, 0, 'R', 1),
            waking(50, 1, 1),      // while running: starts nothing
            sw(100, 0, 1, 'S', 0), // start-up block: a completion, not a request
            waking(1000, 1, 1),    // request 1 arrives
            wakeup(1000, 0, 1),
            sw(1200, 0, 0, 'R', 1),
            waking(1400, 1, 2),     // task 2 first seen: it may have been asleep
            sw(1500, 0, 1, 'R', 2), // request 1 preempted...
            sw(1800, 0, 2, 'S', 1), // task 2's request done (400)
            sw(2000, 0, 1, 'S', 0), // ...request 1 done: 1000
            waking(3000, 1, 1),     // request 2
            waking(3100, 1, 1),     // the first wakeup of a sleep wins
            sw(3300, 0, 0, 'R', 1),
            sw(3400, 0, 1, 'S', 0), // request 2 done: 400
            waking(5000, 1, 1),
            sw(5100, 0, 0, 'R', 1),
            sw(5200, 0, 1, 'X', 0), // exits: no request completed
        ],
        6000,
    )
}

#[test]
fn request_latency_spans() {
    let t = requests();
    assert_eq!(request_latencies_ns(&t, &[1]), [1000, 400]);
    assert_eq!(request_latencies_ns(&t, &[2]), [400]);
    // In completion order across tasks.
    assert_eq!(request_latencies_ns(&t, &[2, 1]), [400, 1000, 400]);
    assert_eq!(completions(&t, &[1]), 3);
    assert_eq!(switches(&t, &[1]), 5);
    assert_eq!(switches(&t, &[1, 2]), 6);
    assert_eq!(exit_time_ns(&t, &[1]), Some(5200));
    assert_eq!(exit_time_ns(&t, &[1, 2]), None);
}

#[test]
fn request_latency_without_sched_waking_uses_sched_wakeup() {
    let t = grouped_trace(
        1,
        &[(1, "server", None)],
        vec![
            sw(0, 0, 0, 'R', 1),
            sw(100, 0, 1, 'S', 0),
            wakeup(1000, 0, 1),
            sw(1100, 0, 0, 'R', 1),
            sw(1600, 0, 1, 'S', 0),
        ],
        2000,
    );
    assert_eq!(request_latencies_ns(&t, &[1]), [600]);
}

#[test]
fn wakeup_latencies_are_the_per_pid_samples() {
    let t = requests();
    // WakeupNew at 0 → 0; 1000 → 1200; 3000 → 3300; 5000 → 5100.
    assert_eq!(wakeup_latencies_ns(&t, &[1]), [0, 200, 300, 100]);
    let mut both = wakeup_latencies_ns(&t, &[1, 2]);
    let mut per_pid = wakeup::wakeup_latencies_ns(&t, Some(1));
    per_pid.extend(wakeup::wakeup_latencies_ns(&t, Some(2)));
    assert_eq!(both.len(), 5);
    both.sort_unstable();
    per_pid.sort_unstable();
    assert_eq!(both, per_pid);
}

#[test]
fn hackbench_text() {
    assert_eq!(
        format_hackbench(112, 20, 30000, 100, true, Some(117_487_900_000)),
        "Running in threaded mode with 112 groups using 40 file descriptors each (== 4480 tasks)\n\
         Each sender will pass 30000 messages of 100 bytes\n\
         Time: 117.487\n"
    );
    assert_eq!(
        format_hackbench(10, 20, 100, 100, false, Some(1_005_999_999)),
        "Running in process mode with 10 groups using 40 file descriptors each (== 400 tasks)\n\
         Each sender will pass 100 messages of 100 bytes\n\
         Time: 1.005\n"
    );
    assert_eq!(
        format_hackbench(1, 1, 1, 1, true, None),
        "Running in threaded mode with 1 groups using 2 file descriptors each (== 2 tasks)\n\
         Each sender will pass 1 messages of 1 bytes\n\
         Time: did not finish within the simulated duration\n"
    );
    assert!(format_hackbench(1, 1, 1, 1, true, Some(42_000)).ends_with("Time: 0.000\n"));
}

#[test]
fn schbench_summary() {
    let wakeup = [1_999, 2_000, 2_999, 10_500];
    let request = [5_000_000, 7_000_999];
    let rps = [3, 4, 3];
    let text = format_schbench(3, &wakeup, &request, &rps);

    let us = |ns: &[u64]| {
        let mut h = Hist::new();
        for &v in ns {
            h.add(v);
        }
        h
    };
    let want = format_schbench_block("Wakeup Latencies", "usec", 3, &us(&[1, 2, 2, 10]), false)
        + &format_schbench_block("Request Latencies", "usec", 3, &us(&[5000, 7000]), false)
        + &format_schbench_block("RPS", "requests", 3, &us(&rps), true)
        + "average rps: 3.33\n";
    assert_eq!(text, want);

    let headers: Vec<&str> = text.lines().filter(|l| !l.starts_with('\t')).collect();
    assert_eq!(
        headers,
        [
            "Wakeup Latencies percentiles (usec) runtime 3 (s) (4 total samples)",
            "Request Latencies percentiles (usec) runtime 3 (s) (2 total samples)",
            "RPS percentiles (requests) runtime 3 (s) (3 total samples)",
            "average rps: 3.33",
        ]
    );
    // ns → µs truncates: 1999 ns is 1 µs.
    assert!(text.contains("\t  min=1, max=10\n"));
    assert!(text.contains("\t  min=5000, max=7000\n"));
    assert!(text.contains("\t* 50.0th: 3 "));

    assert!(format_schbench(0, &[], &[], &[]).ends_with("average rps: 0.00\n"));
}

#[test]
fn rates_and_compact_percentiles() {
    assert_eq!(
        format_rate("tbench round trips", 12345, 2 * SEC),
        "tbench round trips: 12345 (6172.50/s)\n"
    );
    assert_eq!(format_rate("fio IOs", 1, 3 * SEC), "fio IOs: 1 (0.33/s)\n");
    // 1..=100 µs (+ 999 ns, truncated away): nearest rank.
    let samples: Vec<u64> = (1..=100).map(|us| us * 1000 + 999).collect();
    assert_eq!(latency_percentiles_us(&samples), [50, 90, 99, 100]);
    assert_eq!(latency_percentiles_us(&[7_000]), [7; 4]);
}

/// A schbench worker (pid 2) and its message thread (pid 1), to the first request's math: the
/// worker's first futex wait, the message thread's wake (wakeup latency 20), its `usleep`
/// from 60 (the request starts), the timer at 160 and the math from 170.
fn first_request() -> Vec<Event> {
    vec![
        sw(0, 0, 0, 'R', 2),
        sw(10, 0, 2, 'S', 0),
        sw(20, 1, 0, 'R', 1),
        waking(30, 1, 2),
        sw(35, 1, 1, 'S', 0),
        sw(50, 0, 0, 'R', 2),
        sw(60, 0, 2, 'S', 0),
        waking(160, 0, 2),
        sw(170, 0, 0, 'R', 2),
    ]
}

/// schbench.c v1.0's samples off a trace of a worker (pid 2) and its message thread (pid 1): a
/// wakeup latency per request (`msg_and_wait`): from the message thread's wake to the worker
/// running when it slept in its `fwait`, from the walk that took it off the list to its
/// `usleep` when it did not (preempted at its post by the message thread, or its post woke
/// nobody), a request per `usleep` + math (`worker_thread`: `work_start` is taken before the
/// usleep), whether or not the worker had to wait for its next wake, and the usleep's timer
/// is not the message thread's wake even when the message thread is on the CPU it fires on.
#[test]
fn schbench_samples_follow_the_worker_loop() {
    let t = grouped_trace(
        2,
        &[(1, "schbench", Some(0)), (2, "schbench", Some(1))],
        [
            first_request(),
            vec![
                waking(1160, 0, 1),     // its post wakes the message thread...
                sw(1161, 0, 2, 'R', 1), // ...which preempts it: the walk takes it off the list
                sw(1166, 0, 1, 'S', 2), // before it reached its fwait, so it never sleeps there:
                sw(1170, 0, 2, 'S', 0), // math done (1110) and this is the next usleep...
                waking(1270, 0, 2),     // ...as its timer shows: wakeup latency 1170 - 1161
                sw(1280, 0, 0, 'R', 2),
                sw(2280, 0, 2, 'S', 0), // request 2 done (1110): now a futex wait
                sw(2300, 1, 0, 'R', 1),
                waking(2310, 1, 2), // the message thread's wake
                sw(2315, 1, 1, 'S', 0),
                sw(2320, 0, 0, 'R', 2), // wakeup latency 10
                sw(2330, 0, 2, 'S', 0), // usleep
                sw(2400, 0, 0, 'R', 1),
                waking(2430, 0, 2), // the timer, with the message thread on the CPU
                sw(2440, 0, 1, 'S', 2),
                sw(3440, 0, 2, 'S', 0), // request 3 done (1110)
                waking(3540, 0, 2),     // a timer: its post had woken nobody (1 µs)
            ],
        ]
        .concat(),
        4000,
    );
    let s = schbench_samples(&t, &[2], &[1], SCHBENCH_USLEEP_NS);
    assert_eq!(s.wakeup_ns, [20, 9, 10, 1000]);
    assert_eq!(s.request_ns, [1110, 1110, 1110]);
    assert_eq!(s.done_ns, [1170, 2280, 3440]);
    assert_eq!(per_second(&s.done_ns, 4000), Vec::<u64>::new());
    assert_eq!(per_second(&[5, SEC + 1, SEC + 2], 2 * SEC), [1, 2]);
}

/// The `usleep`'s timer firing where the message thread runs is taken for the message
/// thread's wake until the worker runs a whole `usleep` (here 100) of CPU, its math, before
/// it sleeps again, which shows it was the timer: the request goes on to that sleep, and the
/// wakeup sample is from the walk that took it off the list (1 µs when its post woke nobody,
/// the message thread being awake).
#[test]
fn schbench_samples_tell_the_timer_from_the_walk() {
    // (the message thread runs where the timer fires, the post woke the message thread)
    let events = |msg_on_cpu: bool, posted: bool| {
        let mut e = first_request();
        if posted {
            e.push(waking(1160, 0, 1)); // its post wakes the message thread...
            e.push(sw(1161, 0, 2, 'R', 1)); // ...which preempts it: the walk
            e.push(sw(1166, 0, 1, 'S', 2)); // and goes back to sleep
        }
        e.push(sw(1170, 0, 2, 'S', 0)); // math done (1110); the next usleep
        if msg_on_cpu {
            // The message thread runs on CPU 0 again when the timer fires there.
            e.push(sw(1200, 0, 0, 'R', 1));
            e.push(waking(1270, 0, 2));
            e.push(sw(1275, 0, 1, 'S', 2));
        } else {
            e.push(waking(1270, 0, 2));
            e.push(sw(1275, 0, 0, 'R', 2));
        }
        e.push(sw(2275, 0, 2, 'S', 0)); // request 2 done (1105)
        grouped_trace(
            2,
            &[(1, "schbench", Some(0)), (2, "schbench", Some(1))],
            e,
            3000,
        )
    };
    for (msg_on_cpu, posted, walk) in [(false, true, 9), (true, true, 9), (true, false, 1000)] {
        let s = schbench_samples(&events(msg_on_cpu, posted), &[2], &[1], 100);
        let case = format!("message thread on the CPU {msg_on_cpu}, post woke it {posted}");
        assert_eq!(s.wakeup_ns, [20, walk], "{case}");
        assert_eq!(s.request_ns, [1110, 1105], "{case}");
        assert_eq!(s.done_ns, [1170, 2275], "{case}");
    }
}

/// A walk can reach a worker long after it began (the message thread preempted in it): the
/// worker, asleep in its `fwait` meanwhile, is woken by the message thread a whole `usleep`
/// after it slept, runs no CPU to speak of and sleeps in its `usleep`: that wake was the
/// message thread's.
#[test]
fn schbench_samples_keep_a_late_walk_s_wake() {
    let t = grouped_trace(
        2,
        &[(1, "schbench", Some(0)), (2, "schbench", Some(1))],
        [
            first_request(),
            vec![
                waking(1160, 0, 1),     // its post wakes the message thread...
                sw(1161, 0, 2, 'R', 1), // ...whose walk begins...
                sw(1162, 0, 1, 'R', 2), // ...and is preempted before it reaches the worker
                sw(1170, 0, 2, 'S', 0), // math done (1110): its fwait
                sw(1300, 0, 0, 'R', 1),
                waking(1320, 0, 2),     // the walk reaches it, 150 after it slept
                sw(1325, 0, 1, 'S', 2), // wakeup latency 5
                sw(1325, 0, 2, 'S', 0), // its usleep at once
                waking(1425, 0, 2),     // the timer
                sw(1430, 0, 0, 'R', 2),
                sw(2430, 0, 2, 'S', 0), // request 2 done (1105)
            ],
        ]
        .concat(),
        3000,
    );
    let s = schbench_samples(&t, &[2], &[1], 100);
    assert_eq!(s.wakeup_ns, [20, 5]);
    assert_eq!(s.request_ns, [1110, 1105]);
}

/// The lock line: the workers' spinning as a share of their CPU time.
#[test]
fn spin_line() {
    assert_eq!(
        format_spin(1_250_000_000, 5_000_000_000),
        "per-CPU lock: workers spun 1250.0 ms of their 5000.0 ms of CPU (25.0 %)\n"
    );
    assert_eq!(
        format_spin(0, 0),
        "per-CPU lock: workers spun 0.0 ms of their 0.0 ms of CPU (0.0 %)\n"
    );
}
