//! Property tests over random valid scenarios (a seeded generator, so failures replay):
//! invariants after every event, determinism, conservation, the EEVDF lag bound.

mod common;
use common::*;
use schedlab_sim::rng::Rng;
use schedlab_sim::*;

/// A random valid config and variant, from `seed`.
fn random_case(seed: u64) -> (SimConfig, Variant) {
    let mut r = Rng::new(seed, 99);
    let cpus = 1 + r.below(4) as u32;
    let hz = [100, 250, 300, 1000][r.below(4) as usize];
    let nchan = r.below(3) as usize;
    let channels: Vec<Channel> = (0..nchan)
        .map(|i| {
            let mut c = Channel {
                name: format!("c{i}"),
                capacity: r.below(3),
                wake_writer_at: None,
                futex: false,
                poll: false,
                // A third of the channels are block devices completing in the interrupt (a
                // send submits, a read reaps), on a random CPU and rq_affinity.
                device: (r.below(3) == 0).then(|| IoDevice {
                    latency: Dist::Exp(1 + r.below(200_000)),
                    hardirq_ns: r.below(5_000),
                    irq_cpu: (r.below(2) == 0).then(|| r.below(cpus as u64) as u32),
                    rq_affinity: r.below(3) as u8,
                    workqueue: vec![],
                }),
                // A read that waits costs its wait path on a third of the channels.
                wait_ns: if r.below(3) == 0 { r.below(10_000) } else { 0 },
                page_msgs: 0,
            };
            // A quarter of the pipes are polled (every send wakes all waiting readers).
            c.poll = c.device.is_none() && r.below(4) == 0;
            // A third of the other bounded pipes hold pages (a writer waits for a whole one).
            if c.device.is_none() && !c.poll && c.capacity > 0 && r.below(3) == 0 {
                c.page_msgs = if c.capacity == 2 && r.below(2) == 0 {
                    2
                } else {
                    1
                };
            }
            c
        })
        .collect();
    let ntasks = 1 + r.below(7) as usize;
    let mut tasks = vec![];
    for i in 0..ntasks {
        let mut program = vec![];
        let len = 1 + r.below(4);
        for _ in 0..len {
            let d = match r.below(4) {
                0 => Dist::Fixed(1 + r.below(3 * MS)),
                1 => Dist::Exp(1 + r.below(2 * MS)),
                2 => {
                    let lo = r.below(MS);
                    Dist::Uniform(lo, lo + r.below(MS))
                }
                _ => Dist::Normal(1 + r.below(MS), r.below(MS / 2)),
            };
            program.push(match r.below(if nchan > 0 { 5 } else { 3 }) {
                0 | 1 => Op::Run(Some(d)),
                2 => Op::Sleep(d),
                3 => Op::Send(r.below(nchan as u64) as u32),
                _ => Op::Recv(r.below(nchan as u64) as u32),
            });
        }
        match r.below(10) {
            0 => program = vec![Op::Run(None)],
            1 => program.push(Op::Exit),
            _ => {}
        }
        if !program
            .iter()
            .any(|o| matches!(o, Op::Run(_) | Op::Sleep(_) | Op::Exit))
        {
            program.push(Op::Run(Some(Dist::Fixed(100 * US))));
        }
        let mut affinity: Vec<u32> = (0..cpus).filter(|_| r.below(2) == 0).collect();
        if affinity.is_empty() {
            affinity.push(r.below(cpus as u64) as u32);
        }
        let policy = match r.below(6) {
            0 => SchedPolicy::Idle,
            1 => SchedPolicy::Batch,
            _ => SchedPolicy::Normal,
        };
        tasks.push(TaskSpec {
            comm: format!("t{i}"),
            group: i as u32,
            nice: r.below(40) as i32 - 20,
            policy,
            slice_ns: (r.below(3) == 0).then(|| 50 * US + r.below(5 * MS)),
            affinity,
            program,
            start_ns: if r.below(3) == 0 { r.below(20 * MS) } else { 0 },
            kthread: r.below(4) == 0,
            daemon: false,
            cpu_clock: r.below(5) == 0,
        });
    }
    let delta = r.below(20 * US);
    let cfg = SimConfig {
        cpus,
        llc_size: 0,
        smt: 1,
        hz,
        duration_ns: 50 * MS + r.below(150 * MS),
        seed,
        switch_delay_ns: delta,
        irq_ns: r.below(delta + 1),
        idle_wakeup_ns: r.below(30 * US),
        idle_states: if r.below(2) == 0 {
            vec![]
        } else {
            vec![
                IdleState {
                    after_ns: 200 * US,
                    wakeup_ns: r.below(60 * US),
                },
                IdleState {
                    after_ns: 2 * MS,
                    wakeup_ns: r.below(200 * US),
                },
            ]
        },
        switch_cost_ns: r.below(2 * US),
        wakeup_cost_ns: r.below(2 * US),
        ipi_cost_ns: r.below(2 * US),
        local_wakeup_ns: r.below(US),
        cost_spread_ppm: r.below(50_000) as u32,
        launcher_wakee_flips: r.below(8) as u32,
        channels,
        tasks,
        record_snapshots: r.below(2) == 0,
        record_decisions: r.below(2) == 0,
        irq_load: vec![],
        cache: (r.below(3) == 0).then(|| {
            let hot_ns = r.below(50 * US);
            CacheCost {
                refill_ns: r.below(10 * US),
                migrate_ns: r.below(10 * US),
                hot_ns,
                cold_ns: hot_ns + 1 + r.below(200 * US),
            }
        }),
        cgroups: Default::default(),
        rt_tasks: vec![],
        rt_bandwidth: Default::default(),
    };
    let preset = &KERNEL_VERSIONS[r.below(KERNEL_VERSIONS.len() as u64) as usize];
    let mut items = vec![];
    for f in preset.available {
        if r.below(4) == 0 {
            items.push(if r.below(2) == 0 {
                f.name().to_string()
            } else {
                format!("NO_{}", f.name())
            });
        }
    }
    let name = if items.is_empty() {
        preset.name.to_string()
    } else {
        format!("{}:{}", preset.name, items.join(","))
    };
    let v = Variant::parse(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
    (cfg, v)
}

const CASES: u64 = 160;

#[test]
fn invariants_hold_after_every_event() {
    let mut total_steps = 0u64;
    for seed in 0..CASES {
        let (cfg, v) = random_case(seed);
        assert!(cfg.check().is_ok(), "case {seed}: {:?}", cfg.check());
        let mut sim = Simulator::new(&cfg, &v).unwrap();
        let mut steps = 0u64;
        let mut last = 0;
        while sim.step() == Status::Running {
            steps += 1;
            assert!(
                sim.now_ns() >= last,
                "case {seed} ({}): time went back",
                v.name
            );
            last = sim.now_ns();
            if let Err(e) = sim.check_invariants() {
                panic!(
                    "case {seed} ({}), event {steps} at {} ns: {e}",
                    v.name,
                    sim.now_ns()
                );
            }
            assert!(steps < 5_000_000, "case {seed}: runaway");
        }
        total_steps += steps;
        let out = sim.finish();
        // Events are in time order; no CPU runs more than the duration; the trace's runtime is
        // the tasks' sum_exec_runtime (work is accounted once).
        assert!(
            out.trace
                .events
                .iter()
                .zip(out.trace.events.iter().skip(1))
                .all(|(a, b)| a.t_ns <= b.t_ns),
            "case {seed}"
        );
        let mut per_cpu = vec![0u64; cfg.cpus as usize];
        let mut per_task = vec![0u64; cfg.tasks.len()];
        for e in &out.trace.events {
            if let EventKind::StatRuntime { pid, runtime_ns } = e.kind {
                per_cpu[e.cpu as usize] += runtime_ns;
                per_task[pid as usize - 1] += runtime_ns;
            }
        }
        assert!(
            per_cpu.iter().all(|&t| t <= cfg.duration_ns),
            "case {seed}: {per_cpu:?}"
        );
        for (i, t) in out.tasks.iter().enumerate() {
            assert_eq!(t.sum_exec_runtime_ns, per_task[i], "case {seed} task {i}");
        }
    }
    // The generator must produce real work, or this test proves nothing.
    assert!(
        total_steps > 100_000,
        "only {total_steps} events in {CASES} cases"
    );
}

#[test]
fn same_seed_same_trace() {
    for seed in 0..40 {
        let (cfg, v) = random_case(seed);
        let a = simulate(&cfg, &v).unwrap();
        let b = simulate(&cfg, &v).unwrap();
        assert_eq!(a.trace.hash(), b.trace.hash(), "case {seed}");
        assert_eq!(a.tasks, b.tasks);
    }
    // And a different seed changes a run that draws random durations.
    let (mut cfg, v) = random_case(3);
    cfg.tasks.push(task(
        "rnd",
        0,
        SchedPolicy::Normal,
        vec![Op::Run(Some(Dist::Exp(MS))), Op::Sleep(Dist::Exp(MS))],
    ));
    let a = simulate(&cfg, &v).unwrap().trace.hash();
    cfg.seed += 1;
    assert_ne!(a, simulate(&cfg, &v).unwrap().trace.hash());
}

#[test]
fn the_work_of_a_pinned_cpu_is_conserved() {
    // Hogs pinned to one CPU: the CPU is never idle, so runtime + IRQ time = the whole run
    // (the first δ excepted).
    for v in [
        "cfs-5.14",
        "cfs-6.1",
        "eevdf-6.6",
        "eevdf-6.12",
        "eevdf-6.19",
    ] {
        let c = cfg(
            4,
            1000,
            300 * MS,
            vec![hog("a", 0), hog("b", 5), idle_hog("c")],
        );
        let out = run(&c, v);
        let total: u64 = out.tasks.iter().map(|t| t.sum_exec_runtime_ns).sum();
        let ticks = 300 * MS / MS;
        let irq = ticks * DELTA;
        assert!(
            total + irq <= 300 * MS && total + irq + 2 * DELTA >= 300 * MS,
            "{v}: {total} + {irq}"
        );
    }
}

#[test]
fn equal_hogs_stay_within_the_lag_bound() {
    // EEVDF guarantees |lag| bounded by a request size (plus the tick that enforces it):
    // every snapshot's lag, in real time for nice 0, stays within slice + 2 ticks.
    for v in ["eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        for n in 2..6 {
            let mut c = cfg(
                8,
                250,
                500 * MS,
                (0..n).map(|i| hog(&format!("h{i}"), 0)).collect(),
            );
            c.record_snapshots = true;
            let out = run(&c, v);
            let slice = Variant::parse(v).unwrap().params(8).base_slice_ns as i64;
            let bound = slice + 2 * 4 * MS as i64;
            let worst = out
                .trace
                .snapshots
                .iter()
                .map(|s| s.lag.abs())
                .max()
                .unwrap();
            assert!(worst <= bound, "{v}, {n} hogs: |lag| {worst} > {bound}");
            // And they share the CPU equally (within one slice + tick each).
            let rt: Vec<u64> = out.tasks.iter().map(|t| t.sum_exec_runtime_ns).collect();
            let (mn, mx) = (rt.iter().min().unwrap(), rt.iter().max().unwrap());
            assert!(mx - mn <= slice as u64 + 8 * MS, "{v}, {n} hogs: {rt:?}");
        }
    }
}

/// Many CPUs with SMT and LLC topologies: the invariants above plus placement (a task on one
/// CPU, inside its affinity, CPUs not left idle beside waiting work longer than balancing
/// allows) hold after every event, and work does spread.
#[test]
fn many_cpu_invariants_hold_and_work_spreads() {
    let mut migrations = 0u64;
    let mut pulled = 0u64;
    for seed in 0..60u64 {
        let mut r = Rng::new(seed, 7);
        let smt = [1, 2][r.below(2) as usize];
        let cores = 1 + r.below(8) as u32;
        let cpus = smt * cores;
        let llc = if cores % 2 == 0 && r.below(2) == 0 {
            cpus / 2
        } else {
            0
        };
        let n = 1 + r.below(3 * cpus as u64) as usize;
        let tasks: Vec<TaskSpec> = (0..n)
            .map(|i| {
                let program = match r.below(4) {
                    0 => vec![Op::Run(None)],
                    // A hog that exits: its CPU goes idle beside others' queues, which only the
                    // balancer fixes.
                    3 => vec![Op::Run(Some(Dist::Fixed(r.below(100 * MS) + MS))), Op::Exit],
                    1 => vec![Op::Run(Some(Dist::Exp(2 * MS))), Op::Sleep(Dist::Exp(MS))],
                    _ => vec![
                        Op::Run(Some(Dist::Fixed(300 * US))),
                        Op::Sleep(Dist::Uniform(0, 3 * MS)),
                    ],
                };
                let affinity = if r.below(4) == 0 {
                    let a: Vec<u32> = (0..cpus).filter(|_| r.below(2) == 0).collect();
                    if a.is_empty() {
                        vec![0]
                    } else {
                        a
                    }
                } else {
                    (0..cpus).collect()
                };
                TaskSpec {
                    comm: format!("t{i}"),
                    group: 0,
                    nice: r.below(11) as i32 - 5,
                    policy: if r.below(8) == 0 {
                        SchedPolicy::Idle
                    } else {
                        SchedPolicy::Normal
                    },
                    slice_ns: None,
                    affinity,
                    program,
                    start_ns: r.below(10 * MS),
                    kthread: false,
                    daemon: false,
                    cpu_clock: false,
                }
            })
            .collect();
        let mut c = cfg(cpus, [250, 1000][r.below(2) as usize], 150 * MS, tasks);
        c.llc_size = llc;
        c.smt = smt;
        c.seed = seed;
        let v =
            Variant::parse(KERNEL_VERSIONS[r.below(KERNEL_VERSIONS.len() as u64) as usize].name)
                .unwrap();
        let mut sim = Simulator::new(&c, &v).unwrap();
        while sim.step() == Status::Running {
            if let Err(e) = sim.check_invariants() {
                panic!(
                    "seed {seed} ({}, {cpus} cpus, smt {smt}, llc {llc}) at {} ns: {e}",
                    v.name,
                    sim.now_ns()
                );
            }
        }
        let out = sim.finish();
        migrations += out.tasks.iter().map(|t| t.migrations).sum::<u64>();
        pulled += out.cpus.iter().map(|c| c.lb_pulled).sum::<u64>();
        // More runnable hogs than CPUs, all free: every CPU gets work.
        let hogs_everywhere = c
            .tasks
            .iter()
            .filter(|t| t.program == vec![Op::Run(None)] && t.affinity.len() == cpus as usize)
            .count();
        if hogs_everywhere >= cpus as usize {
            for cpu in 0..cpus {
                let busy: u64 = out
                    .trace
                    .events
                    .iter()
                    .filter(|e| e.cpu == cpu)
                    .filter_map(|e| match e.kind {
                        EventKind::StatRuntime { runtime_ns, .. } => Some(runtime_ns),
                        _ => None,
                    })
                    .sum();
                assert!(
                    busy > 100 * MS,
                    "seed {seed}: cpu {cpu} only busy {busy} ns with {hogs_everywhere} free hogs"
                );
            }
        }
    }
    assert!(
        migrations > 100,
        "only {migrations} migrations: placement never moved anything"
    );
    assert!(pulled > 20, "the balancer pulled only {pulled} tasks");
}
