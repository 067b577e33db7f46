//! What a recording shows of the machine it was made on: its HZ, and what a wakeup onto an
//! idle CPU from another CPU costs there. A derived scenario takes both from the recording
//! (`derive_scenario`), so that its simulation runs on the recorded machine's tick and pays its
//! wakeup cost rather than the defaults'.
//!
//! - **HZ.** `task_tick_fair` calls `update_curr` on every tick, and `update_curr` emits
//!   `sched_stat_runtime`: a task running through several ticks gets one event per tick, so
//!   the gaps between its consecutive events on one CPU, with no switch between them, are the
//!   tick period (other `update_curr` calls, a wakeup's or a system call's, only make shorter
//!   gaps). The HZ whose period most gaps equal is the machine's. A recording without
//!   `sched_stat_runtime` still shows the tick where it preempts: switches of a running task
//!   (prev_state R) with no wakeup onto that CPU just before happen at tick edges, and the
//!   kernel's ticks are aligned across CPUs (`skew_tick=0`), so their times fall at one phase
//!   of the tick period: the longest candidate period at which four in five of them fall
//!   within a twentieth of it is taken. (A task that
//!   shares its CPU switches at every tick, so its events show no run through two ticks.)
//! - **The idle wakeup.** A wakeup from another CPU onto an idle one (the wakee the first task
//!   switched in on a CPU that ran the idle task when `sched_waking` fired, on another CPU:
//!   wakees queued behind it wait for it too) waits for the IPI
//!   and the idle exit before the switch; the median of those waits, less the model's δ
//!   (`DEFAULT_SWITCH_DELAY_NS`, which every reschedule pays; or the recording's own δ,
//!   below), is the scenario's `idle_wakeup_ns`.
//! - **δ, the switch delay.** A wakeup fired on the CPU it wakes the task on, while another
//!   task computes there (a timer's interrupt over a CPU loop; not a task that wakes it from
//!   a system call, which is preempted at the call's return), that preempts that task at once
//!   raises a reschedule that takes effect at the interrupt's return: the wait from
//!   `sched_waking` to the switch from the preempted task (prev_state R) to the wakee is the
//!   path from the interrupt to `__schedule`, tracing included, which is the scenario's
//!   `switch_delay_ns`. Waits of [`MAX_DELTA_NS`] or more are left out: the wakee waited for
//!   a tick or a slice's end, not for its own reschedule.

use std::collections::BTreeMap;

use schedlab_sim::{EventKind, Pid, Trace};

/// The HZ values the model takes (CONFIG_HZ choices).
const CANDIDATES: [u32; 4] = [100, 250, 300, 1000];

/// The fewest samples either estimate needs.
pub const MIN_SAMPLES: usize = 20;

/// δ as the scenario format defaults it (ns): the switch delay every reschedule pays.
const DELTA_NS: u64 = 5_000;

/// The longest wait taken for a wakeup's own reschedule when δ is read off a recording (ns).
pub const MAX_DELTA_NS: u64 = 500_000;

/// The least CPU time per block of a task whose wakeups of others are taken for interrupts'
/// when δ is read off a recording (ns): a CPU loop blocks at most ten times a second.
const VICTIM_RUN_NS: u64 = 100_000_000;

/// The period of `hz` in ns.
fn period_ns(hz: u32) -> u64 {
    1_000_000_000 / hz as u64
}

/// An estimate and what it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate<T> {
    /// The value read.
    pub value: T,
    /// How it was read, for the derived scenario's notes.
    pub how: String,
}

/// The recording's HZ, from its `sched_stat_runtime` gaps or else its tick-edge preemptions;
/// `None` when neither shows it (fewer than [`MIN_SAMPLES`] samples, or no candidate fits).
pub fn estimate_hz(t: &Trace) -> Option<Estimate<u32>> {
    from_stat_runtime(t).or_else(|| from_preemptions(t))
}

fn from_stat_runtime(t: &Trace) -> Option<Estimate<u32>> {
    // Per CPU: the pid and time of its last sched_stat_runtime since the last switch.
    let mut last: BTreeMap<u32, (Pid, u64)> = BTreeMap::new();
    let mut gaps = vec![];
    for e in t.events.iter() {
        match e.kind {
            EventKind::Switch { .. } => {
                last.remove(&e.cpu);
            }
            EventKind::StatRuntime { pid, .. } if pid != 0 => {
                if let Some((p, at)) = last.insert(e.cpu, (pid, e.t_ns)) {
                    if p == pid {
                        gaps.push(e.t_ns.saturating_sub(at));
                    }
                }
            }
            _ => {}
        }
    }
    // A gap matches a period within 2 % (timer and timestamp jitter).
    let matches = |hz: u32| {
        let p = period_ns(hz);
        gaps.iter().filter(|&&g| g.abs_diff(p) * 50 <= p).count()
    };
    let (hz, n) = CANDIDATES
        .iter()
        .map(|&hz| (hz, matches(hz)))
        .max_by_key(|&(hz, n)| (n, hz))?;
    (n >= MIN_SAMPLES && n * 4 >= gaps.len()).then(|| Estimate {
        value: hz,
        how: format!(
            "{n} of {} gaps between a running task's consecutive sched_stat_runtime events (the tick's update_curr) are {:.2} ms",
            gaps.len(),
            period_ns(hz) as f64 / 1e6
        ),
    })
}

fn from_preemptions(t: &Trace) -> Option<Estimate<u32>> {
    // The last wakeup aimed at each CPU, to leave out wakeup preemptions.
    let mut woken_at: BTreeMap<u32, u64> = BTreeMap::new();
    let mut times = vec![];
    for e in t.events.iter() {
        match e.kind {
            EventKind::Waking { target_cpu, .. } | EventKind::Wakeup { target_cpu, .. } => {
                woken_at.insert(target_cpu, e.t_ns);
            }
            // A wakeup that moves its task (`set_task_cpu` in `try_to_wake_up`).
            EventKind::MigrateTask { dest_cpu, .. } => {
                woken_at.insert(dest_cpu, e.t_ns);
            }
            EventKind::Switch {
                prev_pid,
                prev_state: schedlab_sim::PrevState::Running,
                next_pid,
            } if prev_pid != 0 && next_pid != 0 => {
                let recent = woken_at
                    .get(&e.cpu)
                    .is_some_and(|&w| e.t_ns.saturating_sub(w) < 200_000);
                if !recent {
                    times.push(e.t_ns);
                }
            }
            _ => {}
        }
    }
    if times.len() < MIN_SAMPLES {
        return None;
    }
    // How many of the times fall in the busiest window of a twentieth of `p` at one phase
    // (circularly), in integers so that native and wasm builds decide alike.
    let gathered = |p: u64| {
        let w = p / 20;
        let mut ph: Vec<u64> = times.iter().map(|&x| x % p).collect();
        ph.sort_unstable();
        let n = ph.len();
        let (mut best, mut j) = (0, 0);
        for i in 0..n {
            // Phases in [ph[i], ph[i] + w], wrapping past p.
            while j < i + n && (ph[j % n] + if j >= n { p } else { 0 }) - ph[i] <= w {
                j += 1;
            }
            best = best.max(j - i);
        }
        best
    };
    // Every multiple of the period is also a multiple of its divisors, so the longest period
    // at which the times gather (four in five within a twentieth of it) is the tick's.
    let mut by_period: Vec<u32> = CANDIDATES.to_vec();
    by_period.sort_by_key(|&hz| period_ns(hz));
    by_period.reverse();
    let n = times.len();
    by_period
        .into_iter()
        .map(|hz| (hz, gathered(period_ns(hz))))
        .find(|&(_, k)| k * 5 >= n * 4)
        .map(|(hz, k)| Estimate {
            value: hz,
            how: format!(
                "{k} of {n} preemptions with no wakeup just before fall within {:.2} ms of one phase of {:.2} ms",
                period_ns(hz) as f64 / 20e6,
                period_ns(hz) as f64 / 1e6
            ),
        })
}

/// The recording's cost of a wakeup onto an idle CPU from another one, beyond δ: the median
/// wait from `sched_waking` to the switch-in of such wakeups, less the default δ. `None` with
/// fewer than [`MIN_SAMPLES`] of them.
pub fn estimate_idle_wakeup(t: &Trace) -> Option<Estimate<u64>> {
    estimate_idle_wakeup_beyond(t, None)
}

/// As [`estimate_idle_wakeup`], less `delta`, the recording's own δ
/// ([`estimate_switch_delay`]) where it has one.
pub fn estimate_idle_wakeup_beyond(t: &Trace, delta: Option<u64>) -> Option<Estimate<u64>> {
    let mut running: BTreeMap<u32, Pid> = BTreeMap::new();
    // Each CPU's last switch (its state since is known): a wakee counts only if the CPU was
    // idle when `sched_waking` fired and it is the first task the CPU switched to after it
    // (not one queued behind another wakee).
    let mut last_switch: BTreeMap<u32, u64> = BTreeMap::new();
    // A wakee's pending wakeup: when, and on which CPU `sched_waking` fired.
    let mut pending: BTreeMap<Pid, (u64, u32)> = BTreeMap::new();
    let mut waits = vec![];
    for e in t.events.iter() {
        match e.kind {
            EventKind::Waking { pid, .. } if pid != 0 => {
                pending.insert(pid, (e.t_ns, e.cpu));
            }
            EventKind::Switch { next_pid, .. } => {
                let since = last_switch.insert(e.cpu, e.t_ns);
                let was_idle = since.is_some() && !running.contains_key(&e.cpu);
                if next_pid == 0 {
                    running.remove(&e.cpu);
                } else {
                    running.insert(e.cpu, next_pid);
                    if let Some((at, from)) = pending.remove(&next_pid) {
                        let first = since.is_some_and(|q| q <= at);
                        if from != e.cpu && was_idle && first {
                            waits.push(e.t_ns.saturating_sub(at));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if waits.len() < MIN_SAMPLES {
        return None;
    }
    waits.sort_unstable();
    let p50 = waits[waits.len() / 2];
    let which = if delta.is_some() {
        "the recording's δ"
    } else {
        "δ"
    };
    let delta = delta.unwrap_or(DELTA_NS);
    Some(Estimate {
        value: p50.saturating_sub(delta),
        how: format!(
            "the median wait of {} wakeups from another CPU onto an idle one is {:.1} µs, less {which} ({:.1} µs)",
            waits.len(),
            p50 as f64 / 1e3,
            delta as f64 / 1e3
        ),
    })
}

/// The recording's δ: the median wait from `sched_waking` to the switch of a wakeup fired on
/// the wakee's CPU while another task that computes ran there (an interrupt's), which that
/// task was switched out for at once (prev_state R, within [`MAX_DELTA_NS`]).
/// `None` with fewer than [`MIN_SAMPLES`] of them.
pub fn estimate_switch_delay(t: &Trace) -> Option<Estimate<u64>> {
    // A task that wakes another from a system call (a pipe's write, a futex) is preempted at
    // the call's return, not at an interrupt's. Only wakeups fired over a task that computes
    // for at least `VICTIM_RUN_NS` of CPU time per block count (a CPU loop, not a task that
    // blocks in its system calls), and only of wakees it never woke onto another CPU: an
    // interrupt fires on the CPU the wakee's timer or device chose, where the task it
    // interrupts just happens to run, while a task that wakes another itself (`node`'s
    // threads by futex, hackbench's senders that never fill a socket) also wakes it
    // elsewhere.
    let mut running: BTreeMap<u32, (Pid, u64)> = BTreeMap::new();
    let mut cpu: BTreeMap<Pid, (u64, u64)> = BTreeMap::new();
    let mut remote: std::collections::BTreeSet<(Pid, Pid)> = Default::default();
    for e in t.events.iter() {
        match e.kind {
            EventKind::Waking {
                pid, target_cpu, ..
            } if target_cpu != e.cpu => {
                if let Some(&(curr, _)) = running.get(&e.cpu) {
                    remote.insert((curr, pid));
                }
            }
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                if let Some((p, since)) = running.remove(&e.cpu) {
                    let c = cpu.entry(p).or_default();
                    c.0 = c.0.saturating_add(e.t_ns.saturating_sub(since));
                    c.1 +=
                        u64::from(p == prev_pid && prev_state == schedlab_sim::PrevState::Sleeping);
                }
                if next_pid != 0 {
                    running.insert(e.cpu, (next_pid, e.t_ns));
                }
            }
            _ => {}
        }
    }
    let computes = |p: Pid| {
        cpu.get(&p)
            .is_some_and(|&(ns, blocks)| ns >= VICTIM_RUN_NS.saturating_mul(blocks + 1))
    };
    let mut running: BTreeMap<u32, Pid> = BTreeMap::new();
    // A wakee's pending wakeup, where it fired on its own target CPU over a running task:
    // when, and that task.
    let mut pending: BTreeMap<Pid, (u64, Pid)> = BTreeMap::new();
    let mut waits = vec![];
    for e in t.events.iter() {
        match e.kind {
            EventKind::Waking {
                pid, target_cpu, ..
            } if pid != 0 => match running.get(&e.cpu) {
                Some(&curr)
                    if target_cpu == e.cpu
                        && curr != pid
                        && computes(curr)
                        && !remote.contains(&(curr, pid)) =>
                {
                    pending.insert(pid, (e.t_ns, curr));
                }
                _ => {
                    pending.remove(&pid);
                }
            },
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                if let Some((at, curr)) = pending.remove(&next_pid) {
                    let wait = e.t_ns.saturating_sub(at);
                    if prev_pid == curr
                        && prev_state == schedlab_sim::PrevState::Running
                        && wait < MAX_DELTA_NS
                    {
                        waits.push(wait);
                    }
                }
                if next_pid == 0 {
                    running.remove(&e.cpu);
                } else {
                    running.insert(e.cpu, next_pid);
                }
            }
            _ => {}
        }
    }
    if waits.len() < MIN_SAMPLES {
        return None;
    }
    waits.sort_unstable();
    let p50 = waits[waits.len() / 2];
    Some(Estimate {
        value: p50,
        how: format!(
            "the median wait of {} wakeups fired on their wakee's CPU over a CPU loop (100 ms of CPU or more per block, never waking it elsewhere) that preempted the loop at once is {:.1} µs",
            waits.len(),
            p50 as f64 / 1e3
        ),
    })
}
