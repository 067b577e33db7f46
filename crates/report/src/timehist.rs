//! `perf sched timehist` default view: one line per sched-out, with the task's wait time, its
//! scheduling delay and how long it just ran (`timehist_sched_change_event`,
//! `timehist_update_runtime_stats`, `timehist_sched_wakeup_event`, `timehist_print_sample`).

use std::collections::BTreeMap;

use schedlab_sim::{EventKind, Pid, PrevState, Trace};

use crate::cfmt::{lpad, rpad, truncate_bytes, ts_usec};

/// One sched-out line of `perf sched timehist`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimehistLine {
    /// Time of the `sched_switch` (the task's sched-out), ns.
    pub t_ns: u64,
    /// CPU of the switch.
    pub cpu: u32,
    /// The task switched out (`prev_pid`); 0 for the idle task.
    pub pid: Pid,
    /// Its comm; `"<idle>"` for the idle task, as perf names it.
    pub comm: String,
    /// `dt_sleep + dt_iowait + dt_preempt`: from its previous sched-out to this stint's
    /// sched-in (0 if it has no previous sched-out), ns.
    pub wait_ns: u64,
    /// `dt_delay`: from the wakeup (or the preempting sched-out) to this stint's sched-in, ns.
    pub sch_delay_ns: u64,
    /// `dt_run`: from the previous `sched_switch` on this CPU to this one, ns.
    pub run_ns: u64,
}

/// perf's per-thread `struct thread_runtime` (the fields the default view needs).
#[derive(Clone, Copy, Debug, Default)]
struct Runtime {
    /// Last sched-out (`last_time`).
    last_time: Option<u64>,
    /// `ready_to_run`: the first wakeup since it slept, or its sched-out if preempted.
    ready_to_run: Option<u64>,
}

/// The sched-out lines of `perf sched timehist`, in trace order.
///
/// Like perf, a switch with no earlier switch on its CPU gives a line of zeros, the idle task
/// is tracked per CPU, and `sched_wakeup` is ignored when the trace has `sched_waking`. Unlike
/// perf, which uses 0 as "unset", an event at exactly t = 0 counts as a real time.
pub fn timehist_lines(trace: &Trace) -> Vec<TimehistLine> {
    let has_waking = trace
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let mut tasks: BTreeMap<Pid, Runtime> = BTreeMap::new();
    let mut idle: BTreeMap<u32, Runtime> = BTreeMap::new();
    let mut cpu_last: BTreeMap<u32, u64> = BTreeMap::new();
    let mut lines = Vec::new();
    for e in &trace.events {
        let t = e.t_ns;
        match e.kind {
            EventKind::Waking { pid, .. } | EventKind::WakeupNew { pid, .. } => {
                woken(&mut tasks, pid, t)
            }
            EventKind::Wakeup { pid, .. } if !has_waking => woken(&mut tasks, pid, t),
            EventKind::Switch {
                prev_pid,
                prev_state,
                ..
            } => {
                let tr = if prev_pid == 0 {
                    idle.entry(e.cpu).or_default()
                } else {
                    tasks.entry(prev_pid).or_default()
                };
                let (mut wait, mut delay, mut run) = (0, 0, 0);
                if let Some(&tprev) = cpu_last.get(&e.cpu) {
                    run = t.saturating_sub(tprev);
                    if let Some(ready) = tr.ready_to_run {
                        // "time travel" (ready > tprev) leaves the delay at 0.
                        if ready <= tprev {
                            delay = tprev - ready;
                        }
                    }
                    if let Some(last) = tr.last_time {
                        if last <= tprev {
                            wait = tprev - last;
                        }
                    }
                }
                lines.push(TimehistLine {
                    t_ns: t,
                    cpu: e.cpu,
                    pid: prev_pid,
                    comm: if prev_pid == 0 {
                        "<idle>".to_string()
                    } else {
                        trace.comm(prev_pid).to_string()
                    },
                    wait_ns: wait,
                    sch_delay_ns: delay,
                    run_ns: run,
                });
                tr.last_time = Some(t);
                tr.ready_to_run = (prev_state == PrevState::Running).then_some(t);
                cpu_last.insert(e.cpu, t);
            }
            _ => {}
        }
    }
    lines
}

/// `timehist_sched_wakeup_event`: the first wakeup since the task last slept.
fn woken(tasks: &mut BTreeMap<Pid, Runtime>, pid: Pid, t: u64) {
    if pid == 0 {
        return; // perf looks pid 0 up as a machine thread, not the per-CPU idle threads
    }
    let tr = tasks.entry(pid).or_default();
    if tr.ready_to_run.is_none() {
        tr.ready_to_run = Some(t);
    }
}

/// perf's `print_sched_time(ns, width)`: `"%*lu.%03lu "` of truncated ms and µs.
fn sched_time(ns: u64, width: usize) -> String {
    let ms = ns / 1_000_000;
    let us = (ns % 1_000_000) / 1_000;
    format!("{}.{:03} ", lpad(&ms.to_string(), width), us)
}

const DASHES: &str = "------------------------------";

/// The text of `perf sched timehist` (default options, no callchains) for these lines: the
/// three header lines, then `"%15s [%04d]  %-*s  wait  delay  run \n"` per line. The task
/// column starts 30 wide and, as in perf, widens for good once a longer `comm[tid]` is seen.
pub fn format_timehist(_trace: &Trace, lines: &[TimehistLine]) -> String {
    let mut out = String::new();
    out.push_str(&format!("{} {} ", lpad("time", 15), lpad("cpu", 6)));
    out.push_str(&format!(
        " {}  {}  {}  {}\n",
        rpad("task name", 30),
        lpad("wait time", 9),
        lpad("sch delay", 9),
        lpad("run time", 9)
    ));
    out.push_str(&format!("{} {} ", lpad("", 15), rpad("", 6)));
    out.push_str(&format!(
        " {}  {}  {}  {}\n",
        rpad("[tid/pid]", 30),
        lpad("(msec)", 9),
        lpad("(msec)", 9),
        lpad("(msec)", 9)
    ));
    out.push_str(&format!("{} {} ", &DASHES[..15], &DASHES[..6]));
    out.push_str(&format!(
        " {}  {}  {}  {}\n",
        &DASHES[..30],
        &DASHES[..9],
        &DASHES[..9],
        &DASHES[..9]
    ));
    let mut comm_width = 30;
    for l in lines {
        // timehist_get_commstr: "%s" for pid 0, else "%s[%d]", into a 32-byte buffer.
        let full = if l.pid == 0 {
            l.comm.clone()
        } else {
            format!("{}[{}]", l.comm, l.pid as i32)
        };
        let commstr = truncate_bytes(&full, 31);
        comm_width = comm_width.max(commstr.len());
        out.push_str(&format!(
            "{} [{:04}] ",
            lpad(&ts_usec(l.t_ns), 15),
            l.cpu as i32
        ));
        out.push_str(&format!(" {} ", rpad(commstr, comm_width)));
        out.push_str(&sched_time(l.wait_ns, 6));
        out.push_str(&sched_time(l.sch_delay_ns, 6));
        out.push_str(&sched_time(l.run_ns, 6));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_perf() {
        let text = format_timehist(&Trace::default(), &[]);
        let want = "           time    cpu  task name                       wait time  sch delay   run time\n\
                    \x20                       [tid/pid]                          (msec)     (msec)     (msec)\n\
                    --------------- ------  ------------------------------  ---------  ---------  ---------\n";
        assert_eq!(text, want);
    }

    #[test]
    fn print_sched_time_truncates() {
        assert_eq!(sched_time(12_500_999, 6), "    12.500 ");
        assert_eq!(sched_time(999, 6), "     0.000 ");
        assert_eq!(sched_time(1_234_567_000_000, 6), "1234567.000 ");
    }

    #[test]
    fn long_comm_widens_the_column_for_later_lines() {
        let line = |pid: Pid, comm: &str| TimehistLine {
            t_ns: 1_000,
            cpu: 0,
            pid,
            comm: comm.into(),
            wait_ns: 0,
            sch_delay_ns: 0,
            run_ns: 0,
        };
        let long = "abcdefghijklmnopqrstuvwxyz0123456789";
        let text = format_timehist(
            &Trace::default(),
            &[line(1, "a"), line(7, long), line(2, "b")],
        );
        let body: Vec<&str> = text.lines().skip(3).collect();
        assert_eq!(body[0].len(), 23 + 32 + 33);
        // truncated to 31 bytes: "abc...0123" (no pid)
        assert!(body[1].contains(" abcdefghijklmnopqrstuvwxyz01234 "));
        assert_eq!(body[2].len(), 23 + 33 + 33);
    }
}
