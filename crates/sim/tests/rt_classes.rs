//! The time the classes above fair leave to fair tasks, checked against arithmetic: interrupt
//! load (IRQ time is taken from the running task and charged to nobody).

mod common;

use common::*;
use schedlab_sim::*;

const S: u64 = 1_000_000_000;

fn irq(cpu: u32, arrival: IrqArrival, cost_ns: u64) -> IrqSource {
    IrqSource {
        cpu,
        arrival,
        cost_ns,
        queue_work: None,
    }
}

/// One CPU, no tick IRQ time (irq_ns 0), so that the interrupt load is the only IRQ time.
fn one_cpu(tasks: Vec<TaskSpec>, load: Vec<IrqSource>) -> SimConfig {
    let mut c = cfg(1, 1000, S, tasks);
    c.irq_ns = 0;
    c.irq_load = load;
    c
}

#[test]
fn periodic_irq_at_ten_percent_leaves_900_ms_per_second() {
    // 100 µs every 1 ms from t = 0: 1000 handlers in 1 s, 100 ms of IRQ time. The hog's clock
    // runs from its first switch-in (δ) to 1 s, and update_rq_clock_task takes every handler's
    // time out of it (the first one's at its exit, 100 µs, after the switch-in): 1 s − δ − 100 ms.
    let c = one_cpu(
        vec![hog("hog", 0)],
        vec![irq(0, IrqArrival::Every(MS), 100 * US)],
    );
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&c, v);
        assert_eq!(out.cpus[0].irq_time_ns, 1000 * 100 * US, "{v}");
        assert_eq!(out.tasks[0].sum_exec_runtime_ns, 900 * MS - DELTA, "{v}");
    }
}

#[test]
fn irq_time_is_not_charged_to_vruntime_two_hogs_share_what_is_left() {
    let c = one_cpu(
        vec![hog("a", 0), hog("b", 0)],
        vec![irq(0, IrqArrival::Every(MS), 100 * US)],
    );
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&c, v);
        let (a, b) = (
            out.tasks[0].sum_exec_runtime_ns,
            out.tasks[1].sum_exec_runtime_ns,
        );
        // All the CPU but the IRQ time and the switches' δ goes to the two, equally (within a
        // slice: 4 ms at HZ=1000 covers CFS's 3 ms slice and EEVDF's extra tick).
        let switches = out.cpus[0].sched_count;
        assert!(
            a + b <= 900 * MS && a + b >= 900 * MS - switches * DELTA,
            "{v}: {a} + {b}"
        );
        assert!(a.abs_diff(b) <= 4 * MS, "{v}: {a} vs {b}");
    }
}

#[test]
fn poisson_irq_load_takes_its_time_and_no_more() {
    // Mean interval 1 ms, 100 µs each: about 10 %; whatever was drawn, the hog gets the rest.
    let c = one_cpu(
        vec![hog("hog", 0)],
        vec![irq(0, IrqArrival::Poisson(MS), 100 * US)],
    );
    let out = run(&c, "eevdf-6.19");
    let irq = out.cpus[0].irq_time_ns;
    assert!(
        irq % (100 * US) == 0 && (80 * MS..=120 * MS).contains(&irq),
        "{irq}"
    );
    let hog = out.tasks[0].sum_exec_runtime_ns;
    // The last handler may end after 1 s (its time counted, not all of it taken from the run).
    assert!(
        hog + irq >= S - 100 * US && hog + irq <= S + 100 * US,
        "{hog} + {irq}"
    );
    // Same seed, same draws.
    assert_eq!(run(&c, "eevdf-6.19").cpus[0].irq_time_ns, irq);
}

#[test]
fn irq_on_another_cpu_takes_nothing_here() {
    let mut c = one_cpu(vec![hog("hog", 0)], vec![]);
    c.cpus = 2;
    c.irq_load = vec![irq(1, IrqArrival::Every(MS), 500 * US)];
    let out = run(&c, "eevdf-6.12");
    assert_eq!(out.tasks[0].sum_exec_runtime_ns, S - DELTA);
    assert_eq!(out.cpus[1].irq_time_ns, 1000 * 500 * US);
}

#[test]
fn bad_irq_sources_are_rejected() {
    let mut c = one_cpu(vec![hog("hog", 0)], vec![irq(1, IrqArrival::Every(MS), US)]);
    assert!(simulate(&c, &Variant::parse("cfs-6.1").unwrap()).is_err());
    c.irq_load = vec![irq(0, IrqArrival::Every(MS), MS)];
    assert!(simulate(&c, &Variant::parse("cfs-6.1").unwrap()).is_err());
}

// ---- RT tasks, RT throttling, the fair server.

fn rt(cfg: &mut SimConfig, task: u32, policy: RtPolicy, priority: u32) {
    cfg.rt_tasks.push(RtTask {
        task,
        policy,
        priority,
    });
}

/// A SCHED_FIFO hog (priority 1) beside a nice-0 hog on one CPU, no IRQ time.
fn rt_hog_beside_fair(duration_ns: u64) -> SimConfig {
    let mut c = one_cpu(vec![hog("rt", 0), hog("fair", 0)], vec![]);
    c.duration_ns = duration_ns;
    rt(&mut c, 0, RtPolicy::Fifo, 1);
    c
}

#[test]
fn rt_throttling_gives_the_rt_hog_950_ms_per_second_and_fair_tasks_50() {
    // sched_rt_runtime_us 950000 per sched_rt_period_us 1000000, periods from the first RT
    // enqueue (t = 0): the RT hog runs from δ until rt_time reaches 950 ms, the fair hog the
    // rest of each period; each hand-over costs δ of the incoming task's wall time.
    let c = rt_hog_beside_fair(2 * S);
    for v in ["cfs-6.1", "eevdf-6.6"] {
        let out = run(&c, v);
        let (rt, fair) = (
            out.tasks[0].sum_exec_runtime_ns,
            out.tasks[1].sum_exec_runtime_ns,
        );
        assert!(rt.abs_diff(2 * 950 * MS) <= 4 * DELTA, "{v}: rt {rt}");
        assert!(fair.abs_diff(2 * 50 * MS) <= 4 * DELTA, "{v}: fair {fair}");
        // The fair hog runs at the end of each period: from 950 ms (+ δ) to 1 s.
        let st = stints(&out.trace, 2);
        assert!(st[0].0.abs_diff(950 * MS) <= 2 * DELTA, "{v}: {st:?}");
        assert!(st[0].1.abs_diff(S) <= 2 * DELTA, "{v}: {st:?}");
    }
}

#[test]
fn without_rt_throttling_the_fair_hog_starves_before_6_12() {
    let mut c = rt_hog_beside_fair(2 * S);
    c.rt_bandwidth.rt_runtime_ns = None;
    let out = run(&c, "cfs-6.1");
    assert_eq!(out.tasks[1].sum_exec_runtime_ns, 0);
    assert_eq!(out.tasks[0].sum_exec_runtime_ns, 2 * S - DELTA);
}

#[test]
fn the_fair_server_gives_fair_tasks_50_ms_per_second_from_6_12() {
    // fair_server 50 ms / 1 s, deferred: started at t = 0 with the fair hog, its zero-laxity
    // timer fires at deadline − runtime = 950 ms. There replenish_dl_entity finds 50 ms left
    // in the 50 ms to the deadline, over the server's 5 % (dl_entity_overflow): a new period
    // from 950 ms. It runs the fair hog ahead of the RT hog for 50 ms; spent at 1 s, it is
    // throttled, and the fair hog's update_curr at its switch-out (dl_server_update) defers
    // it again with a new period from 1 s: zero-laxity at 1.95 s. One 50 ms window a second,
    // at 0.95, 1.95, 2.95 s.
    let c = rt_hog_beside_fair(3 * S);
    for v in ["eevdf-6.12", "eevdf-6.19"] {
        let out = run(&c, v);
        let fair = out.tasks[1].sum_exec_runtime_ns;
        assert!(fair.abs_diff(3 * 50 * MS) <= 6 * DELTA, "{v}: fair {fair}");
        let st = stints(&out.trace, 2);
        assert!(st.len() >= 2, "{v}: {st:?}");
        for (k, &(s, e)) in st.iter().take(2).enumerate() {
            // Each hand-over's δ delays the next window's period by as much.
            let at = 950 * MS + k as u64 * S;
            assert!(s.abs_diff(at) <= 4 * DELTA, "{v}: {st:?}");
            assert!(e.abs_diff(at + 50 * MS) <= 4 * DELTA, "{v}: {st:?}");
        }
        // RT throttling is gone with the fair server: no fair task, no limit.
        let mut alone = one_cpu(vec![hog("rt", 0)], vec![]);
        rt(&mut alone, 0, RtPolicy::Fifo, 1);
        assert_eq!(
            run(&alone, v).tasks[0].sum_exec_runtime_ns,
            S - DELTA,
            "{v}"
        );
    }
}

#[test]
fn rr_tasks_of_one_priority_alternate_every_100_ms() {
    let mut c = one_cpu(vec![hog("a", 0), hog("b", 0)], vec![]);
    rt(&mut c, 0, RtPolicy::Rr, 10);
    rt(&mut c, 1, RtPolicy::Rr, 10);
    c.rt_bandwidth.rt_runtime_ns = None;
    for v in ["cfs-6.1", "eevdf-6.19"] {
        let out = run(&c, v);
        let a = stints(&out.trace, 1);
        let b = stints(&out.trace, 2);
        assert!(a.len() >= 4 && b.len() >= 4, "{v}: {a:?} {b:?}");
        for (s, e) in a.iter().chain(&b) {
            // RR_TIMESLICE of CPU time, plus the δ until the next task switches in.
            assert!((e - s).abs_diff(100 * MS) <= DELTA, "{v}: {s}..{e}");
        }
        // They alternate: each of b's stints begins where one of a's ends.
        for (s, _) in &b {
            assert!(a.iter().any(|(_, e)| e == s), "{v}: {a:?} {b:?}");
        }
    }
}

#[test]
fn fifo_runs_until_it_blocks_and_higher_priority_preempts() {
    // A priority-50 task running 1 ms every 10 ms beside a priority-10 hog: it preempts the hog
    // at once on each wakeup; the FIFO hog is never sliced otherwise.
    let mut c = one_cpu(
        vec![
            hog("low", 0),
            task(
                "high",
                0,
                SchedPolicy::Normal,
                vec![Op::Run(Some(Dist::Fixed(MS))), Op::WaitPeriod(10 * MS)],
            ),
        ],
        vec![],
    );
    rt(&mut c, 0, RtPolicy::Fifo, 10);
    rt(&mut c, 1, RtPolicy::Fifo, 50);
    c.rt_bandwidth.rt_runtime_ns = None;
    let out = run(&c, "cfs-6.1");
    let high = out.tasks[1];
    assert!(
        high.sum_exec_runtime_ns.abs_diff(100 * MS) <= 2 * MS,
        "{high:?}"
    );
    // Its wait for the CPU after each wakeup is the δ of the preemption.
    assert!(high.run_delay_ns <= high.pcount * DELTA, "{high:?}");
    assert_eq!(high.involuntary_switches, 0);
}
