//! Real tbench stacked on one CPU, against the model: dbench's `tbench` and `tbench_srv` over
//! TCP loopback, both pinned to CPU 1 of the EPYC VM with haltpoll (Linux 6.18, 2 CPUs,
//! HZ=250), the server at nice -6, -3, 0, 3 and 6, recorded by
//! `scripts/record-tbench-real.sh` into `tests/fixtures/real-epyc-haltpoll/tbench-stacked.txt`.
//!
//! The pair has two regimes. In the first, the woken server preempts the client at every
//! request (the client's switch-outs are all involuntary) and the server blocks after each
//! reply; in the second, the client blocks for every reply and its wakeup preempts the server
//! (the server switches out runnable). Each side's CPU per round trip differs between the two:
//! the one that waits pays its socket read's wait path (`sk_wait_data`, the read's retry). The
//! costs are read off the recording's two ends (nice -6 and 6, one regime each): per side a
//! base and a wait cost (`Channel::wait_ns`), less the machine's switch cost. The model is then
//! held to the runs it was not given: nice -3 and 3 (the same regimes) and nice 0, where the
//! machine mixes the two (the client waits at 27-31 % of round trips) and splits the CPU
//! 51.4-51.8 % to the client.

mod common;
use common::*;
use schedlab_sim::*;

/// One recorded run, per round trip.
#[derive(Clone, Copy, Debug)]
struct Run {
    nice: i32,
    round_trips_per_s: f64,
    client_ns: f64,
    server_ns: f64,
    client_blocks: f64,
    client_preempted: f64,
}

fn number_after(line: &str, key: &str) -> f64 {
    let at = line
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {line:?}"))
        + key.len();
    line[at..]
        .trim_start()
        .split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.'))
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no number after {key:?} in {line:?}"))
}

fn fixture() -> String {
    let path = format!(
        "{}/../../tests/fixtures/real-epyc-haltpoll/tbench-stacked.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn recorded_runs(text: &str) -> Vec<Run> {
    text.lines()
        .filter(|l| l.starts_with("run stacked"))
        .map(|l| {
            let rt = number_after(l, "round trips");
            let client = &l[l.find("client cpu").unwrap()..l.find("server cpu").unwrap()];
            let server = &l[l.find("server cpu").unwrap()..];
            Run {
                nice: number_after(l, " nice") as i32,
                round_trips_per_s: rt / number_after(l, "secs"),
                client_ns: number_after(client, "cpu") / rt,
                server_ns: number_after(server, "cpu") / rt,
                client_blocks: number_after(client, "vol") / rt,
                client_preempted: number_after(client, "invol") / rt,
            }
        })
        .collect()
}

/// The mean of the recorded runs at `nice`.
fn mean(runs: &[Run], nice: i32) -> Run {
    let at: Vec<&Run> = runs.iter().filter(|r| r.nice == nice).collect();
    assert!(!at.is_empty(), "no recorded run at nice {nice}");
    let n = at.len() as f64;
    let avg = |f: fn(&Run) -> f64| at.iter().map(|r| f(r)).sum::<f64>() / n;
    Run {
        nice,
        round_trips_per_s: avg(|r| r.round_trips_per_s),
        client_ns: avg(|r| r.client_ns),
        server_ns: avg(|r| r.server_ns),
        client_blocks: avg(|r| r.client_blocks),
        client_preempted: avg(|r| r.client_preempted),
    }
}

/// The client's run from its wakeup of the server to its switch-out, at nice 0: p50 when it
/// was preempted (its send returning to user space) and when it blocked (its read waiting).
fn post_send_us(text: &str) -> (f64, f64) {
    let l = text
        .lines()
        .find(|l| l.starts_with("post-send nice 0:"))
        .expect("a post-send line at nice 0");
    let preempted = &l[..l.find("blocked").unwrap()];
    let blocked = &l[l.find("blocked").unwrap()..];
    (number_after(preempted, "p50"), number_after(blocked, "p50"))
}

/// The costs read off the recording's two ends.
struct Costs {
    client_pre: u64,
    client_post: u64,
    server_pre: u64,
    server_post: u64,
    client_wait: u64,
    server_wait: u64,
}

fn costs(text: &str, switch_cost: u64, delta: u64) -> Costs {
    let runs = recorded_runs(text);
    let (a, b) = (mean(&runs, -6), mean(&runs, 6));
    // The ends are one regime each.
    assert!(
        a.client_preempted > 0.98 && b.client_blocks > 0.98,
        "{a:?} {b:?}"
    );
    let (preempted, blocked) = post_send_us(text);
    // After its send wakes its peer, a side runs on to the end of the send (where the
    // reschedule takes it on a preempt=none kernel), then to its read. The model takes the
    // reschedule δ after the wakeup whatever runs, so the part before the read is δ plus the
    // recorded gap between the two switch-outs.
    let post = delta + ((blocked - preempted).max(0.0) * 1e3) as u64;
    let ns = |x: f64| x.round() as u64;
    Costs {
        client_pre: ns(a.client_ns) - switch_cost - post,
        client_post: post,
        server_pre: ns(b.server_ns) - switch_cost - post,
        server_post: post,
        client_wait: ns(b.client_ns - a.client_ns),
        server_wait: ns(a.server_ns - b.server_ns),
    }
}

fn config(c: &Costs, server_nice: i32) -> SimConfig {
    let m = machine("epyc-vm-haltpoll").unwrap();
    let run = |ns: u64| Op::Run(Some(Dist::Fixed(ns)));
    let client = vec![
        run(c.client_pre),
        Op::Send(0),
        run(c.client_post),
        Op::Recv(1),
    ];
    let server = vec![
        Op::Recv(0),
        run(c.server_pre),
        Op::Send(1),
        run(c.server_post),
    ];
    let mut cfg = cfg(
        2,
        250,
        2_000 * MS,
        vec![
            task("tbench", 0, SchedPolicy::Normal, client),
            task("tbench_srv", server_nice, SchedPolicy::Normal, server),
        ],
    );
    for t in &mut cfg.tasks {
        t.affinity = vec![1];
    }
    cfg.switch_cost_ns = m.switch_cost_ns;
    cfg.channels = vec![
        Channel {
            wait_ns: c.server_wait,
            ..Channel::unbounded("req")
        },
        Channel {
            wait_ns: c.client_wait,
            ..Channel::unbounded("rsp")
        },
    ];
    cfg
}

/// The model's run, per round trip (a reply the client read).
fn modelled(cfg: &SimConfig) -> Run {
    let o = run(cfg, "eevdf-6.19");
    let (client, server) = (&o.tasks[0], &o.tasks[1]);
    let rt = client.reads as f64;
    Run {
        nice: cfg.tasks[1].nice,
        round_trips_per_s: rt * 1e9 / o.trace.end_ns as f64,
        client_ns: client.sum_exec_runtime_ns as f64 / rt,
        server_ns: server.sum_exec_runtime_ns as f64 / rt,
        client_blocks: client.voluntary_switches as f64 / rt,
        client_preempted: client.involuntary_switches as f64 / rt,
    }
}

fn client_share(r: &Run) -> f64 {
    r.client_ns / (r.client_ns + r.server_ns)
}

#[test]
fn the_recorded_costs_depend_on_who_waits() {
    let text = fixture();
    let runs = recorded_runs(&text);
    let (a, b) = (mean(&runs, -6), mean(&runs, 6));
    // The side that waits pays more per round trip: the client in the second regime, the
    // server in the first; a microsecond or more each, on ~12 us of work.
    assert!(b.client_ns > a.client_ns + 1_000.0, "{a:?} {b:?}");
    assert!(a.server_ns > b.server_ns + 2_000.0, "{a:?} {b:?}");
    // So the split moves with the regime: about even in the first, 60/40 in the second.
    assert!((0.47..0.52).contains(&client_share(&a)), "{a:?}");
    assert!((0.58..0.63).contains(&client_share(&b)), "{b:?}");
}

#[test]
fn real_tbench_stacked_splits_and_waits_as_recorded() {
    let text = fixture();
    let runs = recorded_runs(&text);
    let probe = cfg(1, 250, MS, vec![]);
    let m = machine("epyc-vm-haltpoll").unwrap();
    let c = costs(&text, m.switch_cost_ns, probe.switch_delay_ns);
    eprintln!(
        "costs (ns): client {} + send + {}, wait {}; server {} + send + {}, wait {}",
        c.client_pre, c.client_post, c.client_wait, c.server_pre, c.server_post, c.server_wait
    );
    for nice in [-3, 0, 3] {
        let want = mean(&runs, nice);
        let got = modelled(&config(&c, nice));
        let (ws, gs) = (client_share(&want), client_share(&got));
        let msg = format!("nice {nice}: recorded {want:?}, model {got:?}");
        eprintln!("{msg}");
        match nice {
            // One regime each, as recorded.
            -3 => assert!(
                want.client_preempted > 0.95 && got.client_preempted > 0.95,
                "{msg}"
            ),
            3 => assert!(
                want.client_blocks > 0.95 && got.client_blocks > 0.95,
                "{msg}"
            ),
            // Both regimes: the recording's client waits at 27-31 % of round trips.
            _ => assert!(
                (0.05..0.5).contains(&got.client_blocks)
                    && (0.05..0.5).contains(&want.client_blocks),
                "{msg}"
            ),
        }
        let points = if nice == 0 { 0.025 } else { 0.015 };
        assert!(
            (gs - ws).abs() < points,
            "client share {gs:.3} against {ws:.3}; {msg}"
        );
        let rate = got.round_trips_per_s / want.round_trips_per_s;
        assert!(
            (0.85..1.15).contains(&rate),
            "round trips {rate:.2} of the recording's; {msg}"
        );
    }
}
