//! Helpers shared by the sim's integration tests: build configs, read run/wait lengths off a
//! trace the way one reads them off `perf sched timehist`.
#![allow(dead_code)]

use schedlab_sim::*;

pub const MS: u64 = 1_000_000;
pub const US: u64 = 1_000;
/// δ used by the checks: "a few µs".
pub const DELTA: u64 = 5 * US;

pub fn task(comm: &str, nice: i32, policy: SchedPolicy, program: Vec<Op>) -> TaskSpec {
    TaskSpec {
        comm: comm.into(),
        group: 0,
        nice,
        policy,
        slice_ns: None,
        affinity: vec![0],
        program,
        start_ns: 0,
        kthread: false,
        daemon: false,
        cpu_clock: false,
    }
}

pub fn hog(comm: &str, nice: i32) -> TaskSpec {
    task(comm, nice, SchedPolicy::Normal, vec![Op::Run(None)])
}

pub fn idle_hog(comm: &str) -> TaskSpec {
    task(comm, 0, SchedPolicy::Idle, vec![Op::Run(None)])
}

pub fn cfg(cpus: u32, hz: u32, duration_ns: u64, tasks: Vec<TaskSpec>) -> SimConfig {
    SimConfig {
        cpus,
        llc_size: 0,
        smt: 1,
        hz,
        duration_ns,
        seed: 1,
        switch_delay_ns: DELTA,
        irq_ns: DELTA,
        idle_wakeup_ns: 0,
        idle_states: vec![],
        switch_cost_ns: 0,
        wakeup_cost_ns: 0,
        ipi_cost_ns: 0,
        local_wakeup_ns: 0,
        cost_spread_ppm: 0,
        launcher_wakee_flips: 0,
        channels: vec![],
        tasks,
        record_snapshots: false,
        record_decisions: false,
        irq_load: vec![],
        cache: None,
        cgroups: Default::default(),
        rt_tasks: vec![],
        rt_bandwidth: Default::default(),
    }
}

pub fn run(c: &SimConfig, variant: &str) -> Output {
    simulate(c, &Variant::parse(variant).unwrap()).unwrap()
}

/// (start, end) of every stint of `pid` on a CPU, from sched_switch events; a stint still
/// running at the end is dropped.
pub fn stints(tr: &Trace, pid: Pid) -> Vec<(u64, u64)> {
    let mut out = vec![];
    let mut start = None;
    for e in &tr.events {
        if let EventKind::Switch {
            prev_pid, next_pid, ..
        } = e.kind
        {
            if prev_pid == pid {
                if let Some(s) = start.take() {
                    out.push((s, e.t_ns));
                }
            }
            if next_pid == pid {
                start = Some(e.t_ns);
            }
        }
    }
    out
}

/// Run lengths of `pid`, skipping the first `skip` (warm-up).
pub fn runs(tr: &Trace, pid: Pid, skip: usize) -> Vec<u64> {
    stints(tr, pid)
        .iter()
        .skip(skip)
        .map(|(s, e)| e - s)
        .collect()
}

/// Gaps between consecutive stints of `pid`, skipping the first `skip`.
pub fn waits(tr: &Trace, pid: Pid, skip: usize) -> Vec<u64> {
    let s = stints(tr, pid);
    s.windows(2).skip(skip).map(|w| w[1].0 - w[0].1).collect()
}

/// Wakeup latencies of `pid`: sched_waking → switch-in.
pub fn wakeup_latencies(tr: &Trace, pid: Pid) -> Vec<u64> {
    let mut out = vec![];
    let mut woke = None;
    for e in &tr.events {
        match e.kind {
            EventKind::Waking { pid: p, .. } if p == pid => woke = Some(e.t_ns),
            EventKind::Switch { next_pid, .. } if next_pid == pid => {
                if let Some(w) = woke.take() {
                    out.push(e.t_ns - w);
                }
            }
            _ => {}
        }
    }
    out
}

pub fn all_within(v: &[u64], lo: u64, hi: u64) -> bool {
    !v.is_empty() && v.iter().all(|&x| x >= lo && x <= hi)
}

pub fn fmt_ms(v: &[u64]) -> String {
    let parts: Vec<String> = v
        .iter()
        .take(12)
        .map(|x| format!("{:.3}", *x as f64 / 1e6))
        .collect();
    format!(
        "[{}{}] ms",
        parts.join(", "),
        if v.len() > 12 { ", …" } else { "" }
    )
}
