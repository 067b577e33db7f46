//! What the simulator runs: a machine, tasks with behaviour programs, and channels.
//!
//! This is the engine's input, already resolved (names turned into indices, units into ns). The
//! user-facing format with its validation and messages lives in the `schedlab-scenario` crate;
//! [`SimConfig::check`] only guards the engine's own preconditions.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Scheduling policy (`sched_setattr.sched_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SchedPolicy {
    /// SCHED_NORMAL (SCHED_OTHER).
    Normal,
    /// SCHED_BATCH: nice weights, never wakeup-preempts a non-idle task.
    Batch,
    /// SCHED_IDLE: weight 3, preempted by any non-idle wakee.
    Idle,
}

impl SchedPolicy {
    /// The name used in scenarios and outputs.
    pub fn name(self) -> &'static str {
        match self {
            SchedPolicy::Normal => "normal",
            SchedPolicy::Batch => "batch",
            SchedPolicy::Idle => "idle",
        }
    }
}

/// A duration distribution, in ns. Every sample is at least 1 ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Always this value.
    Fixed(u64),
    /// Uniform in [lo, hi].
    Uniform(u64, u64),
    /// Exponential with this mean.
    Exp(u64),
    /// Normal with this mean and standard deviation (Irwin–Hall approximation).
    Normal(u64, u64),
}

impl Dist {
    /// Draws a sample.
    pub fn sample(&self, rng: &mut crate::rng::Rng) -> u64 {
        let v = match *self {
            Dist::Fixed(n) => n,
            Dist::Uniform(lo, hi) => lo + rng.below(hi - lo + 1),
            Dist::Exp(mean) => rng.exp(mean),
            Dist::Normal(mean, sd) => rng.normal(mean, sd),
        };
        v.max(1)
    }
}

/// One step of a task's behaviour program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Use the CPU for this long (CPU time, not wall time); `None` = forever.
    Run(Option<Dist>),
    /// Block for this long (wall time), then wake.
    Sleep(Dist),
    /// Write one message to a channel; wakes one blocked reader, if any (a pipe write, WF_SYNC;
    /// without it on a [`Channel::futex`] channel). Blocks while the channel is full.
    Send(u32),
    /// Read one message from a channel, blocking while it is empty.
    Recv(u32),
    /// Exit.
    Exit,
    /// Jump back to step `start` until this step has been reached `times` times, then go on
    /// (a counted loop; the counter resets when the loop is done, so an enclosing loop or the
    /// program's repetition runs it again in full).
    Loop {
        /// Index of the loop's first step.
        start: u32,
        /// How many times the body runs.
        times: u32,
    },
    /// Sleep until the next multiple of this period since the task started (an absolute timer,
    /// like cyclictest's `clock_nanosleep(TIMER_ABSTIME)`); an overrun skips missed periods.
    WaitPeriod(u64),
    /// A workqueue worker (a per-CPU `kworker`) finishes the work item it took with its last
    /// [`Op::Recv`] on the workqueue channel: the I/O completion it carries is delivered to its
    /// device channel (`aio_complete` → `wake_up`), waking the task waiting there, with this
    /// task as the waker (not WF_SYNC). Takes no time; with no item taken, it does nothing.
    Complete,
    /// `sched_setaffinity` of the task on itself: its allowed CPUs become `first..=last` (like
    /// `taskset -p -c first-last PID`). Takes no time. Widening leaves the task where it is (the
    /// load balancer may move it later); if its CPU is no longer allowed, the stopper
    /// (`migration_cpu_stop`) preempts it and moves it to `first`.
    Affinity {
        /// The first allowed CPU.
        first: u32,
        /// The last allowed CPU.
        last: u32,
    },
    /// Take lock `set`'s lock of the CPU the task runs on, spinning until it is free, as
    /// schbench's `lock_this_cpu` does: the CPU is read once (`sched_getcpu`), then
    /// `pthread_mutex_trylock` of that CPU's lock is retried in a busy loop, so a task that
    /// finds it held (by a task preempted while holding it) burns CPU time until the holder
    /// releases it, on whatever CPU the spinner is meanwhile moved to; a task that got the lock
    /// of a CPU other than its current one (it migrated while spinning) releases it and starts
    /// again on its current CPU's. `set` names one array of per-CPU locks (one per CPU).
    LockCpu(u32),
    /// Release the lock of `set` this task holds (`pthread_mutex_unlock`); every task spinning on
    /// it that is on a CPU retries at once, and the first to do so takes it. Does nothing if the
    /// task holds none of `set`'s locks. Takes no time.
    UnlockCpu(u32),
    /// Write one message to channel `to`, as [`Op::Send`] does, that names channel `reply_to`
    /// for its answer: a request with a return address. A channel written with it is written
    /// with nothing else (checked), so every message it holds carries one. On a pipe the
    /// requests queue in order. On a futex word ([`Channel::futex`]) they go onto a list
    /// beside the word, as schbench's worker adds itself to its message thread's list
    /// (`xlist_add`, a lock-free push at the head) and then posts the word: a waiting reader
    /// is woken and takes the list when it runs, and a read with no taken requests left
    /// takes the whole list at once (`xlist_splice`) and returns its requests newest first,
    /// one a read, without waiting (the list walk of `xlist_wake_all`).
    Request {
        /// The channel written.
        to: u32,
        /// The channel the reader's [`Op::Reply`] writes.
        reply_to: u32,
    },
    /// Write one message, as [`Op::Send`] does, to the channel named by the message this
    /// task's last read took ([`Op::Request`]'s `reply_to`): schbench's message thread posting
    /// the futex of a worker it took off its list (`xlist_wake_all` → `fpost`). With no such
    /// message (its last read took anything else, or it has answered it), nothing. Takes no
    /// time.
    Reply,
}

/// The most per-CPU lock arrays ([`Op::LockCpu`]) a configuration may use.
pub const MAX_LOCK_SETS: u32 = 256;

/// A channel between tasks: a pipe carrying whole messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    /// Its name (for messages and traces).
    pub name: String,
    /// How many messages it holds before a writer blocks; 0 = unbounded. A pipe holds 16
    /// pages, and small writes share a page: 16 × ⌊4096 / message size⌋ messages.
    pub capacity: u64,
    /// When a read wakes writers blocked on the full channel: `None`, a pipe: one writer
    /// (the longest waiting: `pipe_write` waits exclusively) as soon as there is room
    /// (`pipe_read`); `Some(n)`, a unix socket: every blocked writer, the latest first, once at
    /// most `n` messages are left (`unix_write_space` wakes its non-exclusive waiters only when
    /// `unix_writable`, i.e. at a quarter of the send buffer).
    pub wake_writer_at: Option<u64>,
    /// A futex word rather than a pipe: a send wakes a blocked reader as `FUTEX_WAKE` does,
    /// without WF_SYNC (`futex_wake` → `wake_up_q` → `wake_up_process`), where a pipe's
    /// `pipe_write` passes it. A message sent to a waiting reader is that reader's (its read
    /// is done when it wakes; no other reader can take it, as each waiter has a word of its
    /// own); one sent while no reader waits is kept, as a futex word set before its waiter
    /// gets to `FUTEX_WAIT` makes the wait return at once. Requests ([`Op::Request`]) go onto
    /// a list beside the word instead, which the woken reader takes when it runs.
    pub futex: bool,
    /// A pipe its readers wait on in `poll()` rather than `read()`: a waiting reader is on
    /// the pipe's wait queue non-exclusively, added at its head (`poll_wait` →
    /// `add_wait_queue`), so a send wakes every waiting reader, the latest to wait first
    /// (`pipe_write` → `wake_up_interruptible_sync_poll` walks the queue from its head, WF_SYNC).
    /// A read returns as soon as the channel holds a message and takes none (`poll` reports
    /// the pipe readable; hackbench's threads never read the byte that starts them).
    pub poll: bool,
    /// `Some`: the channel is an asynchronous I/O context on a block device (libaio's
    /// `io_submit` / `io_getevents`): a send submits one I/O and never blocks, and the I/O's
    /// completion, after the device's latency, its interrupt and (for a write) the workqueue,
    /// becomes a message a read takes. See [`IoDevice`].
    pub device: Option<IoDevice>,
    /// CPU time a reader spends on a read that had to wait, beyond what a read that finds a
    /// message spends: the fd's wait path (for a TCP socket `sk_wait_data`, the retry of
    /// `tcp_recvmsg` after the wakeup, the socket lock taken again). Charged when the woken
    /// reader next runs, before its program goes on (a pipe's or socket's reader then takes
    /// the message; a futex waiter's was handed to it at its wakeup) (0: none).
    pub wait_ns: u64,
    /// A pipe's ring of pages (`pipe_write` / `pipe_read`): 0 counts messages against
    /// `capacity` (a read wakes a writer on any room); n > 0: the pipe holds `capacity / n`
    /// page slots (16 for a pipe) of n messages each. A write merges into the last page while
    /// it has room for one more (`pipe_buf_can_merge`, `offset + chars <= PAGE_SIZE`: reads do
    /// not make room in a page), else takes a free slot, else blocks; a read that empties the
    /// oldest page frees its slot, and if every slot was in use it wakes one blocked writer
    /// (exclusive, the longest waiting: `wake_writer`); a writer that had waited wakes the
    /// next one after its write if a slot is still free (`wake_next_writer`).
    pub page_msgs: u64,
}

impl Channel {
    /// An unbounded channel.
    pub fn unbounded(name: impl Into<String>) -> Channel {
        Channel {
            name: name.into(),
            capacity: 0,
            wake_writer_at: None,
            futex: false,
            poll: false,
            device: None,
            wait_ns: 0,
            page_msgs: 0,
        }
    }
}

/// A block device as its completions reach the tasks (`engine/io.rs`): `blk_mq_complete_request`
/// from the device's interrupt, then the bio's end_io, inline or punted to a workqueue.
///
/// An I/O submitted from CPU s completes `latency` later with a hardirq on `irq_cpu` (`None`:
/// on s, a hardware queue per CPU whose interrupt is affine to it, as NVMe sets up when it has
/// as many queues as CPUs). The handler's `hardirq_ns` is IRQ time on that CPU. With
/// `rq_affinity` 1 (QUEUE_FLAG_SAME_COMP, the default) a completion whose interrupt arrives on
/// a CPU that does not share s's LLC is sent to s by IPI (`blk_mq_complete_send_ipi`) and runs
/// there (its softirq costs `hardirq_ns` there too); 2 (QUEUE_FLAG_SAME_FORCE) sends it to s
/// whenever the CPUs differ; 0 completes on the interrupt's CPU. The completion then either
/// wakes the submitter at once (`workqueue` empty: a read's `iomap_dio_bio_end_io` completes
/// inline) or queues a work item on the completing CPU's workqueue channel
/// (`workqueue[cpu]`, `queue_work(sb->s_dio_done_wq)`: a direct write's completion needs
/// filesystem work in process context), whose per-CPU kworker reads it, runs, and delivers it
/// with [`Op::Complete`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoDevice {
    /// Time from submission to the completion interrupt.
    pub latency: Dist,
    /// The interrupt handler's time, in ns (IRQ time, charged to no task).
    pub hardirq_ns: u64,
    /// The CPU the completion interrupt arrives on; `None`: the submitting CPU.
    pub irq_cpu: Option<u32>,
    /// `/sys/block/*/queue/rq_affinity`: 0, 1 (QUEUE_FLAG_SAME_COMP) or 2 (SAME_FORCE).
    pub rq_affinity: u8,
    /// The workqueue channel of each CPU (indexed by CPU); empty: completion in the interrupt.
    pub workqueue: Vec<u32>,
}

/// One task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskSpec {
    /// `comm`, at most 15 bytes like the kernel's TASK_COMM_LEN.
    pub comm: String,
    /// Index of the scenario task group it comes from.
    pub group: u32,
    /// Nice value, −20..=19.
    pub nice: i32,
    /// Policy.
    pub policy: SchedPolicy,
    /// `sched_attr.sched_runtime` in ns (custom slice, honoured from 6.12); clamped by the
    /// kernel to [0.1 ms, 100 ms].
    pub slice_ns: Option<u64>,
    /// Allowed CPUs, sorted, non-empty.
    pub affinity: Vec<u32>,
    /// The behaviour program; it repeats unless it reaches `Exit`.
    pub program: Vec<Op>,
    /// When the task is created (forked), in ns from the start.
    pub start_ns: u64,
    /// A kernel thread (PF_KTHREAD), such as a bound `kworker`. Allowed one CPU, it is a per-CPU
    /// kthread (`is_per_cpu_kthread`): a task it wakes that last ran on its CPU stays there
    /// while the kthread is alone on it (`select_idle_sibling`, "An obvious example of this
    /// pattern is IO completions").
    pub kthread: bool,
    /// Housekeeping ([`crate::Housekeeping::tasks`]): it does not keep the run going. The run
    /// ends once every other task has exited, and once every other task waits on a channel
    /// with nothing left to wake it (no interrupt source, no device) that is a deadlock, as
    /// without it. A daemon whose program begins with a sleep starts asleep on its first
    /// allowed CPU (a kernel thread that exists before the run) rather than being forked at
    /// `start_ns`.
    pub daemon: bool,
    /// The program reads its own CPU clock while it works (a loop on
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, `getrusage` or `times` of its process): each
    /// read reaches `task_sched_runtime`, which calls `update_curr` for the running task, so a
    /// fair task's deadline is renewed, and its reschedule raised, where its slice or
    /// protection runs out rather than at the next scheduler event; the reschedule is taken at
    /// the read's return.
    pub cpu_clock: bool,
}

/// A deeper idle state (`SimConfig::idle_states`): a CPU idle for at least `after_ns` is woken
/// from another CPU in `wakeup_ns` (IPI and idle exit, beyond δ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IdleState {
    /// How long the CPU has been idle before this state's cost applies.
    pub after_ns: u64,
    /// The IPI and idle exit from this state, in place of `idle_wakeup_ns`.
    pub wakeup_ns: u64,
}

/// Everything the engine needs for one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// Online CPUs (sets the tunable scaling factor, capped at 8 like the kernel).
    pub cpus: u32,
    /// CPUs per last-level cache (the MC domain); 0 = all CPUs share one LLC.
    pub llc_size: u32,
    /// SMT threads per core (1 = no SMT); consecutive CPU numbers are siblings.
    pub smt: u32,
    /// CONFIG_HZ: 100, 250, 300 or 1000.
    pub hz: u32,
    /// How long to simulate.
    pub duration_ns: u64,
    /// PRNG seed for the programs' distributions.
    pub seed: u64,
    /// δ: time from a reschedule request (tick, wakeup, hrtick) to the next task's `exec_start`:
    /// interrupt return plus `__schedule()`. The outgoing task is charged for it, as in the kernel
    /// (put_prev → update_curr). A voluntary switch (the task blocks) happens at once.
    pub switch_delay_ns: u64,
    /// Hardirq time of one timer interrupt (tick, hrtimer wakeup, hrtick) or wakeup IPI on a
    /// busy CPU. `rq_clock_task` excludes it (CONFIG_IRQ_TIME_ACCOUNTING), so no task is
    /// charged for it. With `irq_ns == switch_delay_ns` (the default) the whole path from an
    /// interrupt to `__schedule` is charged to nobody, which is what the kernel's clamped
    /// `clock_task` update gives when the schedule path after irq exit is shorter than the IRQ
    /// work before the handler's `update_rq_clock` (max(0, b − c) ≈ 0). Consequences the checks
    /// rely on: a task running through k ticks is charged k·TICK − δ − (k−1)·irq, so a 3 ms EEVDF
    /// slice ends on the 4th tick (the "extra tick" of 2ae891b82695); a SCHED_IDLE curr is not
    /// charged (×341 in virtual time) between a timer wakeup and the reschedule it raises.
    /// 0 models a kernel without IRQ time accounting.
    pub irq_ns: u64,
    /// The cost of waking a task onto an idle CPU from another CPU: the reschedule IPI
    /// (`smp_send_reschedule`, or the TTWU_QUEUE IPI) and the idle state's exit latency
    /// (`cpuidle_state.exit_latency`; on the measured VM, haltpoll's HLT exit through the
    /// host), added to `switch_delay_ns` before the woken CPU's `__schedule`. Applied only when
    /// the target CPU is idle and is not the waker's. Measured on Linux 6.18 (2-vCPU VM,
    /// tests/fixtures/real/pingpong-cross): a ping-pong pair pinned to two CPUs wakes its
    /// partner on an idle CPU in 22 µs (p50 `sched_waking` → `sched_switch`, three recordings),
    /// so 22 − 5 (δ) = 17 µs, the scenario default (docs/measurements.md). 0 turns it off.
    pub idle_wakeup_ns: u64,
    /// Deeper idle states, by how long the CPU has been idle when the wakeup comes: a CPU idle
    /// for at least a state's `after_ns` pays its `wakeup_ns` instead of `idle_wakeup_ns` (the
    /// deepest such state). The idle state deepens with the time spent idle, as in a KVM guest
    /// whose host polls a halted vCPU for `halt_poll_ns` (200 µs by default) before it
    /// deschedules it, or a cpuidle governor's deeper states for longer idles. Sorted by
    /// `after_ns`; empty: every idle CPU pays `idle_wakeup_ns`. The idle time runs from the
    /// CPU's last switch to idle, or from the start for a CPU that has not run yet.
    pub idle_states: Vec<IdleState>,
    /// CPU time a context switch costs the task switched in, paid before it goes on with its
    /// program (a burst it was preempted in lasts that much longer): the switch itself, the
    /// refill of what the other task displaced, and the local wakeup that usually precedes it.
    /// Measured on Linux 6.18 (2-vCPU VM, `scripts/workloads/switchcost.c`): a ping-pong pair
    /// pinned to one CPU takes 2 750 ns per round trip (2 switches, 1.06 wakeups: `perf stat`)
    /// where one task doing the same pipe writes and reads alone takes 2 × 410 ns, so
    /// (2 750 − 820) / 2 ≈ 960 ns per switch (docs/measurements.md). The scenario default is 0
    /// (the single-CPU checks and goldens are without it); presets that need it set it.
    pub switch_cost_ns: u64,
    /// CPU time a wakeup onto another CPU costs the waker, paid before its program goes on
    /// (`ipi_cost_ns` more when the wakeup sends an IPI). A wakeup on the waker's own CPU is
    /// part of `switch_cost_ns`. Measured on the same VM with `switchcost wake`: a write() that
    /// wakes a partner blocked on the other, idle CPU takes 7–12 µs against 0.22 µs for a
    /// write nobody waits on (the VM exits to send the IPI; bare metal sends one in well
    /// under 1 µs). Default 0.
    pub wakeup_cost_ns: u64,
    /// CPU time the waker pays beyond `wakeup_cost_ns` when its wakeup onto another CPU sends
    /// an IPI: the target is idle (`ttwu_queue_cond`: the wake list and
    /// `send_call_function_single_ipi`) or the wakee preempts its curr (`resched_curr`
    /// setting TIF_NEED_RESCHED anew). A busy target in the waker's LLC whose curr stays is
    /// enqueued under its rq lock with no IPI. Measured with `switchcost busy` against
    /// `switchcost wake`; 0 where a machine's two were not measured apart (its
    /// `wakeup_cost_ns` then holds the idle target's cost, IPI included). Default 0. A wakee
    /// that preempts a busy CPU's curr is switched in δ after the waker has paid
    /// `wakeup_cost_ns` + `ipi_cost_ns` (the IPI arrives as the waker's VM exit ends).
    pub ipi_cost_ns: u64,
    /// CPU time a wakeup on the waker's own CPU costs the waker (`try_to_wake_up`'s enqueue
    /// and wakeup-preemption check inside its system call), paid after the enqueue and before
    /// its system call returns: a task that wakes a partner and then blocks has run in
    /// between, as in the kernel, where `update_curr` at its dequeue then finds it past the
    /// partner it placed (with DELAY_DEQUEUE it then stays queued, its load on the CPU).
    /// Measured on an EPYC VM with `switchcost local` (a write() that wakes a SCHED_IDLE reader
    /// blocked on the same CPU, which cannot preempt it, less a write nobody waits on): 432–454
    /// ns in six runs (`tests/fixtures/real-epyc-dec5`). Where it is not measured apart it is
    /// part of `switch_cost_ns` (charged to the task switched in instead). Default 0.
    pub local_wakeup_ns: u64,
    /// The spread of the machine's per-event costs (`switch_cost_ns`, `wakeup_cost_ns`,
    /// `ipi_cost_ns`, `local_wakeup_ns`): each charge is drawn uniformly about its mean with
    /// this standard deviation, in parts per million of the mean (0: fixed). A kernel path
    /// never takes the same nanoseconds twice (a pipe write and read alone in a loop on the
    /// EPYC VM: 381–401 ns from p10 to p90, `switchcost spread`); with fixed costs two tasks
    /// doing the same thing tie to the nanosecond in vruntime, cycle after cycle, which
    /// decides every comparison between them the same way. Default 0.
    pub cost_spread_ppm: u32,
    /// The `wakee_flips` of the process that starts the run's tasks (a shell, `perf record`),
    /// which every task it forks copies (`dup_task_struct`; `__sched_fork` does not reset
    /// them), along with a decay stamp more than a second old: a task's first `record_wakee`
    /// halves them. `wake_wide` compares them with the LLC's size, so they decide where the
    /// first wakeups of a run go on machines whose LLC spans a few CPUs (hackbench's start:
    /// main's wakeups of the threads stay affine only until main's own flips reach twice the
    /// threads'). Kernel threads and daemons start at 0.
    pub launcher_wakee_flips: u32,
    /// Channels (programs refer to them by index).
    pub channels: Vec<Channel>,
    /// Tasks; pid = index + 1.
    pub tasks: Vec<TaskSpec>,
    /// Record vruntime/deadline/lag snapshots at every switch and tick (for timeline overlays).
    pub record_snapshots: bool,
    /// Record decision records (`decision.rs`): every wakeup-preemption check and the cause of
    /// every preemption.
    pub record_decisions: bool,
    /// Interrupt load as a program: periodic or random hardirq/softirq time on a CPU, charged
    /// as IRQ time (see [`IrqSource`]). Empty: none.
    pub irq_load: Vec<IrqSource>,
    /// The cache-warmth cost (`engine/cache.rs`): `None` (the default) charges nothing.
    pub cache: Option<CacheCost>,
    /// Task groups (`cgroup.rs`); the default is a flat machine with no group work.
    pub cgroups: crate::cgroup::Cgroups,
    /// The RT tasks (SCHED_FIFO, SCHED_RR) among `tasks`; the others are fair.
    pub rt_tasks: Vec<RtTask>,
    /// RT throttling and fair-server tunables.
    pub rt_bandwidth: RtBandwidth,
}

/// An RT scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtPolicy {
    /// SCHED_FIFO: runs until it blocks or a higher priority preempts it.
    Fifo,
    /// SCHED_RR: SCHED_FIFO with a 100 ms time slice among tasks of its priority.
    Rr,
}

/// A task of `tasks` that is an RT task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtTask {
    /// Index into `tasks`.
    pub task: u32,
    /// Its policy.
    pub policy: RtPolicy,
    /// `sched_priority`, 1..=99 (higher runs first).
    pub priority: u32,
}

/// The bandwidth tunables of the classes above fair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtBandwidth {
    /// `/proc/sys/kernel/sched_rt_runtime_us` in ns; `None` is −1 (no throttling). Used by
    /// kernels without the fair server (6.1, 6.6).
    pub rt_runtime_ns: Option<u64>,
    /// `/proc/sys/kernel/sched_rt_period_us` in ns.
    pub rt_period_ns: u64,
    /// `/sys/kernel/debug/sched/fair_server/cpuN/runtime` (6.12+); 0 turns it off.
    pub fair_server_runtime_ns: u64,
    /// `/sys/kernel/debug/sched/fair_server/cpuN/period`.
    pub fair_server_period_ns: u64,
}

impl Default for RtBandwidth {
    /// The kernel's defaults: 950 ms per 1 s, and a 50 ms per 1 s fair server.
    fn default() -> RtBandwidth {
        RtBandwidth {
            rt_runtime_ns: Some(950_000_000),
            rt_period_ns: 1_000_000_000,
            fair_server_runtime_ns: 50_000_000,
            fair_server_period_ns: 1_000_000_000,
        }
    }
}

/// When an [`IrqSource`]'s interrupts arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqArrival {
    /// Every this many ns (the first at t = 0).
    Every(u64),
    /// A Poisson process with this mean interval in ns (exponential gaps from the scenario
    /// seed); an interrupt that arrives while the previous one is still being handled starts
    /// when it ends.
    Poisson(u64),
}

/// A source of interrupt load on one CPU. Its handler's time is IRQ time: it is taken from
/// whatever runs on that CPU and `rq_clock_task` excludes it (CONFIG_IRQ_TIME_ACCOUNTING), so
/// no task's `sum_exec_runtime` or vruntime is charged for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqSource {
    /// The CPU it interrupts.
    pub cpu: u32,
    /// When it fires.
    pub arrival: IrqArrival,
    /// How long each handler runs, in ns (> 0, shorter than a periodic source's interval).
    pub cost_ns: u64,
    /// `Some(w)`: the handler queues its work item on workqueue channel `w` (a driver's
    /// `schedule_work` from its interrupt handler, for the CPU's bound kworker that reads `w`),
    /// as `queue_work_on` does: one `work_struct` per source, so an interrupt arriving while the
    /// item is still pending (queued, not yet taken by the kworker: WORK_STRUCT_PENDING) queues
    /// nothing. The kworker's [`Op::Recv`] takes the item and clears its pending bit, as
    /// `process_one_work` does before it calls the function; a worker that finds more items
    /// after one runs them before it sleeps (`worker_thread`). `None`: no work item.
    pub queue_work: Option<u32>,
}

/// A cache-warmth cost: CPU time a task pays when it resumes with what it cached displaced.
///
/// A task switched in on the CPU it last ran on pays a ramp in the *foreign* run time, the
/// time other tasks ran on that CPU since it left it: nothing up to `hot_ns`, `refill_ns`
/// from `cold_ns` on, linear between. A task switched in on another CPU than the one it last
/// ran on pays `migrate_ns`. The first run of a task pays nothing. The cost lengthens the run
/// the task is switched in for (like `switch_cost_ns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CacheCost {
    /// The cost of resuming fully cold (foreign run time at or above `cold_ns`).
    pub refill_ns: u64,
    /// The cost of resuming on another CPU.
    pub migrate_ns: u64,
    /// Foreign run time up to which a task resumes hot (costs nothing).
    pub hot_ns: u64,
    /// Foreign run time from which a task resumes cold (costs `refill_ns`); above `hot_ns`.
    pub cold_ns: u64,
}

impl CacheCost {
    /// What a task pays on the CPU it last ran on, after `foreign_ns` of other tasks' run
    /// time there: the ramp, in integer ns (rounded down).
    pub fn ramp(&self, foreign_ns: u64) -> u64 {
        if foreign_ns <= self.hot_ns {
            0
        } else if foreign_ns >= self.cold_ns {
            self.refill_ns
        } else {
            // Both factors are bounded by the limits (1 ms × 1 s), far inside u64.
            self.refill_ns * (foreign_ns - self.hot_ns) / (self.cold_ns - self.hot_ns)
        }
    }
}

/// The cache-warmth cost measured on Linux 6.18 (2-vCPU VM, Xeon, 4 MiB L2 per vCPU) with
/// `scripts/measure-warmth.sh` (`scripts/workloads/warmth.c`, results in
/// tests/fixtures/real/warmth.txt): a pinned ping-pong pair whose ping touches a 256 KiB
/// working set between turns, with a quiet and with a cache-thrashing partner running F ns
/// in between; ping's extra touch time against F fits the ramp (medians of three sweeps).
/// `migrate_ns` is the extra touch time of the same working set after the task moves to the
/// other CPU (medians of three runs: 17.6–19.8 µs; the moved lines are dirty in the other
/// vCPU's L2). The three sweeps gave refill 5.0/6.4/8.2 µs, hot 10/37/60 µs, cold
/// 105/176/293 µs: the machine is a VM and the fit is noisy. Not the default: a scenario sets
/// `"cache": "measured"` to use it.
pub const MEASURED_CACHE_COST: CacheCost = CacheCost {
    refill_ns: 6_425,
    migrate_ns: 17_880,
    hot_ns: 37_000,
    cold_ns: 176_000,
};

/// The slice `sched_setattr(sched_runtime = ns)` gives on 6.12+: clamped to [0.1 ms, 100 ms].
pub fn effective_custom_slice(ns: u64) -> u64 {
    ns.clamp(100_000, 100_000_000)
}

/// Hard limits that keep one run bounded; the scenario validator reports them to the user.
pub mod limits {
    /// Most CPUs.
    pub const MAX_CPUS: u32 = 1024;
    /// Most tasks.
    pub const MAX_TASKS: usize = 100_000;
    /// Longest run: one hour of simulated time.
    pub const MAX_DURATION_NS: u64 = 3_600_000_000_000;
    /// Longest program.
    pub const MAX_PROGRAM_OPS: usize = 1024;
    /// Largest δ.
    pub const MAX_SWITCH_DELAY_NS: u64 = 1_000_000;
    /// Largest `idle_wakeup_ns` (deep C-states exit in hundreds of µs).
    pub const MAX_IDLE_WAKEUP_NS: u64 = 10_000_000;
    /// Most deeper idle states.
    pub const MAX_IDLE_STATES: usize = 8;
    /// Largest `switch_cost_ns`, `wakeup_cost_ns` and `ipi_cost_ns`.
    pub const MAX_SWITCH_COST_NS: u64 = 1_000_000;
    /// Largest `cost_spread_ppm`: a standard deviation of half the mean (a uniform draw then
    /// spans 0.13–1.87 times it).
    pub const MAX_COST_SPREAD_PPM: u64 = 500_000;
    /// Largest `launcher_wakee_flips` (a task that switched wakee 100 000 times within the
    /// last second or two).
    pub const MAX_LAUNCHER_WAKEE_FLIPS: u64 = 100_000;
    /// Largest `refill_ns` and `migrate_ns` of the cache-warmth cost.
    pub const MAX_CACHE_COST_NS: u64 = 1_000_000;
    /// Largest `hot_ns` and `cold_ns` of the cache-warmth cost (1 s).
    pub const MAX_CACHE_FOREIGN_NS: u64 = 1_000_000_000;
    /// Most housekeeping runs per second on a CPU.
    pub const MAX_HOUSEKEEPING_RUNS_PER_S: u64 = 1_000;
    /// Longest mean housekeeping run (10 ms).
    pub const MAX_HOUSEKEEPING_RUN_NS: u64 = 10_000_000;
    /// Most iterations of one loop.
    pub const MAX_LOOP_TIMES: u32 = 1_000_000;
}

impl SimConfig {
    /// Per channel, whether it is written other than by [`Op::Request`]: by a send, as a
    /// request's reply channel, by a device's completions or by an interrupt's work items.
    fn written_otherwise(&self) -> Vec<bool> {
        let mut w = alloc::vec![false; self.channels.len()];
        let mut mark = |c: u32| {
            if let Some(x) = w.get_mut(c as usize) {
                *x = true;
            }
        };
        for op in self.tasks.iter().flat_map(|t| &t.program) {
            match *op {
                Op::Send(c) | Op::Request { reply_to: c, .. } => mark(c),
                _ => {}
            }
        }
        for d in self.channels.iter().filter_map(|c| c.device.as_ref()) {
            d.workqueue.iter().for_each(|&c| mark(c));
        }
        self.irq_load
            .iter()
            .filter_map(|q| q.queue_work)
            .for_each(mark);
        w
    }

    /// Checks the engine's preconditions. A config built by the scenario crate always passes.
    pub fn check(&self) -> Result<(), String> {
        if self.cpus == 0 || self.cpus > limits::MAX_CPUS {
            return Err(format!("cpus must be 1..={}", limits::MAX_CPUS));
        }
        if self.smt == 0 || self.cpus % self.smt != 0 {
            return Err("smt must divide the number of CPUs".into());
        }
        if self.llc_size != 0 && (self.cpus % self.llc_size != 0 || self.llc_size % self.smt != 0) {
            return Err("llc_size must divide the number of CPUs and be a multiple of smt".into());
        }
        if ![100, 250, 300, 1000].contains(&self.hz) {
            return Err(format!("hz must be 100, 250, 300 or 1000, not {}", self.hz));
        }
        if self.duration_ns == 0 || self.duration_ns > limits::MAX_DURATION_NS {
            return Err("duration out of range".into());
        }
        if self.switch_delay_ns > limits::MAX_SWITCH_DELAY_NS {
            return Err("switch delay out of range".into());
        }
        if self.idle_states.len() > limits::MAX_IDLE_STATES
            || self.idle_states.iter().any(|s| {
                s.after_ns == 0
                    || s.after_ns > limits::MAX_DURATION_NS
                    || s.wakeup_ns > limits::MAX_IDLE_WAKEUP_NS
            })
            || self
                .idle_states
                .windows(2)
                .any(|w| w[0].after_ns >= w[1].after_ns)
        {
            return Err(format!(
                "idle states: at most {}, each after 1 ns..=1 h of idle with a wakeup of at most 10 ms, in increasing order of after_ns",
                limits::MAX_IDLE_STATES
            ));
        }
        if self.switch_cost_ns > limits::MAX_SWITCH_COST_NS
            || self.wakeup_cost_ns > limits::MAX_SWITCH_COST_NS
            || self.ipi_cost_ns > limits::MAX_SWITCH_COST_NS
            || self.local_wakeup_ns > limits::MAX_SWITCH_COST_NS
        {
            return Err("switch or wakeup cost out of range".into());
        }
        if u64::from(self.cost_spread_ppm) > limits::MAX_COST_SPREAD_PPM {
            return Err("cost spread out of range".into());
        }
        if u64::from(self.launcher_wakee_flips) > limits::MAX_LAUNCHER_WAKEE_FLIPS {
            return Err("launcher wakee_flips out of range".into());
        }
        if let Some(c) = &self.cache {
            if c.refill_ns > limits::MAX_CACHE_COST_NS || c.migrate_ns > limits::MAX_CACHE_COST_NS {
                return Err("cache refill or migration cost out of range".into());
            }
            if c.hot_ns >= c.cold_ns || c.cold_ns > limits::MAX_CACHE_FOREIGN_NS {
                return Err("cache hot_ns must be below cold_ns, and cold_ns at most 1 s".into());
            }
        }
        if self.irq_ns > self.switch_delay_ns {
            return Err("the IRQ time must not exceed the switch delay it is part of".into());
        }
        for (i, q) in self.irq_load.iter().enumerate() {
            if q.cpu >= self.cpus {
                return Err(format!("irq source {i}: cpu must be 0..{}", self.cpus));
            }
            match q.arrival {
                IrqArrival::Every(p) if q.cost_ns == 0 || q.cost_ns >= p => {
                    return Err(format!(
                        "irq source {i}: the cost must be above 0 and below the interval"
                    ));
                }
                IrqArrival::Poisson(m) if q.cost_ns == 0 || m == 0 => {
                    return Err(format!(
                        "irq source {i}: the cost and the mean interval must be above 0"
                    ));
                }
                _ => {}
            }
            if let Some(w) = q.queue_work {
                // A plain channel that only interrupts write (its messages are work items).
                let plain =
                    (w as usize) < self.channels.len()
                        && self.channels[w as usize].device.is_none()
                        && !self.channels[w as usize].futex
                        && !self.channels[w as usize].poll
                        && !self
                            .channels
                            .iter()
                            .any(|c| c.device.as_ref().is_some_and(|d| d.workqueue.contains(&w)))
                        && !self.tasks.iter().flat_map(|t| &t.program).any(
                            |op| matches!(*op, Op::Send(c) | Op::Request { to: c, .. } if c == w),
                        );
                if !plain {
                    return Err(format!(
                        "irq source {i}: queue_work must name a plain channel that no task or device writes"
                    ));
                }
            }
        }
        for (i, c) in self.channels.iter().enumerate() {
            if c.page_msgs > 0
                && (c.poll
                    || c.futex
                    || c.device.is_some()
                    || c.wake_writer_at.is_some()
                    || c.capacity < c.page_msgs
                    || c.capacity % c.page_msgs != 0)
            {
                return Err(format!(
                    "channel {i}: a paged channel is a plain pipe whose capacity is a whole number of pages"
                ));
            }
            if c.poll && (c.futex || c.device.is_some() || c.wake_writer_at.is_some()) {
                return Err(format!(
                    "channel {i}: a polled channel is a pipe, not a futex word, a socket or a device"
                ));
            }
            let Some(d) = &c.device else { continue };
            if d.irq_cpu.is_some_and(|q| q >= self.cpus) || d.rq_affinity > 2 {
                return Err(format!(
                    "channel {i}: device irq cpu or rq_affinity out of range"
                ));
            }
            if !d.workqueue.is_empty()
                && (d.workqueue.len() != self.cpus as usize
                    || d.workqueue.iter().any(|&w| {
                        w as usize >= self.channels.len()
                            || self.channels[w as usize].device.is_some()
                            || self.channels[w as usize].poll
                    }))
            {
                return Err(format!(
                    "channel {i}: a device's workqueue names one plain channel per CPU"
                ));
            }
            if let Dist::Uniform(lo, hi) = d.latency {
                if lo > hi {
                    return Err(format!("channel {i}: uniform latency range reversed"));
                }
            }
        }
        let bw = self.rt_bandwidth;
        if bw.rt_period_ns == 0
            || bw.rt_runtime_ns.is_some_and(|r| r > bw.rt_period_ns)
            || bw.fair_server_period_ns == 0
            || bw.fair_server_runtime_ns > bw.fair_server_period_ns
        {
            return Err("rt bandwidth: a runtime must not exceed its period (> 0)".into());
        }
        for r in &self.rt_tasks {
            if r.task as usize >= self.tasks.len() || !(1..=99).contains(&r.priority) {
                return Err(format!("rt task {}: bad index or priority", r.task));
            }
        }
        if self.tasks.len() > limits::MAX_TASKS {
            return Err("too many tasks".into());
        }
        let other_writes = self.written_otherwise();
        for (i, t) in self.tasks.iter().enumerate() {
            if !(-20..=19).contains(&t.nice) {
                return Err(format!("task {i}: nice out of range"));
            }
            if t.affinity.is_empty() || t.affinity.iter().any(|&c| c >= self.cpus) {
                return Err(format!(
                    "task {i}: affinity must name CPUs 0..{}",
                    self.cpus
                ));
            }
            if t.program.is_empty() || t.program.len() > limits::MAX_PROGRAM_OPS {
                return Err(format!(
                    "task {i}: program must have 1..={} ops",
                    limits::MAX_PROGRAM_OPS
                ));
            }
            let mut progress = false;
            for (idx, op) in t.program.iter().enumerate() {
                if let Op::Loop { start, .. } = *op {
                    if start as usize > idx {
                        return Err(format!("task {i}: a loop must jump backwards"));
                    }
                }
                match *op {
                    Op::Run(_) | Op::Sleep(_) | Op::Exit | Op::WaitPeriod(_) => progress = true,
                    Op::Recv(_) | Op::Complete | Op::Reply => {}
                    Op::Request { to, reply_to } => {
                        if to as usize >= self.channels.len()
                            || reply_to as usize >= self.channels.len()
                        {
                            return Err(format!("task {i}: unknown channel {to} or {reply_to}"));
                        }
                        let c = &self.channels[to as usize];
                        if c.poll || c.device.is_some() || other_writes[to as usize] {
                            return Err(format!(
                                "task {i}: step {idx}: a request's channel {to} must be a pipe or a futex word that nothing else writes"
                            ));
                        }
                    }
                    Op::LockCpu(set) | Op::UnlockCpu(set) => {
                        if set >= MAX_LOCK_SETS {
                            return Err(format!(
                                "task {i}: step {idx}: lock set {set} (at most {MAX_LOCK_SETS} sets)"
                            ));
                        }
                    }
                    Op::Affinity { first, last } => {
                        if first > last || last >= self.cpus {
                            return Err(format!(
                                "task {i}: step {idx}: affinity {first}..={last} must name CPUs 0..{} in order",
                                self.cpus
                            ));
                        }
                    }
                    Op::Loop { start, times } => {
                        if start as usize >= t.program.len()
                            || times == 0
                            || times > limits::MAX_LOOP_TIMES
                        {
                            return Err(format!("task {i}: bad loop"));
                        }
                    }
                    Op::Send(c) => {
                        if c as usize >= self.channels.len() {
                            return Err(format!("task {i}: unknown channel {c}"));
                        }
                    }
                }
                if let Op::Recv(c) = *op {
                    if c as usize >= self.channels.len() {
                        return Err(format!("task {i}: unknown channel {c}"));
                    }
                }
                if let Op::Run(Some(Dist::Uniform(lo, hi))) | Op::Sleep(Dist::Uniform(lo, hi)) = *op
                {
                    if lo > hi {
                        return Err(format!("task {i}: uniform range reversed"));
                    }
                }
            }
            // Without a run, a sleep or an exit, a program of sends and reads could loop forever
            // at one instant ([send c, recv c]).
            if !progress {
                return Err(format!("task {i}: program never runs, sleeps or exits"));
            }
        }
        self.cgroups.check(self.tasks.len())?;
        Ok(())
    }
}
