//! Costs that depend on scheduling: `switch_cost_ns` (paid by the task switched in),
//! `wakeup_cost_ns` (paid by a waker whose wakee lands on another CPU) and `ipi_cost_ns` (paid
//! on top when that wakeup sends an IPI), against what was measured on the machine
//! (docs/measurements.md, `scripts/workloads/switchcost.c`).

mod common;
use common::*;
use schedlab_sim::*;

/// The measured per-switch cost (Linux 6.18, 2-vCPU VM): pinned pair 2 750 ns per round trip,
/// the same work alone 2 × 410 ns, 2 switches per round trip.
const SWITCH_COST_NS: u64 = 960;
/// The work of one side of the round trip alone (one pipe write and one read, measured).
const ALONE_NS: u64 = 410;
/// The pinned pair's measured round trip.
const PAIR_NS: u64 = 2_750;

fn on(mut t: TaskSpec, cpus: &[u32]) -> TaskSpec {
    t.affinity = cpus.to_vec();
    t
}

/// `switchcost pair` as the model runs it: ping writes, then waits for pong's answer; pong
/// waits, then answers; each side's own work is the measured alone loop.
fn pair(cpu_ping: u32, cpu_pong: u32) -> SimConfig {
    let w = Op::Run(Some(Dist::Fixed(ALONE_NS)));
    let ping = vec![w, Op::Send(0), Op::Recv(1)];
    let pong = vec![Op::Recv(0), w, Op::Send(1)];
    let mut c = cfg(
        2,
        250,
        200 * MS,
        vec![
            on(task("ping", 0, SchedPolicy::Normal, ping), &[cpu_ping]),
            on(task("pong", 0, SchedPolicy::Normal, pong), &[cpu_pong]),
        ],
    );
    c.channels = vec![Channel::unbounded("a2b"), Channel::unbounded("b2a")];
    c
}

/// Round trips per second: pong is woken once per round trip (ping may find its answer
/// waiting).
fn rate(o: &Output) -> u64 {
    o.tasks[1].wakeups * 1_000_000_000 / o.trace.end_ns
}

/// On one CPU every round trip is two switches; with the measured cost the model's round trip
/// is the machine's (within 5 %), and without it it is the bare work's, about 3 × faster.
#[test]
fn pinned_pair_pays_two_switches_per_round_trip() {
    let mut c = pair(1, 1);
    let free = rate(&run(&c, "eevdf-6.19"));
    c.switch_cost_ns = SWITCH_COST_NS;
    let out = run(&c, "eevdf-6.19");
    let costly = rate(&out);
    let machine = 1_000_000_000 / PAIR_NS;
    assert!(
        costly * 100 >= machine * 95 && costly * 100 <= machine * 105,
        "model {costly}/s, machine {machine}/s"
    );
    assert!(
        free > costly * 5 / 2,
        "free {free}/s, with the cost {costly}/s"
    );
    // Two switches per round trip, as `perf stat -e context-switches` counts on the machine.
    let switches: u64 = out.tasks.iter().map(|t| t.voluntary_switches).sum();
    let trips = out.tasks[1].wakeups;
    assert!(
        switches.abs_diff(2 * trips) <= 2,
        "{switches} switches for {trips} round trips"
    );
    // The cost is CPU time of the tasks: the CPU is never idle.
    let busy: u64 = out.tasks.iter().map(|t| t.sum_exec_runtime_ns).sum();
    assert!(
        busy * 100 >= out.trace.end_ns * 99,
        "busy {busy} of {}",
        out.trace.end_ns
    );
}

/// A wakeup onto another CPU costs the waker `wakeup_cost_ns`; one on its own CPU does not.
#[test]
fn wakeup_cost_is_paid_by_remote_wakers_only() {
    let cost = 20 * US;
    // Across two CPUs: ping's wakeup of pong is remote and costs ping 20 µs, during which pong
    // answers, so ping never sleeps and pong's answer wakes nobody.
    let mut c = pair(0, 1);
    let base = run(&c, "eevdf-6.19");
    c.wakeup_cost_ns = cost;
    let out = run(&c, "eevdf-6.19");
    let per_trip = |o: &Output| o.tasks[0].sum_exec_runtime_ns / o.tasks[1].wakeups;
    // (±2 ns: the run ends in the middle of a round trip.)
    assert!(
        per_trip(&base).abs_diff(ALONE_NS) <= 2,
        "{}",
        per_trip(&base)
    );
    assert!(
        per_trip(&out).abs_diff(ALONE_NS + cost) <= 2,
        "{}",
        per_trip(&out)
    );
    assert!(rate(&out) < rate(&base));
    // On one CPU: no IPI, no cost.
    let mut c = pair(1, 1);
    let base = run(&c, "eevdf-6.19");
    c.wakeup_cost_ns = cost;
    let out = run(&c, "eevdf-6.19");
    assert_eq!(rate(&out), rate(&base));
}

/// The IPI's part is paid only when the kernel sends one: onto an idle CPU (the wake list's
/// IPI), not onto a busy CPU whose curr the wakee does not preempt (enqueued from the waker's
/// CPU under the target's rq lock). `switchcost busy` and `wake` measure the two.
#[test]
fn ipi_cost_is_paid_only_when_the_wakeup_sends_one() {
    let (wakeup, ipi) = (20 * US, 30 * US);
    // Every 10 ms ping on CPU 0 writes to pong, blocked on CPU 1, which reads and blocks
    // again; with `busy`, a hog runs on CPU 1 and pong is SCHED_BATCH, so it never preempts
    // the hog and waits for the tick. Ping's CPU time per write: its own work and its
    // wakeup's cost.
    let per_write = |busy: bool| {
        let w = Op::Run(Some(Dist::Fixed(ALONE_NS)));
        let ping = vec![w, Op::Send(0), Op::Sleep(Dist::Fixed(10 * MS))];
        let mut tasks = vec![
            on(task("ping", 0, SchedPolicy::Normal, ping), &[0]),
            on(
                task("pong", 0, SchedPolicy::Batch, vec![Op::Recv(0), w]),
                &[1],
            ),
        ];
        if busy {
            tasks.push(on(hog("hog", 0), &[1]));
        }
        let mut c = cfg(2, 250, 1_000 * MS, tasks);
        c.channels = vec![Channel::unbounded("a2b")];
        c.wakeup_cost_ns = wakeup;
        c.ipi_cost_ns = ipi;
        let out = run(&c, "eevdf-6.19");
        let wakes = out.tasks[1].wakeups;
        assert!(wakes >= 90, "busy {busy}: {wakes} wakeups");
        out.tasks[0].sum_exec_runtime_ns / wakes
    };
    assert_eq!(per_write(false), ALONE_NS + wakeup + ipi, "idle target");
    assert_eq!(
        per_write(true),
        ALONE_NS + wakeup,
        "busy target, not preempted"
    );
}

/// A preempted burst pays the switch back in: a hog that is switched out and in again loses
/// nothing of its work, and a bounded burst ends `switch_cost_ns` later per switch-in.
#[test]
fn preempted_burst_ends_later_by_the_cost() {
    // A 20 ms burst and a hog on one CPU (4 ms turns at HZ=250): the burst is switched in
    // k times and so needs 20 ms + k × cost of CPU time before the task exits.
    let cost = 100 * US;
    let mut c = cfg(
        1,
        250,
        200 * MS,
        vec![
            task(
                "burst",
                0,
                SchedPolicy::Normal,
                vec![Op::Run(Some(Dist::Fixed(20 * MS))), Op::Exit],
            ),
            hog("hog", 0),
        ],
    );
    c.switch_cost_ns = cost;
    let out = run(&c, "eevdf-6.19");
    let t = &out.tasks[0];
    let switch_ins = t.voluntary_switches + t.involuntary_switches;
    assert!(switch_ins >= 3, "{switch_ins} switch-ins");
    assert_eq!(t.sum_exec_runtime_ns, 20 * MS + switch_ins * cost);
}

/// `Channel::wait_ns`: a read that had to wait costs its reader that much CPU, charged once
/// per wait, and a read that finds its message costs nothing more. Pinned to one CPU, pong
/// waits for every request (it reads again at once after each answer, before ping can send),
/// so it pays once per round trip; each side's only waits are its reads, so each pays once
/// per block.
#[test]
fn a_read_that_waits_pays_its_wait_path_and_one_that_finds_its_message_does_not() {
    const WAIT_NS: u64 = 3_000;
    let mut c = pair(1, 1);
    c.channels[0].wait_ns = WAIT_NS;
    c.channels[1].wait_ns = WAIT_NS;
    let out = run(&c, "eevdf-6.19");
    let (ping, pong) = (&out.tasks[0], &out.tasks[1]);
    let waits = pong.voluntary_switches;
    assert!(waits > 1_000, "{waits} waits");
    assert_eq!(pong.wait_cost_ns, waits * WAIT_NS);
    assert_eq!(ping.wait_cost_ns, ping.voluntary_switches * WAIT_NS);
    // Every request read is a reply sent: the two sides read within one of each other.
    assert!(pong.reads.abs_diff(ping.reads) <= 1);
    // The cost is CPU time: pong's runtime per round trip is its work plus the wait path.
    let per = pong.sum_exec_runtime_ns / pong.reads;
    assert!(
        per.abs_diff(ALONE_NS + WAIT_NS) <= 50,
        "pong {per} ns per request"
    );
    // Without the cost nothing is charged.
    let free = run(&pair(1, 1), "eevdf-6.19");
    assert_eq!(free.tasks[1].wait_cost_ns, 0);
}

/// `cost_spread_ppm`: each charge of a cost is drawn about its mean (here σ = 10 % of a 20-µs
/// remote wakeup), from the CPU's own stream: the mean is kept, the charges vary, the same
/// seed gives the same run and another seed another, and 0 leaves the costs fixed.
#[test]
fn the_costs_spread_about_their_mean() {
    let cost = 20 * US;
    let mut c = pair(0, 1);
    c.wakeup_cost_ns = cost;
    let fixed = run(&c, "eevdf-6.19");
    c.cost_spread_ppm = 100_000;
    let spread = run(&c, "eevdf-6.19");
    let per_trip = |o: &Output| o.tasks[0].sum_exec_runtime_ns / o.tasks[1].wakeups;
    // ping pays each remote wakeup before its next op; pong answers meanwhile (see above).
    assert!(
        per_trip(&fixed).abs_diff(ALONE_NS + cost) <= 2,
        "{}",
        per_trip(&fixed)
    );
    assert!(
        per_trip(&spread).abs_diff(ALONE_NS + cost) <= (ALONE_NS + cost) / 200,
        "{} per round trip, the mean {}",
        per_trip(&spread),
        ALONE_NS + cost
    );
    // The round trips' lengths vary: the times between ping's wakeups of pong.
    let trips = |o: &Output| {
        let t: Vec<u64> = o
            .trace
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Waking { pid: 2, .. }))
            .map(|e| e.t_ns)
            .collect();
        t.windows(2)
            .map(|w| w[1] - w[0])
            .collect::<std::collections::BTreeSet<u64>>()
    };
    assert!(trips(&fixed).len() <= 3, "{:?}", trips(&fixed));
    assert!(
        trips(&spread).len() > 100,
        "{} lengths",
        trips(&spread).len()
    );
    assert_eq!(run(&c, "eevdf-6.19").trace.hash(), spread.trace.hash());
    c.seed = 2;
    assert_ne!(run(&c, "eevdf-6.19").trace.hash(), spread.trace.hash());
    c.cost_spread_ppm = 0;
    assert_eq!(run(&c, "eevdf-6.19").trace.hash(), fixed.trace.hash());
}
