//! The cache-warmth cost (`SimConfig::cache`): expectations computed by hand from the ramp's
//! definition (nothing up to `hot_ns` of foreign run time, `refill_ns` from `cold_ns` on,
//! linear between; `migrate_ns` on another CPU), and off means no change at all.

mod common;
use common::*;
use schedlab_sim::*;

const COST: CacheCost = CacheCost {
    refill_ns: 10 * US,
    migrate_ns: 30 * US,
    hot_ns: 20 * US,
    cold_ns: 120 * US,
};

/// The ramp at its corners and in between, by hand.
#[test]
fn ramp_by_hand() {
    assert_eq!(COST.ramp(0), 0);
    assert_eq!(COST.ramp(20 * US), 0);
    // 10 µs × (70 − 20) / (120 − 20) = 5 µs.
    assert_eq!(COST.ramp(70 * US), 5 * US);
    // 10 µs × 1 ns / 100 µs = 0.1 ns, rounded down.
    assert_eq!(COST.ramp(20 * US + 1), 0);
    // 10 000 × 99 999 / 100 000 = 9 999.9.
    assert_eq!(COST.ramp(120 * US - 1), 9_999);
    assert_eq!(COST.ramp(120 * US), 10 * US);
    assert_eq!(COST.ramp(5_000 * MS), 10 * US);
}

/// A ping-pong pair pinned to CPU 0: ping works `p` ns and wakes pong; pong (the neighbour)
/// works `f` ns and replies. No IRQ time, so a run's wall time is its CPU time.
fn pair(p: u64, f: u64, cache: Option<CacheCost>) -> SimConfig {
    let ping = vec![Op::Run(Some(Dist::Fixed(p))), Op::Send(0), Op::Recv(1)];
    let pong = vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(f))), Op::Send(1)];
    let mut c = cfg(
        1,
        250,
        100 * MS,
        vec![
            task("ping", 0, SchedPolicy::Normal, ping),
            task("pong", 0, SchedPolicy::Normal, pong),
        ],
    );
    c.irq_ns = 0;
    c.channels = vec![Channel::unbounded("a2b"), Channel::unbounded("b2a")];
    c.cache = cache;
    c
}

/// Ping resumes after pong's 70 µs (plus pong's own cost): pong resumes after ping's 10 µs
/// plus ping's cost. With ping's cost c ≤ refill = 10 µs, pong's foreign time is at most
/// 20 µs = hot, so pong pays 0, and ping pays ramp(70 µs) = 5 µs at every resume: every run of
/// ping after its first lasts 15 µs, every run of pong 70 µs.
#[test]
fn pinned_pair_pays_the_ramp_computed_by_hand() {
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&pair(10 * US, 70 * US, Some(COST)), v);
        let ping = runs(&out.trace, 1, 1);
        // Pong's first run is its first recv, which blocks at once.
        let pong = runs(&out.trace, 2, 1);
        assert!(ping.len() > 1000, "{v}: {} runs", ping.len());
        let odd = |v: &[u64], want: u64| v.iter().copied().find(|&r| r != want);
        assert_eq!(odd(&ping, 15 * US), None, "{v}: a run of ping");
        assert_eq!(odd(&pong, 70 * US), None, "{v}: a run of pong");
        let resumes = stints(&out.trace, 1).len() as u64 - 1;
        // A stint still running at the end may have paid too (it is not in `stints`).
        let paid = out.tasks[0].cache_cost_ns;
        assert!(
            paid == 5 * US * resumes || paid == 5 * US * (resumes + 1),
            "{v}: ping paid {paid} for {resumes} resumes"
        );
        assert_eq!(out.tasks[1].cache_cost_ns, 0, "{v}");
    }
}

/// Past `cold_ns` a resume costs `refill_ns` exactly; below `hot_ns` nothing.
#[test]
fn cold_and_hot_ends() {
    let out = run(&pair(10 * US, 200 * US, Some(COST)), "eevdf-6.19");
    assert!(runs(&out.trace, 1, 1).iter().all(|&r| r == 20 * US));
    let out = run(&pair(10 * US, 15 * US, Some(COST)), "eevdf-6.19");
    assert!(runs(&out.trace, 1, 1).iter().all(|&r| r == 10 * US));
    assert_eq!(out.tasks[0].cache_cost_ns, 0);
}

/// The same pair split across two CPUs: nothing else runs where either resumes, so neither
/// pays.
#[test]
fn split_pair_resumes_hot() {
    let mut c = pair(10 * US, 70 * US, Some(COST));
    c.cpus = 2;
    c.tasks[1].affinity = vec![1];
    let out = run(&c, "eevdf-6.19");
    assert!(out.tasks[1].wakeups > 100);
    assert_eq!(out.tasks[0].cache_cost_ns + out.tasks[1].cache_cost_ns, 0);
}

/// With the ramp at 0 (refill 0), every charge is a migration: `migrate_ns` times the
/// switch-ins on another CPU than the task's previous run, read off the trace.
#[test]
fn migration_pays_migrate_ns() {
    let m = 7 * US;
    let cost = CacheCost {
        refill_ns: 0,
        migrate_ns: m,
        hot_ns: 0,
        cold_ns: 1,
    };
    let sleeper = |name: &str| {
        let mut t = task(
            name,
            0,
            SchedPolicy::Normal,
            vec![
                Op::Run(Some(Dist::Uniform(100 * US, 900 * US))),
                Op::Sleep(Dist::Exp(500 * US)),
            ],
        );
        t.affinity = vec![0, 1];
        t
    };
    let mut c = cfg(
        2,
        250,
        300 * MS,
        vec![sleeper("a"), sleeper("b"), sleeper("c"), sleeper("d")],
    );
    c.cache = Some(cost);
    let out = run(&c, "eevdf-6.19");
    let mut moved_total = 0;
    for pid in 1..=4u32 {
        let mut last = None;
        let mut moved = 0u64;
        for e in &out.trace.events {
            if let EventKind::Switch { next_pid, .. } = e.kind {
                if next_pid == pid {
                    if last.is_some_and(|l| l != e.cpu) {
                        moved += 1;
                    }
                    last = Some(e.cpu);
                }
            }
        }
        assert_eq!(
            out.tasks[pid as usize - 1].cache_cost_ns,
            m * moved,
            "pid {pid}"
        );
        moved_total += moved;
    }
    assert!(moved_total > 20, "only {moved_total} migrations");
}

/// A cost of zero everywhere gives the trace of no cost at all, and the measured cost changes
/// the pair's runs.
#[test]
fn off_is_identical() {
    let zero = CacheCost {
        refill_ns: 0,
        migrate_ns: 0,
        hot_ns: 0,
        cold_ns: 1,
    };
    let mut c = pair(10 * US, 70 * US, None);
    c.cpus = 2;
    c.tasks[0].affinity = vec![0, 1];
    c.tasks.push(hog("hog", 0));
    c.tasks[2].affinity = vec![0, 1];
    for v in ["cfs-6.1", "eevdf-6.19"] {
        let none = run(&c, v);
        let mut z = c.clone();
        z.cache = Some(zero);
        let zero = run(&z, v);
        assert_eq!(none.trace.events, zero.trace.events, "{v}");
        z.cache = Some(MEASURED_CACHE_COST);
        let measured = run(&z, v);
        assert_ne!(none.trace.events, measured.trace.events, "{v}");
    }
}

/// The engine rejects a ramp that does not rise.
#[test]
fn check_rejects_bad_ramps() {
    let mut c = pair(10 * US, 70 * US, None);
    c.cache = Some(CacheCost {
        hot_ns: 5,
        cold_ns: 5,
        ..COST
    });
    assert!(c.check().unwrap_err().contains("hot_ns"));
    c.cache = Some(CacheCost {
        refill_ns: limits::MAX_CACHE_COST_NS + 1,
        ..COST
    });
    assert!(c.check().is_err());
}
