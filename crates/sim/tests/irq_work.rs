//! An interrupt whose handler queues a work item for its CPU's bound kworker
//! (`IrqSource::queue_work`), as `queue_work_on` does (kernel/workqueue.c): the item's
//! WORK_STRUCT_PENDING bit is set when it is queued and cleared by `process_one_work` before the
//! function runs; queueing an item that is still pending does nothing; the worker runs every
//! item it finds before it sleeps (`worker_thread`).

mod common;

use common::*;
use schedlab_sim::*;

const S: u64 = 1_000_000_000;

/// One CPU: a kworker that runs `item_ns` per work item read from channel 0, and an interrupt
/// every `every_ns` (1 µs of IRQ time) that queues its item there; no tick IRQ time.
fn kworker_cfg(every_ns: u64, item_ns: u64, mut others: Vec<TaskSpec>) -> SimConfig {
    let kworker = task(
        "kworker",
        0,
        SchedPolicy::Normal,
        vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(item_ns)))],
    );
    let mut tasks = vec![kworker];
    tasks.append(&mut others);
    let mut c = cfg(1, 1000, S, tasks);
    c.irq_ns = 0;
    c.channels = vec![Channel::unbounded("events0")];
    c.irq_load = vec![IrqSource {
        cpu: 0,
        arrival: IrqArrival::Every(every_ns),
        cost_ns: US,
        queue_work: Some(0),
    }];
    c
}

/// Work items the kworker ran: its CPU time over the item's cost (every item costs the same).
fn items(out: &Output, item_ns: u64) -> u64 {
    out.tasks[0].sum_exec_runtime_ns / item_ns
}

#[test]
fn every_interrupt_queues_an_item_when_the_kworker_keeps_up() {
    // One interrupt a millisecond from t = 0, its item done 10 µs (+ δ) later: all 1000 run.
    let c = kworker_cfg(MS, 10 * US, vec![]);
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&c, v);
        assert_eq!(items(&out, 10 * US), 1000, "{v}");
        assert_eq!(out.cpus[0].irq_time_ns, 1000 * US, "{v}");
    }
}

#[test]
fn an_item_still_pending_is_not_queued_again() {
    // An interrupt every 100 µs queues a 10 µs item. A SCHED_FIFO task holds the CPU for
    // 50 ms of every 100 ms: the 500 interrupts of each such half find the item pending after
    // the first and queue nothing, so the kworker runs one item for them; in the other half
    // it keeps up (500 items). About 10 × (500 + 1) in 1 s, where a queue of every interrupt's
    // item would run all 10 000.
    let rt = task(
        "fifo",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(50 * MS))),
            Op::Sleep(Dist::Fixed(50 * MS)),
        ],
    );
    let mut c = kworker_cfg(100 * US, 10 * US, vec![rt]);
    c.rt_tasks.push(RtTask {
        task: 1,
        policy: RtPolicy::Fifo,
        priority: 50,
    });
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.19"] {
        let out = run(&c, v);
        let n = items(&out, 10 * US);
        assert!((4950..=5050).contains(&n), "{v}: {n} items");
    }
}

#[test]
fn queue_work_must_name_a_channel_only_interrupts_write() {
    let mut c = kworker_cfg(MS, 10 * US, vec![]);
    c.irq_load[0].queue_work = Some(3);
    assert!(c.check().is_err());
    let mut c = kworker_cfg(
        MS,
        10 * US,
        vec![task(
            "writer",
            0,
            SchedPolicy::Normal,
            vec![Op::Send(0), Op::Sleep(Dist::Fixed(MS))],
        )],
    );
    let err = c.check().unwrap_err();
    assert!(err.contains("queue_work"), "{err}");
    c.tasks.pop();
    c.irq_load[0].queue_work = None;
    assert!(c.check().is_ok());
}
