//! Figures per workload: what hackbench, schbench, tbench-like pipe pairs, fio-like jobs and
//! periodic tasks would report, read off a [`Trace`] for the tasks of some scenario groups.
//!
//! The counting rules, shared by every function here:
//!
//! - A task **completes** a request / round trip / I/O each time it switches out in state S
//!   (it blocks on its next read or sleep). That includes a task's first block after it
//!   started, which is setup rather than a request, so [`completions`] can exceed the number
//!   of [`request_latencies_ns`] samples by one per task.
//! - A task **exits** with a switch-out in state X.
//! - A task is **woken** by `sched_waking` (or by `sched_wakeup` when the trace has no
//!   `sched_waking` at all, as in [`crate::wakeup`]); `sched_wakeup_new` starts a task but is
//!   not a wakeup from sleep.
//!
//! Pid lists may be unsorted and may repeat pids; every function treats them as a set. The
//! idle task (pid 0) is only counted if it is listed.

use std::collections::BTreeMap;

use schedlab_sim::{EventKind, Pid, PrevState, Trace};

use crate::cfmt::c_fixed;
use crate::histogram::percentile_ns;
use crate::percentiles::{format_schbench_block, Hist};
use crate::wakeup::wakeup_latencies_where;

const NS_PER_SEC: u64 = 1_000_000_000;

/// A set of pids with ordered lookups (no hashing, so no iteration-order surprises).
struct PidSet(Vec<Pid>);

impl PidSet {
    fn new(pids: &[Pid]) -> Self {
        let mut v = pids.to_vec();
        v.sort_unstable();
        v.dedup();
        PidSet(v)
    }

    /// The position of `pid` in the set, if it is in it.
    fn index(&self, pid: Pid) -> Option<usize> {
        self.0.binary_search(&pid).ok()
    }

    fn contains(&self, pid: Pid) -> bool {
        self.index(pid).is_some()
    }
}

/// `(t_ns, pid)` of every switch-out of a task in `pids` in state `state`, in trace order.
fn switch_outs<'a>(
    trace: &'a Trace,
    pids: &'a PidSet,
    state: PrevState,
) -> impl Iterator<Item = (u64, Pid)> + 'a {
    trace.events.iter().filter_map(move |e| match e.kind {
        EventKind::Switch {
            prev_pid,
            prev_state,
            ..
        } if prev_state == state && pids.contains(prev_pid) => Some((e.t_ns, prev_pid)),
        _ => None,
    })
}

/// The pids of the trace's tasks whose `group` is one of `groups`, ascending.
pub fn pids_of_groups(trace: &Trace, groups: &[u32]) -> Vec<Pid> {
    let mut pids: Vec<Pid> = trace
        .tasks
        .iter()
        .filter(|t| t.group.is_some_and(|g| groups.contains(&g)))
        .map(|t| t.pid)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// CPU time of `pids`: the sum of their `sched_stat_runtime` runtimes, ns.
pub fn cpu_time_ns(trace: &Trace, pids: &[Pid]) -> u64 {
    let set = PidSet::new(pids);
    trace
        .events
        .iter()
        .map(|e| match e.kind {
            EventKind::StatRuntime { pid, runtime_ns } if set.contains(pid) => runtime_ns,
            _ => 0,
        })
        .sum()
}

/// When the last of `pids` exited (switched out in state X), ns from the trace start — but only
/// if every one of them exited; `None` if one is still alive at the end of the trace or if
/// `pids` is empty.
///
/// This is hackbench's "Time" when the group starts at t = 0; subtract the start otherwise.
pub fn exit_time_ns(trace: &Trace, pids: &[Pid]) -> Option<u64> {
    let set = PidSet::new(pids);
    let mut exited = vec![false; set.0.len()];
    let (mut left, mut last) = (set.0.len(), 0u64);
    for (t, pid) in switch_outs(trace, &set, PrevState::Dead) {
        if let Some(i) = set.index(pid) {
            if !exited[i] {
                exited[i] = true;
                left -= 1;
            }
            last = last.max(t);
        }
    }
    (left == 0 && !set.0.is_empty()).then_some(last)
}

/// hackbench's "Time:": from main()'s kick-off, the first `sched_wakeup` of any of `pids`
/// (each thread sleeps only on the start pipe before it), to the last one's exit; `None`
/// unless all exited.
pub fn hackbench_time_ns(trace: &Trace, pids: &[Pid]) -> Option<u64> {
    let set = PidSet::new(pids);
    let start = trace.events.iter().find_map(|e| match e.kind {
        EventKind::Wakeup { pid, .. } if set.contains(pid) => Some(e.t_ns),
        _ => None,
    })?;
    exit_time_ns(trace, pids).map(|end| end.saturating_sub(start))
}

/// Requests / round trips / I/Os completed by `pids`: their switch-outs in state S.
pub fn completions(trace: &Trace, pids: &[Pid]) -> u64 {
    let set = PidSet::new(pids);
    switch_outs(trace, &set, PrevState::Sleeping).count() as u64
}

/// [`completions`] per whole simulated second: element `i` counts the S switch-outs with
/// `i s <= t < (i + 1) s`, for every second that ended by `trace.end_ns`; the last partial
/// second (and anything at or after the last whole second) is dropped. These are the samples
/// of schbench's RPS block.
pub fn completions_per_second(trace: &Trace, pids: &[Pid]) -> Vec<u64> {
    let set = PidSet::new(pids);
    let whole = usize::try_from(trace.end_ns / NS_PER_SEC).unwrap_or(usize::MAX);
    let mut out = vec![0u64; whole];
    for (t, _) in switch_outs(trace, &set, PrevState::Sleeping) {
        if let Some(c) = usize::try_from(t / NS_PER_SEC)
            .ok()
            .and_then(|s| out.get_mut(s))
        {
            *c += 1;
        }
    }
    out
}

/// What a task is doing, for [`request_latencies_ns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReqState {
    /// Not seen yet (a wakeup counts: the trace may have begun while it slept).
    Unknown,
    /// Blocked (switched out in state S).
    Sleeping,
    /// Started, running, runnable or exited: a wakeup starts nothing.
    Other,
}

/// Service times of the requests of `pids` (schbench's "request latency"): from a task's
/// wakeup while it was asleep (switched out in state S, or not seen yet) to its next
/// switch-out in state S, ns, in the order the requests completed.
///
/// The span includes any time spent waiting for a CPU, before the first run and after
/// preemptions. The first wakeup of a sleep wins; a task that exits instead of blocking
/// completes no request; the stint after `sched_wakeup_new` is start-up, not a request.
pub fn request_latencies_ns(trace: &Trace, pids: &[Pid]) -> Vec<u64> {
    let set = PidSet::new(pids);
    let has_waking = trace
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let mut st: BTreeMap<Pid, (ReqState, Option<u64>)> = BTreeMap::new();
    let mut out = Vec::new();
    for e in &trace.events {
        let t = e.t_ns;
        match e.kind {
            EventKind::Waking { pid, .. } if set.contains(pid) => woken(&mut st, pid, t),
            EventKind::Wakeup { pid, .. } if !has_waking && set.contains(pid) => {
                woken(&mut st, pid, t)
            }
            EventKind::WakeupNew { pid, .. } if set.contains(pid) => {
                st.insert(pid, (ReqState::Other, None));
            }
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                if set.contains(prev_pid) {
                    let s = st.entry(prev_pid).or_insert((ReqState::Unknown, None));
                    match prev_state {
                        PrevState::Sleeping => {
                            if let Some(w) = s.1.take() {
                                out.push(t.saturating_sub(w));
                            }
                            s.0 = ReqState::Sleeping;
                        }
                        PrevState::Dead => *s = (ReqState::Other, None),
                        // Preempted: the request goes on.
                        PrevState::Running => s.0 = ReqState::Other,
                    }
                }
                if set.contains(next_pid) {
                    st.entry(next_pid).or_insert((ReqState::Unknown, None)).0 = ReqState::Other;
                }
            }
            _ => {}
        }
    }
    out
}

fn woken(st: &mut BTreeMap<Pid, (ReqState, Option<u64>)>, pid: Pid, t: u64) {
    let s = st.entry(pid).or_insert((ReqState::Unknown, None));
    if matches!(s.0, ReqState::Unknown | ReqState::Sleeping) && s.1.is_none() {
        s.1 = Some(t);
    }
}

/// schbench's three sample sets, as schbench.c v1.0 records them, read off the trace of its
/// `workers` and `message_threads`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchbenchSamples {
    /// Wakeup latencies, ns, one per request, as `msg_and_wait` measures them: from the
    /// message thread's list walk (`xlist_wake_all` stamps every worker it takes off its list
    /// with the walk's start) to the worker past its `fwait`. A worker asleep on its futex is
    /// woken by the walk: from the message thread's `sched_waking` of it to its switch-in. A
    /// worker the walk took off the list before it slept never sleeps (`fpost` sets the futex
    /// word and its `fwait` returns at once): from the message thread's first switch-in after
    /// the worker's post woke it to the worker's switch-out into the request's `usleep`,
    /// which follows its `fwait` with nothing between, so a worker preempted at its post
    /// (the message thread pulled onto its CPU) counts the time it waited to run again. When
    /// the post woke nobody (the message thread was awake), the walk came within a
    /// microsecond or two of it: 1 µs. Validated against schbench's own report of the same
    /// runs (`real_schbench`).
    pub wakeup_ns: Vec<u64>,
    /// Request latencies, ns, in completion order: from the worker's switch-out into the
    /// request's `usleep` to its next switch-out in state S (its futex wait, or the next
    /// request's `usleep` when its next wake was already posted): `work_start` to the end of
    /// `do_work`, with the sleep, its wakeup and any preemption in between.
    pub request_ns: Vec<u64>,
    /// When each request completed, ns (for the RPS samples), in order.
    pub done_ns: Vec<u64>,
}

/// Where a schbench worker is in its loop, for [`schbench_samples`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SbPhase {
    /// Not seen yet.
    Unknown,
    /// Switched out in state S after its math (or at its start): in its futex wait, or in the
    /// next request's `usleep` when its wake was already posted; the wake tells which.
    Posted,
    /// Woken by its message thread, not yet running.
    Woken,
    /// Running after a message-thread wake: its next S switch-out is the `usleep`.
    Started,
    /// In the `usleep`: the next wake is its timer, whoever is on the CPU.
    Sleeping,
    /// Doing the math: its next S switch-out ends the request.
    Math,
}

/// One schbench worker's state for [`schbench_samples`].
#[derive(Clone, Copy, Debug)]
struct SbWorker {
    phase: SbPhase,
    /// When it entered `phase` (`Woken`: the message thread's `sched_waking` of it;
    /// `Posted`: the S switch-out that ended the math, its `fwait` or its `usleep`).
    since: u64,
    /// The start of its current request (its `usleep`).
    start: Option<u64>,
    /// Its post's `sched_waking` of a message thread in this round: (when, which one).
    post: Option<(u64, Pid)>,
    /// That message thread's first switch-in after the post: its list walk.
    walk: Option<u64>,
    /// Taken for the message thread's wake while it was `Posted`, should the worker's next run
    /// show it was the `usleep`'s timer: its request's start, the sample the timer would have
    /// given, and the index of the sample taken instead.
    alt: Option<(Option<u64>, Option<u64>, usize)>,
    /// `Started`: its CPU time since the wake (to its last switch-out), and its last switch-in.
    ran: u64,
    on_since: Option<u64>,
}

impl SbWorker {
    /// The sample the `usleep`'s timer gives a worker `Posted` since `since`: from the walk
    /// that took it off the list (1 µs when its post woke nobody) to its `usleep`.
    fn timer_sample(&self) -> Option<u64> {
        let walk = match self.post {
            Some(_) => self.walk.filter(|&w| w <= self.since),
            None => Some(self.since.saturating_sub(1_000)),
        };
        walk.map(|w| self.since - w)
    }
}

/// schbench v1.0's `usleep(100)` before each request's math, ns.
pub const SCHBENCH_USLEEP_NS: u64 = 100_000;

/// schbench's samples (see [`SchbenchSamples`]). A wakeup counts as the message thread's when
/// a task of `message_threads` is running on the CPU its `sched_waking` fired on; the worker's
/// loop (wait, `usleep`, math) tells the `usleep`'s timer apart from it otherwise. When the
/// timer fires where the message thread is running, the wake is taken for the message
/// thread's until the worker's next run shows otherwise: a worker that runs `sleep_ns` (the
/// `usleep`, schbench v1.0's 100 µs) of CPU or more before it sleeps again did its math, so the
/// wake was its timer (from `fwait` to `usleep` a worker runs microseconds; the math,
/// milliseconds), and its samples are taken again as the timer's.
pub fn schbench_samples(
    trace: &Trace,
    workers: &[Pid],
    message_threads: &[Pid],
    sleep_ns: u64,
) -> SchbenchSamples {
    let set = PidSet::new(workers);
    let msg = PidSet::new(message_threads);
    let has_waking = trace
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let mut curr: Vec<Pid> = vec![0; trace.cpus as usize];
    let mut st: Vec<SbWorker> = vec![
        SbWorker {
            phase: SbPhase::Unknown,
            since: 0,
            start: None,
            post: None,
            walk: None,
            alt: None,
            ran: 0,
            on_since: None,
        };
        set.0.len()
    ];
    // Per message thread: the workers whose post woke it and which wait for its walk.
    let mut awaiting: Vec<Vec<usize>> = vec![Vec::new(); msg.0.len()];
    let mut out = SchbenchSamples::default();
    for e in &trace.events {
        let t = e.t_ns;
        let cur = curr.get(e.cpu as usize).copied();
        let woken = match e.kind {
            EventKind::Waking { pid, .. } => Some(pid),
            EventKind::Wakeup { pid, .. } if !has_waking => Some(pid),
            _ => None,
        };
        if let Some(m) = woken.and_then(|p| msg.index(p)) {
            // A worker's post that woke its message thread.
            if let Some(i) = cur.and_then(|c| set.index(c)) {
                let s = &mut st[i];
                // (Started: unless the wake that began it turns out to be the usleep's timer,
                // a worker does not post before its next usleep.)
                if matches!(s.phase, SbPhase::Math | SbPhase::Started) {
                    s.post = Some((t, msg.0[m]));
                    s.walk = None;
                    awaiting[m].push(i);
                }
            }
        }
        if let Some(i) = woken.and_then(|p| set.index(p)) {
            let by_msg = cur.is_some_and(|c| msg.contains(c));
            let s = &mut st[i];
            match s.phase {
                SbPhase::Posted | SbPhase::Unknown if by_msg => {
                    s.alt = (s.phase == SbPhase::Posted).then(|| (s.start, s.timer_sample(), 0));
                    s.phase = SbPhase::Woken;
                    s.since = t;
                    s.start = None;
                }
                // The usleep's timer: the S switch-out began a request, and the worker had
                // not slept in its fwait: the walk had taken it off the list already.
                SbPhase::Posted => {
                    if let Some(v) = s.timer_sample() {
                        out.wakeup_ns.push(v);
                    }
                    s.phase = SbPhase::Math;
                }
                SbPhase::Sleeping => s.phase = SbPhase::Math,
                _ => {}
            }
            if s.phase == SbPhase::Math {
                s.post = None;
                s.walk = None;
            }
        }
        if let EventKind::Switch {
            prev_pid,
            prev_state,
            next_pid,
        } = e.kind
        {
            if let Some(c) = curr.get_mut(e.cpu as usize) {
                *c = next_pid;
            }
            if let Some(m) = msg.index(next_pid) {
                for i in awaiting[m].drain(..) {
                    let s = &mut st[i];
                    if s.post.is_some_and(|(_, p)| p == next_pid) && s.walk.is_none() {
                        s.walk = Some(t);
                    }
                }
            }
            if let Some(i) = set.index(prev_pid) {
                let s = &mut st[i];
                if s.phase == SbPhase::Started {
                    s.ran += t - s.on_since.take().unwrap_or(t);
                }
                if prev_state == PrevState::Sleeping {
                    match s.phase {
                        // It ran a whole usleep of CPU since the wake: that was the math, and
                        // the wake the usleep's timer; this ends the request.
                        SbPhase::Started if s.ran >= sleep_ns && s.alt.is_some() => {
                            let (start, timer, k) = s.alt.take().unwrap_or_default();
                            if let (Some(v), Some(x)) = (timer, out.wakeup_ns.get_mut(k)) {
                                *x = v;
                            }
                            if let Some(start) = start {
                                out.request_ns.push(t - start);
                                out.done_ns.push(t);
                            }
                            s.phase = SbPhase::Posted;
                            s.since = t;
                            s.start = Some(t);
                        }
                        SbPhase::Started => {
                            s.alt = None;
                            s.post = None;
                            s.walk = None;
                            s.phase = SbPhase::Sleeping;
                            s.since = t;
                            s.start = Some(t);
                        }
                        SbPhase::Math => {
                            if let Some(start) = s.start {
                                out.request_ns.push(t - start);
                                out.done_ns.push(t);
                            }
                            // This may be the next request's usleep.
                            s.phase = SbPhase::Posted;
                            s.since = t;
                            s.start = Some(t);
                        }
                        SbPhase::Unknown => {
                            s.phase = SbPhase::Posted;
                            s.since = t;
                            s.start = None;
                            s.post = None;
                        }
                        _ => {}
                    }
                }
            }
            if let Some(i) = set.index(next_pid) {
                let s = &mut st[i];
                if s.phase == SbPhase::Woken {
                    if let Some(alt) = s.alt.as_mut() {
                        alt.2 = out.wakeup_ns.len();
                    }
                    out.wakeup_ns.push(t - s.since);
                    s.phase = SbPhase::Started;
                    s.ran = 0;
                }
                if s.phase == SbPhase::Started {
                    s.on_since = Some(t);
                }
            }
        }
    }
    out
}

/// `times` (ns, ascending or not) counted per whole second of a trace ending at `end_ns`:
/// element `i` counts `i s <= t < (i + 1) s`; the last partial second is dropped.
pub fn per_second(times: &[u64], end_ns: u64) -> Vec<u64> {
    let whole = usize::try_from(end_ns / NS_PER_SEC).unwrap_or(usize::MAX);
    let mut out = vec![0u64; whole];
    for &t in times {
        if let Some(c) = usize::try_from(t / NS_PER_SEC)
            .ok()
            .and_then(|s| out.get_mut(s))
        {
            *c += 1;
        }
    }
    out
}

/// Wakeup latencies of `pids`, ns: the samples [`crate::wakeup::wakeup_latencies_ns`] gives
/// for each of them (same rules), computed in one pass and returned in switch-in order
/// across all of them.
pub fn wakeup_latencies_ns(trace: &Trace, pids: &[Pid]) -> Vec<u64> {
    let set = PidSet::new(pids);
    wakeup_latencies_where(trace, |p| set.contains(p))
}

/// How often `pids` got a CPU: `sched_switch` events whose `next_pid` is one of them.
pub fn switches(trace: &Trace, pids: &[Pid]) -> u64 {
    let set = PidSet::new(pids);
    trace
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Switch { next_pid, .. } if set.contains(next_pid)))
        .count() as u64
}

/// rt-tests hackbench's output, byte for byte:
///
/// ```text
/// Running in threaded mode with 112 groups using 40 file descriptors each (== 4480 tasks)
/// Each sender will pass 30000 messages of 100 bytes
/// Time: 117.487
/// ```
///
/// `fds` is hackbench's `-f` (senders = receivers = `fds` per group, so `2 * fds` file
/// descriptors and `groups * 2 * fds` tasks); `threads` picks "threaded" over "process";
/// `time_ns` prints as `"%lu.%03lu"` of seconds and truncated milliseconds. When `time_ns` is
/// `None` (the run ended before every task exited) the last line is
/// `"Time: did not finish within the simulated duration"`. Counts are computed in 64 bits
/// (hackbench's `int` would overflow past 2^31 tasks).
pub fn format_hackbench(
    groups: u32,
    fds: u32,
    loops: u32,
    datasize: u32,
    threads: bool,
    time_ns: Option<u64>,
) -> String {
    let fds2 = 2 * u64::from(fds);
    let mut out = format!(
        "Running in {} mode with {} groups using {} file descriptors each (== {} tasks)\n",
        if threads { "threaded" } else { "process" },
        groups,
        fds2,
        u64::from(groups) * fds2
    );
    out.push_str(&format!(
        "Each sender will pass {loops} messages of {datasize} bytes\n"
    ));
    match time_ns {
        Some(ns) => out.push_str(&format!(
            "Time: {}.{:03}\n",
            ns / NS_PER_SEC,
            (ns % NS_PER_SEC) / 1_000_000
        )),
        None => out.push_str("Time: did not finish within the simulated duration\n"),
    }
    out
}

/// schbench's final summary: the "Wakeup Latencies" and "Request Latencies" blocks (usec) and
/// the "RPS" block (requests per whole second, `rps_style`), as
/// [`format_schbench_block`] prints them with `runtime_s` in their headers, then
/// `"average rps: %.2f\n"` of `Σ rps / runtime_s` (0.00 when `runtime_s` is 0).
///
/// `wakeup` and `request` are in ns and converted to µs by truncating division, as schbench
/// measures in whole microseconds; `rps` are the per-second counts
/// ([`completions_per_second`]).
pub fn format_schbench(runtime_s: u64, wakeup: &[u64], request: &[u64], rps: &[u64]) -> String {
    let hist_us = |ns: &[u64]| {
        let mut h = Hist::new();
        for &v in ns {
            h.add(v / 1_000);
        }
        h
    };
    let mut rps_hist = Hist::new();
    for &r in rps {
        rps_hist.add(r);
    }
    let mut out = format_schbench_block(
        "Wakeup Latencies",
        "usec",
        runtime_s,
        &hist_us(wakeup),
        false,
    );
    out.push_str(&format_schbench_block(
        "Request Latencies",
        "usec",
        runtime_s,
        &hist_us(request),
        false,
    ));
    out.push_str(&format_schbench_block(
        "RPS", "requests", runtime_s, &rps_hist, true,
    ));
    let total: u64 = rps.iter().sum();
    let avg = if runtime_s == 0 {
        0.0
    } else {
        total as f64 / runtime_s as f64
    };
    out.push_str(&format!("average rps: {}\n", c_fixed(avg, 2)));
    out
}

/// The workers' spinning on schbench's per-CPU lock: `spin_ns` of their `cpu_ns` of CPU time.
pub fn format_spin(spin_ns: u64, cpu_ns: u64) -> String {
    let share = if cpu_ns > 0 {
        100.0 * spin_ns as f64 / cpu_ns as f64
    } else {
        0.0
    };
    format!(
        "per-CPU lock: workers spun {:.1} ms of their {:.1} ms of CPU ({share:.1} %)\n",
        spin_ns as f64 / 1e6,
        cpu_ns as f64 / 1e6
    )
}

/// One line `"<label>: <count> (<rate>/s)\n"`, the rate being `count` per second of
/// `duration_ns` with two decimals (`%.2f`; 0.00 when `duration_ns` is 0), e.g.
/// `"tbench round trips: 12345 (6172.50/s)\n"` for 12345 over 2 s.
pub fn format_rate(label: &str, count: u64, duration_ns: u64) -> String {
    let rate = if duration_ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / duration_ns as f64
    };
    format!("{label}: {count} ({}/s)\n", c_fixed(rate, 2))
}

/// p50, p90, p99 and p99.9 of `samples_ns` in µs (truncated), by nearest rank on the sorted
/// samples ([`percentile_ns`]); all 0 for no samples.
pub fn latency_percentiles_us(samples_ns: &[u64]) -> [u64; 4] {
    let mut s = samples_ns.to_vec();
    s.sort_unstable();
    [50.0, 90.0, 99.0, 99.9].map(|p| percentile_ns(&s, p) / 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_percentiles() {
        assert_eq!(
            format_rate("tbench round trips", 12345, 2 * NS_PER_SEC),
            "tbench round trips: 12345 (6172.50/s)\n"
        );
        assert_eq!(format_rate("x", 5, 0), "x: 5 (0.00/s)\n");
        let samples: Vec<u64> = (1..=1000).rev().map(|v| v * 1_000 + 999).collect();
        assert_eq!(latency_percentiles_us(&samples), [500, 900, 990, 999]);
        assert_eq!(latency_percentiles_us(&[]), [0; 4]);
    }
}
