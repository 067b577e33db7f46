//! Block I/O completion (`IoDevice` on a channel, `engine/io.rs`): the completion interrupt's
//! time is IRQ time, `blk_mq_complete_request` completes on the CPU QUEUE_FLAG_SAME_COMP picks,
//! a read's completion wakes the submitter from the interrupt and a write's is finished by the
//! completing CPU's kworker, which wakes the submitter.

mod common;
use common::*;
use schedlab_sim::*;

const LATENCY: u64 = 100 * US;
const HARDIRQ: u64 = 4 * US;
const CPU: u64 = 20 * US;

fn device(irq_cpu: Option<u32>, rq_affinity: u8, workqueue: Vec<u32>) -> Channel {
    Channel {
        device: Some(IoDevice {
            latency: Dist::Fixed(LATENCY),
            hardirq_ns: HARDIRQ,
            irq_cpu,
            rq_affinity,
            workqueue,
        }),
        ..Channel::unbounded("io")
    }
}

/// One job at iodepth 1 on CPU 0 (run, submit, wait), and with `kworkers` one kworker per
/// CPU reading its workqueue channel (1 + cpu) and finishing each item in 10 µs.
fn machine(cpus: u32, llc: u32, dev: Channel, kworkers: bool) -> SimConfig {
    let job = vec![Op::Run(Some(Dist::Fixed(CPU))), Op::Send(0), Op::Recv(0)];
    let mut tasks = vec![task("fio", 0, SchedPolicy::Normal, job)];
    let mut channels = vec![dev];
    if kworkers {
        for c in 0..cpus {
            let mut k = task(
                &format!("kworker-{c}"),
                0,
                SchedPolicy::Normal,
                vec![
                    Op::Recv(1 + c),
                    Op::Run(Some(Dist::Fixed(10 * US))),
                    Op::Complete,
                ],
            );
            k.affinity = vec![c];
            tasks.push(k);
            channels.push(Channel::unbounded(format!("dio{c}")));
        }
    }
    let mut c = cfg(cpus, 1000, 100 * MS, tasks);
    c.llc_size = llc;
    c.channels = channels;
    c
}

/// A read on an otherwise idle CPU: each I/O cycle is the job's CPU time, the device's latency,
/// the interrupt handler (IRQ time, charged to no task), then the wakeup's switch δ
/// (`try_to_wake_up` from the interrupt raises a reschedule of the idle CPU) — so
/// 20 + 100 + 4 + 5 = 129 µs, and the CPU's IRQ time is 4 µs per completion.
#[test]
fn a_read_completes_in_the_interrupt_on_the_submitting_cpu() {
    let c = machine(2, 0, device(None, 1, vec![]), false);
    let o = run(&c, "eevdf-6.12");
    let n = o.tasks[0].io_completions;
    let cycle = CPU + LATENCY + HARDIRQ + DELTA;
    let expect = 100 * MS / cycle;
    assert!(
        n.abs_diff(expect) <= 1,
        "{n} completions, {expect} expected"
    );
    assert_eq!(
        o.cpus[0].irq_time_ns,
        HARDIRQ * n,
        "IRQ time on the submitting CPU"
    );
    assert_eq!(o.cpus[1].irq_time_ns, 0);
    // The job never ran for its interrupts: its CPU time is its own work.
    let ran = o.tasks[0].sum_exec_runtime_ns;
    assert!(
        ran.abs_diff(CPU * (n + 1)) <= CPU,
        "ran {ran} ns for {n} I/Os"
    );
}

/// Which CPU finishes a write, as `blk_mq_complete_request_remote` decides (4 CPUs, LLCs 0-1
/// and 2-3, the job submitting from CPU 0): rq_affinity 1 completes on the interrupt's CPU
/// when it shares the submitter's LLC and IPIs the submitter otherwise; 2 always IPIs the
/// submitter; 0 never does. The completing CPU's kworker does the work; no other runs.
#[test]
fn same_comp_picks_the_completing_cpu_and_its_kworker() {
    for (irq, rq_affinity, expect) in [(1, 1, 1), (3, 1, 0), (1, 2, 0), (3, 0, 3), (0, 1, 0)] {
        let c = machine(4, 2, device(Some(irq), rq_affinity, vec![1, 2, 3, 4]), true);
        let o = run(&c, "eevdf-6.12");
        let worked: Vec<u32> = (0..4)
            .filter(|&k| o.tasks[1 + k as usize].sum_exec_runtime_ns > 0)
            .collect();
        assert_eq!(
            worked,
            vec![expect],
            "irq on CPU {irq}, rq_affinity {rq_affinity}: kworkers that ran"
        );
        let n = o.tasks[0].io_completions;
        assert!(n > 100, "{n} completions");
        // Each completion's work item was one run of the kworker.
        let k = &o.tasks[1 + expect as usize];
        assert!(
            k.wakeups.abs_diff(n) <= 1,
            "kworker woken {} times",
            k.wakeups
        );
        // The interrupt's CPU pays the handler; a completion sent to the submitter pays its
        // softirq there too.
        assert!(o.cpus[irq as usize].irq_time_ns >= HARDIRQ * n);
        if expect != irq {
            assert!(o.cpus[expect as usize].irq_time_ns >= HARDIRQ * n);
        }
    }
}

/// A write's cycle on one CPU: the job's CPU, the device, the interrupt, the kworker's wakeup
/// (δ), its 10 µs, and the job's wakeup by the kworker: a local wakeup of an eligible task
/// onto a CPU whose curr then blocks, so no further δ — 20 + 100 + 4 + 5 + 10 = 139 µs.
#[test]
fn a_write_is_finished_by_the_kworker_which_wakes_the_job() {
    let mut c = machine(1, 0, device(None, 1, vec![1]), true);
    c.tasks[0].affinity = vec![0];
    let o = run(&c, "eevdf-6.12");
    let n = o.tasks[0].io_completions;
    let expect = 100 * MS / (CPU + LATENCY + HARDIRQ + DELTA + 10 * US);
    assert!(
        n.abs_diff(expect) <= 2,
        "{n} completions, {expect} expected"
    );
    assert!(o.tasks[0].wakeups.abs_diff(n) <= 1);
    assert!(o.tasks[1].wakeups.abs_diff(n) <= 1);
}

/// A device's workqueue channel is a plain one: a polled pipe's read would take no work item,
/// so its kworker would spin and the submitter would wait forever. `SimConfig::check` refuses
/// it, as it refuses a polled channel that is also a futex word, a socket or a device.
#[test]
fn a_polled_channel_is_no_workqueue_nor_futex_socket_or_device() {
    let ok = machine(2, 0, device(None, 1, vec![1, 2]), true);
    assert!(ok.check().is_ok(), "{:?}", ok.check());
    let mut c = ok.clone();
    c.channels[1].poll = true;
    let err = c.check().unwrap_err();
    assert!(err.contains("workqueue"), "{err}");
    for set in [
        |ch: &mut Channel| ch.futex = true,
        |ch: &mut Channel| ch.wake_writer_at = Some(0),
    ] {
        let mut c = machine(2, 0, device(None, 1, vec![]), false);
        c.channels.push(Channel::unbounded("p"));
        c.tasks[0].program.push(Op::Send(1));
        let p = c.channels.last_mut().unwrap();
        p.poll = true;
        set(p);
        assert!(
            c.check()
                .unwrap_err()
                .contains("a polled channel is a pipe"),
            "{:?}",
            c.check()
        );
    }
    let mut c = machine(2, 0, device(None, 1, vec![]), false);
    c.channels[0].poll = true;
    assert!(c
        .check()
        .unwrap_err()
        .contains("a polled channel is a pipe"));
}
