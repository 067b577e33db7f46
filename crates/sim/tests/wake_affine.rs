//! `wake_affine_weight` on PELT loads (fair.c): for a sync wakeup, `this_eff` is
//! `cpu_load(this) − task_h_load(waker) + task_h_load(p)` against `prev_eff` =
//! `cpu_load(prev) − task_h_load(p)`, WA_BIAS weighting prev by 100 + (117 − 100) / 2 = 108 %.
//! `cpu_load(prev)` still holds the sleeping wakee's blocked load, which is why the kernel
//! subtracts it.

mod common;
use common::*;
use schedlab_sim::*;

fn on(mut t: TaskSpec, cpus: &[u32]) -> TaskSpec {
    t.affinity = cpus.to_vec();
    t
}

/// A hog pinned to each of two CPUs; on CPU 0 a sender pinned there runs 2 ms and writes (every
/// ~4 ms, sharing the CPU with the hog); a
/// receiver free to run on either reads and runs 10 µs. Created at 50 ms, the fork path puts
/// the receiver on CPU 1: CPU 0 (hog and sender, util past 875) is overloaded and CPU 1 (one
/// hog, util 1024 − 512·y^50 ≈ 851 < 1024 × 100/117) has spare capacity, a less busy group
/// type (`find_idlest_group`). While its load_avg is still the 1024 a new task starts with, its
/// sync wakeups stay on CPU 1: this_eff = (2048 − 1024 + 1024)·100 = 204 800 against
/// prev_eff ≈ (2048 − 1024)·108. Once it has slept most of ~100 ms its load is a few units:
/// this_eff ≈ (2048 − 1024 + ε)·100 < prev_eff ≈ (1024 + ε − ε)·108, so it is pulled to the
/// sender's CPU, and from then on every wakeup is local. (With Σ queued weights for loads,
/// prev_eff = (1024 − 1024)·108 = 0 and the receiver would never move.)
#[test]
fn a_rarely_running_wakee_joins_its_busy_waker_once_its_load_has_decayed() {
    let hog0 = on(hog("hog0", 0), &[0]);
    let hog1 = on(hog("hog1", 0), &[1]);
    let sender = on(
        task(
            "sender",
            0,
            SchedPolicy::Normal,
            vec![Op::Run(Some(Dist::Fixed(2 * MS))), Op::Send(0)],
        ),
        &[0],
    );
    let mut receiver = on(
        task(
            "receiver",
            0,
            SchedPolicy::Normal,
            vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(10 * US)))],
        ),
        &[0, 1],
    );
    receiver.start_ns = 50 * MS;
    let mut c = cfg(2, 1000, 1_000 * MS, vec![hog0, hog1, sender, receiver]);
    c.channels = vec![Channel::unbounded("c")];
    let out = run(&c, "eevdf-6.6");
    let wakeups: Vec<(u64, u32)> = out
        .trace
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Wakeup { pid: 4, target_cpu } => Some((e.t_ns, target_cpu)),
            _ => None,
        })
        .collect();
    assert!(wakeups.len() > 200, "{} wakeups", wakeups.len());
    assert_eq!(wakeups[0].1, 1, "the first wakeups stay on prev (CPU 1)");
    let moved = wakeups
        .iter()
        .find(|w| w.1 == 0)
        .expect("the receiver reaches the sender's CPU")
        .0;
    assert!(
        (50 * MS + 30 * MS..50 * MS + 300 * MS).contains(&moved),
        "pulled once its load has decayed, not at once nor never: at {moved} ns"
    );
    assert!(
        wakeups.iter().filter(|w| w.0 > moved).all(|w| w.1 == 0),
        "and every later wakeup is local"
    );
}
