//! The discrete-event engine: time, the event queue, CPUs, and the verbs every kernel path uses.
//!
//! One queue of events ordered by (time, insertion sequence): events at the same instant run in
//! the order they were scheduled, so a run is a pure function of (config, variant). The engine
//! never reads a clock; the caller drives it with [`Simulator::step`] or [`Simulator::run`],
//! which stops after an event budget.
//!
//! The engine is one `impl Simulator` per kernel seam:
//! - `core.rs`: `kernel/sched/core.c`, the parts the fair class hangs off: `try_to_wake_up`
//!   (with `ttwu_runnable` for delayed tasks), `wake_up_new_task`, `__schedule` (pick,
//!   put_prev, set_next, `sched_info` accounting), `sched_tick`, the hrtick;
//! - `program.rs`: the task programs and their channels (the model's stand-in for user code);
//! - `topology.rs`: the sched domains (`kernel/sched/topology.c`);
//! - `select.rs`: wakeup and fork placement (`select_task_rq_fair` and its helpers in fair.c);
//! - `balance.rs`: load balancing (fair.c: periodic, newidle and NOHZ balancing);
//! - `check.rs`: the invariants the property tests check after every event.
//!
//! This file holds the event loop and the state every seam shares.

use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{SchedPolicy, SimConfig};
use crate::fair::{Ctx, Entity, Fair, Rq, Tid};
use crate::rng::Rng;
use crate::stats::{CpuStats, TaskStats};
use crate::trace::{
    Event, EventKind, Recorder, Sink, Snapshot, TaskInfo, Trace, TraceCounts, TraceLevel,
};
use crate::variant::Variant;
use crate::weight::LoadWeight;

pub mod balance;
mod bandwidth;
mod cache;
mod check;
mod core;
mod group;
mod io;
mod irq;
mod load;
mod program;
mod queue;
mod rt;
mod select;
mod topology;

use balance::LbState;
use program::Chan;
use queue::{Ev, Queue};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TState {
    New,
    Runnable,
    Sleeping,
    Dead,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Burst {
    /// The program must be consulted when the task next runs.
    Idle,
    /// Running until `sum_exec_runtime` reaches this.
    Until(u64),
    /// Paying a switch or wakeup cost (`switch_cost_ns`, `wakeup_cost_ns`) until
    /// `sum_exec_runtime` reaches this; the program's current op comes after.
    Paying(u64),
    Forever,
    /// Spinning on a held per-CPU lock (`Op::LockCpu`) while on its CPU; retried when the lock
    /// is released. Switched out, a spinner goes back to `Idle` and retries when it next runs.
    Spin,
}

struct TaskCtl {
    cpu: u32,
    state: TState,
    pc: usize,
    burst: Burst,
    /// Invalidates BurstEnd/Resume events when the task leaves the CPU.
    gen: u32,
    timer_gen: u32,
    rng: Rng,
    stats: TaskStats,
    /// Iteration counters of the program's loops, by step index (allocated on first use).
    loops: Vec<u32>,
    /// `wakee_flips`, `wakee_flip_decay_ts`, `last_wakee` (for `wake_wide`). A task starts
    /// with what `dup_task_struct` copied from the process that forked it (`__sched_fork`
    /// resets none of the three): the launcher's flips ([`SimConfig::launcher_wakee_flips`]),
    /// its last wakee (someone outside the run: `None`) and a decay stamp more than a second
    /// old (`None`), so its first `record_wakee` halves them.
    wakee_flips: u32,
    wakee_flip_decay_ns: Option<u64>,
    last_wakee: Option<Tid>,
    /// `recent_used_cpu`.
    recent_used_cpu: u32,
    /// `se->avg` (PELT, see load.rs).
    avg: crate::pelt::SchedAvg,
    /// Switch and wakeup costs charged while no burst was running, paid before the next op.
    owed_ns: u64,
    /// In a system call that has done its work (a send, a read that found its message): it
    /// returns to user space before the next op (`program.rs`, `syscall_exit`).
    syscall: bool,
    /// Blocked on a full paged pipe since its last write (`pipe_write`'s `wake_next_writer`).
    waited_room: bool,
    /// What the message taken by its last read carries: a kworker's work item (the device
    /// channel of an I/O completion, delivered by `Op::Complete`) or a request's reply channel
    /// (written by `Op::Reply`).
    work: Option<u32>,
    /// Requests taken off a futex word's list and not yet read, as (channel, reply channel),
    /// the next to read last (`Op::Recv` on a futex word carrying `Op::Request`s).
    batch: Vec<(u32, u32)>,
    /// `p->cpus_ptr`, sorted: the configured affinity until an [`Op::Affinity`] step changes it.
    ///
    /// [`Op::Affinity`]: crate::config::Op::Affinity
    affinity: Vec<u32>,
    /// PF_KTHREAD.
    kthread: bool,
    /// It reads its own CPU clock while it runs (`TaskSpec::cpu_clock`).
    cpu_clock: bool,
    /// The per-CPU lock (`program::Locks` index) it spins on, from its `Op::LockCpu` until it
    /// takes it.
    spin: Option<u32>,
    /// `sum_exec_runtime` when its current spell of spinning on a CPU began.
    spin_from: u64,
}

#[derive(Default)]
struct Cpu {
    rq: Rq,
    sched_gen: u32,
    schedule_pending: bool,
    tick_armed: bool,
    hrtick_gen: u32,
    hrtick_expires: Option<u64>,
    /// Generation of the pending `Ev::ClockRead` (curr's next CPU-clock read that reschedules).
    clock_gen: u32,
    /// An `Ev::ClockRead` is pending.
    clock_armed: bool,
    checked_min_vruntime: Option<i64>,
    /// IRQ time so far; `rq_clock_task` = wall − this (kept monotonic).
    irq_ns: u64,
    clock_task: u64,
    /// When the CPU last went idle (`idle_stamp`; the fork path prefers the most recent).
    idle_stamp: u64,
    /// `rq->idle_stamp` as `ttwu_do_activate` reads it: set when newidle balancing starts,
    /// cleared by a pull or by the next wakeup onto this CPU (which feeds `avg_idle`).
    newidle_stamp: Option<u64>,
    /// `rq->avg_idle` (ns): `update_avg` of the idle durations seen at wakeups; starts at
    /// 2 × `sysctl_sched_migration_cost` (`sched_init`).
    avg_idle: u64,
    /// `rq->max_idle_balance_cost` (ns): starts at `sysctl_sched_migration_cost`.
    max_idle_balance_cost: u64,
    /// `sched_rng()`'s per-CPU state (6.19's NI_RANDOM).
    sched_rng: Option<Rng>,
    /// The draws of the machine's per-event costs on this CPU (`SimConfig::cost_spread_ppm`).
    cost_rng: Option<Rng>,
    /// Per sched-domain level (lowest first): last balance time and `nr_balance_failed`.
    lb: [LbState; 3],
    /// `rq->next_balance`, in jiffies: the tick raises SCHED_SOFTIRQ from then on.
    next_balance: u64,
    /// The root `cfs_rq->avg` (PELT, see load.rs).
    avg: crate::pelt::SchedAvg,
    /// With task groups: the root cfs_rq's `load.weight` (scaled), the sum of the queued
    /// tasks' hierarchical weights (`engine/group.rs`); without, the run queue's load.
    root_load: Option<u64>,
    /// The queued fair tasks are all of one group (not the root): the flat queue stands for
    /// that group's cfs_rq (`engine/group.rs`).
    group_alone: bool,
    /// `rq->has_blocked_load`: set when the CPU enters NOHZ idle, cleared by
    /// `update_blocked_averages` once its PELT load and util have decayed to 0.
    has_blocked_load: bool,
    /// `rq->last_blocked_load_update_tick`, in jiffies.
    last_blocked_tick: u64,
    /// `nohz_flags(cpu)`: the NOHZ kick's work pending on this CPU (NOHZ_STATS_KICK,
    /// NOHZ_BALANCE_KICK), set by `kick_ilb` and taken by `nohz_csd_func` when its IPI
    /// arrives.
    nohz_flags: u8,
    /// The CPU that sent the pending kick's IPI and when (for its decision records).
    nohz_kick_from: (u32, u64),
    /// Since when this CPU has been idle while another CPU had a waiting task that may run
    /// here (for the balancing invariant).
    starved_since: Option<u64>,
    /// `rq->active_balance` with `rq->push_cpu`: the stopper's work is queued, for that CPU.
    active_balance: Option<u32>,
    /// The stopper (active balance or a migration for an affinity change) preempts the running
    /// task to push it to this CPU: `__schedule` detaches it after putting it back.
    stop_push: Option<(u32, crate::decision::Move)>,
}

/// Whether a run has more to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Stopped on the event budget; call again.
    Running,
    /// Reached the configured duration.
    Done,
}

/// Everything a finished run produced.
#[derive(Clone, Debug)]
pub struct Output {
    /// The variant's name.
    pub variant: String,
    /// The trace: the events its [`TraceLevel`] kept (all of them by default).
    pub trace: Trace,
    /// How many events of each kind the run produced, kept or not.
    pub trace_counts: TraceCounts,
    /// Per-task counters, by pid − 1.
    pub tasks: Vec<TaskStats>,
    /// Per-CPU counters.
    pub cpus: Vec<CpuStats>,
    /// Events the engine processed.
    pub events_processed: u64,
    /// Set when the run ended early because every task left was blocked on a channel and
    /// nothing (no timer, no tick) could wake one.
    pub deadlock: Option<Deadlock>,
    /// The `cpu.stat` of each group with a bandwidth limit (`cpu.max`), in group order.
    pub bandwidth: Vec<crate::stats::BandwidthStats>,
}

/// A run that cannot go on: every task left is blocked on a channel and nothing is pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// When it was found (the run ends there).
    pub t_ns: u64,
    /// Each blocked task: pid, comm, the channel, and whether it waits to send (full) or to
    /// read (empty).
    pub blocked: Vec<(crate::trace::Pid, String, String, bool)>,
}

impl ::core::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        write!(
            f,
            "deadlock at {}.{:03} ms: every task left is blocked on a channel and nothing can wake one (",
            self.t_ns / 1_000_000,
            self.t_ns % 1_000_000 / 1_000
        )?;
        for (i, (pid, comm, chan, sending)) in self.blocked.iter().take(8).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            let verb = if *sending {
                "sends to full"
            } else {
                "reads empty"
            };
            write!(f, "{comm}:{pid} {verb} {chan}")?;
        }
        if self.blocked.len() > 8 {
            write!(f, ", and {} more", self.blocked.len() - 8)?;
        }
        f.write_str("); the run ends there")
    }
}

/// One simulation of one variant.
pub struct Simulator {
    cfg: SimConfig,
    fair: Fair,
    now: u64,
    queue: Queue,
    ents: Vec<Entity>,
    tasks: Vec<TaskCtl>,
    cpus: Vec<Cpu>,
    chans: Vec<Chan>,
    locks: program::Locks,
    rec: Recorder,
    processed: u64,
    /// Events plus zero-time program steps: what [`Simulator::run`]'s budget counts.
    work: u64,
    deadlock: Option<Deadlock>,
    done: bool,
    /// `nohz.has_blocked`: some idle CPU may have blocked load left to decay.
    nohz_has_blocked: bool,
    /// `nohz.next_blocked`, in jiffies: when the NOHZ stats kick may next run.
    nohz_next_blocked: u64,
    /// While a kick's IPI handler balances: the CPU that kicked and the IPI's delay in ns
    /// (what a move's decision record names).
    nohz_kick: Option<(u32, u32)>,
    /// Tasks not yet exited; the run ends early when it reaches 0.
    alive: usize,
    /// CPUs per LLC.
    llc: u32,
    /// Each LLC's `sd_llc_shared->nr_idle_scan` (SIS_UTIL): how many of its CPUs
    /// `select_idle_cpu` may scan. The kernel allocates it zeroed and first writes it at the
    /// LLC domain's first periodic balance; the model starts it at the LLC's size, as a
    /// machine that was idle before the run would have it.
    nr_idle_scan: Vec<u32>,
    /// Each interrupt-load source's PRNG (`irq.rs`).
    irq_rng: Vec<Rng>,
    /// Per interrupt source: its work item is pending (queued, not yet taken by the kworker).
    irq_pending: Vec<bool>,
    /// The cache-warmth bookkeeping (`cache.rs`).
    warm: cache::Warmth,
    /// Task groups (`group.rs`).
    grp: group::GroupState,
    /// The classes above fair (`rt.rs`).
    rt: rt::RtState,
    /// Bandwidth control (`bandwidth.rs`).
    bw: bandwidth::BwState,
}

impl Simulator {
    /// Prepares a run that keeps its whole trace. Fails only on a config that
    /// [`SimConfig::check`] rejects.
    pub fn new(cfg: &SimConfig, variant: &Variant) -> Result<Simulator, String> {
        Simulator::with_trace(cfg, variant, TraceLevel::Full, None)
    }

    /// Prepares a run that keeps what `level` asks for of its trace and hands every event to
    /// `sink` as it happens (see [`crate::trace`]).
    pub fn with_trace(
        cfg: &SimConfig,
        variant: &Variant,
        level: TraceLevel,
        sink: Option<alloc::boxed::Box<dyn Sink>>,
    ) -> Result<Simulator, String> {
        cfg.check()?;
        let tick_ns = 1_000_000_000 / cfg.hz as u64;
        let fair = Fair {
            variant: variant.clone(),
            p: variant.params(cfg.cpus),
            sw: variant.version.switches,
            tick_ns,
        };
        let mut ents = Vec::with_capacity(cfg.tasks.len());
        let mut tasks = Vec::with_capacity(cfg.tasks.len());
        let mut infos = Vec::with_capacity(cfg.tasks.len());
        for (i, t) in cfg.tasks.iter().enumerate() {
            let load = match t.policy {
                SchedPolicy::Idle => LoadWeight::idle(),
                _ => LoadWeight::from_nice(t.nice),
            };
            let slice = t.slice_ns.map(crate::config::effective_custom_slice);
            ents.push(Entity::new(load, t.policy, slice));
            tasks.push(TaskCtl {
                cpu: t.affinity[0],
                state: TState::New,
                pc: 0,
                burst: Burst::Idle,
                gen: 0,
                timer_gen: 0,
                rng: Rng::new(cfg.seed, i as u64),
                stats: TaskStats::default(),
                loops: Vec::new(),
                // Kernel threads and the machine's daemons were not started from the launcher.
                wakee_flips: if t.kthread || t.daemon {
                    0
                } else {
                    cfg.launcher_wakee_flips
                },
                wakee_flip_decay_ns: None,
                last_wakee: None,
                recent_used_cpu: t.affinity[0],
                avg: crate::pelt::SchedAvg::default(),
                owed_ns: 0,
                syscall: false,
                waited_room: false,
                work: None,
                batch: Vec::new(),
                affinity: {
                    let mut a = t.affinity.clone();
                    a.sort_unstable();
                    a.dedup();
                    a
                },
                kthread: t.kthread,
                cpu_clock: t.cpu_clock,
                spin: None,
                spin_from: 0,
            });
            infos.push(TaskInfo {
                pid: i as u32 + 1,
                comm: t.comm.clone(),
                group: Some(t.group),
            });
        }
        let mut sim = Simulator {
            fair,
            now: 0,
            queue: Queue::new(cfg.cpus, cfg.tasks.len()),
            ents,
            tasks,
            cpus: (0..cfg.cpus).map(|_| Cpu::default()).collect(),
            warm: cache::Warmth::new(cfg),
            chans: cfg
                .channels
                .iter()
                .map(|c| {
                    let capacity = if c.capacity == 0 {
                        u64::MAX
                    } else {
                        c.capacity
                    };
                    Chan {
                        capacity,
                        wake_writer_at: c.wake_writer_at.unwrap_or(capacity - 1),
                        page_msgs: c.page_msgs,
                        slots: capacity.checked_div(c.page_msgs).unwrap_or(0) as usize,
                        ..Chan::default()
                    }
                })
                .collect(),
            locks: program::Locks::new(cfg),
            rec: Recorder {
                level,
                trace: Trace {
                    cpus: cfg.cpus,
                    tasks: infos,
                    events: crate::events::Events::new(),
                    snapshots: Vec::new(),
                    decisions: Vec::new(),
                    end_ns: cfg.duration_ns,
                },
                counts: TraceCounts::default(),
                sink,
                decisions: cfg.record_decisions,
                keep_decision: None,
            },
            processed: 0,
            work: 0,
            deadlock: None,
            done: false,
            nohz_has_blocked: false,
            nohz_next_blocked: 0,
            nohz_kick: None,
            alive: cfg.tasks.iter().filter(|t| !t.daemon).count(),
            llc: if cfg.llc_size == 0 {
                cfg.cpus
            } else {
                cfg.llc_size
            },
            nr_idle_scan: {
                let llc = if cfg.llc_size == 0 {
                    cfg.cpus
                } else {
                    cfg.llc_size
                };
                alloc::vec![llc; cfg.cpus.div_ceil(llc.max(1)) as usize]
            },
            irq_rng: irq::rngs(cfg),
            irq_pending: alloc::vec![false; cfg.irq_load.len()],
            grp: group::GroupState::new(cfg),
            rt: rt::RtState::new(cfg),
            bw: bandwidth::BwState::new(cfg),
            cfg: cfg.clone(),
        };
        let migration_cost = sim.fair.p.migration_cost_ns;
        for (i, c) in sim.cpus.iter_mut().enumerate() {
            // sched_init: avg_idle = 2 × migration cost, max_idle_balance_cost = migration cost.
            c.avg_idle = 2 * migration_cost;
            c.max_idle_balance_cost = migration_cost;
            // The sched_rng streams come after the tasks' and the irq sources' (irq.rs).
            c.sched_rng = Some(Rng::new(cfg.seed, (1u64 << 41) + i as u64));
            // The cost streams come after those.
            c.cost_rng =
                (cfg.cost_spread_ppm > 0).then(|| Rng::new(cfg.seed, (1u64 << 42) + i as u64));
        }
        sim.group_init();
        for (i, t) in cfg.tasks.iter().enumerate() {
            sim.push(t.start_ns, Ev::Start(i as u32));
        }
        sim.irq_load_start();
        Ok(sim)
    }

    /// Simulated time reached, in ns.
    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// Each CPU's schedstat counters so far (what [`Simulator::finish`] hands over as
    /// `Output::cpus`, up to now).
    pub fn cpu_stats(&self) -> impl ExactSizeIterator<Item = &CpuStats> + '_ {
        self.cpus.iter().map(|c| &c.rq.stats)
    }

    /// The time of the next event due (`None`: nothing is pending). [`Simulator::step`] runs it
    /// if it falls within the run's duration.
    pub fn next_event_ns(&self) -> Option<u64> {
        self.queue.peek_t()
    }

    /// Whether the run has ended.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.processed
    }

    /// The trace kept so far (what [`Simulator::finish`] hands over, up to now).
    pub fn trace(&self) -> &Trace {
        &self.rec.trace
    }

    /// Trace events kept so far (what the run's trace memory holds).
    pub fn trace_kept(&self) -> usize {
        self.rec.trace.events.len()
    }

    /// Decision records kept so far (`record_decisions`).
    pub fn decisions_kept(&self) -> usize {
        self.rec.trace.decisions.len()
    }

    /// Scheduler-state snapshots kept so far (`record_snapshots`).
    pub fn snapshots_kept(&self) -> usize {
        self.rec.trace.snapshots.len()
    }

    /// With `record_decisions`, keeps only the records `keep` accepts from now on (a reader
    /// that needs some kinds need not hold the rest: they are the larger part of a run's memory).
    pub fn keep_decisions(&mut self, keep: fn(&crate::decision::DecisionKind) -> bool) {
        self.rec.keep_decision = Some(keep);
    }

    /// Work done so far: events, and the zero-time program steps (send, a satisfied recv, a
    /// loop jump) they ran, so that a program that spins without advancing time still counts.
    pub fn work_done(&self) -> u64 {
        self.work
    }

    /// Runs until `budget` more work (events and zero-time steps, see
    /// [`Simulator::work_done`]) is done, or to the end. Returns [`Status::Done`] once the
    /// duration is reached (or every task exited, or a deadlock ended the run).
    pub fn run(&mut self, budget: u64) -> Status {
        let stop = self.work.saturating_add(budget);
        while self.work < stop {
            if self.step() == Status::Done {
                return Status::Done;
            }
        }
        if self.done {
            Status::Done
        } else {
            Status::Running
        }
    }

    /// Processes one event.
    pub fn step(&mut self) -> Status {
        if self.done {
            return Status::Done;
        }
        let next = if self.alive > 0 {
            self.queue.pop_due(self.cfg.duration_ns)
        } else {
            None
        };
        let Some((t, ev)) = next else {
            let end = if self.alive == 0 {
                self.now
            } else if self.queue.len() == 0 {
                // Tasks are left and nothing is pending: they are all blocked on channels.
                self.deadlock = Some(self.deadlock_report());
                self.now
            } else {
                self.cfg.duration_ns
            };
            self.finish_run(end);
            return Status::Done;
        };
        debug_assert!(t >= self.now, "time went backwards");
        debug_assert!(
            self.live(ev),
            "{ev:?} at {t} ns ran void (a void event is cancelled where its state changes)"
        );
        self.now = t;
        self.processed += 1;
        self.work += 1;
        match ev {
            Ev::Start(id) => {
                if !self.start_asleep(id as Tid) {
                    self.wake_up_new_task(id as Tid)
                }
            }
            Ev::Tick(cpu) => self.sched_tick(cpu),
            Ev::Schedule(cpu, gen) => {
                let c = &mut self.cpus[cpu as usize];
                if gen == c.sched_gen {
                    c.schedule_pending = false;
                    if c.rq.need_resched {
                        self.schedule(cpu);
                    }
                }
            }
            Ev::BurstEnd(id, gen) => {
                let id = id as Tid;
                if gen == self.tasks[id].gen {
                    let cpu = self.tasks[id].cpu;
                    self.with_rq(cpu, |f, c| f.update_curr_user(c));
                    self.rt_account(cpu);
                    let burst = self.tasks[id].burst;
                    if let Burst::Until(end) | Burst::Paying(end) = burst {
                        let done = self.ents[id].sum_exec_runtime;
                        if done < end {
                            // IRQ time stole some of the wall time: come back for the rest.
                            self.push(self.now + (end - done), Ev::BurstEnd(id as u32, gen));
                            return Status::Running;
                        }
                    }
                    self.tasks[id].burst = Burst::Idle;
                    if !matches!(burst, Burst::Paying(_)) {
                        self.advance_pc(id);
                    }
                    self.run_program(id);
                    self.kick(cpu);
                }
            }
            Ev::Resume(id, gen) => {
                let id = id as Tid;
                if gen == self.tasks[id].gen {
                    let cpu = self.tasks[id].cpu;
                    self.run_program(id);
                    self.kick(cpu);
                }
            }
            Ev::Timer(id, gen) => {
                let id = id as Tid;
                if gen == self.tasks[id].timer_gen && self.tasks[id].state == TState::Sleeping {
                    // The hrtimer interrupt fires on the sleeper's CPU.
                    let cpu = self.tasks[id].cpu;
                    self.try_to_wake_up(id, cpu, None, false);
                    self.irq_exit(cpu);
                    // Housekeeping's timers never stop: the one place left to see that the
                    // other tasks can no longer move.
                    if self.cfg.tasks[id].daemon && self.stuck_on_channels() {
                        self.deadlock = Some(self.deadlock_report());
                        self.finish_run(self.now);
                        return Status::Done;
                    }
                }
            }
            Ev::Softirq(cpu) => self.trigger_load_balance(cpu),
            Ev::Irq(k) => self.irq_load_exit(k),
            Ev::IoIrq(c, cpu) => self.io_irq_exit(c, cpu),
            Ev::Stopper(cpu) => self.active_load_balance_cpu_stop(cpu),
            Ev::NohzKick(cpu) => self.nohz_csd_func(cpu),
            Ev::Rt(cpu, gen) => {
                if gen == self.rt.cpus[cpu as usize].gen {
                    self.rt_timer(cpu);
                }
            }
            Ev::BwPeriod(g) => self.bw_period_timer(g),
            Ev::BwSlack(g, cpu) => self.bw_slack_timer(g, cpu),
            Ev::ClockRead(cpu, gen) => {
                if gen == self.cpus[cpu as usize].clock_gen {
                    self.clock_read(cpu);
                }
            }
            Ev::HrTick(cpu, gen) => {
                if gen == self.cpus[cpu as usize].hrtick_gen {
                    self.cpus[cpu as usize].hrtick_expires = None;
                    self.with_rq(cpu, |f, c| f.task_tick(c, true, false));
                    self.bw_account(cpu);
                    self.irq_exit(cpu);
                    self.kick(cpu);
                }
            }
        }
        Status::Running
    }

    /// Finishes the run and hands over its results (running it to the end first).
    pub fn finish(mut self) -> Output {
        while self.run(u64::MAX) != Status::Done {}
        let bandwidth = self.bw_stats();
        Output {
            variant: self.fair.variant.name.clone(),
            trace: self.rec.trace,
            trace_counts: self.rec.counts,
            tasks: self
                .tasks
                .iter()
                .zip(&self.ents)
                .map(|(t, e)| TaskStats {
                    sum_exec_runtime_ns: e.sum_exec_runtime,
                    // A spinner still spinning at the end: its current spell too.
                    spin_ns: t.stats.spin_ns
                        + if t.burst == Burst::Spin {
                            e.sum_exec_runtime.saturating_sub(t.spin_from)
                        } else {
                            0
                        },
                    ..t.stats
                })
                .collect(),
            cpus: self.cpus.iter().map(|c| c.rq.stats).collect(),
            events_processed: self.processed,
            bandwidth,
            deadlock: self.deadlock,
        }
    }

    // ----------------------------------------------------------------------------------------
    // Shared verbs

    /// Schedules `ev` at `t`; the insertion sequence orders events at the same instant. An
    /// event in a slot (see `queue.rs`) replaces the void one the slot held.
    fn push(&mut self, t: u64, ev: Ev) {
        debug_assert!(
            self.queue.pending(ev).is_none_or(|old| !self.live(old)),
            "{ev:?} at {t} ns would replace {:?}, which is still due (one pending event per slot)",
            self.queue.pending(ev)
        );
        self.queue.push(t, ev);
    }

    /// Cancels the event pending in the slot of `ev`: the state it was armed for is gone.
    fn cancel(&mut self, ev: Ev) {
        self.queue.cancel(ev);
    }

    /// Whether an event is due to run: its generation is current.
    fn live(&self, ev: Ev) -> bool {
        match ev {
            Ev::Start(_)
            | Ev::Tick(_)
            | Ev::Softirq(_)
            | Ev::Irq(_)
            | Ev::Stopper(_)
            | Ev::IoIrq(..)
            | Ev::BwPeriod(_)
            | Ev::BwSlack(..)
            | Ev::NohzKick(_) => true,
            Ev::Schedule(cpu, gen) => self.cpus[cpu as usize].sched_gen == gen,
            Ev::HrTick(cpu, gen) => self.cpus[cpu as usize].hrtick_gen == gen,
            Ev::ClockRead(cpu, gen) => self.cpus[cpu as usize].clock_gen == gen,
            Ev::BurstEnd(id, gen) | Ev::Resume(id, gen) => self.tasks[id as usize].gen == gen,
            Ev::Timer(id, gen) => self.tasks[id as usize].timer_gen == gen,
            Ev::Rt(cpu, gen) => self.rt.cpus[cpu as usize].gen == gen,
        }
    }

    /// Appends a trace event on `cpu` at the current time.
    fn emit(&mut self, cpu: u32, kind: EventKind) {
        self.rec.event(Event {
            t_ns: self.now,
            cpu,
            kind,
        });
    }

    /// Runs a fair-class call on `cpu`'s run queue, with `rq_clock_task` brought up to date
    /// first (`update_rq_clock`; it never goes back).
    fn with_rq<R>(&mut self, cpu: u32, f: impl FnOnce(&Fair, &mut Ctx) -> R) -> R {
        let Simulator {
            fair,
            cpus,
            ents,
            rec,
            now,
            ..
        } = self;
        let cp = &mut cpus[cpu as usize];
        cp.clock_task = cp.clock_task.max(now.saturating_sub(cp.irq_ns));
        let mut c = Ctx {
            clock_task: cp.clock_task,
            rq: &mut cp.rq,
            ents,
            now: *now,
            cpu,
            out: rec,
        };
        f(fair, &mut c)
    }

    /// Records what the fair class sees of `id` (with `record_snapshots`).
    fn snapshot(&mut self, cpu: u32, id: Tid) {
        if !self.cfg.record_snapshots || self.rt_task(id) {
            return;
        }
        let (vruntime, deadline, v, lag, eligible) = self.with_rq(cpu, |f, c| f.snapshot(c, id));
        self.rec.snapshot(Snapshot {
            t_ns: self.now,
            cpu,
            pid: id as u32 + 1,
            vruntime,
            deadline,
            v,
            lag,
            eligible,
        });
    }

    /// Ends the run at `end`, charging every running task up to it.
    fn finish_run(&mut self, end: u64) {
        self.now = end;
        self.rec.trace.end_ns = end;
        for cpu in 0..self.cpus.len() as u32 {
            self.with_rq(cpu, |f, c| f.update_curr(c));
            self.rt_account(cpu);
        }
        self.done = true;
    }

    /// Whether `id` may run on `cpu` (`cpumask_test_cpu(cpu, p->cpus_ptr)`).
    fn allowed(&self, id: Tid, cpu: u32) -> bool {
        let a = &self.tasks[id].affinity;
        match (a.first(), a.last()) {
            // A contiguous mask (every mask a scenario gives unless it lists gaps): a range test.
            (Some(&lo), Some(&hi)) if (hi - lo) as usize + 1 == a.len() => (lo..=hi).contains(&cpu),
            _ => a.binary_search(&cpu).is_ok(),
        }
    }
}

/// Runs a whole simulation of `variant`.
pub fn simulate(cfg: &SimConfig, variant: &Variant) -> Result<Output, String> {
    Ok(Simulator::new(cfg, variant)?.finish())
}
