//! SIS_UTIL (fair.c, v6.0+): `select_idle_cpu` scans at most `sd_llc_shared->nr_idle_scan`
//! CPUs of the LLC, which the LLC domain's periodic balance sets from the LLC's PELT util
//! (`update_idle_cpu_scan`): with x = Σ util / llc_weight,
//! nr_idle_scan = (1024 − min(x² · 117² / (10000 · 1024), 1024)) · llc_weight / 1024.
//! Three of four CPUs busy gives x ≈ 768 (or more), 1024 − 788 = 236, 236 · 4 / 1024 = 0: no
//! scan at all, so a wakee whose previous CPU is busy stays there even though a CPU is idle.
//! Without SIS_UTIL (and without SIS_PROP, which 6.1+ leave off) the scan covers the LLC.

mod common;
use common::*;
use schedlab_sim::*;

fn on(mut t: TaskSpec, cpus: &[u32]) -> TaskSpec {
    t.affinity = cpus.to_vec();
    t
}

/// Hogs pinned to CPUs 0–2 for the whole run and one on CPU 3 for the first 400 ms; a periodic
/// task (1 ms run, 9 ms sleep) free to run anywhere, started after the hogs, so it shares a
/// busy CPU. After CPU 3's hog exits, how does the periodic task reach CPU 3?
fn scenario() -> SimConfig {
    let mut hog3 = on(hog("hog3", 0), &[3]);
    hog3.program = vec![Op::Run(Some(Dist::Fixed(400 * MS))), Op::Exit];
    let mut periodic = on(
        task(
            "periodic",
            0,
            SchedPolicy::Normal,
            vec![
                Op::Run(Some(Dist::Fixed(MS))),
                Op::Sleep(Dist::Fixed(9 * MS)),
            ],
        ),
        &[0, 1, 2, 3],
    );
    periodic.start_ns = 50 * MS;
    cfg(
        4,
        250,
        1_000 * MS,
        vec![
            on(hog("hog0", 0), &[0]),
            on(hog("hog1", 0), &[1]),
            on(hog("hog2", 0), &[2]),
            hog3,
            periodic,
        ],
    )
}

const PERIODIC: u32 = 5;

/// The periodic task's moves to another CPU after 400 ms: (time, CPU, at a wakeup). A
/// `sched_migrate_task` while the task sleeps is its wakeup's placement (`select_task_rq`); one
/// while it is runnable is the balancer's.
fn moves(out: &Output) -> Vec<(u64, u32, bool)> {
    let mut asleep = false;
    let mut moves = Vec::new();
    for e in &out.trace.events {
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state: PrevState::Sleeping,
                ..
            } if prev_pid == PERIODIC => asleep = true,
            EventKind::Wakeup { pid, .. } if pid == PERIODIC => asleep = false,
            EventKind::MigrateTask { pid, dest_cpu, .. }
                if pid == PERIODIC && e.t_ns > 400 * MS =>
            {
                moves.push((e.t_ns, dest_cpu, asleep))
            }
            _ => {}
        }
    }
    moves
}

#[test]
fn without_sis_util_the_wakeup_scan_finds_the_idle_cpu() {
    let out = run(&scenario(), "eevdf-6.6:NO_SIS_UTIL");
    let m = moves(&out);
    let first = m.first().expect("the periodic task reaches CPU 3");
    assert_eq!(first.1, 3, "{m:?}");
    assert!(first.2, "by a wakeup (select_idle_cpu found CPU 3): {m:?}");
    assert!(
        first.0 < 400 * MS + 10 * MS + DELTA,
        "at its first wakeup after CPU 3 went idle: {m:?}"
    );
}

/// With SIS_UTIL the LLC stays ≥ 75 % busy (x ≥ 768, nr_idle_scan = 0) for the whole run,
/// so no wakeup scans for CPU 3: every move of the periodic task after 400 ms, if any, is the
/// balancer's (whether the balancer moves it depends on how often it waits queued, which
/// differs between CFS's sleeper credit and EEVDF).
#[test]
fn with_sis_util_a_busy_llc_is_not_scanned() {
    for variant in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&scenario(), variant);
        let m = moves(&out);
        assert!(
            m.iter().all(|x| !x.2),
            "{variant}: no wakeup moves the task (nr_idle_scan is 0): {m:?}"
        );
        let wakeups = out
            .trace
            .events
            .iter()
            .filter(|e| {
                e.t_ns > 400 * MS
                    && matches!(e.kind, EventKind::Wakeup { pid, .. } if pid == PERIODIC)
            })
            .count();
        assert!(wakeups > 50, "{variant}: {wakeups} wakeups after 400 ms");
    }
}

#[test]
fn cfs_5_14_has_no_sis_util() {
    let err = Variant::parse("cfs-5.14:NO_SIS_UTIL")
        .unwrap_err()
        .to_string();
    assert!(err.contains("SIS_UTIL"), "{err}");
    assert!(Variant::parse("cfs-6.1:NO_SIS_UTIL").is_ok());
}

/// With SMT (two CPUs a core: {0, 1}, {2, 3}) the same busy LLC: a task whose previous CPU
/// is 2 wakes onto its idle sibling, CPU 3. `select_idle_sibling` (6.1–6.19): "if
/// (!has_idle_core && cpus_share_cache(prev, target)) { i = select_idle_smt(p, sd, prev); ... }"
/// before `select_idle_cpu`, so SIS_UTIL's nr_idle_scan of 0 does not stop it. The periodic
/// task is held on CPU 2 for 30 periods, until about 360–380 ms (its affinity, then `sched_setaffinity` to 2–3
/// while it runs there, which leaves it on CPU 2); CPU 3's hog exits at 400 ms.
#[test]
fn an_idle_smt_sibling_of_prev_is_taken_whatever_sis_util_allows() {
    let mut c = scenario();
    c.smt = 2;
    let p = &mut c.tasks[PERIODIC as usize - 1];
    p.affinity = vec![2];
    p.program = vec![
        Op::Run(Some(Dist::Fixed(MS))),
        Op::Sleep(Dist::Fixed(9 * MS)),
        Op::Loop {
            start: 0,
            times: 30,
        },
        Op::Affinity { first: 2, last: 3 },
        Op::Run(Some(Dist::Fixed(MS))),
        Op::Sleep(Dist::Fixed(9 * MS)),
    ];
    for variant in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let out = run(&c, variant);
        let m = moves(&out);
        let first = m.first().expect("the periodic task reaches CPU 3");
        assert_eq!(first.1, 3, "{variant}: {m:?}");
        assert!(first.2, "{variant}: by a wakeup (select_idle_smt): {m:?}");
        // CPU 3's hog (pid 4) exits after its 400 ms of CPU time (a little later in wall
        // time: the ticks' interrupts are not its).
        let idle_from = out
            .trace
            .events
            .iter()
            .find(|e| {
                matches!(
                    e.kind,
                    EventKind::Switch {
                        prev_pid: 4,
                        prev_state: PrevState::Dead,
                        ..
                    }
                )
            })
            .map_or(u64::MAX, |e| e.t_ns);
        let woken = out
            .trace
            .events
            .iter()
            .find(|e| {
                e.t_ns > idle_from
                    && matches!(e.kind, EventKind::Wakeup { pid, .. } if pid == PERIODIC)
            })
            .map(|e| e.t_ns);
        assert!(
            woken.is_some_and(|w| first.0 <= w),
            "{variant}: at its first wakeup after CPU 3 went idle ({woken:?}): {m:?}"
        );
        // Once there it stays: its previous CPU is idle at every wakeup.
        assert_eq!(m.len(), 1, "{variant}: {m:?}");
    }
}
