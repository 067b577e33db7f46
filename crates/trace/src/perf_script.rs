//! `perf script` text (perf 5.x–6.x, `tools/perf/builtin-script.c`).
//!
//! The default layout for tracepoints is `%16s %5d [%03d] %lu.%06lu: %s: %s`: comm, tid, CPU,
//! time, `subsystem:event`, the tracepoint's own text. `-F` picks fields: with `pid,tid` the
//! second column is `pid/tid`; `--ns` prints nine fraction digits; a recording with `-g` adds
//! a callchain under each sample (indented `address symbol (dso)` lines and a blank line),
//! which is skipped. The line is read from its timestamp outwards: what precedes it is
//! `[comm] [pid/]tid [[cpu]]`, so a comm may hold any character.

use crate::builder::Builder;
use crate::text::{bracket_cpu, find_ts, last_token, parse_ts_ns, parse_u32, token};
use crate::tracepoint;

/// What the head of a perf script line holds.
struct Head<'a> {
    comm: &'a str,
    tid: Option<u32>,
    cpu: Option<u32>,
}

fn head(h: &str) -> Head<'_> {
    let (last, before) = last_token(h);
    let (cpu, h) = match bracket_cpu(last) {
        Some(c) => (Some(c), before),
        // A CPU printed without brackets is only told from a tid when a `pid/tid` precedes it.
        None => match (parse_u32(last), last_token(before).0.split_once('/')) {
            (Some(c), Some((p, t))) if parse_u32(p).is_some() && parse_u32(t).is_some() => {
                (Some(c), before)
            }
            _ => (None, h.trim_end()),
        },
    };
    let (last, before) = last_token(h);
    let tid_tok = last.rsplit('/').next().unwrap_or(last);
    let (tid, comm) = match parse_u32(tid_tok) {
        Some(t) if !last.is_empty() => (Some(t), before),
        _ => (None, h),
    };
    Head {
        comm: comm.trim(),
        tid,
        cpu,
    }
}

/// Whether a line looks like a perf script event line (used by format detection): a
/// timestamp followed by a `subsystem:event:` token.
pub(crate) fn looks_like(line: &str) -> bool {
    let Some((_, end)) = find_ts(line) else {
        return false;
    };
    let (ev, _) = token(&line[end + 1..]);
    let Some(ev) = ev.strip_suffix(':') else {
        return false;
    };
    let Some((sub, name)) = ev.split_once(':') else {
        return false;
    };
    !sub.is_empty() && !name.is_empty() && !name.contains(':')
}

/// A callchain line: an indented hex address, then a symbol.
fn is_callchain(line: &str) -> bool {
    if !line.starts_with([' ', '\t']) {
        return false;
    }
    let (addr, _) = token(line);
    !addr.is_empty() && addr.bytes().all(|c| c.is_ascii_hexdigit())
}

/// The line-by-line state (none: every perf script line stands alone).
#[derive(Default)]
pub(crate) struct PerfScript;

impl PerfScript {
    pub(crate) fn line(&mut self, no: u64, line: &str, b: &mut Builder) {
        if line.trim().is_empty() {
            return;
        }
        let Some((ts0, ts1)) = find_ts(line) else {
            if is_callchain(line) {
                return;
            }
            b.warn(
                no,
                line,
                "not a perf script event line (no `SECONDS.MICROS:` timestamp)",
            );
            return;
        };
        let Some(t_ns) = parse_ts_ns(&line[ts0..ts1]) else {
            b.warn(no, line, "timestamp out of range");
            return;
        };
        let (ev, body) = token(&line[ts1 + 1..]);
        let Some(ev) = ev.strip_suffix(':') else {
            b.warn(no, line, "no `subsystem:event:` after the timestamp");
            return;
        };
        let name = ev.strip_prefix("sched:").unwrap_or(ev);
        if !ev.starts_with("sched:") || !tracepoint::known(name) {
            b.skip(ev);
            return;
        }
        let h = head(&line[..ts0]);
        let Some(cpu) = h.cpu else {
            b.warn(
                no,
                line,
                "no [CPU] column: record the text with `perf script -F comm,tid,cpu,time,event,trace`",
            );
            return;
        };
        let _ = (h.comm, h.tid);
        if let Err(e) = tracepoint::apply(b, name, body, t_ns, cpu) {
            b.warn(no, line, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let h = head("    my hog [a:1]  1329 [001]  ");
        assert_eq!(
            (h.comm, h.tid, h.cpu),
            ("my hog [a:1]", Some(1329), Some(1))
        );
        let h = head("            perf  1324/1325  [000]  ");
        assert_eq!((h.comm, h.tid, h.cpu), ("perf", Some(1325), Some(0)));
        let h = head("perf 12 ");
        assert_eq!((h.comm, h.tid, h.cpu), ("perf", Some(12), None));
        let h = head("  lto cgu.02  1324/1325  001  ");
        assert_eq!((h.comm, h.tid, h.cpu), ("lto cgu.02", Some(1325), Some(1)));
        // --ns: nine fraction digits.
        let l =
            "perf 1 [000] 12.123456789: sched:sched_waking: comm=a pid=2 prio=120 target_cpu=001";
        let (a, b) = find_ts(l).unwrap();
        assert_eq!(crate::text::parse_ts_ns(&l[a..b]), Some(12_123_456_789));
    }

    #[test]
    fn detection() {
        assert!(looks_like(
            "  perf  1356 [000]  1947.732986: sched:sched_stat_runtime: comm=perf pid=1356"
        ));
        assert!(!looks_like(
            "  <idle>-0 [000]  1947.732986: sched_switch: prev_comm=x"
        ));
        assert!(is_callchain(
            "\t    ffffffff8f1c2f25 __schedule+0x3a5 ([kernel.kallsyms])"
        ));
    }
}
