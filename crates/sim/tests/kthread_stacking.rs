//! `select_idle_sibling`'s per-CPU kthread rule (fair.c since 52262ee567ad, with `in_task()`
//! since 5.17, unchanged through 6.19): when the waker is a per-CPU kthread
//! (`is_per_cpu_kthread(current)`: PF_KTHREAD and one allowed CPU), the wakee's previous CPU is
//! the kthread's own (`prev == smp_processor_id()`) and nothing else runs there
//! (`this_rq()->nr_running <= 1`), the wakee stays on prev, even with another CPU idle: "the
//! wakee queued work for the per-cpu kthread that is now complete and the wakeup is
//! essentially a sync wakeup. An obvious example of this pattern is IO completions."
//!
//! The shape: a job on CPU 0 (then allowed CPUs 0-1) submits an I/O (`io_submit`) and waits for
//! it (`io_getevents`); the completion interrupt arrives on CPU 0 and queues the work on CPU 0's
//! bound worker, which runs 20 µs and completes it (`aio_complete` wakes the job). CPU 1 is idle
//! throughout. The job's submission wakes nobody, so nothing preempts it on its way to its wait:
//! the wakeup this checks is the worker's alone.

mod common;
use common::*;
use schedlab_sim::*;

const VARIANTS: [&str; 5] = [
    "cfs-5.14",
    "cfs-6.1",
    "eevdf-6.6",
    "eevdf-6.12",
    "eevdf-6.19",
];

fn scenario(kthread: bool) -> SimConfig {
    let mut job = task(
        "job",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(50 * US))),
            Op::Send(1),
            Op::Recv(1),
        ],
    );
    // Created on CPU 0, then allowed both CPUs (once, before its loop).
    job.program.insert(0, Op::Affinity { first: 0, last: 1 });
    let mut worker = task(
        "kworker/0:1",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Recv(0),
            Op::Run(Some(Dist::Fixed(20 * US))),
            Op::Complete,
        ],
    );
    worker.kthread = kthread;
    let mut c = cfg(2, 1000, 200 * MS, vec![job, worker]);
    let mut aio = Channel::unbounded("aio");
    // Every completion's interrupt on CPU 0, completed there (rq_affinity 0) and queued on
    // CPU 0's workqueue, whichever CPU submitted it.
    aio.device = Some(IoDevice {
        latency: Dist::Fixed(10 * US),
        hardirq_ns: 2 * US,
        irq_cpu: Some(0),
        rq_affinity: 0,
        workqueue: vec![0, 0],
    });
    c.channels = vec![Channel::unbounded("wq"), aio];
    c
}

/// The CPUs the job (pid 1) was woken onto by the worker (pid 2), in order.
fn job_wakeup_cpus(out: &Output) -> Vec<u32> {
    let mut by_worker = false;
    let mut cpus = vec![];
    for e in out.trace.events.iter() {
        match e.kind {
            EventKind::Waking { pid: 1, .. } => by_worker = e.cpu == 0,
            EventKind::Wakeup { pid: 1, target_cpu } if by_worker => cpus.push(target_cpu),
            _ => {}
        }
    }
    cpus
}

#[test]
fn a_per_cpu_kthread_alone_on_prev_keeps_its_wakee_there() {
    for v in VARIANTS {
        let out = run(&scenario(true), v);
        let cpus = job_wakeup_cpus(&out);
        assert!(cpus.len() > 1000, "{v}: {} completions", cpus.len());
        assert!(
            cpus.iter().all(|&c| c == 0),
            "{v}: every completion wakes the job on CPU 0 (the worker's), CPU 1 idle: {:?}",
            &cpus[..cpus.len().min(20)]
        );
        assert_eq!(out.tasks[0].migrations, 0, "{v}");
    }
}

#[test]
fn an_ordinary_pinned_waker_does_not_stack_its_wakee() {
    // The same worker without PF_KTHREAD: at the first completion that goes through
    // select_task_rq (under DELAY_DEQUEUE a job that blocked ineligible is still queued on CPU 0
    // and `ttwu_runnable` wakes it there), the scan finds CPU 1 idle, and the job stays there
    // (prev idle) from then on.
    for v in VARIANTS {
        let out = run(&scenario(false), v);
        let cpus = job_wakeup_cpus(&out);
        let moved = cpus.iter().position(|&c| c == 1);
        assert!(moved.is_some(), "{v}: the job leaves the worker's CPU");
        assert!(cpus[moved.unwrap()..].iter().all(|&c| c == 1), "{v}");
        assert_eq!(out.tasks[0].migrations, 1, "{v}");
    }
}
