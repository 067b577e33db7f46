//! Per-CPU locks (`Op::LockCpu`, `Op::UnlockCpu`), as schbench's `lock_this_cpu` takes them:
//! the lock of the CPU the task runs on, by spinning on `pthread_mutex_trylock`, so a task that
//! finds it held burns its CPU time until the holder (preempted while holding it) runs again and
//! releases it. The expectations follow from that loop and the fair class's turns, not from the
//! model's output.

mod common;
use common::*;
use schedlab_sim::*;

const MATH: u64 = 10 * MS;
const RUN: u64 = 1000 * MS;

/// A schbench-like worker: take the CPU's lock (or not), 10 ms of math, release, then a
/// 1 µs sleep, so that each finished request is one voluntary switch.
fn worker(comm: &str, cpu: u32, lock: bool) -> TaskSpec {
    let mut program = vec![];
    if lock {
        program.push(Op::LockCpu(0));
    }
    program.push(Op::Run(Some(Dist::Fixed(MATH))));
    if lock {
        program.push(Op::UnlockCpu(0));
    }
    program.push(Op::Sleep(Dist::Fixed(US)));
    let mut t = task(comm, 0, SchedPolicy::Normal, program);
    t.affinity = vec![cpu];
    t
}

fn requests(o: &Output) -> u64 {
    o.tasks.iter().map(|t| t.voluntary_switches).sum()
}

fn spun(o: &Output) -> u64 {
    o.tasks.iter().map(|t| t.spin_ns).sum()
}

/// Two workers on one CPU. Without the lock the CPU does 10 ms requests back to back: about
/// 100 in a second. With it, a worker preempted at its slice's end holds the lock, and the
/// other, switched in, spins through its whole slice: the two nice-0 workers alternate slices,
/// so about half the CPU spins and about half the requests finish. Every nanosecond of CPU is
/// either math or spinning: the CPU time less the spinning is the finished requests' math (and
/// at most the one request in progress at the end of each worker).
#[test]
fn a_worker_preempted_holding_the_lock_makes_the_other_spin_its_slice() {
    for v in ["eevdf-6.12", "cfs-6.1"] {
        let free = run(
            &cfg(
                1,
                1000,
                RUN,
                vec![worker("a", 0, false), worker("b", 0, false)],
            ),
            v,
        );
        let locked = run(
            &cfg(
                1,
                1000,
                RUN,
                vec![worker("a", 0, true), worker("b", 0, true)],
            ),
            v,
        );
        let (n_free, n_locked) = (requests(&free), requests(&locked));
        assert_eq!(spun(&free), 0, "{v}: nothing spins without the lock");
        assert!(
            (97..=100).contains(&n_free),
            "{v}: {n_free} requests without the lock"
        );
        let ratio = n_locked as f64 / n_free as f64;
        assert!(
            (0.4..=0.6).contains(&ratio),
            "{v}: {n_locked} requests with the lock, {n_free} without"
        );
        let cpu: u64 = locked.tasks.iter().map(|t| t.sum_exec_runtime_ns).sum();
        let math = cpu - spun(&locked);
        assert!(
            math >= n_locked * MATH && math <= (n_locked + 2) * MATH,
            "{v}: {math} ns of math for {n_locked} requests ({} ns spun of {cpu})",
            spun(&locked)
        );
    }
}

/// The locks are per CPU: workers on different CPUs never contend, so with one worker per CPU
/// the lock changes nothing.
#[test]
fn workers_on_different_cpus_never_spin() {
    let tasks = |lock| vec![worker("a", 0, lock), worker("b", 1, lock)];
    let free = run(&cfg(2, 1000, RUN, tasks(false)), "eevdf-6.12");
    let locked = run(&cfg(2, 1000, RUN, tasks(true)), "eevdf-6.12");
    assert_eq!(spun(&locked), 0);
    assert_eq!(requests(&locked), requests(&free));
}
