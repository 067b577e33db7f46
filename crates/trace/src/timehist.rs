//! `perf sched timehist` text (`tools/perf/builtin-sched.c`, `timehist_print_sample`).
//!
//! ```text
//!            time    cpu  task name                       wait time  sch delay   run time
//!                         [tid/pid]                          (msec)     (msec)     (msec)
//! --------------- ------  ------------------------------  ---------  ---------  ---------
//!     1939.628483 [0000]  perf[1324]                          0.000      0.000      0.000
//! ```
//!
//! One line per sched-out: at `time` the task left `cpu` after running `run time` ms; before
//! that it waited `wait time` ms, of which `sch delay` was runnable. That is all the default
//! view gives, so the import is switch-level:
//!
//! - **No wakeups.** `timehist` prints them only with `-w` (`awakened: comm[tid]` lines, read
//!   here as `sched_wakeup` on the line's CPU); without them wakeup latency and the delay after
//!   a sleep cannot be measured from the import (the `sch delay` column has them, but per line,
//!   not as events).
//! - **Who came in.** The next line on the same CPU names the task that ran after; it came in
//!   at its own `time − run time`. When that is the sched-out time (±1 µs: both are printed in
//!   µs) the switch goes straight to it; otherwise the CPU was idle in between (perf does not
//!   print the idle task's lines unless `-I`), and an idle → task switch is added.
//! - **prev_state** is not printed (unless `--state`, read when present). It is inferred from
//!   the task's next line: `wait time == sch delay > 0` means it stayed runnable (preempted,
//!   `R`); anything else is taken as a sleep (`S`).
//! - **Runtime**: each line's `run time` becomes a `sched_stat_runtime` of that task (µs
//!   precision), so per-task runtimes and CPU shares are available.
//! - `-M` migration lines (`migrated: comm[tid] cpu A => B`) are read as `sched_migrate_task`;
//!   a callchain after the run time (a recording with `-g`) is ignored.

use schedlab_sim::{EventKind, Pid, PrevState};

use crate::builder::Builder;
use crate::text::{bracket_cpu, parse_ms_ns, parse_ts_ns, parse_u32, token};

/// Whether a line is timehist's header (used by format detection).
pub(crate) fn header(line: &str) -> bool {
    line.contains("task name") && line.contains("wait time") && line.contains("sch delay")
}

/// A timehist data line starts `TIME [CPU]`.
pub(crate) fn looks_like(line: &str) -> bool {
    let (t, rest) = token(line);
    let (c, _) = token(rest);
    t.contains('.') && parse_ts_ns(t).is_some() && bracket_cpu(c).is_some()
}

/// `comm[tid]` or `comm[tid/pid]` (`<idle>` for the idle task) → (comm, tid).
fn task(s: &str) -> Option<(&str, u32)> {
    let s = s.trim();
    if s == "<idle>" || s.starts_with("<idle>[") {
        return Some(("<idle>", 0));
    }
    let inner = s.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let ids = &inner[open + 1..];
    let tid = ids.split('/').next()?;
    Some((&inner[..open], parse_u32(tid)?))
}

/// The switch-out waiting for the next line on its CPU.
#[derive(Clone, Copy)]
struct Pending {
    t_ns: u64,
    /// Index of the switch event (its next_pid is filled in later).
    event: usize,
}

/// The line-by-line state.
#[derive(Default)]
pub(crate) struct Timehist {
    /// Past the header's dashes.
    in_body: bool,
    /// Per CPU: the last sched-out.
    pending: Vec<Option<Pending>>,
    /// Per model pid: its last sched-out whose state is to be inferred.
    last_out: Vec<Option<usize>>,
}

impl Timehist {
    pub(crate) fn line(&mut self, no: u64, line: &str, b: &mut Builder) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if !self.in_body {
            if trimmed.starts_with("---") {
                self.in_body = true;
                return;
            }
            if header(line) || trimmed.starts_with('[') {
                return;
            }
        }
        if trimmed.starts_with("---") || header(line) {
            return;
        }
        let (t, rest) = token(line);
        let (c, rest) = token(rest);
        let (Some(t_ns), Some(cpu)) = (parse_ts_ns(t).filter(|_| t.contains('.')), bracket_cpu(c))
        else {
            b.warn(no, line, "not a timehist line (`TIME [CPU] comm[tid] …`)");
            return;
        };
        if let Some(i) = rest.find(" awakened: ") {
            let Some((comm, real)) = task(&rest[i + 11..]) else {
                b.warn(no, line, "awakened: without comm[tid]");
                return;
            };
            let pid = b.pid(real, Some(comm), None);
            b.push(
                t_ns,
                cpu,
                EventKind::Wakeup {
                    pid,
                    target_cpu: cpu,
                },
            );
            b.read("sched_wakeup");
            return;
        }
        if let Some(i) = rest.find(" migrated: ") {
            let r = migrated(&rest[i + 11..]);
            let Some((comm, real, orig_cpu, dest_cpu)) = r else {
                b.warn(no, line, "migrated: without comm[tid] cpu A => B");
                return;
            };
            let pid = b.pid(real, Some(comm), None);
            b.push(
                t_ns,
                cpu,
                EventKind::MigrateTask {
                    pid,
                    orig_cpu,
                    dest_cpu,
                },
            );
            b.read("sched_migrate_task");
            return;
        }
        // The task column is `comm[tid]` (the comm may hold anything), then wait, delay and
        // run; after them an optional state (`--state`) and, for a recording with
        // callchains, the callchain. The first `]` followed by three numbers ends the task.
        let Some((before, wait, delay, run, state)) = columns(rest) else {
            b.warn(
                no,
                line,
                "not a timehist sched-out line (`TIME [CPU] comm[tid] WAIT DELAY RUN`)",
            );
            return;
        };
        let (run, delay, wait) = (Some(run), Some(delay), Some(wait));
        if before.ends_with("[-1]") || before.contains("[-1/") {
            // perf could not tell which thread ran (its sample had tid -1): the switch is
            // there but its task is not. The CPU's chain is broken here.
            b.warn(no, line, "perf could not name this thread (tid -1)");
            if let Some(p) = self.pending.get_mut(cpu as usize) {
                *p = None;
            }
            return;
        }
        let (Some(run), Some(delay), Some(wait), Some((comm, real))) =
            (run, delay, wait, task(before))
        else {
            b.warn(
                no,
                line,
                "not a timehist sched-out line (`TIME [CPU] comm[tid] WAIT DELAY RUN`)",
            );
            return;
        };
        if cpu >= crate::builder::MAX_CPU {
            // Before the per-CPU state below is sized by it.
            b.warn(no, line, crate::stream::bad_cpu(cpu));
            return;
        }
        let run = run.max(0) as u64;
        let pid = b.pid(real, Some(comm), None);
        let cpu_i = cpu as usize;
        if self.pending.len() <= cpu_i {
            self.pending.resize(cpu_i + 1, None);
        }
        let start = t_ns.saturating_sub(run);
        if let Some(p) = self.pending[cpu_i].take() {
            if start <= p.t_ns + 1_000 {
                set_next(b, p.event, pid);
            } else if pid != 0 {
                b.push(
                    start,
                    cpu,
                    EventKind::Switch {
                        prev_pid: 0,
                        prev_state: PrevState::Running,
                        next_pid: pid,
                    },
                );
            }
        }
        // The previous sched-out of this task: preempted if it waited only runnable.
        if pid != 0 {
            if self.last_out.len() <= pid as usize {
                self.last_out.resize(pid as usize + 1, None);
            }
            if let Some(ev) = self.last_out[pid as usize].take() {
                if wait == delay && wait > 0 {
                    set_state(b, ev, PrevState::Running);
                }
            }
            if run > 0 {
                b.push(
                    t_ns,
                    cpu,
                    EventKind::StatRuntime {
                        pid,
                        runtime_ns: run,
                    },
                );
            }
        }
        let prev_state = match state {
            Some(s) => match b.prev_state(s) {
                Some(ps) => ps,
                None => PrevState::Sleeping,
            },
            None => PrevState::Sleeping,
        };
        let event = b.events.len();
        b.push(
            t_ns,
            cpu,
            EventKind::Switch {
                prev_pid: pid,
                prev_state,
                next_pid: 0,
            },
        );
        b.read("sched_switch");
        if pid != 0 && state.is_none() {
            self.last_out[pid as usize] = Some(event);
        }
        self.pending[cpu_i] = Some(Pending { t_ns, event });
    }

    pub(crate) fn finish(&mut self, b: &mut Builder) {
        b.notes.push(
            "perf sched timehist is switch-level: no wakeup events (unless printed with -w), so \
             wakeup latency and the scheduling delay after a sleep cannot be derived; prev_state \
             is inferred (R when the next wait equals the scheduling delay); runtimes come from \
             the run-time column (the time since the CPU's previous switch); times are µs"
                .into(),
        );
    }
}

/// `comm[tid] WAIT DELAY RUN [STATE] [callchain…]` → (task, wait, delay, run, state).
fn columns(rest: &str) -> Option<(&str, i64, i64, i64, Option<&str>)> {
    let mut from = 0;
    // The idle task is printed as a bare `<idle>`.
    let idle = rest.find("<idle>").filter(|&i| rest[..i].trim().is_empty());
    let ends = idle
        .map(|i| i + 6)
        .into_iter()
        .chain(std::iter::from_fn(|| {
            let off = rest[from..].find(']')?;
            from += off + 1;
            Some(from)
        }));
    for end in ends {
        let (w, r) = token(&rest[end..]);
        let (d, r) = token(r);
        let (run, r) = token(r);
        if let (Some(w), Some(d), Some(run)) = (parse_ms_ns(w), parse_ms_ns(d), parse_ms_ns(run)) {
            if rest[end..].starts_with(' ') {
                let (st, _) = token(r);
                let state = (!st.is_empty()
                    && st.len() <= 4
                    && st
                        .bytes()
                        .all(|c| c.is_ascii_alphabetic() || c == b'+' || c == b'|'))
                .then_some(st);
                return Some((&rest[..end], w, d, run, state));
            }
        }
    }
    None
}

/// `comm[tid] cpu A => B`.
fn migrated(s: &str) -> Option<(&str, u32, u32, u32)> {
    let at = s.rfind(" cpu ")?;
    let (comm, real) = task(&s[..at])?;
    let (a, b) = s[at + 5..].split_once("=>")?;
    Some((comm, real, parse_u32(a.trim())?, parse_u32(b.trim())?))
}

fn set_next(b: &mut Builder, event: usize, next: Pid) {
    if let Some(e) = b.events.get_mut(event) {
        if let EventKind::Switch {
            prev_pid,
            prev_state,
            ..
        } = e.kind
        {
            e.kind = EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid: next,
            };
        }
    }
}

fn set_state(b: &mut Builder, event: usize, state: PrevState) {
    if let Some(e) = b.events.get_mut(event) {
        if let EventKind::Switch {
            prev_pid, next_pid, ..
        } = e.kind
        {
            e.kind = EventKind::Switch {
                prev_pid,
                prev_state: state,
                next_pid,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks() {
        assert_eq!(task("perf[1324]"), Some(("perf", 1324)));
        assert_eq!(
            task("my hog [a:1][1329/1329]"),
            Some(("my hog [a:1]", 1329))
        );
        assert_eq!(task("<idle>"), Some(("<idle>", 0)));
        assert!(looks_like(
            "    1939.628483 [0000]  perf[1324]     0.000      0.000      0.000 "
        ));
    }

    #[test]
    fn wakeup_migration_and_state_lines() {
        let text = "\
           time    cpu  task name                       wait time  sch delay   run time  state
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------  -----
    1.000000 [0000]  a b[10]                              0.000      0.000      0.000      R
    1.000100 [0000]  x[11]                               awakened: a b[10]
    1.000200 [0001]  x[11]                               migrated: a b[10] cpu 0 => 1
    1.001000 [0000]  x[11]                                0.000      0.000      1.000      S
    1.002000 [0000]  a b[10]                              2.000      1.000      1.000      D
    1.003000 [0000]  c]d[12]                              0.000      0.000      1.000      __schedule <- schedule <- do_nanosleep
";
        let imp = crate::import_bytes(text.as_bytes(), Default::default()).unwrap();
        assert_eq!(imp.format, crate::Format::PerfTimehist);
        assert_eq!(imp.warnings_total, 0, "{:?}", imp.warnings);
        assert!(imp.has_wakeups());
        assert_eq!(imp.events_read["sched_migrate_task"], 1);
        assert_eq!(imp.prev_states.len(), 3);
        assert_eq!(imp.pids[0].comm, "a b");
        assert_eq!(imp.pids[2].comm, "c]d");
        assert_eq!(imp.events_read["sched_switch"], 4);
    }
}
