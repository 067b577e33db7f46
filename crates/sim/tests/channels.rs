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
