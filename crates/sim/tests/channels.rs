//! Who a read wakes among the writers blocked on a full channel, as the kernel's wait queues
//! decide it: a pipe's `pipe_read` wakes one writer (`pipe_write` waits exclusively, FIFO);
//! a unix socket's `unix_write_space` wakes every writer (`sock_wait_for_wmem` waits with
//! `prepare_to_wait`, not exclusive, at the head of the queue, so the latest waiter first),
//! and only once `unix_writable` (at most a quarter of the buffer in use).

mod common;
use common::*;
use schedlab_sim::*;

/// One reader (1 ms of work per message) and three writers that write every 10 µs of
/// their own work (a program repeats when it ends), all on CPU 0, on a channel of 4 messages: the writers fill it and block, one after the other.
fn writers_and_reader(wake_writer_at: Option<u64>) -> Output {
    let mut ch = Channel::unbounded("c");
    ch.capacity = 4;
    ch.wake_writer_at = wake_writer_at;
    let reader = task(
        "reader",
        0,
        SchedPolicy::Normal,
        vec![Op::Run(Some(Dist::Fixed(MS))), Op::Recv(0)],
    );
    let writer = || {
        let work = Op::Run(Some(Dist::Fixed(10 * US)));
        task("writer", 0, SchedPolicy::Normal, vec![work, Op::Send(0)])
    };
    let mut c = cfg(1, 1000, 30 * MS, vec![reader, writer(), writer(), writer()]);
    c.channels = vec![ch];
    run(&c, "eevdf-6.6")
}

/// The writers' pids in the order they first blocked (switched out sleeping).
fn block_order(o: &Output) -> Vec<u32> {
    let mut order = vec![];
    for e in &o.trace.events {
        if let EventKind::Switch {
            prev_pid,
            prev_state: PrevState::Sleeping,
            ..
        } = e.kind
        {
            if prev_pid != 1 && !order.contains(&prev_pid) {
                order.push(prev_pid);
            }
        }
    }
    order
}

/// The pids woken (`sched_waking`) at the first instant a writer is woken.
fn first_writer_wakeups(o: &Output) -> Vec<u32> {
    let waking = |e: &Event| match e.kind {
        EventKind::Waking { pid, .. } if pid != 1 => Some(pid),
        _ => None,
    };
    let t = o
        .trace
        .events
        .iter()
        .find(|e| waking(e).is_some())
        .expect("a writer is woken")
        .t_ns;
    o.trace
        .events
        .iter()
        .filter(|e| e.t_ns == t)
        .filter_map(|e| waking(&e))
        .collect()
}

#[test]
fn a_pipe_read_wakes_the_longest_waiting_writer_only() {
    let o = writers_and_reader(None);
    let order = block_order(&o);
    assert_eq!(order.len(), 3, "{order:?}");
    assert_eq!(first_writer_wakeups(&o), vec![order[0]]);
}

#[test]
fn a_socket_read_at_a_quarter_wakes_every_writer_latest_first() {
    let o = writers_and_reader(Some(1));
    let mut order = block_order(&o);
    assert_eq!(order.len(), 3, "{order:?}");
    order.reverse();
    assert_eq!(first_writer_wakeups(&o), order);
    // Not before the read that leaves one message: the reader's third read, 3 ms in (its
    // first read comes after 1 ms of work, each next one after another).
    let t = o
        .trace
        .events
        .iter()
        .find(|e| matches!(e.kind, EventKind::Waking { pid, .. } if pid != 1))
        .unwrap()
        .t_ns;
    assert!(
        (3 * MS..4 * MS).contains(&t),
        "first writer woken at {t} ns"
    );
}

/// A pipe polled rather than read (`Channel::poll`, hackbench's start pipe): `poll_wait`
/// adds each poller at the head of the pipe's wait queue, non-exclusively, and `pipe_write`
/// wakes the queue from its head, so one write wakes every poller, the latest to wait first;
/// the byte stays, so a poll after it returns at once.
#[test]
fn a_write_wakes_every_poller_latest_first_and_the_pipe_stays_readable() {
    let mut start = Channel::unbounded("start");
    start.capacity = 4;
    start.poll = true;
    // Three pollers that wait after 10, 20 and 30 µs of work, poll again after 100 µs more
    // and exit; main writes once after 1 ms.
    let poller = |k: u64| {
        let program = vec![
            Op::Run(Some(Dist::Fixed(10 * k * US))),
            Op::Recv(0),
            Op::Run(Some(Dist::Fixed(100 * US))),
            Op::Recv(0),
            Op::Exit,
        ];
        task("poller", 0, SchedPolicy::Normal, program)
    };
    let main = task(
        "main",
        0,
        SchedPolicy::Normal,
        vec![Op::Run(Some(Dist::Fixed(MS))), Op::Send(0), Op::Exit],
    );
    let mut c = cfg(
        1,
        1000,
        10 * MS,
        vec![poller(1), poller(2), poller(3), main],
    );
    c.channels = vec![start];
    let o = run(&c, "eevdf-6.6");
    // The pollers in the order they waited (switched out sleeping).
    let mut order: Vec<u32> = vec![];
    for e in &o.trace.events {
        if let EventKind::Switch {
            prev_pid,
            prev_state: PrevState::Sleeping,
            ..
        } = e.kind
        {
            if !order.contains(&prev_pid) {
                order.push(prev_pid);
            }
        }
    }
    assert_eq!(order.len(), 3, "{order:?}");
    order.reverse();
    let woken: Vec<u32> = o
        .trace
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Waking { pid, .. } => Some(pid),
            _ => None,
        })
        .collect();
    assert_eq!(
        woken, order,
        "one write wakes all three, the latest poller first"
    );
    // Each blocked once: the second poll found the byte still there.
    let sleeps = |pid: u32| {
        o.trace
            .events
            .iter()
            .filter(|e| {
                matches!(e.kind, EventKind::Switch { prev_pid, prev_state: PrevState::Sleeping, .. } if prev_pid == pid)
            })
            .count()
    };
    for p in order {
        assert_eq!(sleeps(p), 1, "poller {p} waited once");
    }
}
