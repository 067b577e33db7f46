//! Wakeup latency samples: what schbench calls "wakeup latency" (from the waker's
//! `sched_waking` to the wakee running) and the full set of delays `perf sched latency` counts.

use std::collections::BTreeMap;

use schedlab_sim::{EventKind, Pid, PrevState, Trace};

use crate::latency::run_atoms;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unknown,
    Running,
    Runnable,
    Sleeping,
}

/// Delays from a wakeup (`sched_waking`, or `sched_wakeup` when the trace has no
/// `sched_waking`, and `sched_wakeup_new`) to the wakee's next switch-in, in switch-in order.
///
/// Only wakeups of a task that is asleep (switched out in state S/X, or not yet seen) start a
/// measurement, and the first such wakeup wins; as in perf, wakeups of runnable or running
/// tasks change nothing. `pid` restricts the samples to one task; the idle task never counts.
pub fn wakeup_latencies_ns(trace: &Trace, pid: Option<Pid>) -> Vec<u64> {
    wakeup_latencies_where(trace, |p| pid.is_none_or(|want| want == p))
}

/// [`wakeup_latencies_ns`] for the wakees `keep` accepts, in one pass over the trace (the
/// samples of every accepted task, in switch-in order).
pub fn wakeup_latencies_where(trace: &Trace, keep: impl Fn(Pid) -> bool) -> Vec<u64> {
    let has_waking = trace
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let mut st: BTreeMap<Pid, (State, Option<u64>)> = BTreeMap::new();
    let mut out = Vec::new();
    fn woken(st: &mut BTreeMap<Pid, (State, Option<u64>)>, p: Pid, t: u64) {
        let s = st.entry(p).or_insert((State::Unknown, None));
        if matches!(s.0, State::Unknown | State::Sleeping) && s.1.is_none() {
            s.1 = Some(t);
        }
    }
    for e in &trace.events {
        let t = e.t_ns;
        match e.kind {
            EventKind::Waking { pid: p, .. } | EventKind::WakeupNew { pid: p, .. } => {
                woken(&mut st, p, t)
            }
            EventKind::Wakeup { pid: p, .. } if !has_waking => woken(&mut st, p, t),
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                let s = if prev_state == PrevState::Running {
                    State::Runnable
                } else {
                    State::Sleeping
                };
                st.insert(prev_pid, (s, None));
                let n = st.entry(next_pid).or_insert((State::Unknown, None));
                if let Some(w) = n.1.take() {
                    if next_pid != 0 && keep(next_pid) {
                        out.push(t.saturating_sub(w));
                    }
                }
                n.0 = State::Running;
            }
            _ => {}
        }
    }
    out
}

/// Every wait-for-CPU delay `perf sched latency` counts (wakeup → switch-in and
/// preemption → switch-in, plus the zero-length first atom of a task first seen switching
/// in), in time order, idle task excluded. Their sum over a comm equals that row's
/// `delay_sum_ns` and their number its `count`.
pub fn sched_delays_ns(trace: &Trace) -> Vec<u64> {
    let mut out = Vec::new();
    run_atoms(trace, |pid, _, d| {
        if pid != 0 && trace.comm(pid) != "swapper" {
            out.push(d);
        }
    });
    out
}
