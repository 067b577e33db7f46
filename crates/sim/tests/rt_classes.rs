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
