//! ftrace text: the tracefs `trace` file and `trace-cmd report`.
//!
//! ```text
//! # tracer: nop                                   (the trace file's header, `#P:N` = CPUs)
//!           <idle>-0       [001] d..2.  2147.595633: sched_switch: prev_comm=…   (trace file)
//! cpus=2                                          (trace-cmd report's first line)
//!             bash-9651  [000]  2147.595633: sched_switch:         bash:9651 [120] S ==> rcu_preempt:15 [120]
//!     bash-9651    0d..2.  2147.595549: sched_wakeup_new:     bash:9653 [120] CPU:001   (report -l)
//! ```
//!
//! The head is `comm-pid`, optionally `(tgid)`, then the CPU as `[NNN]`, or fused with the
//! latency flags (`irqs-off`, `need-resched`, `hardirq/softirq`, `preempt-depth`,
//! `migrate-disable`) as `trace-cmd report -l` prints them (`0d..2.`), or followed by those
//! flags in their own column (the trace file). trace-cmd's sched plugin prints `sched_switch`
//! and the wakeups in a short form (`comm:pid [prio] S ==> comm:pid [prio]`, `comm:pid [prio]
//! CPU:001`); both forms are read. `CPU:N [LOST K EVENTS]` lines are counted.

use schedlab_sim::EventKind;

use crate::builder::Builder;
use crate::text::{
    bracket_cpu, find_ts, last_token, lead_u64, parse_ts_ns, parse_u32, parse_u64, token,
};
use crate::tracepoint;

/// Whether a line looks like an ftrace event line (used by format detection): a timestamp
/// followed by an `event:` token with no subsystem, after a `comm-pid` head.
pub(crate) fn looks_like(line: &str) -> bool {
    let Some((ts0, ts1)) = find_ts(line) else {
        return false;
    };
    let (ev, _) = token(&line[ts1 + 1..]);
    let Some(ev) = ev.strip_suffix(':') else {
        return false;
    };
    !ev.is_empty() && !ev.contains(':') && head(&line[..ts0]).is_some()
}

/// Whether a header line says the text is ftrace's.
pub(crate) fn header(line: &str) -> bool {
    line.starts_with("# tracer:") || cpus_line(line).is_some()
}

fn cpus_line(line: &str) -> Option<u32> {
    parse_u32(line.trim_end().strip_prefix("cpus=")?)
}

/// `comm-pid [(tgid)] CPU [flags]` → (comm, pid, cpu).
fn head(h: &str) -> Option<(&str, u32, u32)> {
    let (mut last, mut rest) = last_token(h);
    // Latency flags in their own column, or fused with the CPU (`0d..2.`).
    let cpu = if let Some(c) = bracket_cpu(last) {
        c
    } else {
        let digits = last.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits < last.len() && !last.contains('-') {
            // trace-cmd report -l: CPU then flags.
            parse_u32(&last[..digits])?
        } else {
            // The trace file: flags after a bracketed CPU.
            (last, rest) = last_token(rest);
            bracket_cpu(last)?
        }
    };
    let mut rest = rest.trim_end();
    // `(  tgid)` when the tgid option is on.
    if rest.ends_with(')') {
        rest = rest[..rest.rfind('(')?].trim_end();
    }
    let dash = rest.rfind('-')?;
    let pid = parse_u32(&rest[dash + 1..])?;
    Some((rest[..dash].trim_start(), pid, cpu))
}

/// The line-by-line state.
#[derive(Default)]
pub(crate) struct Ftrace {
    seen_event: bool,
}

impl Ftrace {
    pub(crate) fn line(&mut self, no: u64, line: &str, b: &mut Builder) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            if let Some(p) = trimmed.split("#P:").nth(1) {
                if let Some((n, _)) = lead_u64(p) {
                    b.cpus_hint = u32::try_from(n).ok();
                }
            }
            return;
        }
        if let Some(n) = cpus_line(trimmed) {
            b.cpus_hint = Some(n);
            return;
        }
        if let Some(i) = trimmed.find("[LOST ") {
            if let Some((n, _)) = lead_u64(&trimmed[i + 6..]) {
                b.lost_events += n;
                return;
            }
        }
        let Some((ts0, ts1)) = find_ts(line) else {
            // trace-cmd prints a few lines before the events (`version = 6`, `CPU 1 is
            // empty`); after the first event, a line without a timestamp is a bad line.
            if self.seen_event {
                b.warn(
                    no,
                    line,
                    "not an ftrace event line (no `SECONDS.MICROS:` timestamp)",
                );
            }
            return;
        };
        let Some(t_ns) = parse_ts_ns(&line[ts0..ts1]) else {
            b.warn(no, line, "timestamp out of range");
            return;
        };
        let Some((_comm, _pid, cpu)) = head(&line[..ts0]) else {
            b.warn(no, line, "no `comm-pid [CPU]` before the timestamp");
            return;
        };
        self.seen_event = true;
        let (ev, body) = token(&line[ts1 + 1..]);
        let Some(name) = ev.strip_suffix(':') else {
            b.warn(no, line, "no `event:` after the timestamp");
            return;
        };
        if !tracepoint::known(name) {
            b.skip(name);
            return;
        }
        let body = body.trim();
        let r = if name == "sched_switch" && !body.starts_with("prev_comm=") {
            plugin_switch(b, body, t_ns, cpu)
        } else if name.starts_with("sched_wak") && !body.starts_with("comm=") {
            plugin_wakeup(b, name, body, t_ns, cpu)
        } else {
            tracepoint::apply(b, name, body, t_ns, cpu)
        };
        if let Err(e) = r {
            b.warn(no, line, e);
        }
    }
}

/// `comm:pid [prio]` from the end of `s`: (comm, pid, prio, what precedes).
fn comm_pid_prio(s: &str) -> Option<(&str, u32, Option<i64>)> {
    let s = s.trim();
    let (s, prio) = match s.strip_suffix(']') {
        Some(r) => {
            let open = r.rfind('[')?;
            let prio = r[open + 1..].trim();
            let prio = match prio.strip_prefix('-') {
                Some(p) => -(parse_u64(p)? as i64),
                None => parse_u64(prio)? as i64,
            };
            (r[..open].trim_end(), Some(prio))
        }
        None => (s, None),
    };
    let colon = s.rfind(':')?;
    Some((&s[..colon], parse_u32(&s[colon + 1..])?, prio))
}

/// trace-cmd's sched plugin: `prev_comm:prev_pid [prio] STATE ==> next_comm:next_pid [prio]`.
fn plugin_switch(b: &mut Builder, body: &str, t_ns: u64, cpu: u32) -> Result<(), &'static str> {
    const BAD: &str = "sched_switch without `comm:pid [prio] STATE ==> comm:pid [prio]`";
    let (left, right) = body.split_once(" ==> ").ok_or(BAD)?;
    let (state, left) = last_token(left);
    let (pc, pp, pprio) = comm_pid_prio(left).ok_or(BAD)?;
    let (nc, np, nprio) = comm_pid_prio(right).ok_or(BAD)?;
    b.switch(t_ns, cpu, (pc, pp, pprio), state, (nc, np, nprio))?;
    b.read("sched_switch");
    Ok(())
}

/// trace-cmd's sched plugin: `comm:pid [prio] [success=1] CPU:NNN`.
fn plugin_wakeup(
    b: &mut Builder,
    name: &str,
    body: &str,
    t_ns: u64,
    cpu: u32,
) -> Result<(), &'static str> {
    const BAD: &str = "wakeup without `comm:pid [prio] CPU:NNN`";
    let at = body.rfind(" CPU:").ok_or(BAD)?;
    let target_cpu = parse_u32(body[at + 5..].trim()).ok_or(BAD)?;
    let mut left = body[..at].trim_end();
    if let Some(i) = left.rfind(" success=") {
        left = &left[..i];
    }
    let (comm, real, prio) = comm_pid_prio(left).ok_or(BAD)?;
    let kind = match name {
        "sched_wakeup_new" => EventKind::WakeupNew {
            pid: b.new_task(real, Some(comm), prio),
            target_cpu,
        },
        "sched_waking" => EventKind::Waking {
            pid: b.pid(real, Some(comm), prio),
            target_cpu,
        },
        _ => EventKind::Wakeup {
            pid: b.pid(real, Some(comm), prio),
            target_cpu,
        },
    };
    b.push(t_ns, cpu, kind);
    b.read(name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        assert_eq!(
            head("            bash-9651  [000]  "),
            Some(("bash", 9651, 0))
        );
        assert_eq!(head("    bash-9651    0d..2.  "), Some(("bash", 9651, 0)));
        assert_eq!(
            head("          <idle>-0       [001] d..2.  "),
            Some(("<idle>", 0, 1))
        );
        assert_eq!(
            head("  my hog [a:1]-12 (   12) [001] ....  "),
            Some(("my hog [a:1]", 12, 1))
        );
        assert_eq!(
            head(" kworker/u8:0-ev-12     [001] d..2.  "),
            Some(("kworker/u8:0-ev", 12, 1))
        );
    }

    #[test]
    fn plugin_forms() {
        assert_eq!(
            comm_pid_prio("my hog [a:1]:1329 [120]"),
            Some(("my hog [a:1]", 1329, Some(120)))
        );
        assert!(looks_like(
            "            bash-9651  [000]  2147.595633: sched_switch:         bash:9651 [120] S ==> rcu_preempt:15 [120]"
        ));
        assert!(header("cpus=2"));
    }
}
