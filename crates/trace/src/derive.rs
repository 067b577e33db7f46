//! From a recording to a scenario that approximates it: the machine's CPUs and the recorded
//! time; task groups with their observed CPUs, start time, nice or RT policy (from the kernel
//! priority where the format prints one) and a program of CPU bursts, sleeps and, where the
//! recording shows who wakes whom, messages on channels.
//!
//! Bursts and sleeps are fitted, not replayed: "run a time drawn with the mean burst, then
//! sleep a time drawn with the mean sleep", where a burst is the CPU time from a wakeup to the
//! next block (preemptions do not end it) and a sleep is the time from a block to the next
//! wakeup; each is exponentially distributed, or normally with the recorded standard deviation
//! where it varies little (a coefficient of variation under [`NORMAL_BELOW_CV`]: a periodic
//! task's sleeps or a duty cycle's slices, which an exponential fit would make queue as if
//! random). A task that never blocks is a hog; a task that exited runs its recorded rounds (or
//! its CPU time) and exits, unless it exited in the recording's last 2 % (a recording ends by
//! stopping its workload: such a task runs to the end); one last seen preempted and not seen
//! again for [`VANISHED_NS`] and [`VANISHED_WAITS`] times its longest wait to run exited
//! there (killed while runnable, its exit unrecorded); a task asleep at the end for longer
//! than [`QUIET_ROUNDS`] of its rounds (a kworker that served the tracer's first writes) runs
//! its rounds and sleeps to the end. A sleep ends at the wakeup, or where none was recorded
//! (perf drops the events it causes itself, so the recorder's own wakeups are missing), at
//! the next switch-in, when such sleeps are most of a task's or at least
//! [`MIN_UNSEEN_WAKEUPS`]. Tasks of one name form one group only at one kernel priority (one
//! nice, or one RT priority), if first seen within [`START_APART_NS`] (or 2 % of the
//! recording) of each other, and if they behave alike (`alike`): a group's tasks share a
//! priority, a start and a program.
//!
//! Who wakes whom: `sched_waking` fires in `try_to_wake_up` on the waker's CPU with the waker as
//! the current task, so the task a CPU was running when it fired is the waker (with only
//! `sched_wakeup`, which may fire on the wakee's CPU after an IPI, the same rule is a guess). A
//! pair (waker W, wakee E) is *consistent* when W woke E at least [`MIN_PAIR_WAKEUPS`] times and
//! for at least a fifth of E's wakeups and once per five of W's own rounds (blocks: the scenario
//! has W write E every round), W blocked at least once per ten wakeups it gave (a task that hardly
//! blocks is taken for the victim of interrupts: a timer that fires while a hog runs looks like the
//! hog waking the sleeper), and E's consistent wakers together account for at least half of its
//! wakeups. Interrupts also fire while tasks that do block run: E's wakeups on an idle CPU (the
//! idle task wakes no one itself) give the rate of its interrupt wakeups per idle nanosecond, and
//! of W's wakeups of E only those beyond that rate times W's CPU time count for the pair. Each such
//! E gets a channel (its inbox) that each of its wakers writes once per round and that E reads once
//! per round: E's program is "receive, run", W's "run, send to each of its wakees" (plus its own
//! receive or sleep). The inbox holds one message per waker (the waker can be one round ahead, as a
//! token passed back and forth; a recording cannot show buffer sizes). A waker's round is split
//! where it wakes: the mean time from its wakeup of another task to its next block (the rest of a
//! `write`, then the `read` that blocks) runs after its sends; where ping-pongs woke tasks asleep
//! on other, idle CPUs, the median of that time after those wakeups (mostly the IPI: a VM exits
//! to send one) is the scenario's `ipi_cost_ns`, which the model charges only to a wakeup that
//! sends an IPI, and the programs keep the rest. In a cycle of such pairs the task that ran
//! first sends before it receives, so the scenario cannot deadlock at its start. Where all
//! the tasks joined by channels stopped (exited, blocked for good, or no longer woke one another)
//! for the last quarter of the recording or more, each runs the fewest rounds among them and stops
//! as it did; the others loop to the end. A task's rounds are its wakeups, but two tasks that only
//! wake each other (a ping-pong) make a round per round trip, which wakes both where each blocked
//! in its read before the other answered and one where the other found its answer waiting
//! (preempted by its wakee after its write, or running on while the wakee answered from another
//! CPU): a wakeup after which the waker blocked is half a round trip, any other a whole one. Tasks
//! in a pair are groups of their own (one task each); the others are grouped by command name and
//! nice.
//!
//! Many writers to many readers (hackbench's senders and receivers): each reader is woken by many
//! writers, none for a fifth of its wakeups. Among the tasks not in pairs, a *reader* is woken by
//! the others at least [`MIN_PAIR_WAKEUPS`] times, for half its wakeups, and twice as often as it
//! wakes them; a *writer* wakes them more often than they wake it, gives a tenth of those wakeups
//! or more to tasks it wakes more than once (a launcher wakes each of its threads once), and blocks
//! at least once per `HUB_SENDS_PER_BLOCK` wakeups; a wakeup counts beyond what interrupts would
//! explain were every wakeup of the wakee one (its rate over the machine's time, times the waker's
//! CPU time), and the last one a task gives before it exits is its exit's notice (to a parent in
//! `wait`, or a thread's joiner), not a message. Then a task takes its part from its partners': one
//! that writers give half its wakeups, more than it gives readers, is a reader (a receiver that
//! drained full sockets woke their writers more often than they woke it), and one with no part that
//! gives readers half its wakeups, at least as many as writers give it, is a writer if it gives as
//! writers do (a sender that waited on full sockets was woken by their readers as often as it woke
//! them). Writers write only the readers they woke (hackbench's groups): readers and writers joined
//! by at least [`MIN_PAIR_WAKEUPS`] wakeups are one set, and one with no such wakeup (in a short
//! recording a writer wakes each reader a few times) joins the set that holds half its wakeups;
//! those that no set holds are joined by 2 wakeups or more (a whole group whose writers woke each
//! reader a few times). A reader group whose writers together explain half its wakeups, readers and
//! writers running to the end or exiting (the writers exiting where the readers do), gets an inbox
//! per reader. Its messages are read off the readers' bursts (CPU time from a wakeup to the next
//! block), since a reader woken by a write reads every message there before it blocks again: the
//! shortest bursts (the 5th percentile, `READ_PERMILLE`) read one message, the longest (the 99th,
//! `FULL_PERMILLE`) a full inbox, and the readers' CPU time is that many messages (at least one per
//! recorded wakeup). A reader takes one message at a time; a writer writes the inboxes in turn, its
//! CPU time per message before each write, and waits on a full inbox until reads drain it to a
//! quarter (a unix socket's `unix_writable`, hackbench's and `perf bench sched messaging`'s
//! default), or, where the readers' runs that wake writers wake two or more at most once in ten,
//! until a read empties one of its 16 pages and wakes one writer (a pipe's `pipe_read`); unless its
//! own wakeups are mostly its set's (then it waits only on full inboxes: woken by a reader that
//! made room, or by another writer, as a pipe's writer that leaves room wakes the next one waiting)
//! it sleeps as recorded between rounds. Writers that exit write each reader as many rounds as
//! their messages make, and readers that exit read as many, then exit. Such roles and sets split a
//! name's tasks into groups, whatever their starts (a set's readers and writers are one group each
//! however far apart they were created: `perf bench sched messaging` forks them 0.2 ms apart).
//!
//! What cannot be derived is said in the notes: wakeups from interrupts (a timer firing while some
//! task ran) look like wakeups by that task; what a message is (the readers' bursts give its CPU
//! time, not its size); the tunables are not in a trace (HZ, the switch delay δ and the
//! idle-wakeup cost are read from it where it shows them: `machine.rs`); deadline tasks
//! become fair tasks; I/O devices; affinity masks beyond the CPUs a task was seen on.
//!
//! A recording does not name task groups, but CPU loops pinned together split their CPU in the
//! ratio of their weights: loops that share one CPU for the whole recording and split it unlike
//! their nice levels get a group each whose weight is their share (`group_weights`); a group
//! whose tasks were throttled (switched out runnable for the idle task, back with no wakeup)
//! gets the `cpu.max` its throttles imply (`bandwidth`).
//!
//! RT tasks (a kernel priority under `MAX_RT_PRIO`, 100) stay RT tasks at the priority the
//! recording prints (`rt_priority` = 99 − prio; the stop class's `migration/N`, printed at 0,
//! is the highest RT priority), SCHED_RR where one was preempted by a task of its own priority
//! (SCHED_FIFO yields only to a higher one), else SCHED_FIFO.

use std::collections::{BTreeMap, BTreeSet};

use schedlab_sim::{limits, EventKind, Pid, PrevState};
use serde_json::{json, Map, Value};

use crate::Import;

/// The fewest wakeups of one task by another that make a channel between them.
pub const MIN_PAIR_WAKEUPS: u64 = 8;

/// A writer gives at least one in this many of its wakeups to tasks it wakes more than once:
/// a launcher wakes each of its threads once (hackbench's, in a recording here, gave 2 of its
/// 79 to one it woke twice; in short recordings the fewest that writers gave were 2 of 9 and 4
/// of 18).
const REPEATS_PER_WRITE: u64 = 10;

/// Wakeups from a writer to a reader that join the two into a set where neither joined one
/// by [`MIN_PAIR_WAKEUPS`] (one could be a stray).
const MIN_WEAK_WAKEUPS: u64 = 2;

/// What a derived scenario says of each group, to compare with its simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedGroup {
    /// The command name.
    pub comm: String,
    /// How many tasks.
    pub tasks: usize,
    /// Their CPU time in the recording, ns.
    pub cpu_ns: u64,
    /// Mean CPU burst, ns (0: it never blocked, a hog).
    pub burst_ns: u64,
    /// Mean sleep, ns (0: it never slept, or it only waits on its inbox).
    pub sleep_ns: u64,
    /// Its tasks' pids in the trace model.
    pub pids: Vec<Pid>,
}

/// A channel derived from who woke whom: the wakee's inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedChannel {
    /// The channel's name in the scenario.
    pub name: String,
    /// The group (index into [`Derived::groups`]) that reads it: the wakee.
    pub reader: usize,
    /// The groups that write it (the wakers) and how often each woke the reader (less the
    /// wakeups that interrupts firing while it ran would explain).
    pub writers: Vec<(usize, u64)>,
    /// All the reader's wakeups in the recording.
    pub reader_wakeups: u64,
}

/// A scenario document for the recording, the groups it holds, and what it could not derive.
pub struct Derived {
    /// The scenario document (validate it with `schedlab_scenario::Scenario::from_value`).
    pub scenario: Value,
    /// Its task groups, in the scenario's order.
    pub groups: Vec<DerivedGroup>,
    /// The channels derived from who woke whom.
    pub channels: Vec<DerivedChannel>,
    /// What was derived from what, and what could not be.
    pub notes: Vec<String>,
}

#[derive(Default)]
struct Task {
    cpus: BTreeSet<u32>,
    first_ns: Option<u64>,
    cpu_ns: u64,
    bursts: u64,
    sleep_ns: u64,
    sleeps: u64,
    /// Wakeups of this task (of the kind used for wakers).
    wakeups: u64,
    /// Its last switch-out was an exit, and when.
    exited: bool,
    exit_ns: u64,
    /// Switched out runnable (preempted) and not switched in since: from when; and the
    /// longest such wait that ended in a switch-in.
    runnable_since: Option<u64>,
    longest_wait_ns: u64,
    /// Preempted by a task of its own RT priority (a SCHED_RR slice's end), how often.
    rr_turns: u64,
    /// Switched out runnable for the idle task (its group throttled: CFS bandwidth control
    /// dequeued it), on which CPU; and each switch-in back on that CPU with no wakeup between
    /// (the period timer's unthrottle).
    throttled_on: Option<u32>,
    unthrottles: Vec<u64>,
    /// When it last blocked, to measure the sleep to its next wakeup.
    blocked_at: Option<u64>,
    /// When it last woke another task while running, and the time from such a wakeup to its
    /// next block (what a waker still runs after it wrote: the rest of `write`, then `read`).
    woke_at: Option<u64>,
    /// The last task it woke in the run under way: where the run ends in its exit, that
    /// wakeup is the exit's notice (`exit_notify` waking the parent in `wait`, or a thread's
    /// joiner through its `clear_child_tid` futex), not a message; where it ends in a block,
    /// a ping-pong's partner will wake it back (`blocked_after`).
    last_woke: Option<Pid>,
    /// Whether the last wakeup it gave (`woke_at`) was of a task asleep on another, idle CPU
    /// (one that sends an IPI; a wakee that preempts a busy CPU's task sends one too, but a
    /// recording shows that only after the waker may have blocked).
    woke_ipi: bool,
    /// The times from such a wakeup to the next block: each after a wakeup onto an idle CPU
    /// (ns, saturating at `u32::MAX`; a ping-pong's give the scenario its `ipi_cost_ns`), and
    /// the sum and count of those after any other.
    post_ipi_list: Vec<u32>,
    post_other: (u64, u64),
    running_since: Option<u64>,
    /// CPU time of the burst under way, and the sums of the squares of its finished bursts
    /// and of its sleeps (ns²), for their spread.
    cur_burst_ns: u64,
    burst_sum: u64,
    burst_sq: u128,
    sleep_sq: u128,
    /// Each finished burst, ns (saturating at `u32::MAX`): a reader's shortest bursts are a
    /// message's read and its longest a full inbox's (`hub_costs`).
    burst_list: Vec<u32>,
    /// Sleeps that ended in a switch-in with no wakeup recorded since the block: how many,
    /// their sum (ns) and the sum of their squares. Folded into the sleeps when there are
    /// at least [`MIN_UNSEEN_WAKEUPS`] or at least as many as the sleeps seen (a task whose
    /// wakeups the recording systematically misses, as perf misses its own), else left out
    /// (a stray gap in the recording).
    unseen: (u64, u64, u128),
    /// Wakeups of this task that fired on an idle CPU: from an interrupt (a timer, a device),
    /// since the idle task wakes no one itself.
    idle_wakeups: u64,
}

impl Task {
    /// The part of its life (from first seen to its exit or the end) it was not asleep, in
    /// thousandths (at least 1).
    fn awake_permille(&self, end_ns: u64) -> u64 {
        let first = self.first_ns.unwrap_or(0);
        let last = if self.exited { self.exit_ns } else { end_ns };
        let life = last.saturating_sub(first).max(1);
        let asleep = self.sleep_ns + self.blocked_at.map_or(0, |b| last.saturating_sub(b));
        // (In 128 bits: a recording's times may be any 64-bit value.)
        ((u128::from(life.saturating_sub(asleep)) * 1000 / u128::from(life)) as u64).max(1)
    }

    /// The last stretch of a recording of `end_ns` in which an exit counts as the end.
    fn end_margin(&self, end_ns: u64) -> u64 {
        end_ns / 50
    }
}

/// The wakeups of `e` that interrupts would have fired while `w` ran, had they come at the
/// rate they came while the CPUs idled: `e`'s wakeups on an idle CPU per idle nanosecond,
/// times `w`'s CPU time (0 when no CPU was seen idle).
fn interrupt_wakeups(tasks: &BTreeMap<Pid, Task>, w: Pid, e: Pid, idle_ns: u64) -> u64 {
    let (Some(w), Some(e)) = (tasks.get(&w), tasks.get(&e)) else {
        return 0;
    };
    if idle_ns == 0 {
        return 0;
    }
    (u128::from(e.idle_wakeups) * u128::from(w.cpu_ns) / u128::from(idle_ns)) as u64
}

/// A program's steps, counted as the validator counts them (loops expanded).
struct Program {
    steps: Vec<Value>,
    ops: u64,
}

/// Tasks of one name first seen further apart than this (or than 2 % of the recording) are
/// groups of their own (ns).
const START_APART_NS: u64 = 1_000_000;
/// Kernel priorities below this are RT tasks' (`MAX_RT_PRIO`; a SCHED_DEADLINE task's is -1).
const MAX_RT_PRIO: i32 = 100;

/// A task last seen preempted that is not seen again for this long, and for
/// [`VANISHED_WAITS`] times its longest wait to run, exited unseen (ns). (A nice-19 task
/// beside ten nice-0 loops on its CPU waits about half a second for each slice; a
/// SCHED_IDLE one, seconds: its own longest wait then sets the bound.)
const VANISHED_NS: u64 = 1_000_000_000;
const VANISHED_WAITS: u64 = 10;

/// The fewest sleeps ended by a switch-in with no recorded wakeup that are taken for
/// sleeps (see `Task::unseen`).
const MIN_UNSEEN_WAKEUPS: u64 = 8;

/// A task asleep at the end for longer than this many of its rounds (mean burst and sleep)
/// went quiet: it runs its recorded rounds and sleeps to the end.
const QUIET_ROUNDS: u64 = 20;

/// A writer of readers' inboxes blocks at least once per this many wakeups it gives (a task
/// that hardly blocks is taken for the victim of interrupts; hackbench's senders, recorded on
/// this project's VMs, gave 2 to 60 wakeups per block over sockets and up to 400 over pipes).
const HUB_SENDS_PER_BLOCK: u64 = 1_000;

/// The most messages a writer of readers' inboxes sends per round.
const MAX_HUB_SENDS: u64 = 1_000;

/// The most tasks of a reader group with inboxes (each writer's program names them all).
const MAX_HUB_READERS: u64 = 256;

/// The most program steps of a writer of inboxes (the scenario allows 1 024 per program).
const MAX_HUB_STEPS: u64 = 1_000;

/// The most tasks in one group (the scenario format's `count` limit).
const MAX_COUNT: u64 = 10_000;

/// The most program steps a derived scenario may use (the validator allows 4 000 000).
const MAX_DERIVED_OPS: u64 = 3_000_000;

/// Derives a scenario from `imp`, named `name`, to run under `variants`. Tasks with less than
/// `min_cpu_ns` of CPU time in the whole recording (the tracer's own helpers, kworkers that woke
/// once) are left out and counted in the notes.
pub fn derive_scenario(imp: &Import, name: &str, variants: &[String], min_cpu_ns: u64) -> Derived {
    let t = &imp.trace;
    let mut notes = vec![];
    let cpus = t.cpus.clamp(1, limits::MAX_CPUS);
    if t.cpus > limits::MAX_CPUS {
        notes.push(format!(
            "the recording names CPUs up to {}; the scenario has the model's {} (affinities are cut to them)",
            t.cpus - 1,
            limits::MAX_CPUS
        ));
    }
    // The waker is the task current on the CPU where the wakeup fired: sched_waking when the
    // recording has it (it fires on the waker's CPU), sched_wakeup otherwise.
    let by_waking = t
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    // Each pid's first entry (one lookup per event below, where a scan of every pid was one
    // per event times the pids).
    let mut by_pid: std::collections::HashMap<Pid, &crate::RealTask> = Default::default();
    for r in &imp.pids {
        by_pid.entry(r.pid).or_insert(r);
    }
    let real = |pid: Pid| by_pid.get(&pid).copied();
    let comm_of = |pid: Pid| real(pid).map_or_else(|| pid.to_string(), |r| r.comm.clone());
    let prio_of = |pid: Pid| real(pid).and_then(|r| r.prio);
    let rt_prio_of = |pid: Pid| prio_of(pid).filter(|p| (0..MAX_RT_PRIO).contains(p));
    let mut tasks: BTreeMap<Pid, Task> = BTreeMap::new();
    let mut pairs: BTreeMap<(Pid, Pid), u64> = BTreeMap::new();
    // When each waker last woke each wakee (see `stopped`).
    let mut last_pair: BTreeMap<(Pid, Pid), u64> = BTreeMap::new();
    // Wakeups after which the waker next blocked (neither preempted nor waking anyone else
    // first): in a ping-pong its partner's answer then wakes it too (see `rounds_of`).
    let mut blocked_after: BTreeMap<(Pid, Pid), u64> = BTreeMap::new();
    let mut running: BTreeMap<u32, Pid> = BTreeMap::new();
    // CPUs seen switching to the idle task, since when; and the idle time seen in all.
    let mut idle_since: BTreeMap<u32, u64> = BTreeMap::new();
    let mut idle_ns = 0u64;
    for e in &t.events {
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                if prev_pid != 0 {
                    let p = tasks.entry(prev_pid).or_default();
                    if let Some(since) = p.running_since.take() {
                        p.cpu_ns += e.t_ns.saturating_sub(since);
                        p.cur_burst_ns += e.t_ns.saturating_sub(since);
                    }
                    p.exited = prev_state == PrevState::Dead;
                    p.exit_ns = e.t_ns;
                    p.runnable_since = (prev_state == PrevState::Running).then_some(e.t_ns);
                    p.throttled_on =
                        (prev_state == PrevState::Running && next_pid == 0).then_some(e.cpu);
                    // An RT task preempted by one of its own priority: SCHED_RR's time slice
                    // ran out (a SCHED_FIFO task yields only to a higher priority).
                    if prev_state == PrevState::Running
                        && next_pid != 0
                        && rt_prio_of(prev_pid).is_some()
                        && rt_prio_of(prev_pid) == rt_prio_of(next_pid)
                    {
                        p.rr_turns += 1;
                    }
                    match p.last_woke.take() {
                        Some(w) if p.exited => {
                            if let Some(n) = pairs.get_mut(&(prev_pid, w)) {
                                *n -= 1;
                                if *n == 0 {
                                    pairs.remove(&(prev_pid, w));
                                }
                            }
                        }
                        Some(w) if prev_state == PrevState::Sleeping => {
                            *blocked_after.entry((prev_pid, w)).or_default() += 1;
                        }
                        _ => {}
                    }
                    if prev_state == PrevState::Sleeping {
                        p.bursts += 1;
                        let b = std::mem::take(&mut p.cur_burst_ns);
                        p.burst_sum += b;
                        p.burst_sq = p.burst_sq.saturating_add(sq(b));
                        p.burst_list.push(u32::try_from(b).unwrap_or(u32::MAX));
                        p.blocked_at = Some(e.t_ns);
                        if let Some(w) = p.woke_at.take() {
                            let post = e.t_ns.saturating_sub(w);
                            if std::mem::take(&mut p.woke_ipi) {
                                p.post_ipi_list
                                    .push(u32::try_from(post).unwrap_or(u32::MAX));
                            } else {
                                p.post_other.0 += post;
                                p.post_other.1 += 1;
                            }
                        }
                    }
                    if prev_state != PrevState::Sleeping {
                        p.woke_at = None;
                        p.woke_ipi = false;
                    }
                }
                if let Some(since) = idle_since.remove(&e.cpu) {
                    idle_ns += e.t_ns.saturating_sub(since);
                }
                if next_pid == 0 {
                    idle_since.insert(e.cpu, e.t_ns);
                }
                if next_pid != 0 {
                    let n = tasks.entry(next_pid).or_default();
                    // A task switched in with no wakeup seen since it blocked: the wakeup
                    // was not recorded (perf drops the events it causes itself, so the
                    // recorder's own wakeups are missing). Its sleep ended here at the
                    // latest; counted apart (see `unseen`).
                    if let Some(at) = n.blocked_at.take() {
                        let d = e.t_ns.saturating_sub(at);
                        n.unseen.0 += 1;
                        n.unseen.1 += d;
                        n.unseen.2 = n.unseen.2.saturating_add(sq(d));
                    }
                    if n.throttled_on.take() == Some(e.cpu) {
                        n.unthrottles.push(e.t_ns);
                    }
                    n.cpus.insert(e.cpu);
                    n.first_ns.get_or_insert(e.t_ns);
                    n.running_since = Some(e.t_ns);
                    if let Some(at) = n.runnable_since.take() {
                        n.longest_wait_ns = n.longest_wait_ns.max(e.t_ns.saturating_sub(at));
                    }
                    n.last_woke = None;
                    running.insert(e.cpu, next_pid);
                } else {
                    running.remove(&e.cpu);
                }
            }
            EventKind::Waking { pid, target_cpu }
            | EventKind::Wakeup { pid, target_cpu }
            | EventKind::WakeupNew { pid, target_cpu }
                if pid != 0 =>
            {
                let p = tasks.entry(pid).or_default();
                p.first_ns.get_or_insert(e.t_ns);
                p.throttled_on = None;
                if let Some(at) = p.blocked_at.take() {
                    let d = e.t_ns.saturating_sub(at);
                    p.sleep_ns += d;
                    p.sleep_sq = p.sleep_sq.saturating_add(sq(d));
                    p.sleeps += 1;
                }
                let counts = match e.kind {
                    EventKind::Waking { .. } => by_waking,
                    EventKind::Wakeup { .. } => !by_waking,
                    _ => false,
                };
                if counts {
                    p.wakeups += 1;
                    if idle_since.contains_key(&e.cpu) {
                        p.idle_wakeups += 1;
                    }
                    if let Some(&waker) = running.get(&e.cpu) {
                        if waker != pid {
                            *pairs.entry((waker, pid)).or_default() += 1;
                            last_pair.insert((waker, pid), e.t_ns);
                            let w = tasks.entry(waker).or_default();
                            w.woke_at = Some(e.t_ns);
                            // (`sched_waking`'s target is the CPU the wakee last ran on,
                            // where a pinned partner runs; `sched_wakeup`'s, where a recording
                            // has no `sched_waking`, the CPU it was placed on.)
                            w.woke_ipi =
                                target_cpu != e.cpu && idle_since.contains_key(&target_cpu);
                            w.last_woke = Some(pid);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for since in idle_since.values() {
        idle_ns += t.end_ns.saturating_sub(*since);
    }
    for p in tasks.values_mut() {
        let (n, sum, sq) = p.unseen;
        if n >= MIN_UNSEEN_WAKEUPS || (n > 0 && n >= p.sleeps) {
            p.sleeps += n;
            p.sleep_ns += sum;
            p.sleep_sq = p.sleep_sq.saturating_add(sq);
        }
    }
    // Preempted and never run again for at least `VANISHED_NS` and `VANISHED_WAITS` times its
    // longest wait to run: a runnable task is picked again within its usual waits, so it
    // exited where the recording does not show it (killed while runnable: `affinity`'s loops,
    // waiting 4 ms at most and last seen preempted up to 59 s before the end, ran "forever"
    // in their scenario).
    for p in tasks.values_mut() {
        if let Some(at) = p.runnable_since {
            let gone = VANISHED_NS.max(p.longest_wait_ns.saturating_mul(VANISHED_WAITS));
            if t.end_ns.saturating_sub(at) >= gone {
                p.exited = true;
                p.exit_ns = at;
            }
        }
    }
    // Still running at the end: count the time up to the end.
    for (&cpu, pid) in &running {
        if let Some(p) = tasks.get_mut(pid) {
            if let Some(since) = p.running_since.take() {
                p.cpu_ns += t.end_ns.saturating_sub(since);
            }
            p.cpus.insert(cpu);
        }
    }
    let mut left_out = 0usize;
    let (mut rt, mut dl) = (0usize, 0usize);
    let kept: BTreeSet<Pid> = tasks
        .iter()
        .filter(|(_, task)| {
            let keep = task.cpu_ns >= min_cpu_ns.max(1);
            left_out += usize::from(!keep);
            keep
        })
        .map(|(&p, _)| p)
        .collect();
    for &pid in &kept {
        match prio_of(pid) {
            Some(p) if p < 0 => dl += 1,
            Some(p) if p < MAX_RT_PRIO => rt += 1,
            _ => {}
        }
    }
    let born: BTreeSet<Pid> = t
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::WakeupNew { pid, .. } => Some(pid),
            _ => None,
        })
        .collect();
    let weights = group_weights(&tasks, &kept, &born, t.end_ns, &prio_of);

    // Consistent pairs, then the wakees whose wakeups they explain (at least half).
    let mut woke: BTreeMap<Pid, u64> = BTreeMap::new();
    for (&(w, _), &n) in &pairs {
        *woke.entry(w).or_default() += n;
    }
    let mut into: BTreeMap<Pid, Vec<(Pid, u64)>> = BTreeMap::new();
    for (&(w, e), &n) in &pairs {
        let wakeups = tasks.get(&e).map_or(0, |x| x.wakeups);
        // A waker that hardly ever blocked is taken for the victim of interrupts that fired
        // while it ran (timers): a task that passes messages waits for answers at least once
        // per ten messages.
        let blocks = tasks.get(&w).is_some_and(|x| x.bursts * 10 >= woke[&w]);
        // Interrupts that wake E (its timers, a device) fire whether a CPU idles or runs a
        // task, and each one that fired while W ran looks like W waking E. At the rate E was
        // woken on idle CPUs, W's CPU time accounts for some of W's wakeups of E; only those
        // beyond count.
        let n = n.saturating_sub(interrupt_wakeups(&tasks, w, e, idle_ns));
        // The scenario has W write E once per round: W woke E at least once per five of its
        // rounds (blocks). A kworker woken 41 times while a pipe pair made 12 000 round trips
        // is not the pair's partner: as one, it bounded the pair to its 41 rounds.
        let per_round = tasks.get(&w).is_some_and(|x| n * 5 >= x.bursts);
        if kept.contains(&w)
            && kept.contains(&e)
            && blocks
            && per_round
            && n >= MIN_PAIR_WAKEUPS
            && n * 5 >= wakeups
        {
            into.entry(e).or_default().push((w, n));
        }
    }
    into.retain(|e, ws| 2 * ws.iter().map(|x| x.1).sum::<u64>() >= tasks[e].wakeups);
    if into.len() + into.values().map(Vec::len).sum::<usize>() > limits::MAX_TASKS / 2 {
        notes.push(
            "too many waker→wakee pairs for one scenario: every sleep is a timed sleep".into(),
        );
        into.clear();
    }
    let mut out_of: BTreeMap<Pid, Vec<Pid>> = BTreeMap::new();
    for (&e, ws) in &into {
        for &(w, _) in ws {
            out_of.entry(w).or_default().push(e);
        }
    }
    let coupled: BTreeSet<Pid> = into
        .iter()
        .flat_map(|(&e, ws)| std::iter::once(e).chain(ws.iter().map(|x| x.0)))
        .collect();
    // A coupled task's rounds: a ping-pong's round trips; else wakeups received, else blocks,
    // else sends per wakee. Two tasks that only wake each other pass one message each way per
    // round trip, and a round trip wakes both (each blocked in its read before the other's
    // answer came) or one (the other found the answer waiting: preempted by its wakee after
    // its write, or running on while the wakee answered from another CPU). A wakeup after
    // which the waker blocked is half of a round trip of two; any other is one of one.
    let partner = |pid: Pid| -> Option<Pid> {
        match (
            into.get(&pid).map(Vec::as_slice),
            out_of.get(&pid).map(Vec::as_slice),
        ) {
            (Some(&[(q, _)]), Some(&[r])) if q == r => {
                let back = (
                    into.get(&q).map(Vec::as_slice),
                    out_of.get(&q).map(Vec::as_slice),
                );
                matches!(back, (Some(&[(a, _)]), Some(&[b])) if a == pid && b == pid).then_some(q)
            }
            _ => None,
        }
    };
    // The IPI a ping-pong's waker sends to wake its partner asleep on another, idle CPU (a
    // VM exit on a virtual machine: `switchcost wake`, 2 to 13 µs on the measured VMs), then
    // the rest of its `write` and its `read` up to the block: the median of that time after
    // such wakeups, over the pairs, is the scenario's `ipi_cost_ns`, paid only where a
    // wakeup sends an IPI. Left in their programs, as CPU time after every send, those
    // costs let a pair on two CPUs run in lockstep without blocking once a preemption made
    // one of them find its answer waiting, which the machine's pairs did not do. Not exact:
    // the median holds the `read` up to the block as well (16–17 µs on the haltpoll VM, whose
    // IPI costs its waker 12.6 µs), so a wakee that preempts a busy CPU waits that long in
    // the model (the IPI arrives when its waker has paid for it); the time after a wakeup
    // that preempted a busy CPU's task (an IPI too, which a recording shows only after the
    // waker may have blocked) stays in the programs and is charged twice; and hub programs'
    // CPU per message is not reduced.
    let ipi_posts: Vec<u32> = tasks
        .keys()
        .filter(|&&pid| partner(pid).is_some())
        .flat_map(|pid| tasks[pid].post_ipi_list.iter().copied())
        .collect();
    let ipi_wakeups = ipi_posts.len();
    let ipi_cost_ns = (ipi_wakeups >= crate::machine::MIN_SAMPLES).then(|| {
        let mut v = ipi_posts;
        let n = v.len();
        u64::from(*v.select_nth_unstable(n / 2).1).min(limits::MAX_SWITCH_COST_NS)
    });
    let rounds_of = |pid: Pid| -> u64 {
        let me = &tasks[&pid];
        let targets = out_of.get(&pid).map_or(&[][..], |v| v.as_slice());
        if let Some(q) = partner(pid) {
            let get = |m: &BTreeMap<(Pid, Pid), u64>, k| m.get(&k).copied().unwrap_or(0);
            let woken = get(&pairs, (pid, q)) + get(&pairs, (q, pid));
            let blocked = get(&blocked_after, (pid, q)) + get(&blocked_after, (q, pid));
            woken
                .saturating_sub(blocked / 2)
                .max(me.wakeups)
                .max(tasks[&q].wakeups)
        } else if into.contains_key(&pid) {
            me.wakeups
        } else if me.bursts > 0 && me.sleeps > 0 {
            me.bursts
        } else {
            let sent: u64 = targets.iter().map(|e| pairs[&(pid, *e)]).sum();
            sent / targets.len().max(1) as u64
        }
    };
    // Whether a coupled task stopped long before the end: it exited, or has been blocked,
    // for the last quarter of the recording or more, or it neither woke nor was woken by its
    // channels' other ends for that long (two processes that woke each other over a lock at
    // their start and then waited on their children: what they passed ended there, whatever
    // they did after). (A pair that ran to near the end is better left running to it: its
    // rounds are estimates.)
    let quarter_before_end = |at: u64| t.end_ns.saturating_sub(at) >= t.end_ns / 4;
    let stopped = |pid: Pid| -> bool {
        let me = &tasks[&pid];
        let since = if me.exited {
            Some(me.exit_ns)
        } else {
            me.blocked_at
        };
        let ends = into
            .get(&pid)
            .into_iter()
            .flatten()
            .map(|&(w, _)| (w, pid))
            .chain(out_of.get(&pid).into_iter().flatten().map(|&e| (pid, e)));
        let last = ends.filter_map(|k| last_pair.get(&k)).max();
        since.is_some_and(quarter_before_end) || last.is_some_and(|&at| quarter_before_end(at))
    };
    // The coupled tasks' components (tasks joined by a channel either way): where every
    // member stopped long before the end, each runs the component's fewest rounds and then
    // stops as it did (exits, or sleeps to the end), so that every message sent is read and
    // no task is left waiting on a channel.
    let mut bounded: BTreeMap<Pid, u64> = BTreeMap::new();
    {
        let mut seen: BTreeSet<Pid> = BTreeSet::new();
        for &start in &coupled {
            if !seen.insert(start) {
                continue;
            }
            let mut comp = vec![start];
            let mut i = 0;
            while i < comp.len() {
                let x = comp[i];
                i += 1;
                let ins = into.get(&x).into_iter().flatten().map(|w| w.0);
                let outs = out_of.get(&x).into_iter().flatten().copied();
                for y in ins.chain(outs).collect::<Vec<_>>() {
                    if seen.insert(y) {
                        comp.push(y);
                    }
                }
            }
            if comp.iter().all(|&x| stopped(x)) {
                let n = comp.iter().map(|&x| rounds_of(x)).min().unwrap_or(0);
                for &x in &comp {
                    bounded.insert(x, n);
                }
            }
        }
    }
    // The first task of each cycle of pairs sends before it receives.
    let reaches = |from: Pid, to: Pid| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            for &y in out_of.get(&x).into_iter().flatten() {
                if y == to {
                    return true;
                }
                if seen.insert(y) {
                    stack.push(y);
                }
            }
        }
        false
    };
    let first_ns = |p: Pid| (tasks[&p].first_ns.unwrap_or(0), p);
    let send_first: BTreeSet<Pid> = into
        .keys()
        .copied()
        .filter(|&x| {
            reaches(x, x)
                && into
                    .keys()
                    .filter(|&&y| y != x && reaches(x, y) && reaches(y, x))
                    .all(|&y| first_ns(x) < first_ns(y))
        })
        .collect();

    // Many writers to many readers (hackbench's senders and receivers, `perf bench sched
    // messaging`): each reader is woken by many writers, each for a few of its wakeups, so
    // no pair is consistent. Among the tasks not in a pair, the wakeups one gave another
    // make each a *reader* (woken by them at least `MIN_PAIR_WAKEUPS` times, for at least
    // half its wakeups and twice as often as it woke others) or a *writer* (woke others at
    // least `MIN_PAIR_WAKEUPS` times, more often than they woke it, a tenth of those times
    // or more tasks it woke more than once, blocking at least once per `HUB_SENDS_PER_BLOCK`
    // wakeups: a launcher that woke each of its threads once to start them is not a writer,
    // and a task that hardly blocks is a victim of interrupts).
    // A wakeup counts beyond those that interrupts would explain even if every wakeup of the
    // wakee were one: its wakeups per second of the machine's time times the waker's CPU
    // time (a machine busy throughout leaves no idle rate to read, and a timer task woken
    // while two CPU loops run looks like their reader), or at the idle rate where that is
    // higher. Roles split a name's tasks into groups (hackbench's senders and receivers
    // share one name) only where they make a channel (below).
    let machine_ns = u128::from(t.end_ns.max(1)) * u128::from(cpus);
    let mut flow: BTreeMap<(Pid, Pid), u64> = BTreeMap::new();
    for (&(w, e), &n) in &pairs {
        let free = |p: Pid| kept.contains(&p) && !coupled.contains(&p);
        if free(w) && free(e) {
            let all = u128::from(tasks[&e].wakeups) * u128::from(tasks[&w].cpu_ns) / machine_ns;
            let n = n.saturating_sub(interrupt_wakeups(&tasks, w, e, idle_ns).max(all as u64));
            if n > 0 {
                flow.insert((w, e), n);
            }
        }
    }
    let mut flow_in: BTreeMap<Pid, u64> = BTreeMap::new();
    let mut flow_out: BTreeMap<Pid, u64> = BTreeMap::new();
    // Wakeups given to tasks woken more than once.
    let mut repeated: BTreeMap<Pid, u64> = BTreeMap::new();
    for (&(w, e), &n) in &flow {
        *flow_out.entry(w).or_default() += n;
        *flow_in.entry(e).or_default() += n;
        if n > 1 {
            *repeated.entry(w).or_default() += n;
        }
    }
    let gives = |pid: Pid, gave: u64| {
        let me = &tasks[&pid];
        REPEATS_PER_WRITE * repeated.get(&pid).copied().unwrap_or(0) >= gave
            && me.bursts * HUB_SENDS_PER_BLOCK >= gave
            && me.sleeps > 0
    };
    let first_role = |pid: Pid| -> Role {
        let got = flow_in.get(&pid).copied().unwrap_or(0);
        let gave = flow_out.get(&pid).copied().unwrap_or(0);
        if got >= MIN_PAIR_WAKEUPS && got >= 2 * gave && 2 * got >= tasks[&pid].wakeups {
            Role::Reader
        } else if gave >= MIN_PAIR_WAKEUPS && gave > got && gives(pid, gave) {
            Role::Writer
        } else {
            Role::Other
        }
    };
    // Then a task's part as its partners' make it: a writer that waits on full inboxes is
    // woken by the reads that drain them (a socket's reader wakes its writers), and a reader
    // that drains full inboxes wakes their writers, about as often as it is woken, or more.
    // One that writers give half its wakeups, more than it gives readers, is a reader (also
    // where it woke writers more often than they woke it); one with no part yet that gives
    // readers half its wakeups, at least as many as writers give it, a writer (if it gives as
    // writers do, above).
    let first: BTreeMap<Pid, Role> = flow_in
        .keys()
        .chain(flow_out.keys())
        .map(|&p| (p, first_role(p)))
        .collect();
    let mut to_readers: BTreeMap<Pid, u64> = BTreeMap::new();
    let mut from_writers: BTreeMap<Pid, u64> = BTreeMap::new();
    for (&(w, e), &n) in &flow {
        if first[&e] == Role::Reader {
            *to_readers.entry(w).or_default() += n;
        }
        if first[&w] == Role::Writer {
            *from_writers.entry(e).or_default() += n;
        }
    }
    let roles: BTreeMap<Pid, Role> = {
        first
            .iter()
            .map(|(&p, &r)| {
                let gave = flow_out.get(&p).copied().unwrap_or(0);
                let to_r = to_readers.get(&p).copied().unwrap_or(0);
                let from_w = from_writers.get(&p).copied().unwrap_or(0);
                let read =
                    from_w >= MIN_PAIR_WAKEUPS && 2 * from_w >= tasks[&p].wakeups && from_w > to_r;
                let r = match r {
                    Role::Reader => Role::Reader,
                    Role::Writer if read => Role::Reader,
                    Role::Writer => Role::Writer,
                    Role::Other
                        if to_r >= MIN_PAIR_WAKEUPS
                            && 2 * to_r >= gave
                            && to_r >= from_w
                            && gives(p, gave) =>
                    {
                        Role::Writer
                    }
                    Role::Other if read => Role::Reader,
                    Role::Other => Role::Other,
                };
                (p, r)
            })
            .collect()
    };
    let role_of = |pid: Pid| roles.get(&pid).copied().unwrap_or(Role::Other);

    // Which readers a writer writes: the components of the flow between writers and readers,
    // joined where a writer woke a reader at least `MIN_PAIR_WAKEUPS` times (hackbench's
    // groups: each sender writes only its own group's receivers). A reader or writer with no
    // such wakeup (a short recording's writer wakes each of its readers a few times) joins
    // the component that holds at least half of its flow. Keyed by the component's least pid.
    let component: BTreeMap<Pid, Pid> = {
        let hub_role = |p: Pid| role_of(p) != Role::Other;
        let mut parent: BTreeMap<Pid, Pid> = flow
            .keys()
            .flat_map(|&(w, e)| [w, e])
            .filter(|&p| hub_role(p))
            .map(|p| (p, p))
            .collect();
        fn root(parent: &mut BTreeMap<Pid, Pid>, mut x: Pid) -> Pid {
            while parent[&x] != x {
                let up = parent[&parent[&x]];
                parent.insert(x, up);
                x = up;
            }
            x
        }
        // Writer → reader flows, both ways round.
        let mut edges: BTreeMap<Pid, Vec<(Pid, u64)>> = BTreeMap::new();
        for (&(w, e), &n) in &flow {
            if role_of(w) == Role::Writer && role_of(e) == Role::Reader {
                edges.entry(w).or_default().push((e, n));
                edges.entry(e).or_default().push((w, n));
                if n >= MIN_PAIR_WAKEUPS {
                    let (a, b) = (root(&mut parent, w), root(&mut parent, e));
                    parent.insert(a.max(b), a.min(b));
                }
            }
        }
        // Tasks alone join the set that holds at least half of their flow.
        fn attach(
            parent: &mut BTreeMap<Pid, Pid>,
            edges: &BTreeMap<Pid, Vec<(Pid, u64)>>,
        ) -> BTreeMap<Pid, Pid> {
            let pids: Vec<Pid> = parent.keys().copied().collect();
            let roots: BTreeMap<Pid, Pid> = pids.iter().map(|&p| (p, root(parent, p))).collect();
            let mut size: BTreeMap<Pid, usize> = BTreeMap::new();
            for r in roots.values() {
                *size.entry(*r).or_default() += 1;
            }
            let mut out = roots.clone();
            for (&p, &r) in &roots {
                if size[&r] > 1 {
                    continue;
                }
                let mut to: BTreeMap<Pid, u64> = BTreeMap::new();
                for &(q, n) in edges.get(&p).into_iter().flatten() {
                    if size[&roots[&q]] > 1 {
                        *to.entry(roots[&q]).or_default() += n;
                    }
                }
                let all: u64 = to.values().sum();
                if let Some((&c, &n)) = to.iter().max_by_key(|&(c, n)| (*n, std::cmp::Reverse(*c)))
                {
                    if 2 * n >= all {
                        out.insert(p, c);
                        parent.insert(p, c);
                    }
                }
            }
            out
        }
        let mut out = attach(&mut parent, &edges);
        // Then the tasks still alone are joined by their weaker flows, at least
        // `MIN_WEAK_WAKEUPS` wakeups between a writer and a reader that both are (a short
        // recording's whole group: each sender woke each receiver a few times), and those
        // still alone after that join one of these sets as above.
        let mut alone: BTreeMap<Pid, usize> = BTreeMap::new();
        for r in out.values() {
            *alone.entry(*r).or_default() += 1;
        }
        let is_alone = |p: &Pid| alone[&out[p]] == 1;
        let weak: Vec<(Pid, Pid)> = edges
            .iter()
            .filter(|(p, _)| is_alone(p))
            .flat_map(|(&p, to)| to.iter().map(move |&(q, n)| (p, q, n)))
            .filter(|&(_, q, n)| n >= MIN_WEAK_WAKEUPS && is_alone(&q))
            .map(|(p, q, _)| (p, q))
            .collect();
        if !weak.is_empty() {
            for (p, q) in weak {
                let (a, b) = (root(&mut parent, p), root(&mut parent, q));
                parent.insert(a.max(b), a.min(b));
            }
            out = attach(&mut parent, &edges);
        }
        out
    };
    let role_key = |p: Pid| {
        let r = role_of(p);
        let c = if r == Role::Other {
            0
        } else {
            component.get(&p).copied().unwrap_or(p)
        };
        (r, c)
    };

    // Groups: one per coupled task, one per command name, nice and role for the rest, started
    // together (a group's tasks share one start: a task first seen more than `start_apart`
    // after the first of its name's group starts a group of its own, unless it is a reader or
    // writer of a set, whose members belong together whenever they were created); ordered by
    // start.
    let start_apart = (t.end_ns / 50).max(START_APART_NS);
    // Keyed by name, kernel priority (a group has one nice, or one RT priority) and role.
    let start_of = |members: &[Pid]| {
        members
            .iter()
            .filter_map(|p| tasks[p].first_ns)
            .min()
            .unwrap_or(0)
    };
    let group_by = |role: &dyn Fn(Pid) -> (Role, Pid)| {
        let mut groups: Vec<(String, Vec<Pid>)> = vec![];
        // Per key, its groups so far: index, first start, first member.
        let mut by_comm: BTreeMap<GroupKey, Vec<(usize, u64, Pid)>> = BTreeMap::new();
        let mut by_start: Vec<Pid> = kept.iter().copied().collect();
        by_start.sort_by_key(|p| (tasks[p].first_ns.unwrap_or(0), *p));
        for pid in by_start {
            let comm = sanitize(&comm_of(pid));
            let first = tasks[&pid].first_ns.unwrap_or(0);
            let key = (comm.clone(), prio_of(pid), role(pid));
            let (part, _set) = key.2;
            if coupled.contains(&pid) || weights.contains_key(&pid) {
                groups.push((comm, vec![pid]));
                continue;
            }
            let same = by_comm
                .get(&key)
                .into_iter()
                .flatten()
                .find(|&&(_, since, rep)| {
                    part != Role::Other
                        || (first.saturating_sub(since) <= start_apart
                            && alike(&tasks[&rep], &tasks[&pid], t.end_ns))
                });
            if let Some(&(g, _, _)) = same {
                groups[g].1.push(pid);
            } else {
                by_comm
                    .entry(key)
                    .or_default()
                    .push((groups.len(), first, pid));
                groups.push((comm, vec![pid]));
            }
        }
        groups.sort_by_key(|(_, m)| (start_of(m), m[0]));
        groups
    };
    // First by every task's role (a coupled task's is `Other`: it has no flow); the roles that
    // make no channel are dropped below.
    let mut groups = group_by(&role_key);

    let max_duration_ms = limits::MAX_DURATION_NS / 1_000_000;
    let duration_ms = t.end_ns.div_ceil(1_000_000).clamp(1, max_duration_ms);
    if t.end_ns > limits::MAX_DURATION_NS {
        notes.push(format!(
            "the recording spans {:.0} s; a scenario lasts at most an hour: tasks that start later start at its end",
            t.end_ns as f64 / 1e9
        ));
    }
    let inbox = |pid: Pid| format!("wake-{}", real(pid).map_or(pid, |r| r.real_pid));

    let t_end = t.end_ns;
    // Readers' inboxes (the module doc): a reader group of one name, nice and set gets them
    // when writer groups that each woke it at least `MIN_PAIR_WAKEUPS` times explain half its
    // wakeups, the readers run to the end or exit, and so do the writers, exiting where the
    // readers exit (a writer that exits writes each reader a count of rounds, and readers that
    // exit read what their writers write: a reader that took messages as they came from a
    // shared channel could not be given its count in advance).
    // Only where every task fits the scenario (none left out, so no inbox loses its writers),
    // a reader group has at most `MAX_HUB_READERS` tasks, and the programs stay within the
    // step and loop limits.
    let role_of_group = |members: &[Pid]| role_of(members[0]);
    // How a hub's group ends: running to the end or exited (not quiet).
    let hub_end = |members: &[Pid]| {
        let ms: Vec<&Task> = members.iter().map(|p| &tasks[p]).collect();
        Some(group_end(&ms, t.end_ns)).filter(|e| *e != End::Quiet)
    };
    let mut hubs: Vec<Hub> = vec![];
    // Writer group → whether it only waits on full inboxes (no timed sleeps).
    let mut backpressure: BTreeMap<usize, bool> = BTreeMap::new();
    if kept.len() as u64 <= (limits::MAX_TASKS as u64).min(MAX_COUNT) {
        let gidx: BTreeMap<Pid, usize> = groups
            .iter()
            .enumerate()
            .flat_map(|(i, (_, m))| m.iter().map(move |&p| (p, i)))
            .collect();
        // Group → group: wakeups.
        let mut between: BTreeMap<(usize, usize), u64> = BTreeMap::new();
        for (&(w, e), &n) in &flow {
            *between.entry((gidx[&w], gidx[&e])).or_default() += n;
        }
        let mut hub_ops = 0u64;
        for (ri, (_, readers)) in groups.iter().enumerate() {
            let k = readers.len() as u64;
            let Some(end) = hub_end(readers) else {
                continue;
            };
            if role_of_group(readers) != Role::Reader || k > MAX_HUB_READERS {
                continue;
            }
            let wakeups: u64 = readers.iter().map(|p| tasks[p].wakeups).sum();
            let writers: Vec<(usize, u64)> = between
                .iter()
                .filter(|(&(wi, r), &n)| {
                    r == ri
                        && n >= MIN_PAIR_WAKEUPS
                        && role_of_group(&groups[wi].1) == Role::Writer
                        // Readers that exit read their writers' count: those exit too.
                        && match hub_end(&groups[wi].1) {
                            Some(w) => end == End::Runs || w == End::Exits,
                            None => false,
                        }
                })
                .map(|(&(wi, _), &n)| (wi, n))
                .collect();
            let msgs: u64 = writers.iter().map(|x| x.1).sum();
            if writers.is_empty() || 2 * msgs < wakeups {
                continue;
            }
            let costs = hub_costs(readers, &tasks, msgs);
            // Groups that exit write each reader a number of times and read as many.
            let exits = end == End::Exits;
            let reads: u64 = writers
                .iter()
                .map(|&(wi, n)| {
                    let m = groups[wi].1.len() as u64;
                    m * hub_loops(costs.scaled(n), m, k)
                })
                .sum();
            if exits && reads > u64::from(limits::MAX_LOOP_TIMES) {
                continue;
            }
            // Each writer's program: a write per reader and a sleep per round.
            let mut ops = 0u64;
            let mut fits = true;
            for &(wi, n) in &writers {
                let n = costs.scaled(n);
                let ws = &groups[wi].1;
                let woken: u64 = ws.iter().map(|p| tasks[p].wakeups).sum();
                // Woken by its readers (a read made room) or by the hub's writers (a pipe's
                // writer that leaves room wakes the next one waiting: `pipe_write`'s
                // `wake_next_writer`).
                let by_hub: u64 = std::iter::once(ri)
                    .chain(writers.iter().map(|w| w.0))
                    .map(|g| between.get(&(g, wi)).copied().unwrap_or(0))
                    .sum();
                let back = 2 * by_hub >= woken;
                backpressure.insert(wi, back);
                let sleeps = if back {
                    0
                } else {
                    hub_rounds(k, hub_sends(n, ws, &tasks))
                };
                let steps = 2 * k + sleeps;
                fits &= steps <= MAX_HUB_STEPS;
                ops += steps * ws.len() as u64;
            }
            if !fits || hub_ops + ops + 2 * k > MAX_DERIVED_OPS / 2 {
                continue;
            }
            hub_ops += ops + 2 * k;
            hubs.push(Hub {
                name: format!(
                    "msgs-{}",
                    real(readers[0]).map_or(readers[0], |r| r.real_pid)
                ),
                reader: ri,
                readers: k,
                writers,
                wakeups,
                costs,
                exits: exits.then_some(reads),
                pipe: false,
            });
        }
    }
    // Only the roles that made a channel split a name's tasks (a task of a name whose wakeups
    // look like a reader's or a writer's, among others of its name that do not, stays with
    // them): group again with those alone, and find the channels' groups there. (The pair
    // channels' groups are one task each, so regrouping moves none of them.)
    let mut kept_role: BTreeMap<Pid, (Role, Pid)> = BTreeMap::new();
    for h in &hubs {
        for &(g, _) in h.writers.iter().chain([&(h.reader, 0)]) {
            for &p in &groups[g].1 {
                kept_role.insert(p, role_key(p));
            }
        }
    }
    let regrouped = group_by(&|p| kept_role.get(&p).copied().unwrap_or((Role::Other, 0)));
    let at: BTreeMap<Pid, usize> = regrouped
        .iter()
        .enumerate()
        .map(|(i, (_, m))| (m[0], i))
        .collect();
    // (A channel's groups keep their members, so their first: the lookups cannot fail.)
    let moved = |i: usize| at.get(&groups[i].1[0]).copied().unwrap_or(usize::MAX);
    for h in &mut hubs {
        h.reader = moved(h.reader);
        for w in &mut h.writers {
            w.0 = moved(w.0);
        }
    }
    hubs.retain(|h| h.reader != usize::MAX && h.writers.iter().all(|w| w.0 != usize::MAX));
    backpressure = backpressure
        .into_iter()
        .map(|(w, b)| (moved(w), b))
        .collect();
    groups = regrouped;
    // Pipes or sockets: a read that frees a pipe's page wakes one writer (`pipe_read`, whose
    // writers wait exclusively), a read that drains a unix socket to a quarter wakes them all
    // (`unix_write_space`), one where only one waits. A hub whose readers' runs that wake its
    // writers (at least `MIN_PAIR_WAKEUPS` of them) wake two or more at most once in ten is a
    // pipe: 2–4 % in pipe recordings (a run that freed two pages), 32–84 % in socket ones.
    let one_writer = {
        let mut reader_hub: BTreeMap<Pid, usize> = BTreeMap::new();
        let mut writer_hub: BTreeMap<Pid, usize> = BTreeMap::new();
        for (i, h) in hubs.iter().enumerate() {
            reader_hub.extend(groups[h.reader].1.iter().map(|&p| (p, i)));
            for w in &h.writers {
                writer_hub.extend(groups[w.0].1.iter().map(|&p| (p, i)));
            }
        }
        // Per hub: the readers' runs that woke its writers, and those that woke one.
        let mut runs = vec![(0u64, 0u64); hubs.len()];
        // Per CPU: the hub of the reader running there and the writers it woke so far.
        let mut current: BTreeMap<u32, (usize, BTreeSet<Pid>)> = BTreeMap::new();
        for e in &t.events {
            match e.kind {
                EventKind::Switch { next_pid, .. } => {
                    if let Some((h, woke)) = current.remove(&e.cpu) {
                        if !woke.is_empty() {
                            runs[h].0 += 1;
                            runs[h].1 += u64::from(woke.len() == 1);
                        }
                    }
                    if let Some(&h) = reader_hub.get(&next_pid) {
                        current.insert(e.cpu, (h, BTreeSet::new()));
                    }
                }
                EventKind::Waking { pid, .. } | EventKind::Wakeup { pid, .. }
                    if matches!(e.kind, EventKind::Waking { .. }) == by_waking =>
                {
                    if let Some((h, woke)) = current.get_mut(&e.cpu) {
                        if writer_hub.get(&pid) == Some(h) {
                            woke.insert(pid);
                        }
                    }
                }
                _ => {}
            }
        }
        runs.iter()
            .map(|&(all, one)| all >= MIN_PAIR_WAKEUPS && 10 * (all - one) <= all)
            .collect::<Vec<bool>>()
    };
    for (h, &pipe) in hubs.iter_mut().zip(&one_writer) {
        h.pipe = pipe;
    }
    let group_of: BTreeMap<Pid, usize> = groups
        .iter()
        .enumerate()
        .filter(|(_, (_, m))| m.len() == 1 && coupled.contains(&m[0]))
        .map(|(i, (_, m))| (m[0], i))
        .collect();
    let mut out_groups = vec![];
    let mut task_values = vec![];
    let mut cgroups: Vec<Value> = vec![];
    let mut throttled_groups = 0usize;
    let mut coupled_left = coupled.len() as u64;
    let mut ops_used = 0u64;
    let mut tasks_used = 0u64;
    let mut capped = 0usize;
    // Group index → index in the scenario (groups past the task limit are left out).
    let mut out_index: BTreeMap<usize, usize> = BTreeMap::new();
    for (gi, (comm, members)) in groups.iter().enumerate() {
        let ms: Vec<&Task> = members.iter().map(|p| &tasks[p]).collect();
        let n = ms.len() as u64;
        // Coupled tasks come first in the budget (a channel needs both its ends).
        let room = limits::MAX_TASKS as u64 - tasks_used;
        let reserve = if coupled.contains(&members[0]) {
            0
        } else {
            coupled_left
        };
        let count = n.min(MAX_COUNT).min(room.saturating_sub(reserve));
        if coupled.contains(&members[0]) {
            coupled_left -= 1;
        }
        if count == 0 {
            capped += members.len();
            continue;
        }
        capped += (n - count) as usize;
        let cpu_ns: u64 = ms.iter().map(|t| t.cpu_ns).sum();
        let bursts: u64 = ms.iter().map(|t| t.bursts).sum();
        let sleeps: u64 = ms.iter().map(|t| t.sleeps).sum();
        let sleep_ns: u64 = ms.iter().map(|t| t.sleep_ns).sum();
        let burst_ns = cpu_ns.checked_div(bursts).unwrap_or(0);
        let mean_sleep_ns = sleep_ns.checked_div(sleeps).unwrap_or(0);
        // The spread from the finished bursts (the mean burst also counts a run still under
        // way at the end).
        let burst_sum: u64 = ms.iter().map(|t| t.burst_sum).sum();
        let burst_sq = ms.iter().fold(0u128, |a, t| a.saturating_add(t.burst_sq));
        let sleep_sq = ms.iter().fold(0u128, |a, t| a.saturating_add(t.sleep_sq));
        let run_dist = fitted(burst_ns, spread(burst_sum, burst_sq, bursts));
        let sleep_dist = fitted(mean_sleep_ns, spread(sleep_ns, sleep_sq, sleeps));
        let end = group_end(&ms, t_end);
        let (exited, quiet) = (end == End::Exits, end == End::Quiet);
        let start_ns = start_of(members);
        let cpus_seen: BTreeSet<u32> = ms
            .iter()
            .flat_map(|t| t.cpus.iter().copied())
            .filter(|&c| c < cpus)
            .collect();
        let mut g = Map::new();
        g.insert("name".into(), comm.clone().into());
        if count > 1 {
            g.insert("count".into(), count.into());
        }
        let nice = members
            .iter()
            .filter_map(|p| prio_of(*p))
            .find(|p| (100..140).contains(p))
            .map(|p| p - 120);
        if let Some(nc) = nice.filter(|&nc| nc != 0) {
            g.insert("nice".into(), nc.into());
        }
        // The kernel priority of an RT task is MAX_RT_PRIO - 1 - rt_priority.
        if let Some(p) = members.iter().find_map(|p| rt_prio_of(*p)) {
            let rr = ms.iter().any(|t| t.rr_turns > 0);
            g.insert("policy".into(), if rr { "rr" } else { "fifo" }.into());
            g.insert(
                "rt_priority".into(),
                (MAX_RT_PRIO - 1 - p).clamp(1, 99).into(),
            );
        }
        if !cpus_seen.is_empty() && cpus_seen.len() < cpus as usize {
            g.insert(
                "affinity".into(),
                Value::Array(cpus_seen.iter().map(|&c| c.into()).collect()),
            );
        }
        if start_ns >= 1_000_000 {
            g.insert(
                "start_ms".into(),
                (start_ns / 1_000_000).min(duration_ms).into(),
            );
        }
        let weight = members.iter().find_map(|p| weights.get(p));
        // Not for RT tasks: RT throttling idles a CPU under a lone RT loop once a second too.
        let rt_group = members.iter().any(|p| rt_prio_of(*p).is_some());
        let max = bandwidth(&ms, start_ns, t_end).filter(|_| !rt_group);
        if (weight.is_some() || max.is_some()) && cgroups.len() < MAX_DERIVED_CGROUPS {
            let path = format!("/imported-{}", cgroups.len() + 1);
            let mut cg = Map::new();
            cg.insert("path".into(), path.clone().into());
            if let Some(&w) = weight {
                cg.insert("cpu.weight".into(), w.into());
            }
            if let Some((quota_us, period_us)) = max {
                cg.insert("cpu.max".into(), format!("{quota_us} {period_us}").into());
                throttled_groups += 1;
            }
            cgroups.push(Value::Object(cg));
            g.insert("cgroup".into(), path.into());
        }
        let coupled_pid = (members.len() == 1 && coupled.contains(&members[0])).then(|| members[0]);
        let reads_hub = hubs.iter().find(|h| h.reader == gi);
        let writes_hubs: Vec<(&Hub, u64)> = hubs
            .iter()
            .filter_map(|h| Some((h, h.writers.iter().find(|w| w.0 == gi)?.1)))
            .collect();
        let hub_program = if let Some(h) = reads_hub {
            // A message from its inbox, then its CPU time.
            let read = vec![
                json!({"recv": format!("{}.{{i}}", h.name)}),
                json!({"run_us": fine_us(h.costs.read_ns)}),
            ];
            Some(match h.exits {
                Some(n) => Program {
                    steps: vec![json!({"loop": n, "steps": read}), json!({"exit": true})],
                    ops: 4,
                },
                None => Program {
                    steps: read,
                    ops: 2,
                },
            })
        } else if !writes_hubs.is_empty() {
            // Each reader's inbox in turn, the CPU time per message before each write; unless
            // it only waits on full inboxes, rounds of writes shared out evenly between sleeps.
            let sent: u64 = writes_hubs.iter().map(|(h, n)| h.costs.scaled(*n)).sum();
            let piece = json!({"run_us": fine_us(cpu_ns / sent.max(1))});
            let back = backpressure.get(&gi).copied().unwrap_or(false);
            let mut steps = vec![];
            // As the validator counts them: a loop is its body and one more.
            let mut ops = 0u64;
            let mut exits = false;
            for (h, n) in &writes_hubs {
                let rounds = hub_rounds(h.readers, hub_sends(h.costs.scaled(*n), members, &tasks));
                let mut round = vec![];
                for j in 0..h.readers {
                    round.push(piece.clone());
                    round.push(json!({"send": format!("{}.{j}", h.name)}));
                    // After the writes of round r: those to readers below (r + 1) k / rounds.
                    if !back && (j + 1) * rounds % h.readers < rounds {
                        round.push(json!({"sleep_us": sleep_dist}));
                    }
                }
                if exited {
                    let loops = hub_loops(h.costs.scaled(*n), members.len() as u64, h.readers);
                    ops += round.len() as u64 + 1;
                    steps.push(json!({"loop": loops, "steps": round}));
                    exits = true;
                } else {
                    ops += round.len() as u64;
                    steps.extend(round);
                }
            }
            if exits {
                ops += 1;
                steps.push(json!({"exit": true}));
            }
            Some(Program { ops, steps })
        } else {
            None
        };
        let program = match (coupled_pid, hub_program) {
            (_, Some(p)) => p,
            (Some(pid), None) => {
                let me = &tasks[&pid];
                let reads = into.contains_key(&pid);
                let targets = out_of.get(&pid).map_or(&[][..], |v| v.as_slice());
                let rounds = rounds_of(pid);
                // A round's CPU time, split where the wakeups happen: the mean time from
                // waking its wakees to blocking runs after the sends (a ping-pong's waker
                // runs on through the rest of its `write` and into its `read` while its
                // wakee starts: on real-epyc/pingpong-cross 8 µs of a 12-µs round). Where
                // a ping-pong measured `ipi_cost_ns`, a wakeup that sent an IPI is paid
                // for by it (so only when a wakeup sends one) and not by the program.
                let round_ns = me.cpu_ns / rounds.max(1);
                let ipi = u32::try_from(ipi_cost_ns.unwrap_or(0)).unwrap_or(u32::MAX);
                let post_sum = me.post_other.0
                    + (me.post_ipi_list.iter())
                        .map(|&x| u64::from(x.saturating_sub(ipi)))
                        .sum::<u64>();
                let posts = me.post_other.1 + me.post_ipi_list.len() as u64;
                let post_ns = if targets.is_empty() {
                    0
                } else {
                    post_sum.checked_div(posts).unwrap_or(0).min(round_ns)
                };
                // (Under a microsecond it runs before the sends.)
                let post_ns = if post_ns >= 1000 { post_ns } else { 0 };
                // (A task that sends nothing is charged no IPI by the model.)
                let ipi_ns = if targets.is_empty() {
                    0
                } else {
                    (u64::from(ipi) * me.post_ipi_list.len() as u64 / rounds.max(1))
                        .min(round_ns - post_ns)
                };
                let pre_ns = round_ns - post_ns - ipi_ns;
                let mut body = vec![json!({"run_us": {"exp": fine_us(pre_ns)}})];
                body.extend(targets.iter().map(|&e| json!({"send": inbox(e)})));
                if post_ns > 0 {
                    body.push(json!({"run_us": {"exp": fine_us(post_ns)}}));
                }
                let mut steps = vec![];
                if reads && !send_first.contains(&pid) {
                    steps.push(json!({"recv": inbox(pid)}));
                }
                steps.extend(body);
                if reads && send_first.contains(&pid) {
                    steps.push(json!({"recv": inbox(pid)}));
                }
                if !reads && me.bursts > 0 && me.sleeps > 0 {
                    steps.push(json!({"sleep_us": {"exp": us(me.sleep_ns / me.sleeps)}}));
                }
                match bounded.get(&pid) {
                    Some(&n)
                        if n <= limits::MAX_LOOP_TIMES as u64
                            && ops_used + n * (steps.len() as u64) < MAX_DERIVED_OPS =>
                    {
                        let ops = n * steps.len() as u64 + 1;
                        // (An exit in the recording's last 2 % is the workload's end: it
                        // sleeps to the end.)
                        let end = if group_end(&[me], t_end) == End::Exits {
                            json!({"exit": true})
                        } else {
                            json!({"sleep_ms": duration_ms})
                        };
                        Program {
                            steps: vec![json!({"loop": n.max(1), "steps": steps}), end],
                            ops,
                        }
                    }
                    _ => Program {
                        ops: steps.len() as u64,
                        steps,
                    },
                }
            }
            (None, None) if exited || quiet => {
                // Each member's rounds, then exit (or sleep to the end); one run of its CPU
                // time when the rounds would not fit the scenario's step limit.
                let rounds = bursts / n;
                let per_round = 3 * count;
                let end = if exited {
                    json!({"exit": true})
                } else {
                    json!({"sleep_ms": duration_ms})
                };
                if sleeps > 0 && rounds > 1 && ops_used + rounds * per_round <= MAX_DERIVED_OPS {
                    Program {
                        steps: vec![
                            json!({"loop": rounds.min(limits::MAX_LOOP_TIMES as u64), "steps": [
                            {"run_us": run_dist},
                            {"sleep_us": sleep_dist}]}),
                            end,
                        ],
                        ops: rounds * 2 + 2,
                    }
                } else {
                    Program {
                        steps: vec![json!({"run_us": us(cpu_ns / n)}), end],
                        ops: 2,
                    }
                }
            }
            (None, None) if bursts > 0 && sleeps == 0 => Program {
                // Blocked and never woken again within the recording.
                steps: vec![
                    json!({"run_us": us(cpu_ns / n)}),
                    json!({"sleep_ms": duration_ms}),
                ],
                ops: 2,
            },
            (None, None) if bursts == 0 || sleeps == 0 => Program {
                steps: vec![json!({"run": "forever"})],
                ops: 1,
            },
            (None, None) => Program {
                steps: vec![json!({"run_us": run_dist}), json!({"sleep_us": sleep_dist})],
                ops: 2,
            },
        };
        ops_used += program.ops * count;
        tasks_used += count;
        g.insert("program".into(), Value::Array(program.steps));
        task_values.push(Value::Object(g));
        let blocks = bursts > 0 && sleeps > 0;
        out_index.insert(gi, out_groups.len());
        out_groups.push(DerivedGroup {
            comm: comm.clone(),
            tasks: count as usize,
            cpu_ns,
            burst_ns: if blocks { burst_ns } else { 0 },
            sleep_ns: if coupled_pid.is_some_and(|p| into.contains_key(&p)) || reads_hub.is_some() {
                0
            } else {
                mean_sleep_ns
            },
            pids: members.to_vec(),
        });
    }
    let channels: Vec<DerivedChannel> = into
        .iter()
        .filter_map(|(e, ws)| {
            Some(DerivedChannel {
                name: inbox(*e),
                reader: *out_index.get(group_of.get(e)?)?,
                writers: ws
                    .iter()
                    .filter_map(|(w, n)| Some((*out_index.get(group_of.get(w)?)?, *n)))
                    .collect(),
                reader_wakeups: tasks[e].wakeups,
            })
        })
        .chain(hubs.iter().filter_map(|h| {
            Some(DerivedChannel {
                name: h.name.clone(),
                reader: *out_index.get(&h.reader)?,
                writers: h
                    .writers
                    .iter()
                    .filter_map(|&(w, n)| Some((*out_index.get(&w)?, n)))
                    .collect(),
                reader_wakeups: h.wakeups,
            })
        }))
        .collect();

    let event = if by_waking {
        "sched_waking"
    } else {
        "sched_wakeup"
    };
    notes.insert(
        0,
        format!("bursts and sleeps are fitted with the recorded means (not replayed), as exponential distributions, or normal ones with the recorded spread where that is under {NORMAL_BELOW_CV} of the mean; a task that exited runs its recorded rounds, or its CPU time, and exits (an exit in the recording's last 2 % counts as running to the end; one last seen preempted and not seen again for {:.0} s and {VANISHED_WAITS} times its longest wait to run exited there); one asleep at the end for more than {QUIET_ROUNDS} of its rounds runs them and sleeps to the end; a sleep whose wakeup is not in the recording (perf records none of its own) ends at the next switch-in where such sleeps are most of a task's or at least {MIN_UNSEEN_WAKEUPS}; tasks of one name are one group only at one nice, first seen within {:.0} ms of each other (a set's readers or writers whenever they were first seen), and alike (CPU loops apart from tasks that sleep; mean bursts and sleeps within {ALIKE_FACTOR}x of each other's, or with fewer than {ALIKE_MIN_SLEEPS} sleeps the parts of their lives awake within {}x)", VANISHED_NS as f64 / 1e9, start_apart as f64 / 1e6, ALIKE_AWAKE_TENTHS as f64 / 10.0),
    );
    let pair_channels = channels.len() - hubs.len();
    if pair_channels == 0 {
        notes.insert(1, format!(
            "who wakes whom: no consistent waker→wakee pair (one task waking another at least {MIN_PAIR_WAKEUPS} times, for at least a fifth of its wakeups, and half of them together; waker = the task current where {event} fired){}",
            if hubs.is_empty() { ": every sleep is a timed sleep" } else { "" }
        ));
    } else {
        notes.insert(1, format!(
            "who wakes whom: {pair_channels} channels from consistent waker→wakee pairs (waker = the task current on the CPU where {event} fired; a pair: at least {MIN_PAIR_WAKEUPS} wakeups, at least a fifth of the wakee's and one per five of the waker's blocks, half of them together, a waker that blocks at least once per ten): the wakee reads its channel once per round, each waker writes it once per round (two tasks that only wake each other make a round per round trip: a wakeup after which the waker blocked is half of one, any other a whole one); a channel holds one message per writer (buffer sizes are not in a recording); tasks so joined that all stopped (exited, blocked for good, or no longer woke one another) for the last quarter of the recording or more run the fewest rounds among them and stop as they did; other sleeps are timed",
        ));
        notes.insert(2, "a wakeup from an interrupt (a timer that fires while a task runs) counts for the task that was running unless that task hardly ever blocked (less than once per ten wakeups it gave), less the wakeups the wakee's rate of wakeups on idle CPUs explains over the waker's CPU time".to_string());
    }
    let at = if pair_channels == 0 { 2 } else { 3 };
    if hubs.is_empty() {
        notes.insert(at, format!("many writers to many readers: none (a reader is woken by tasks that do not form pairs at least {MIN_PAIR_WAKEUPS} times, for half its wakeups; a writer wakes them more often than they wake it, gives one in {REPEATS_PER_WRITE} of those wakeups or more to tasks it wakes more than once, and blocks at least once per {HUB_SENDS_PER_BLOCK} wakeups; counted beyond what interrupts at the wakee's own rate would explain)"));
    } else {
        let costs: Vec<String> = hubs
            .iter()
            .map(|h| {
                format!(
                    "{}: {:.1} µs a read, {} messages a {}",
                    h.name,
                    h.costs.read_ns as f64 / 1000.0,
                    h.costs.capacity,
                    if h.pipe { "pipe" } else { "socket" }
                )
            })
            .collect();
        notes.insert(at, format!("many writers to many readers: an inbox per task for {} reader group(s) (a reader is woken by tasks that do not form pairs at least {MIN_PAIR_WAKEUPS} times, for half its wakeups; a writer wakes them more often than they wake it, gives one in {REPEATS_PER_WRITE} of those wakeups or more to tasks it wakes more than once, and blocks at least once per {HUB_SENDS_PER_BLOCK} wakeups; counted beyond what interrupts at the wakee's own rate would explain; a writer writes the readers it woke, in sets joined by {MIN_PAIR_WAKEUPS} wakeups, or {MIN_WEAK_WAKEUPS} between tasks no such set holds; readers and writers that run to the end or exit, the writers exiting where the readers do): a reader reads every message there before it blocks, so its shortest bursts (the {}th percentile) are one message's read and its longest (the {}th) a full inbox's, and its CPU time is that many messages ({}); a writer writes the inboxes in turn, its CPU time per message before each write, waits on a full inbox until reads drain it to a quarter (a unix socket) or, where the readers' runs that wake writers wake two or more at most once in ten, until a read empties one of its 16 pages and wakes one writer (a pipe), and where its own wakeups are not mostly its readers' or its fellow writers' sleeps as recorded between rounds", hubs.len(), READ_PERMILLE / 10, FULL_PERMILLE / 10, costs.join("; ")));
    }
    let hz = crate::machine::estimate_hz(t);
    match &hz {
        Some(h) => notes.push(format!("HZ {}: {}", h.value, h.how)),
        None => notes.push("HZ is not visible in the recording (too few sched_stat_runtime events and tick-edge preemptions): HZ 1000 is assumed; set \"hz\" to the recorded machine's".to_string()),
    }
    notes.push("the scheduler tunables are not in a recording: set the variant's tunables to the recorded machine's".to_string());
    // A machine field read off the recording (capped at the format's limit), and its note.
    let mut cost =
        |est: Option<crate::machine::Estimate<u64>>, field: &str, max: u64, few: &str| {
            let v = est.as_ref().map(|e| e.value.min(max));
            notes.push(match (&est, v) {
                (Some(e), Some(v)) => format!("{field} {v}: {}", e.how),
                _ => format!("too few {few} to measure it: the scenario's default {field} applies"),
            });
            v
        };
    let delta_ns = cost(
        crate::machine::estimate_switch_delay(t),
        "switch_delay_ns",
        limits::MAX_SWITCH_DELAY_NS,
        "wakeups over a CPU loop that preempted it at once",
    );
    // The idle wakeup's cost is what its wait has beyond δ: the recording's δ where it shows.
    let idle_wakeup_ns = cost(
        crate::machine::estimate_idle_wakeup_beyond(t, delta_ns),
        "idle_wakeup_ns",
        limits::MAX_IDLE_WAKEUP_NS,
        "wakeups from another CPU onto an idle one",
    );
    if left_out > 0 {
        notes.push(format!(
            "{left_out} tasks with less than {:.3} ms of CPU time are left out",
            min_cpu_ns as f64 / 1e6
        ));
    }
    if capped > 0 {
        notes.push(format!(
            "{capped} tasks are left out: a scenario has at most {} tasks, {} per group",
            limits::MAX_TASKS,
            MAX_COUNT
        ));
    }
    if rt > 0 {
        notes.push(format!(
            "{rt} tasks ran with real-time priority (a kernel priority under {MAX_RT_PRIO}): \
             RT tasks at that priority (rt_priority {} minus it; the stopper, migration/N, \
             at 0), SCHED_RR where one was preempted by a task of its own priority, else \
             SCHED_FIFO",
            MAX_RT_PRIO - 1
        ));
    }
    if dl > 0 {
        notes.push(format!(
            "{dl} tasks ran as SCHED_DEADLINE (kernel priority -1), which the model lacks: \
             the scenario makes them fair tasks"
        ));
    }
    if !imp.has_wakeups() {
        notes.push("the recording has no wakeup events: sleeps are measured from a block to the next switch-in".into());
    }
    let mut scenario = json!({
        "version": 1,
        "name": name,
        "description": format!("Derived by schedlab from a {} recording ({} tasks in {} groups).", imp.format.name(), out_groups.iter().map(|g| g.tasks).sum::<usize>(), out_groups.len()),
        "cpus": cpus,
        "hz": hz.map_or(1000, |h| h.value),
        "duration_ms": duration_ms,
        "seed": 1,
        "variants": variants,
        "tasks": task_values,
    });
    if throttled_groups > 0 {
        notes.push(format!(
            "{throttled_groups} groups were throttled (switched out runnable for the idle task \
             and switched back in with no wakeup, at least {MIN_THROTTLES} times: CFS bandwidth \
             control): each is in a group of its own with cpu.max, the period the median gap \
             between its unthrottles (to 0.1 ms), the quota its CPU time per period"
        ));
    }
    let weighted = cgroups
        .iter()
        .filter(|c| c.get("cpu.weight").is_some())
        .count();
    if weighted > 0 {
        notes.push(format!(
            "{} CPU loops pinned to one CPU shared it unlike their nice levels (by more than \
             {WEIGHT_OFF_PERCENT} %): a task group's weight, which the recording does not \
             name; each is in a group of its own (/imported-N) whose cpu.weight is its share \
             (100 at their geometric mean)",
            weighted
        ));
    }
    if !cgroups.is_empty() {
        notes.push(format!(
            "a scenario with task groups has no default housekeeping threads (the model has \
             no group entities; at most {MAX_DERIVED_CGROUPS} groups are derived)"
        ));
        scenario["cgroups"] = Value::Array(cgroups);
    }
    if let Some(w) = idle_wakeup_ns {
        scenario["idle_wakeup_ns"] = w.into();
    }
    if let Some(c) = ipi_cost_ns {
        notes.push(format!(
            "ipi_cost_ns {c}: the median time from a ping-pong task's wakeup of a task \
             asleep on another, idle CPU to its own block ({ipi_wakeups} such), which the scenario \
             charges only where a wakeup sends an IPI; the rest of a task's time after its \
             wakeups runs in its program"
        ));
        scenario["ipi_cost_ns"] = c.into();
    }
    if let Some(d) = delta_ns {
        // `irq_ns` stays the default (5 µs, or δ if less): the rest of δ is charged to the
        // task switched out, as the kernel charges the path from the interrupt's exit to the
        // switch (a loop running through a tick on the haltpoll VM is charged all but about
        // 0.5 µs of it, where δ there is 16–21 µs).
        scenario["switch_delay_ns"] = d.into();
    }
    if !channels.is_empty() {
        scenario["channels"] = Value::Array(
            channels
                .iter()
                .map(|c| {
                    // A pair's inbox holds a message per writer (buffer sizes are not in a
                    // recording), a reader group's what its bursts give (see above); a reader
                    // group's inboxes are one entry, `{i}` its task.
                    match hubs.iter().find(|h| h.name == c.name) {
                        // A pipe of 16 pages (`PIPE_DEF_BUFFERS`), whose read that empties a
                        // page wakes one writer.
                        Some(h) if h.pipe => {
                            let pages = PIPE_PAGES.min(h.costs.capacity);
                            let page = h.costs.capacity / pages;
                            json!({
                                "name": format!("{}.{{i}}", c.name),
                                "capacity": page * pages,
                                "page_msgs": page,
                            })
                        }
                        // Its writers wait on a full inbox until reads drain it to a quarter,
                        // as on a unix socket (`unix_writable`).
                        Some(h) => json!({
                            "name": format!("{}.{{i}}", c.name),
                            "capacity": h.costs.capacity,
                            "wake_writer_at": h.costs.capacity / 4,
                        }),
                        None => {
                            json!({"name": c.name, "capacity": c.writers.len().clamp(1, 1_000_000)})
                        }
                    }
                })
                .collect(),
        );
    }
    Derived {
        scenario,
        groups: out_groups,
        channels,
        notes,
    }
}

/// The inboxes of a reader group with many writers (see `derive_scenario`): their name (the
/// reader of index `i` reads `NAME.i`), the reader group (index into the groups) and its
/// tasks, the writer groups with the wakeups each gave the readers, their sum and the
/// readers' wakeups in all.
struct Hub {
    name: String,
    reader: usize,
    readers: u64,
    writers: Vec<(usize, u64)>,
    wakeups: u64,
    costs: HubCosts,
    /// Where its groups exit: the messages each reader reads before it exits.
    exits: Option<u64>,
    /// Its writers wait as on a pipe (one woken per freed page) rather than a unix socket
    /// (all woken at a quarter).
    pipe: bool,
}

/// Rounds of writes, each to every one of `readers` inboxes, that `m` writers make of `msgs`
/// messages (at least 1, at most `MAX_LOOP_TIMES`).
fn hub_loops(msgs: u64, m: u64, readers: u64) -> u64 {
    (msgs / (m * readers).max(1)).clamp(1, u64::from(limits::MAX_LOOP_TIMES))
}

/// The permille of a hub's readers' bursts taken for one message's read (a reader woken by
/// one write reads it and blocks again): the 5th percentile.
const READ_PERMILLE: usize = 50;
/// The permille of a hub's readers' bursts taken for the reading of a full inbox: the 99th
/// percentile.
const FULL_PERMILLE: usize = 990;

/// Pages of a pipe (`PIPE_DEF_BUFFERS`).
const PIPE_PAGES: u64 = 16;

/// The shortest read of a message, ns: `perf script` prints times to the microsecond, and a
/// shorter message would only multiply the simulation's events.
const MIN_READ_NS: u64 = 1_000;

/// A hub's messages, read off its readers' bursts (see `derive_scenario`).
#[derive(Clone, Copy)]
struct HubCosts {
    /// CPU time of one message's read, ns.
    read_ns: u64,
    /// Messages an inbox holds.
    capacity: u64,
    /// Messages per recorded wakeup of a reader by its writers (at least 1).
    per_wakeup: f64,
}

impl HubCosts {
    /// The messages of `n` recorded wakeups.
    fn scaled(&self, n: u64) -> u64 {
        (n as f64 * self.per_wakeup).round() as u64
    }
}

/// The messages of the readers `readers`, whose writers woke them `msgs` times: a message's
/// read is the [`READ_PERMILLE`] burst of theirs (at least [`MIN_READ_NS`]), an inbox holds
/// what the [`FULL_PERMILLE`] burst reads, and the readers' CPU time is that many messages, at
/// least one per wakeup.
fn hub_costs(readers: &[Pid], tasks: &BTreeMap<Pid, Task>, msgs: u64) -> HubCosts {
    let cpu_ns: u64 = readers.iter().map(|p| tasks[p].cpu_ns).sum();
    let mut bursts: Vec<u32> = readers
        .iter()
        .flat_map(|p| tasks[p].burst_list.iter().copied())
        .collect();
    bursts.sort_unstable();
    let at = |permille: usize| {
        bursts
            .get((bursts.len().saturating_sub(1)) * permille / 1000)
            .map_or(0, |&b| u64::from(b))
    };
    let per_msg = cpu_ns / msgs.max(1);
    let read_ns = at(READ_PERMILLE).clamp(MIN_READ_NS, per_msg.max(MIN_READ_NS));
    let messages = (cpu_ns / read_ns).max(msgs);
    HubCosts {
        read_ns: cpu_ns / messages.max(1),
        capacity: (at(FULL_PERMILLE) / read_ns).clamp(1, 1_000_000),
        per_wakeup: messages as f64 / msgs.max(1) as f64,
    }
}

/// Messages a writer group of `members` that woke a hub's readers `n` times sends per round:
/// its wakeups of them per block (at least 1, at most `MAX_HUB_SENDS`).
fn hub_sends(n: u64, members: &[Pid], tasks: &BTreeMap<Pid, Task>) -> u64 {
    let bursts: u64 = members.iter().map(|p| tasks[p].bursts).sum();
    ((n + bursts / 2) / bursts.max(1)).clamp(1, MAX_HUB_SENDS)
}

/// Rounds in which a writer of `sends` messages per round writes `readers` inboxes once each.
fn hub_rounds(readers: u64, sends: u64) -> u64 {
    readers.div_ceil(sends.max(1)).max(1)
}

/// How a group's tasks end in the recording.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// They run to the end (an exit in the recording's last 2 % is the end of the workload:
    /// a recording ends by stopping it).
    Runs,
    /// Every one exited before that.
    Exits,
    /// They went quiet: asleep since long before the end (for more than [`QUIET_ROUNDS`] of
    /// their rounds and the last 2 %), as a kworker that served one burst of I/O at the
    /// start. Such a group runs its recorded rounds, then sleeps to the end. (Members that
    /// exited before the end count as stopped too: a shell's children carry its name until
    /// they exec.)
    Quiet,
}

/// How the group of tasks `ms` ends in a recording of `t_end` ns.
fn group_end(ms: &[&Task], t_end: u64) -> End {
    let exited_early = |t: &Task| t.exited && t.exit_ns.saturating_add(t.end_margin(t_end)) < t_end;
    if ms.iter().all(|t| exited_early(t)) {
        return End::Exits;
    }
    let sum = |f: fn(&Task) -> u64| ms.iter().map(|t| f(t)).sum::<u64>();
    let (bursts, sleeps) = (sum(|t| t.bursts), sum(|t| t.sleeps));
    let round_ns = sum(|t| t.cpu_ns).checked_div(bursts).unwrap_or(0)
        + sum(|t| t.sleep_ns).checked_div(sleeps).unwrap_or(0);
    let quiet = sleeps > 0
        && ms.iter().all(|t| {
            exited_early(t)
                || t.blocked_at.is_some_and(|b| {
                    let silent = t_end.saturating_sub(b);
                    silent >= t.end_margin(t_end) && silent >= QUIET_ROUNDS.saturating_mul(round_ns)
                })
        });
    if quiet {
        End::Quiet
    } else {
        End::Runs
    }
}

/// Tasks whose mean bursts or mean sleeps differ by more than this factor are not alike.
const ALIKE_FACTOR: u64 = 4;

/// Tasks awake (running or runnable) for parts of their lives that differ by more than this
/// factor, in tenths, are not alike.
const ALIKE_AWAKE_TENTHS: u64 = 15;

/// The fewest sleeps from which a task's mean burst and sleep are compared with another's.
const ALIKE_MIN_SLEEPS: u64 = 4;

/// The most task groups a derived scenario gets (the scenario format's `MAX_CGROUPS`).
pub const MAX_DERIVED_CGROUPS: usize = 256;

/// A group throttled at least this often has its `cpu.max` derived.
const MIN_THROTTLES: usize = 4;

/// The `cpu.max` (quota, period, µs) of a task group whose tasks were throttled: switched out
/// runnable for the idle task (CFS bandwidth control dequeues a throttled group's tasks) and
/// switched back in on that CPU with no wakeup between, at least [`MIN_THROTTLES`] times.
/// The period timer unthrottles every CPU of the group at its expiry, so the switch-ins back
/// (those within 1 ms of each other count as one) are a period or a multiple apart: the period
/// is the median gap, to 0.1 ms; the quota is the tasks' CPU time per period over their lives.
fn bandwidth(ms: &[&Task], start_ns: u64, t_end: u64) -> Option<(u64, u64)> {
    let mut at: Vec<u64> = ms
        .iter()
        .flat_map(|t| t.unthrottles.iter().copied())
        .collect();
    at.sort_unstable();
    at.dedup_by(|b, a| b.saturating_sub(*a) < 1_000_000);
    if at.len() < MIN_THROTTLES {
        return None;
    }
    let mut gaps: Vec<u64> = at.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_unstable();
    let period_us = ((gaps[gaps.len() / 2] + 50_000) / 100_000 * 100).clamp(1_000, 1_000_000);
    let end = ms
        .iter()
        .map(|t| if t.exited { t.exit_ns } else { t_end })
        .max()
        .unwrap_or(t_end);
    let span = end.saturating_sub(start_ns).max(1);
    let cpu_ns: u64 = ms.iter().map(|t| t.cpu_ns).sum();
    let quota_ns = u128::from(cpu_ns) * u128::from(period_us) * 1_000 / u128::from(span);
    let quota_us = (u64::try_from(quota_ns / 1_000).unwrap_or(u64::MAX) + 50) / 100 * 100;
    Some((quota_us.max(1_000), period_us))
}

/// How far (%) the shares of CPU loops pinned together may stray from their nice weights'
/// before their weights are taken for task groups'.
const WEIGHT_OFF_PERCENT: u64 = 15;

/// The task groups' weights the recording implies. CPU loops that share one CPU for the whole
/// recording (never blocked, seen on that CPU alone, there from its start or its first 5 %,
/// still there at its end) split it in the ratio of their weights, under CFS and EEVDF alike.
/// Where that split strays
/// from their nice levels' weights by more than [`WEIGHT_OFF_PERCENT`] (two nice-0 loops at
/// 25 / 75 %, or a nice-19 loop at 50 % beside a nice-0 one), they are in task groups of other
/// weights (cgroups, or autogroup sessions) that a recording does not name: each gets a group
/// of its own whose `cpu.weight` is its share, scaled to 100 at the loops' geometric mean
/// (clamped to 1..=10000). Tasks that sleep are left as they are: their shares depend on their
/// demand as much as on their weights.
fn group_weights(
    tasks: &BTreeMap<Pid, Task>,
    kept: &BTreeSet<Pid>,
    born: &BTreeSet<Pid>,
    end_ns: u64,
    prio_of: &dyn Fn(Pid) -> Option<i32>,
) -> BTreeMap<Pid, u64> {
    let mut by_cpu: BTreeMap<u32, Vec<Pid>> = BTreeMap::new();
    for &pid in kept {
        let p = &tasks[&pid];
        let fair = prio_of(pid).is_none_or(|pr| (100..140).contains(&pr));
        // Created in the recording's first 5 %, or before it (no `sched_wakeup_new`: a starved
        // loop is first seen when it first runs, seconds in) and never woken in it (one that
        // slept, then looped from halfway, ran half the time for its own reasons); still there
        // at its end.
        let whole = if born.contains(&pid) {
            p.first_ns.unwrap_or(0) <= end_ns / 20
        } else {
            p.wakeups == 0 && p.sleeps == 0
        } && !p.exited;
        if let (true, true, 0, [cpu]) = (
            fair,
            whole,
            p.bursts,
            p.cpus.iter().copied().collect::<Vec<_>>().as_slice(),
        ) {
            by_cpu.entry(*cpu).or_default().push(pid);
        }
    }
    let mut out = BTreeMap::new();
    for loops in by_cpu.values().filter(|l| l.len() >= 2) {
        let nice_w = |pid: Pid| {
            let nice = prio_of(pid).map_or(0, |p| p - 120);
            schedlab_sim::weight::LoadWeight::from_nice(nice).weight as f64
        };
        let ran: f64 = loops.iter().map(|p| tasks[p].cpu_ns as f64).sum();
        let due: f64 = loops.iter().map(|&p| nice_w(p)).sum();
        if ran <= 0.0 {
            continue;
        }
        let off = loops.iter().any(|&p| {
            let r = (tasks[&p].cpu_ns as f64 / ran) / (nice_w(p) / due);
            (r - 1.0).abs() * 100.0 > WEIGHT_OFF_PERCENT as f64
        });
        if !off || loops.iter().any(|p| tasks[p].cpu_ns == 0) {
            continue;
        }
        let log_mean = loops
            .iter()
            .map(|p| (tasks[p].cpu_ns as f64).ln())
            .sum::<f64>()
            / loops.len() as f64;
        for &p in loops {
            let w = 100.0 * ((tasks[&p].cpu_ns as f64).ln() - log_mean).exp();
            out.insert(p, (w.round() as u64).clamp(1, 10_000));
        }
    }
    out
}

/// Whether two tasks (of one name, nice and start) behave alike enough to be one group, whose
/// tasks share one fitted program: both never blocked (CPU loops), both blocked and were never
/// woken, or both slept, with mean bursts and mean sleeps within [`ALIKE_FACTOR`] of each
/// other's where each slept at least [`ALIKE_MIN_SLEEPS`] times, else (a few sleeps say
/// little of a mean: a CPU loop that waited once for its siblings at its start) awake for
/// parts of their lives within [`ALIKE_AWAKE_TENTHS`] tenths of each other. Threads of one
/// program, or workers of one tool at two settings (`stress-ng --cpu 2` beside `stress-ng
/// --cpu 1 --cpu-load 10`), share a name and a start but not a behaviour: as one group each
/// would run the mean of a CPU loop and a duty cycle.
fn alike(a: &Task, b: &Task, end_ns: u64) -> bool {
    let kind = |t: &Task| (t.bursts > 0, t.sleeps > 0);
    if kind(a) != kind(b) {
        return false;
    }
    let within = |x: u64, y: u64, tenths: u64| {
        x.saturating_mul(10) <= y.saturating_mul(tenths)
            && y.saturating_mul(10) <= x.saturating_mul(tenths)
    };
    if a.sleeps >= ALIKE_MIN_SLEEPS && b.sleeps >= ALIKE_MIN_SLEEPS {
        let f = 10 * ALIKE_FACTOR;
        let mean = |sum: u64, n: u64| sum.checked_div(n).unwrap_or(0);
        return within(mean(a.cpu_ns, a.bursts), mean(b.cpu_ns, b.bursts), f)
            && within(mean(a.sleep_ns, a.sleeps), mean(b.sleep_ns, b.sleeps), f);
    }
    within(
        a.awake_permille(end_ns),
        b.awake_permille(end_ns),
        ALIKE_AWAKE_TENTHS,
    )
}

/// What tasks of one group share: a name, a kernel priority, and their part in many-to-many
/// messages
/// with the set of readers and writers it is in (keyed by its least pid; 0 for no part).
type GroupKey = (String, Option<i32>, (Role, Pid));

/// A task's part in many-to-many messages (see `derive_scenario`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Other,
    Reader,
    Writer,
}

/// Below this coefficient of variation (standard deviation over mean) a fitted duration is
/// normal rather than exponential (whose CV is 1): a periodic task's sleeps or a duty cycle's
/// bursts vary little, and an exponential fit would make them queue as if they were random.
const NORMAL_BELOW_CV: f64 = 0.5;

/// The coefficient of variation (standard deviation over mean) of `n` durations that sum to
/// `sum` ns and whose squares sum to `sq`; `None` for fewer than two.
fn spread(sum: u64, sq: u128, n: u64) -> Option<f64> {
    if n < 2 || sum == 0 {
        return None;
    }
    let mean = sum as f64 / n as f64;
    let var = (sq as f64 / n as f64 - mean * mean).max(0.0);
    Some(var.sqrt() / mean)
}

/// The fitted distribution of a duration of mean `mean_ns` and coefficient of variation `cv`,
/// in µs: `{"normal": [mean, sd]}` when it varies little (`cv` < [`NORMAL_BELOW_CV`]), else
/// `{"exp": mean}`.
fn fitted(mean_ns: u64, cv: Option<f64>) -> Value {
    match cv {
        Some(cv) if cv < NORMAL_BELOW_CV && mean_ns > 0 => {
            let sd_us = ((cv * mean_ns as f64 / 1000.0).round() as u64).min(us(mean_ns));
            json!({"normal": [us(mean_ns), sd_us]})
        }
        _ => json!({"exp": us(mean_ns)}),
    }
}

/// The square of a duration (ns²), for sums of squares.
fn sq(ns: u64) -> u128 {
    u128::from(ns) * u128::from(ns)
}

/// Microseconds to the nanosecond (a message's CPU time is a few), at least 1 ns.
fn fine_us(ns: u64) -> f64 {
    ns.clamp(1, limits::MAX_DURATION_NS) as f64 / 1000.0
}

/// Whole microseconds, at least 1, at most an hour (the scenario's longest duration).
fn us(ns: u64) -> u64 {
    (ns / 1000).clamp(1, limits::MAX_DURATION_NS / 1000)
}

/// A command name as a scenario takes it: 1–15 bytes, no `/`, `:`, control characters or
/// characters that override the direction of text.
fn sanitize(comm: &str) -> String {
    let mut s: String = comm
        .chars()
        .map(|c| {
            if c == '/'
                || c == ':'
                || c.is_control()
                || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            {
                '_'
            } else {
                c
            }
        })
        .collect();
    while s.len() > 15 {
        s.pop();
    }
    if s.is_empty() {
        s.push('?');
    }
    s
}
