//! The Chrome/Perfetto trace-event JSON that schedlab exports
//! (`schedlab_report::perfetto::perfetto_json`): one process per variant (`process_name`
//! metadata), one thread per CPU (`thread_name` = `CPU n`), a complete event (`ph: "X"`)
//! named `comm:pid` per stint of a task on a CPU with why it ended in `args.ended`, and an
//! instant event (`ph: "i"`) `wakeup comm:pid` per `sched_wakeup` on the target CPU.
//!
//! Streaming: the document is scanned byte by byte for the objects inside its `traceEvents`
//! array (or a bare top-level array), each parsed on its own, so the text is never held.
//!
//! The switches are rebuilt from the stints: per CPU, a stint that starts where the previous
//! one ended is one `sched_switch` between them, with the state its end reason names
//! (preempted = R, blocked = S, exited = X); a gap is a switch to the idle task and one back.
//! What the export carries, and so what comes back: every stint (CPU, task, start, end, why it
//! ended) and every `sched_wakeup` (time, target CPU, task). What it does not carry:
//! `sched_waking`, `sched_wakeup_new`, migrations, `sched_stat_runtime` (runtimes are
//! stint lengths: the timeline, not perf's `update_curr` sums), the waker's CPU, and the end of
//! the run after the last stint.

use schedlab_sim::{EventKind, Pid, PrevState};
use serde_json::Value;

use crate::builder::Builder;
use crate::text::excerpt;

/// Largest object accepted (a schedlab event is ~200 bytes).
const MAX_OBJECT_BYTES: usize = 1 << 20;

/// Splits a JSON document into the objects of its event array, as bytes arrive.
#[derive(Default)]
pub(crate) struct Objects {
    stack: Vec<u8>,
    in_str: bool,
    esc: bool,
    /// The object being captured, its first line and the depth it started at.
    cap: Option<(Vec<u8>, u64, usize)>,
    too_big: bool,
    line: u64,
    last_was_newline: bool,
    pub(crate) bytes: u64,
}

impl Objects {
    pub(crate) fn push(&mut self, chunk: &[u8], mut f: impl FnMut(u64, &[u8])) {
        // The first byte starts line 1 (an empty chunk starts nothing: an empty text has no
        // lines).
        if self.line == 0 && !chunk.is_empty() {
            self.line = 1;
        }
        self.bytes += chunk.len() as u64;
        for &c in chunk {
            if let Some((buf, _, _)) = self.cap.as_mut() {
                if buf.len() < MAX_OBJECT_BYTES {
                    buf.push(c);
                } else {
                    self.too_big = true;
                }
            }
            if c == b'\n' {
                self.line += 1;
            }
            self.last_was_newline = c == b'\n';
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if c == b'\\' {
                    self.esc = true;
                } else if c == b'"' {
                    self.in_str = false;
                }
                continue;
            }
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => {
                    if c == b'{'
                        && self.cap.is_none()
                        && self.stack.last() == Some(&b'[')
                        && self.stack.len() <= 2
                    {
                        self.cap = Some((vec![b'{'], self.line, self.stack.len()));
                        self.too_big = false;
                    }
                    self.stack.push(c);
                }
                b'}' | b']' => {
                    self.stack.pop();
                    if let Some((_, _, depth)) = &self.cap {
                        if self.stack.len() == *depth {
                            let (buf, line, _) = self.cap.take().unwrap_or_default();
                            if self.too_big {
                                f(line, b"{\"too_big\": true}");
                            } else {
                                f(line, &buf);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Lines seen (a last line without a line end counts).
    pub(crate) fn lines(&self) -> u64 {
        self.line.saturating_sub(u64::from(self.last_was_newline))
    }

    /// Whether the document ended inside an object or array.
    pub(crate) fn unfinished(&self) -> bool {
        !self.stack.is_empty()
    }
}

/// One stint read back.
#[derive(Clone, Debug)]
struct Stint {
    cpu: u32,
    pid: Pid,
    start_ns: u64,
    end_ns: u64,
    /// None = still running at the end.
    state: Option<PrevState>,
    /// Preempted: whether by a task just woken on this CPU (`(wakeup preemption)`).
    by_wakeup: bool,
}

/// The events read from the document.
#[derive(Default)]
pub(crate) struct Perfetto {
    pub(crate) objects: Objects,
    /// The run asked for (a process name).
    pub(crate) want: Option<String>,
    /// The process ids and names seen.
    processes: Vec<(u64, String)>,
    selected: Option<u64>,
    cpus: u32,
    stints: Vec<Stint>,
    wakeups: Vec<(u64, u32, Pid)>,
    /// Objects read.
    pub(crate) count: u64,
}

impl Perfetto {
    pub(crate) fn new(want: Option<String>) -> Perfetto {
        Perfetto {
            want,
            ..Default::default()
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8], b: &mut Builder) {
        let mut objs = std::mem::take(&mut self.objects);
        objs.push(chunk, |line, bytes| self.object(line, bytes, b));
        self.objects = objs;
    }

    fn object(&mut self, line: u64, bytes: &[u8], b: &mut Builder) {
        self.count += 1;
        let n = self.count;
        let text = String::from_utf8_lossy(bytes);
        let warn = |b: &mut Builder, msg: &str| {
            b.warn(line, &text, format!("trace event #{n}: {msg}"));
        };
        let v: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return warn(b, &format!("not JSON: {e}")),
        };
        if v.get("too_big").is_some() {
            return warn(b, "object larger than 1 MiB");
        }
        let ph = v["ph"].as_str().unwrap_or("");
        let Some(proc_id) = v["pid"].as_u64() else {
            return warn(b, "no numeric \"pid\"");
        };
        let name = v["name"].as_str().unwrap_or("");
        if ph == "M" {
            let arg = v["args"]["name"].as_str().unwrap_or("");
            if name == "process_name" {
                self.processes.push((proc_id, arg.to_string()));
                if self.selected.is_none() && self.want.as_deref().is_none_or(|w| w == arg) {
                    self.selected = Some(proc_id);
                }
            } else if name == "thread_name" && Some(proc_id) == self.selected {
                self.cpus += 1;
            }
            return;
        }
        if self.selected.is_none() && self.want.is_none() {
            self.selected = Some(proc_id);
        }
        if Some(proc_id) != self.selected {
            b.skip("other run");
            return;
        }
        let Some(cpu) = v["tid"].as_u64().and_then(|c| u32::try_from(c).ok()) else {
            return warn(b, "no numeric \"tid\" (the CPU)");
        };
        if cpu >= crate::builder::MAX_CPU {
            return warn(b, &crate::stream::bad_cpu(cpu));
        }
        let Some(ts) = v["ts"].as_f64().filter(|t| *t >= 0.0) else {
            return warn(b, "no \"ts\"");
        };
        let t_ns = (ts * 1e3).round() as u64;
        match ph {
            "X" => {
                let Some(pid) = comm_pid(name, b) else {
                    return warn(b, "a stint's name is not `comm:pid`");
                };
                let Some(dur) = v["dur"].as_f64().filter(|d| *d >= 0.0) else {
                    return warn(b, "a stint without \"dur\"");
                };
                let ended = v["args"]["ended"].as_str().unwrap_or("");
                let by_wakeup = ended.ends_with("(wakeup preemption)");
                let state = if ended.starts_with("preempted") {
                    Some(PrevState::Running)
                } else if ended.starts_with("blocked") {
                    Some(PrevState::Sleeping)
                } else if ended.starts_with("exited") {
                    Some(PrevState::Dead)
                } else if ended.starts_with("still running") {
                    None
                } else {
                    return warn(b, "a stint without args.ended (why it ended)");
                };
                b.cpu(cpu);
                self.stints.push(Stint {
                    cpu,
                    pid,
                    start_ns: t_ns,
                    end_ns: t_ns + (dur * 1e3).round() as u64,
                    state,
                    by_wakeup,
                });
            }
            "i" | "I" => {
                let Some(pid) = name.strip_prefix("wakeup ").and_then(|n| comm_pid(n, b)) else {
                    b.skip(&format!("instant {}", excerpt(name)));
                    return;
                };
                b.cpu(cpu);
                self.wakeups.push((t_ns, cpu, pid));
            }
            other => b.skip(&format!("ph {other}")),
        }
    }

    /// Rebuilds the events in time order. At one instant, a wakeup goes before a switch on
    /// its CPU when it woke the task switched in and the stint that ended says so (`wakeup
    /// preemption`, or the CPU was idle), after it otherwise: the report's timeline takes
    /// the last wakeup on a CPU before a preemption as its cause, and the export keeps no
    /// order across tracks.
    pub(crate) fn finish(&mut self, b: &mut Builder) -> Vec<String> {
        if self.cpus > 0 {
            b.cpus_hint = Some(self.cpus);
        }
        let mut stints = std::mem::take(&mut self.stints);
        stints.sort_by_key(|s| (s.cpu, s.start_ns, s.end_ns));
        // (time, cpu, kind, whether a same-instant wakeup of `next` goes first)
        let mut switches: Vec<(u64, u32, EventKind, bool)> = Vec::new();
        let mut end = 0;
        let mut prev: Option<&Stint> = None;
        for s in &stints {
            end = end.max(s.end_ns);
            let p = prev.filter(|p| p.cpu == s.cpu);
            if let Some(n) = prev.filter(|p| p.cpu != s.cpu) {
                if n.state.is_some() {
                    switches.push((n.end_ns, n.cpu, switch(n.pid, n.state, 0), false));
                }
            }
            match p {
                Some(p) if p.end_ns == s.start_ns && p.state.is_some() => {
                    let first = p.state != Some(PrevState::Running) || p.by_wakeup;
                    switches.push((s.start_ns, s.cpu, switch(p.pid, p.state, s.pid), first));
                }
                _ => {
                    if let Some(p) = p {
                        if p.state.is_some() {
                            switches.push((p.end_ns, p.cpu, switch(p.pid, p.state, 0), false));
                        }
                    }
                    let idle = switch(0, Some(PrevState::Running), s.pid);
                    switches.push((s.start_ns, s.cpu, idle, true));
                }
            }
            prev = Some(s);
        }
        if let Some(p) = prev {
            if p.state.is_some() {
                switches.push((p.end_ns, p.cpu, switch(p.pid, p.state, 0), false));
            }
        }
        // Which (time, cpu, next) switches take a same-instant wakeup of `next` before them.
        let before: std::collections::BTreeSet<(u64, u32, Pid)> = switches
            .iter()
            .filter_map(|&(t, cpu, k, first)| match k {
                EventKind::Switch { next_pid, .. } if first => Some((t, cpu, next_pid)),
                _ => None,
            })
            .collect();
        let switch_at: std::collections::BTreeSet<(u64, u32)> =
            switches.iter().map(|&(t, cpu, _, _)| (t, cpu)).collect();
        // (time, order at that instant, cpu, kind)
        let mut out: Vec<(u64, u8, u32, EventKind)> = Vec::new();
        for &(t, cpu, pid) in &self.wakeups {
            let order = if !switch_at.contains(&(t, cpu)) || before.contains(&(t, cpu, pid)) {
                0
            } else {
                2
            };
            out.push((
                t,
                order,
                cpu,
                EventKind::Wakeup {
                    pid,
                    target_cpu: cpu,
                },
            ));
            b.read("sched_wakeup");
        }
        for (t, cpu, kind, _) in switches {
            out.push((t, 1, cpu, kind));
        }
        out.sort_by_key(|e| (e.0, e.1));
        for (t, _, cpu, kind) in out {
            if matches!(kind, EventKind::Switch { .. }) {
                b.read("sched_switch");
            }
            b.push(t, cpu, kind);
        }
        b.end_hint = Some(end);
        if self.objects.unfinished() {
            b.notes
                .push("the JSON document ends early (truncated): the events read are kept".into());
        }
        self.processes.iter().map(|p| p.1.clone()).collect()
    }

    pub(crate) fn selected_name(&self) -> Option<String> {
        let sel = self.selected?;
        self.processes
            .iter()
            .find(|p| p.0 == sel)
            .map(|p| p.1.clone())
    }
}

fn switch(prev: Pid, state: Option<PrevState>, next: Pid) -> EventKind {
    EventKind::Switch {
        prev_pid: prev,
        prev_state: state.unwrap_or(PrevState::Running),
        next_pid: next,
    }
}

/// `comm:pid` (the comm may hold colons) → the pid, registering the comm.
fn comm_pid(name: &str, b: &mut Builder) -> Option<Pid> {
    let (comm, pid) = name.rsplit_once(':')?;
    let pid: u32 = crate::text::parse_u32(pid)?;
    Some(b.pid(pid, Some(comm), None))
}
