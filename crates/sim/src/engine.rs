//! The discrete-event engine: time, the event queue, CPUs, task programs, wakeups and switches.
//!
//! One queue of events ordered by (time, insertion sequence): events at the same instant run in
//! the order they were scheduled, so a run is a pure function of (config, variant). The engine
//! never reads a clock; the caller drives it with [`Simulator::step`] or [`Simulator::run`],
//! which stops after an event budget.
//!
//! Mirrors the parts of `kernel/sched/core.c` the fair class hangs off: `try_to_wake_up` (with
//! `ttwu_runnable` for delayed tasks), `wake_up_new_task`, `__schedule` (pick, put_prev,
//! set_next, `sched_info` accounting), `sched_tick`, the hrtick, and the schedstat counters.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

use crate::config::{Op, SchedPolicy, SimConfig};
use crate::fair::{Ctx, Entity, Fair, Rq, Tid};
use crate::rng::Rng;
use crate::stats::{CpuStats, TaskStats};
use crate::trace::{Event, EventKind, PrevState, Snapshot, TaskInfo, Trace};
use crate::variant::{Feature, Variant};
use crate::weight::LoadWeight;

/// `hrtick_start` never arms less than 10 µs ahead.
const HRTICK_MIN_NS: u64 = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// A task is created (`wake_up_new_task`).
    Start(Tid),
    /// The periodic tick on a CPU.
    Tick(u32),
    /// A requested reschedule takes effect (δ after the request).
    Schedule(u32, u32),
    /// The running task finished its current CPU burst.
    BurstEnd(Tid, u32),
    /// A task just switched in continues its program.
    Resume(Tid, u32),
    /// A sleep ends.
    Timer(Tid, u32),
    /// An hrtick expires.
    HrTick(u32, u32),
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Queued {
    t: u64,
    seq: u64,
    ev: Ev,
}
impl Ord for Queued {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.t, self.seq).cmp(&(o.t, o.seq))
    }
}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

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
    Forever,
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
    /// `wakee_flips`, `wakee_flip_decay_ts`, `last_wakee` (for `wake_wide`).
    wakee_flips: u32,
    wakee_flip_decay_ns: u64,
    last_wakee: Option<Tid>,
    /// `recent_used_cpu`.
    recent_used_cpu: u32,
}

#[derive(Default)]
struct Cpu {
    rq: Rq,
    sched_gen: u32,
    schedule_pending: bool,
    tick_armed: bool,
    hrtick_gen: u32,
    hrtick_expires: Option<u64>,
    checked_min_vruntime: Option<i64>,
    /// IRQ time so far; `rq_clock_task` = wall − this (kept monotonic).
    irq_ns: u64,
    clock_task: u64,
    /// When the CPU last went idle (`idle_stamp`; the fork path prefers the most recent).
    idle_stamp: u64,
    /// Per sched-domain level (lowest first): last balance time and `nr_balance_failed`.
    lb: [LbState; 3],
    /// Since when this CPU has been idle while another CPU had a waiting task that may run
    /// here (for the balancing invariant).
    starved_since: Option<u64>,
}

#[derive(Clone, Copy, Default)]
struct LbState {
    last_balance_ns: u64,
    nr_balance_failed: u32,
}

/// The sched domains of `cpu` on `cpus` CPUs with `llc` CPUs per LLC and `smt` threads per core,
/// lowest first: SMT (siblings, `imbalance_pct` 110), MC (the LLC, 117), PKG (all CPUs, 117); a
/// level whose span equals its child's is degenerate and left out, as the kernel does.
fn domains_of(cpu: u32, cpus: u32, llc: u32, smt: u32) -> ([Domain; 3], usize) {
    let mut out = [Domain {
        lo: 0,
        hi: 0,
        imbalance_pct: 0,
        cache_nice_tries: 0,
    }; 3];
    let mut n = 0;
    let mut push = |lo: u32, hi: u32, pct: u64, tries: u32| {
        if hi - lo > 1 && (n == 0 || out[n - 1].weight() != hi - lo) {
            out[n] = Domain {
                lo,
                hi,
                imbalance_pct: pct,
                cache_nice_tries: tries,
            };
            n += 1;
        }
    };
    let core = cpu / smt * smt;
    push(core, core + smt, 110, 0);
    let l = cpu / llc * llc;
    push(l, l + llc, 117, 1);
    push(0, cpus, 117, 1);
    (out, n)
}

/// `select_task_rq_fair`'s affine domain: the lowest domain of `this` that spans `prev`.
fn affine_domain(doms: &[Domain], prev: u32) -> Option<&Domain> {
    doms.iter().find(|d| d.contains(prev))
}

/// One sched domain as seen from a CPU: the CPUs it spans (a contiguous range) and its
/// `sd_init` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Domain {
    lo: u32,
    hi: u32,
    imbalance_pct: u64,
    cache_nice_tries: u32,
}

impl Domain {
    fn weight(&self) -> u32 {
        self.hi - self.lo
    }
    fn contains(&self, cpu: u32) -> bool {
        (self.lo..self.hi).contains(&cpu)
    }
}

#[derive(Default)]
struct Chan {
    count: u64,
    /// Messages it holds before writers block (u64::MAX: unbounded).
    capacity: u64,
    /// Readers blocked on an empty channel, then writers blocked on a full one, FIFO.
    readers: VecDeque<Tid>,
    writers: VecDeque<Tid>,
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
    /// The trace.
    pub trace: Trace,
    /// Per-task counters, by pid − 1.
    pub tasks: Vec<TaskStats>,
    /// Per-CPU counters.
    pub cpus: Vec<CpuStats>,
    /// Events the engine processed.
    pub events_processed: u64,
}

/// One simulation of one variant.
pub struct Simulator {
    cfg: SimConfig,
    fair: Fair,
    now: u64,
    heap: BinaryHeap<Reverse<Queued>>,
    seq: u64,
    ents: Vec<Entity>,
    tasks: Vec<TaskCtl>,
    cpus: Vec<Cpu>,
    chans: Vec<Chan>,
    trace: Trace,
    processed: u64,
    done: bool,
    /// Tasks not yet exited; the run ends early when it reaches 0.
    alive: usize,
    /// CPUs per LLC.
    llc: u32,
}

impl Simulator {
    /// Prepares a run. Fails only on a config that [`SimConfig::check`] rejects.
    pub fn new(cfg: &SimConfig, variant: &Variant) -> Result<Simulator, String> {
        cfg.check()?;
        let tick_ns = 1_000_000_000 / cfg.hz as u64;
        let fair = Fair {
            variant: variant.clone(),
            p: variant.params(cfg.cpus),
            sw: variant.preset.switches,
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
                wakee_flips: 0,
                wakee_flip_decay_ns: 0,
                last_wakee: None,
                recent_used_cpu: t.affinity[0],
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
            heap: BinaryHeap::new(),
            seq: 0,
            ents,
            tasks,
            cpus: (0..cfg.cpus).map(|_| Cpu::default()).collect(),
            chans: cfg
                .channels
                .iter()
                .map(|c| Chan {
                    capacity: if c.capacity == 0 {
                        u64::MAX
                    } else {
                        c.capacity
                    },
                    ..Chan::default()
                })
                .collect(),
            trace: Trace {
                cpus: cfg.cpus,
                tasks: infos,
                events: Vec::new(),
                snapshots: Vec::new(),
                end_ns: cfg.duration_ns,
            },
            processed: 0,
            done: false,
            alive: cfg.tasks.len(),
            llc: if cfg.llc_size == 0 {
                cfg.cpus
            } else {
                cfg.llc_size
            },
            cfg: cfg.clone(),
        };
        for (i, t) in cfg.tasks.iter().enumerate() {
            sim.push(t.start_ns, Ev::Start(i));
        }
        Ok(sim)
    }

    /// Simulated time reached, in ns.
    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.processed
    }

    /// Runs at most `budget` events. Returns [`Status::Done`] once the duration is reached.
    pub fn run(&mut self, budget: u64) -> Status {
        for _ in 0..budget {
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
        let next = match self.heap.peek() {
            Some(Reverse(q)) if q.t <= self.cfg.duration_ns && self.alive > 0 => {
                self.heap.pop().map(|r| r.0)
            }
            _ => None,
        };
        let Some(q) = next else {
            let end = if self.alive == 0 {
                self.now
            } else {
                self.cfg.duration_ns
            };
            self.finish_run(end);
            return Status::Done;
        };
        debug_assert!(q.t >= self.now, "time went backwards");
        self.now = q.t;
        self.processed += 1;
        match q.ev {
            Ev::Start(id) => self.start_task(id),
            Ev::Tick(cpu) => self.tick(cpu),
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
                if gen == self.tasks[id].gen {
                    let cpu = self.tasks[id].cpu;
                    self.with_rq(cpu, |f, c| f.update_curr(c));
                    if let Burst::Until(end) = self.tasks[id].burst {
                        let done = self.ents[id].sum_exec_runtime;
                        if done < end {
                            // IRQ time stole some of the wall time: come back for the rest.
                            self.push(self.now + (end - done), Ev::BurstEnd(id, gen));
                            return Status::Running;
                        }
                    }
                    self.tasks[id].burst = Burst::Idle;
                    self.advance_pc(id);
                    self.run_program(id);
                    self.kick(cpu);
                }
            }
            Ev::Resume(id, gen) => {
                if gen == self.tasks[id].gen {
                    let cpu = self.tasks[id].cpu;
                    self.run_program(id);
                    self.kick(cpu);
                }
            }
            Ev::Timer(id, gen) => {
                if gen == self.tasks[id].timer_gen && self.tasks[id].state == TState::Sleeping {
                    // The hrtimer interrupt fires on the sleeper's CPU.
                    let cpu = self.tasks[id].cpu;
                    self.wake(id, cpu, None, false);
                    self.irq_exit(cpu);
                }
            }
            Ev::HrTick(cpu, gen) => {
                if gen == self.cpus[cpu as usize].hrtick_gen {
                    self.cpus[cpu as usize].hrtick_expires = None;
                    self.with_rq(cpu, |f, c| f.task_tick(c, true, false));
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
        Output {
            variant: self.fair.variant.name.clone(),
            trace: self.trace,
            tasks: self
                .tasks
                .iter()
                .zip(&self.ents)
                .map(|(t, e)| TaskStats {
                    sum_exec_runtime_ns: e.sum_exec_runtime,
                    ..t.stats
                })
                .collect(),
            cpus: self.cpus.iter().map(|c| c.rq.stats).collect(),
            events_processed: self.processed,
        }
    }

    /// Checks every invariant the model promises; `Err` says which one broke.
    pub fn check_invariants(&mut self) -> Result<(), String> {
        let mut running_on: Vec<Option<u32>> = alloc::vec![None; self.tasks.len()];
        for cpu in 0..self.cpus.len() {
            let prev = self.cpus[cpu].checked_min_vruntime;
            let r = {
                let Simulator {
                    fair,
                    cpus,
                    ents,
                    trace,
                    now,
                    ..
                } = self;
                let c = Ctx {
                    clock_task: cpus[cpu].clock_task,
                    rq: &mut cpus[cpu].rq,
                    ents,
                    now: *now,
                    cpu: cpu as u32,
                    out: &mut trace.events,
                };
                fair.check(&c, prev.unwrap_or(c.rq.min_vruntime))
            };
            r?;
            let mv = self.cpus[cpu].rq.min_vruntime;
            self.cpus[cpu].checked_min_vruntime = Some(mv);
            let rq = &self.cpus[cpu].rq;
            if let Some(cu) = rq.curr {
                if let Some(other) = running_on[cu] {
                    return Err(alloc::format!(
                        "task {} runs on cpus {} and {}",
                        cu + 1,
                        other,
                        cpu
                    ));
                }
                running_on[cu] = Some(cpu as u32);
                if self.tasks[cu].cpu != cpu as u32 {
                    return Err(alloc::format!(
                        "task {} runs on cpu {} but belongs to {}",
                        cu + 1,
                        cpu,
                        self.tasks[cu].cpu
                    ));
                }
            }
            for &t in &rq.tree {
                if self.tasks[t].cpu != cpu as u32 {
                    return Err(alloc::format!(
                        "task {} queued on cpu {} but belongs to {}",
                        t + 1,
                        cpu,
                        self.tasks[t].cpu
                    ));
                }
            }
            // Work conservation: an idle CPU with queued tasks must have a reschedule pending.
            if rq.curr.is_none() && rq.nr_running > 0 && !rq.need_resched {
                return Err(alloc::format!(
                    "cpu {} idles with {} queued",
                    cpu,
                    rq.nr_running
                ));
            }
        }
        // Load balancing: no CPU stays idle beside a waiting task that may run on it for longer
        // than its idle balance interval allows, including the failed attempts that
        // cache_nice_tries lets cache-hot tasks win (3 intervals) and the ticks that deliver
        // the NOHZ kick.
        let max_weight = (0..self.cfg.cpus)
            .map(|c| {
                let (d, n) = self.domains(c);
                d[..n].iter().map(|d| d.weight()).max().unwrap_or(1)
            })
            .max()
            .unwrap_or(1) as u64;
        let bound = 3 * max_weight.div_ceil(1000 / self.cfg.hz as u64) * self.fair.tick_ns
            + 3 * self.fair.tick_ns
            + self.cfg.switch_delay_ns;
        for i in 0..self.cfg.cpus {
            let starving = self.idle_cpu(i)
                && self.cpus.iter().any(|c| {
                    c.rq.tree
                        .iter()
                        .any(|&t| !self.ents[t].sched_delayed && self.allowed(t, i))
                });
            let now = self.now;
            let cp = &mut self.cpus[i as usize];
            if !starving {
                cp.starved_since = None;
            } else {
                let since = *cp.starved_since.get_or_insert(now);
                if now - since > bound {
                    return Err(alloc::format!(
                        "cpu {i} idle for {} ns beside a waiting task that may run there (bound {bound})",
                        now - since
                    ));
                }
            }
        }
        for (i, t) in self.tasks.iter().enumerate() {
            if !self.cfg.tasks[i].affinity.contains(&t.cpu) {
                return Err(alloc::format!(
                    "task {} on cpu {} outside its affinity",
                    i + 1,
                    t.cpu
                ));
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------------

    fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse(Queued {
            t,
            seq: self.seq,
            ev,
        }));
    }

    fn emit(&mut self, cpu: u32, kind: EventKind) {
        self.trace.events.push(Event {
            t_ns: self.now,
            cpu,
            kind,
        });
    }

    fn with_rq<R>(&mut self, cpu: u32, f: impl FnOnce(&Fair, &mut Ctx) -> R) -> R {
        let Simulator {
            fair,
            cpus,
            ents,
            trace,
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
            out: &mut trace.events,
        };
        f(fair, &mut c)
    }

    /// The interrupt that delivered the current event ends: its time is hardirq time, accounted
    /// at irq exit (after the handler's `update_curr`) and never charged to a task.
    fn irq_exit(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if c.rq.curr.is_some() {
            c.irq_ns += self.cfg.irq_ns;
        }
    }

    /// A raised TIF_NEED_RESCHED takes effect δ later (interrupt return + `__schedule`).
    fn kick(&mut self, cpu: u32) {
        let delay = self.cfg.switch_delay_ns;
        let c = &mut self.cpus[cpu as usize];
        if c.rq.need_resched && !c.schedule_pending {
            c.schedule_pending = true;
            let gen = c.sched_gen;
            self.push(self.now + delay, Ev::Schedule(cpu, gen));
        }
    }

    fn arm_tick(&mut self, cpu: u32) {
        let tick = self.fair.tick_ns;
        let c = &mut self.cpus[cpu as usize];
        if !c.tick_armed {
            c.tick_armed = true;
            let t = (self.now / tick + 1) * tick;
            self.push(t, Ev::Tick(cpu));
        }
    }

    fn snapshot(&mut self, cpu: u32, id: Tid) {
        if !self.cfg.record_snapshots {
            return;
        }
        let (vruntime, deadline, v, lag, eligible) = self.with_rq(cpu, |f, c| f.snapshot(c, id));
        self.trace.snapshots.push(Snapshot {
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

    fn start_task(&mut self, id: Tid) {
        // wake_up_new_task → select_task_rq(WF_FORK): the slow path.
        let cpu = self.find_idlest_cpu(id);
        self.tasks[id].cpu = cpu;
        self.tasks[id].recent_used_cpu = cpu;
        self.tasks[id].state = TState::Runnable;
        self.with_rq(cpu, |f, c| f.enqueue_new(c, id));
        self.sched_info_enqueue(id);
        self.emit(
            cpu,
            EventKind::WakeupNew {
                pid: id as u32 + 1,
                target_cpu: cpu,
            },
        );
        self.check_preempt_curr(cpu, id, true, false);
        self.kick(cpu);
        self.hrtick_update(cpu);
    }

    /// `wakeup_preempt` / `check_preempt_curr`: an idle CPU is always preempted by a fair task.
    fn check_preempt_curr(&mut self, cpu: u32, id: Tid, fork: bool, sync: bool) {
        if self.cpus[cpu as usize].rq.curr.is_none() {
            self.cpus[cpu as usize].rq.need_resched = true;
        } else {
            self.with_rq(cpu, |f, c| f.check_preempt_wakeup(c, id, fork, sync));
        }
    }

    /// `try_to_wake_up` by a waker running on `waker_cpu`: `waker` is the task doing it (a
    /// send), `None` for a timer.
    fn wake(&mut self, id: Tid, waker_cpu: u32, waker: Option<Tid>, sync: bool) {
        if self.tasks[id].state != TState::Sleeping {
            return;
        }
        let cpu = self.tasks[id].cpu;
        let pid = id as u32 + 1;
        self.emit(
            waker_cpu,
            EventKind::Waking {
                pid,
                target_cpu: cpu,
            },
        );
        let ws = &mut self.cpus[waker_cpu as usize].rq.stats;
        ws.ttwu_count += 1;
        if waker_cpu == cpu {
            ws.ttwu_local += 1;
        }
        self.tasks[id].stats.wakeups += 1;
        self.tasks[id].state = TState::Runnable;
        if self.ents[id].sched_delayed {
            // ttwu_runnable: still queued (delayed dequeue); no CPU selection.
            self.with_rq(cpu, |f, c| f.requeue_delayed(c, id));
            self.sched_info_enqueue(id);
            if self.cpus[cpu as usize].rq.curr != Some(id) {
                self.check_preempt_curr(cpu, id, false, sync);
            }
        } else {
            let new_cpu = self.select_task_rq(id, waker_cpu, waker, sync);
            let migrated = new_cpu != cpu;
            if migrated {
                self.with_rq(cpu, |f, c| f.migrate_waking(c, id));
                self.emit(
                    waker_cpu,
                    EventKind::MigrateTask {
                        pid,
                        orig_cpu: cpu,
                        dest_cpu: new_cpu,
                    },
                );
                self.tasks[id].cpu = new_cpu;
                self.tasks[id].stats.migrations += 1;
            }
            self.with_rq(new_cpu, |f, c| f.enqueue_wakeup(c, id, migrated));
            self.sched_info_enqueue(id);
            self.check_preempt_curr(new_cpu, id, false, sync);
        }
        let cpu = self.tasks[id].cpu;
        self.emit(
            cpu,
            EventKind::Wakeup {
                pid,
                target_cpu: cpu,
            },
        );
        if waker_cpu != cpu {
            // A remote wakeup arrives by IPI (TTWU_QUEUE).
            self.irq_exit(cpu);
        }
        self.kick(cpu);
        self.hrtick_update(cpu);
    }

    fn tick(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        c.tick_armed = false;
        let Some(curr) = c.rq.curr else {
            // NO_HZ idle: the tick stops on an idle CPU.
            return;
        };
        let hr = c.hrtick_expires.is_some_and(|t| t > self.now);
        self.with_rq(cpu, |f, c| f.task_tick(c, false, hr));
        self.irq_exit(cpu);
        self.trigger_load_balance(cpu);
        self.snapshot(cpu, curr);
        self.arm_tick(cpu);
        self.kick(cpu);
    }

    /// `__schedule()`.
    fn schedule(&mut self, cpu: u32) {
        let now = self.now;
        {
            // TIF_NEED_RESCHED stays set until after the pick, as in __schedule: a wakeup
            // preemption check during the pick (a newidle pull) sees it and returns early.
            let c = &mut self.cpus[cpu as usize];
            c.sched_gen = c.sched_gen.wrapping_add(1);
            c.schedule_pending = false;
            c.rq.stats.sched_count += 1;
            c.hrtick_gen = c.hrtick_gen.wrapping_add(1);
            c.hrtick_expires = None;
        }
        let prev = self.cpus[cpu as usize].rq.curr;
        let mut next = self.with_rq(cpu, |f, c| f.pick_next(c));
        if next.is_none() && self.newidle_balance(cpu) {
            next = self.with_rq(cpu, |f, c| f.pick_next(c));
        }
        // clear_tsk_need_resched(prev) comes after pick_next_task: a resched that the pick's
        // update_curr raised on prev is void.
        self.cpus[cpu as usize].rq.need_resched = false;
        if next.is_none() {
            self.cpus[cpu as usize].rq.stats.sched_goidle += 1;
            if prev.is_some() {
                self.cpus[cpu as usize].idle_stamp = now;
            }
        }
        if next != prev {
            if let Some(p) = prev {
                self.with_rq(cpu, |f, c| f.put_prev(c, p));
            }
            if let Some(n) = next {
                self.with_rq(cpu, |f, c| f.set_next(c, n));
            }
            let prev_state = match prev {
                None => PrevState::Running,
                Some(p) => match self.tasks[p].state {
                    TState::Runnable | TState::New => PrevState::Running,
                    TState::Sleeping => PrevState::Sleeping,
                    TState::Dead => PrevState::Dead,
                },
            };
            self.emit(
                cpu,
                EventKind::Switch {
                    prev_pid: prev.map_or(0, |p| p as u32 + 1),
                    prev_state,
                    next_pid: next.map_or(0, |n| n as u32 + 1),
                },
            );
            if let Some(p) = prev {
                let t = &mut self.tasks[p];
                t.gen = t.gen.wrapping_add(1);
                // sched_info_depart
                let ran = now - t.stats.last_arrival_ns;
                self.cpus[cpu as usize].rq.stats.rq_cpu_time_ns += ran;
                if prev_state == PrevState::Running {
                    t.stats.involuntary_switches += 1;
                    if t.stats.last_queued_ns == 0 {
                        t.stats.last_queued_ns = now.max(1);
                    }
                } else {
                    t.stats.voluntary_switches += 1;
                }
                self.snapshot(cpu, p);
            }
            if let Some(n) = next {
                // sched_info_arrive
                let t = &mut self.tasks[n];
                if t.stats.last_queued_ns != 0 {
                    let d = now.saturating_sub(t.stats.last_queued_ns);
                    t.stats.last_queued_ns = 0;
                    t.stats.run_delay_ns += d;
                    t.stats.pcount += 1;
                    let s = &mut self.cpus[cpu as usize].rq.stats;
                    s.run_delay_ns += d;
                    s.pcount += 1;
                }
                t.stats.last_arrival_ns = now;
                let gen = t.gen;
                match t.burst {
                    Burst::Until(end) => {
                        let left = end.saturating_sub(self.ents[n].sum_exec_runtime);
                        self.push(now + left, Ev::BurstEnd(n, gen));
                    }
                    Burst::Forever => {}
                    Burst::Idle => self.push(now, Ev::Resume(n, gen)),
                }
                self.snapshot(cpu, n);
            }
        }
        if next.is_some() {
            self.arm_tick(cpu);
            self.hrtick_start(cpu);
        }
        self.kick(cpu);
    }

    fn hrtick_start(&mut self, cpu: u32) {
        if !self.fair.variant.has(Feature::Hrtick) {
            return;
        }
        let Some(delay) = self.with_rq(cpu, |f, c| f.hrtick_delay(c)) else {
            return;
        };
        if delay < 0 {
            self.cpus[cpu as usize].rq.need_resched = true;
            self.kick(cpu);
            return;
        }
        let t = self.now + (delay as u64).max(HRTICK_MIN_NS);
        let c = &mut self.cpus[cpu as usize];
        c.hrtick_gen = c.hrtick_gen.wrapping_add(1);
        c.hrtick_expires = Some(t);
        let gen = c.hrtick_gen;
        self.push(t, Ev::HrTick(cpu, gen));
    }

    /// `hrtick_update` after an enqueue or dequeue.
    fn hrtick_update(&mut self, cpu: u32) {
        if !self.fair.variant.has(Feature::Hrtick) || self.cpus[cpu as usize].rq.curr.is_none() {
            return;
        }
        if self.with_rq(cpu, |f, c| f.hrtick_update_allowed(c)) {
            self.hrtick_start(cpu);
        }
    }

    fn sched_info_enqueue(&mut self, id: Tid) {
        let s = &mut self.tasks[id].stats;
        if s.last_queued_ns == 0 {
            // 0 means "not queued"; a task queued at t = 0 is stamped 1 ns late.
            s.last_queued_ns = self.now.max(1);
        }
    }

    fn advance_pc(&mut self, id: Tid) {
        let len = self.cfg.tasks[id].program.len();
        self.tasks[id].pc = (self.tasks[id].pc + 1) % len;
    }

    /// Runs the task's program from its current op, at `now`, while it is on its CPU. Zero-time
    /// ops (send, a satisfied recv, a loop jump) chain; after `ZERO_TIME_STEPS` of them in one go
    /// the task yields to other events at the same instant and resumes, so one event's work is
    /// bounded. Every program holds a run, a sleep, a periodic wait or an exit, and loop counts
    /// are bounded, so time always advances (checked by `SimConfig::check`).
    fn run_program(&mut self, id: Tid) {
        const ZERO_TIME_STEPS: usize = 4096;
        let cpu = self.tasks[id].cpu;
        self.with_rq(cpu, |f, c| f.update_curr(c));
        for _ in 0..ZERO_TIME_STEPS {
            let pc = self.tasks[id].pc;
            let op = self.cfg.tasks[id].program[pc];
            match op {
                Op::Run(None) => {
                    self.tasks[id].burst = Burst::Forever;
                    return;
                }
                Op::Run(Some(d)) => {
                    let n = d.sample(&mut self.tasks[id].rng);
                    let end = self.ents[id].sum_exec_runtime + n;
                    self.tasks[id].burst = Burst::Until(end);
                    let gen = self.tasks[id].gen;
                    self.push(self.now + n, Ev::BurstEnd(id, gen));
                    return;
                }
                Op::Sleep(d) => {
                    let n = d.sample(&mut self.tasks[id].rng);
                    self.sleep_for(id, n);
                    return;
                }
                Op::WaitPeriod(period) => {
                    let start = self.cfg.tasks[id].start_ns;
                    let k = (self.now - start) / period + 1;
                    self.sleep_for(id, start + k * period - self.now);
                    return;
                }
                Op::Send(ch) => {
                    let chan = &mut self.chans[ch as usize];
                    if chan.count >= chan.capacity {
                        // pipe_write on a full pipe: sleep until a reader makes room.
                        chan.writers.push_back(id);
                        self.block(id, TState::Sleeping);
                        return;
                    }
                    chan.count += 1;
                    let reader = chan.readers.pop_front();
                    self.advance_pc(id);
                    if let Some(r) = reader {
                        self.wake(r, cpu, Some(id), true);
                    }
                }
                Op::Recv(ch) => {
                    let chan = &mut self.chans[ch as usize];
                    if chan.count > 0 {
                        chan.count -= 1;
                        let writer = chan.writers.pop_front();
                        self.advance_pc(id);
                        if let Some(w) = writer {
                            // pipe_read wakes a writer waiting for room (WF_SYNC).
                            self.wake(w, cpu, Some(id), true);
                        }
                    } else {
                        chan.readers.push_back(id);
                        self.block(id, TState::Sleeping);
                        return;
                    }
                }
                Op::Loop { start, times } => {
                    let t = &mut self.tasks[id];
                    if t.loops.is_empty() {
                        t.loops = alloc::vec![0; self.cfg.tasks[id].program.len()];
                    }
                    t.loops[pc] += 1;
                    if t.loops[pc] < times {
                        t.pc = start as usize;
                    } else {
                        t.loops[pc] = 0;
                        self.advance_pc(id);
                    }
                }
                Op::Exit => {
                    self.block(id, TState::Dead);
                    return;
                }
            }
        }
        let gen = self.tasks[id].gen;
        self.push(self.now, Ev::Resume(id, gen));
    }

    fn sleep_for(&mut self, id: Tid, n: u64) {
        self.advance_pc(id);
        let t = &mut self.tasks[id];
        t.timer_gen = t.timer_gen.wrapping_add(1);
        let gen = t.timer_gen;
        self.push(self.now + n.max(1), Ev::Timer(id, gen));
        self.block(id, TState::Sleeping);
    }

    /// The running task blocks (or exits) and calls `schedule()` itself.
    fn block(&mut self, id: Tid, state: TState) {
        let cpu = self.tasks[id].cpu;
        self.tasks[id].state = state;
        self.tasks[id].burst = Burst::Idle;
        let special = state == TState::Dead;
        if special {
            self.alive -= 1;
        }
        self.with_rq(cpu, |f, c| {
            f.dequeue_sleep(c, id, special);
        });
        // sched_info_dequeue: a running task has no pending wait.
        let s = &mut self.tasks[id].stats;
        if s.last_queued_ns != 0 {
            let d = self.now.saturating_sub(s.last_queued_ns);
            s.run_delay_ns += d;
            s.last_queued_ns = 0;
            self.cpus[cpu as usize].rq.stats.run_delay_ns += d;
        }
        self.hrtick_update(cpu);
        self.schedule(cpu);
    }

    fn finish_run(&mut self, end: u64) {
        self.now = end;
        self.trace.end_ns = end;
        for cpu in 0..self.cpus.len() as u32 {
            self.with_rq(cpu, |f, c| f.update_curr(c));
        }
        self.done = true;
    }
}

// ----------------------------------------------------------------------------------------------
// Many CPUs: wakeup placement and load balancing (kernel/sched/fair.c `select_task_rq_fair`,
// `wake_wide`, `wake_affine`, `select_idle_sibling`, `sched_balance_find_dst_cpu`,
// `sched_balance_rq`/`load_balance`, `sched_balance_newidle`, `nohz_balancer_kick`), to the
// scope of reference §6.5. Loads are instantaneous runnable weights, not PELT averages
// (DEVIATION(kernel), listed in ARCHITECTURE.md).

impl Simulator {
    /// The sched domains of `cpu`, lowest first (see [`domains_of`]).
    fn domains(&self, cpu: u32) -> ([Domain; 3], usize) {
        domains_of(cpu, self.cfg.cpus, self.llc, self.cfg.smt)
    }

    fn share_cache(&self, a: u32, b: u32) -> bool {
        a / self.llc == b / self.llc
    }

    fn allowed(&self, id: Tid, cpu: u32) -> bool {
        self.cfg.tasks[id].affinity.binary_search(&cpu).is_ok()
    }

    /// `available_idle_cpu`: running the idle task with nothing queued.
    fn idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.cpus[cpu as usize].rq;
        rq.curr.is_none() && rq.nr_running == 0
    }

    /// `sched_idle_cpu`: only SCHED_IDLE tasks queued.
    fn sched_idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.cpus[cpu as usize].rq;
        rq.nr_running > 0 && rq.nr_running == rq.nr_idle
    }

    fn idle_or_sched_idle(&self, cpu: u32) -> bool {
        self.idle_cpu(cpu) || self.sched_idle_cpu(cpu)
    }

    /// Σ user weights queued on `cpu` (stands in for PELT's `cpu_load`).
    fn cpu_load(&self, cpu: u32) -> i64 {
        (self.cpus[cpu as usize].rq.load >> crate::weight::SCHED_FIXEDPOINT_SHIFT) as i64
    }

    fn task_load(&self, id: Tid) -> i64 {
        self.ents[id].load_user() as i64
    }

    /// `record_wakee`: the waker counts how often it switches wakee; flips halve every second.
    fn record_wakee(&mut self, waker: Tid, wakee: Tid) {
        let now = self.now;
        let t = &mut self.tasks[waker];
        if now > t.wakee_flip_decay_ns + 1_000_000_000 {
            t.wakee_flips >>= 1;
            t.wakee_flip_decay_ns = now;
        }
        if t.last_wakee != Some(wakee) {
            t.last_wakee = Some(wakee);
            t.wakee_flips += 1;
        }
    }

    /// `wake_wide`: a waker and wakee that both switch partners more than the LLC is wide
    /// should spread out rather than pull together.
    fn wake_wide(&self, waker: Tid, wakee: Tid) -> bool {
        let mut master = self.tasks[waker].wakee_flips;
        let mut slave = self.tasks[wakee].wakee_flips;
        let factor = self.llc;
        if master < slave {
            core::mem::swap(&mut master, &mut slave);
        }
        !(slave < factor || master < slave * factor)
    }

    /// `select_task_rq_fair` for a wakeup.
    fn select_task_rq(&mut self, id: Tid, waker_cpu: u32, waker: Option<Tid>, sync: bool) -> u32 {
        let prev = self.tasks[id].cpu;
        if self.cfg.cpus == 1 {
            return prev;
        }
        let mut want_affine = false;
        if let Some(w) = waker {
            self.record_wakee(w, id);
            want_affine = !self.wake_wide(w, id) && self.allowed(id, waker_cpu);
        }
        let mut target = prev;
        if want_affine && waker_cpu != prev {
            // The first domain of the waker's CPU with SD_WAKE_AFFINE spanning prev: every
            // level here has it.
            let (doms, n) = self.domains(waker_cpu);
            if let Some(sd) = affine_domain(&doms[..n], prev) {
                target = self.wake_affine(sd.imbalance_pct, id, waker_cpu, prev, sync, waker);
            }
        }
        self.select_idle_sibling(id, prev, target)
    }

    /// `wake_affine` in the affine domain (the lowest spanning both CPUs, whose `imbalance_pct`
    /// is `sd_pct`): the waker's CPU or the wakee's previous one.
    fn wake_affine(
        &self,
        sd_pct: u64,
        id: Tid,
        this: u32,
        prev: u32,
        sync: bool,
        waker: Option<Tid>,
    ) -> u32 {
        let v = &self.fair.variant;
        let mut target = None;
        if v.has(Feature::WaIdle) {
            target = self.wake_affine_idle(this, prev, sync);
        }
        if target.is_none() && v.has(Feature::WaWeight) {
            target = self.wake_affine_weight(sd_pct, id, this, prev, sync, waker);
        }
        match target {
            Some(t) if t == this => this,
            _ => prev,
        }
    }

    /// `wake_affine_idle`.
    fn wake_affine_idle(&self, this: u32, prev: u32, sync: bool) -> Option<u32> {
        if self.idle_cpu(this) && self.share_cache(this, prev) {
            return Some(if self.idle_cpu(prev) { prev } else { this });
        }
        if sync && self.cpus[this as usize].rq.nr_running == 1 {
            return Some(this);
        }
        if self.idle_cpu(prev) {
            return Some(prev);
        }
        None
    }

    /// `wake_affine_weight`, with runnable weights for loads and equal CPU capacities.
    fn wake_affine_weight(
        &self,
        sd_pct: u64,
        id: Tid,
        this: u32,
        prev: u32,
        sync: bool,
        waker: Option<Tid>,
    ) -> Option<u32> {
        let mut this_eff = self.cpu_load(this);
        if sync {
            if let Some(w) = waker {
                let current = self.task_load(w);
                if current > this_eff {
                    return Some(this);
                }
                this_eff -= current;
            }
        }
        let task = self.task_load(id);
        this_eff += task;
        let mut prev_eff = self.cpu_load(prev) - task;
        if self.fair.variant.has(Feature::WaBias) {
            let pct = sd_pct as i64;
            this_eff *= 100;
            prev_eff *= 100 + (pct - 100) / 2;
        }
        if sync {
            prev_eff += 1;
        }
        (this_eff < prev_eff).then_some(this)
    }

    /// `select_idle_sibling`: an idle CPU near `target`, else `target`. The scan of the LLC is
    /// not limited by SIS_UTIL (DEVIATION(kernel)).
    fn select_idle_sibling(&mut self, id: Tid, prev: u32, target: u32) -> u32 {
        if self.idle_or_sched_idle(target) && self.allowed(id, target) {
            return target;
        }
        if prev != target
            && self.share_cache(prev, target)
            && self.idle_or_sched_idle(prev)
            && self.allowed(id, prev)
        {
            return prev;
        }
        let recent = self.tasks[id].recent_used_cpu;
        self.tasks[id].recent_used_cpu = prev;
        if recent != prev
            && recent != target
            && self.share_cache(recent, target)
            && self.idle_or_sched_idle(recent)
            && self.allowed(id, recent)
        {
            return recent;
        }
        let llc = target / self.llc * self.llc;
        let smt = self.cfg.smt;
        let scan = (1..=self.llc).map(|k| llc + (target - llc + k) % self.llc);
        if smt > 1 {
            // An idle core first (all siblings idle), then an idle SMT sibling of prev.
            for cpu in scan.clone() {
                let core = cpu / smt * smt;
                if cpu == core && (core..core + smt).all(|c| self.idle_cpu(c)) {
                    if let Some(c) = (core..core + smt).find(|&c| self.allowed(id, c)) {
                        return c;
                    }
                }
            }
            if self.share_cache(prev, target) {
                let core = prev / smt * smt;
                if let Some(c) = (core..core + smt)
                    .find(|&c| c != prev && self.idle_cpu(c) && self.allowed(id, c))
                {
                    return c;
                }
            }
        }
        for cpu in scan {
            if self.idle_or_sched_idle(cpu) && self.allowed(id, cpu) {
                return cpu;
            }
        }
        if self.allowed(id, target) {
            target
        } else {
            self.cfg.tasks[id].affinity[0]
        }
    }

    /// The fork/exec slow path (`sched_balance_find_dst_cpu`, simplified): descend the domains
    /// from the widest, each time into the child group with the most idle CPUs (then the
    /// fewest queued tasks); in the last group take the most recently idled CPU, else the
    /// least loaded. Restricted to the task's affinity.
    fn find_idlest_cpu(&self, id: Tid) -> u32 {
        let aff = &self.cfg.tasks[id].affinity;
        if aff.len() == 1 || self.cfg.cpus == 1 {
            return aff[0];
        }
        let groups = |lo: u32, hi: u32, size: u32| {
            (lo..hi).step_by(size as usize).map(move |g| (g, g + size))
        };
        let score = |lo: u32, hi: u32| {
            let cpus: Vec<u32> = (lo..hi).filter(|c| aff.contains(c)).collect();
            let idle = cpus.iter().filter(|&&c| self.idle_cpu(c)).count();
            let queued: u32 = cpus
                .iter()
                .map(|&c| self.cpus[c as usize].rq.nr_running)
                .sum();
            (cpus.is_empty(), core::cmp::Reverse(idle), queued, lo)
        };
        let (mut lo, mut hi) = (0, self.cfg.cpus);
        for size in [self.llc, self.cfg.smt] {
            if size >= hi - lo || size <= 1 {
                continue;
            }
            let best = groups(lo, hi, size).min_by_key(|&(a, b)| score(a, b));
            if let Some((a, b)) = best {
                lo = a;
                hi = b;
            }
        }
        let cands: Vec<u32> = (lo..hi).filter(|c| aff.contains(c)).collect();
        let cands = if cands.is_empty() { aff.clone() } else { cands };
        if let Some(&c) = cands
            .iter()
            .filter(|&&c| self.idle_cpu(c))
            .max_by_key(|&&c| (self.cpus[c as usize].idle_stamp, core::cmp::Reverse(c)))
        {
            return c;
        }
        *cands
            .iter()
            .min_by_key(|&&c| (self.cpu_load(c), self.cpus[c as usize].rq.nr_running, c))
            .expect("affinity is non-empty")
    }

    /// `trigger_load_balance` from a busy CPU's tick: its own periodic balance, and the NOHZ
    /// kick that balances on behalf of idle CPUs (whose ticks are stopped) when this CPU has
    /// more than one task.
    fn trigger_load_balance(&mut self, cpu: u32) {
        if self.cfg.cpus == 1 {
            return;
        }
        self.rebalance_domains(cpu, false);
        if self.cpus[cpu as usize].rq.nr_running >= 2 {
            for i in 0..self.cfg.cpus {
                if i != cpu && self.idle_cpu(i) {
                    self.rebalance_domains(i, true);
                }
            }
        }
    }

    /// `sched_balance_domains`: balance each domain whose interval has elapsed.
    fn rebalance_domains(&mut self, cpu: u32, idle: bool) {
        let (doms, n) = self.domains(cpu);
        let hz = self.cfg.hz;
        let tick = self.fair.tick_ns;
        for (level, d) in doms[..n].iter().enumerate() {
            let jiffies =
                crate::balance::balance_interval_jiffies(d.weight(), !idle, hz, self.cfg.cpus);
            let last = self.cpus[cpu as usize].lb[level].last_balance_ns;
            if self.now < last + jiffies * tick {
                continue;
            }
            self.cpus[cpu as usize].lb[level].last_balance_ns = self.now;
            let moved = self.load_balance(cpu, level, d, false);
            if moved && idle {
                // An idle CPU that got work stops balancing on this pass (it is busy now).
                break;
            }
        }
    }

    /// `sched_balance_newidle`: about to go idle, try to pull one task, lowest domain first.
    fn newidle_balance(&mut self, cpu: u32) -> bool {
        if self.cfg.cpus == 1 {
            return false;
        }
        let (doms, n) = self.domains(cpu);
        for (level, d) in doms[..n].iter().enumerate() {
            if self.load_balance(cpu, level, d, true) {
                self.cpus[cpu as usize].rq.stats.lb_newidle_pulled += 1;
                return true;
            }
        }
        false
    }

    /// `sched_balance_rq` (load_balance), CPU-level: the busiest CPU of the domain (most
    /// queued, then most load) gives tasks to `this` when `this` is idle and it has a waiting
    /// task, or when its load exceeds this CPU's by `imbalance_pct`; tasks go least recently run
    /// first, never the running one, never a delayed one, never outside the affinity, and not
    /// cache hot (ran within `migration_cost_ns`) unless balancing failed more than
    /// `cache_nice_tries` times. Returns whether it moved anything.
    fn load_balance(&mut self, this: u32, level: usize, d: &Domain, newidle: bool) -> bool {
        let this_idle = self.idle_cpu(this) || newidle;
        let this_load = self.cpu_load(this);
        let mut busiest_order: Vec<u32> = (d.lo..d.hi)
            .filter(|&c| c != this && self.cpus[c as usize].rq.nr_running >= 2)
            .collect();
        busiest_order.sort_by_key(|&c| {
            (
                core::cmp::Reverse(self.cpus[c as usize].rq.nr_running),
                core::cmp::Reverse(self.cpu_load(c)),
                c,
            )
        });
        let failed = self.cpus[this as usize].lb[level].nr_balance_failed;
        let migration_cost = self.fair.p.migration_cost_ns;
        for busiest in busiest_order {
            let busiest_load = self.cpu_load(busiest);
            let mut imbalance = if this_idle {
                // Spare capacity here: move one task whatever its weight.
                i64::MAX
            } else {
                if busiest_load * 100 <= this_load * d.imbalance_pct as i64 {
                    continue;
                }
                (busiest_load - this_load) / 2
            };
            let bc = &self.cpus[busiest as usize];
            let clock = bc.clock_task.max(self.now.saturating_sub(bc.irq_ns));
            let movable: Vec<Tid> = bc
                .rq
                .tree
                .iter()
                .copied()
                .filter(|&t| !self.ents[t].sched_delayed && self.allowed(t, this))
                .collect();
            if movable.is_empty() {
                // LBF_ALL_PINNED: nothing there may run here; try the next busiest.
                continue;
            }
            let mut cands: Vec<Tid> = movable
                .into_iter()
                .filter(|&t| {
                    failed > d.cache_nice_tries
                        || !crate::balance::task_hot(clock, self.ents[t].exec_start, migration_cost)
                })
                .collect();
            cands.sort_by_key(|&t| self.ents[t].mru);
            let mut moved = 0;
            for t in cands.into_iter().take(32) {
                let load = self.task_load(t);
                if !this_idle && load / 2 > imbalance {
                    continue;
                }
                self.migrate_queued(t, busiest, this);
                moved += 1;
                imbalance -= load;
                if this_idle || imbalance <= 0 {
                    break;
                }
            }
            let st = &mut self.cpus[this as usize];
            if moved == 0 {
                st.lb[level].nr_balance_failed += 1;
                st.rq.stats.lb_failed += 1;
                return false;
            }
            st.lb[level].nr_balance_failed = 0;
            st.rq.stats.lb_pulled += moved;
            return true;
        }
        false
    }

    /// `detach_task` + `attach_task`: move a queued, not running task between CPUs.
    fn migrate_queued(&mut self, id: Tid, from: u32, to: u32) {
        self.with_rq(from, |f, c| f.dequeue_detach(c, id));
        self.emit(
            to,
            EventKind::MigrateTask {
                pid: id as u32 + 1,
                orig_cpu: from,
                dest_cpu: to,
            },
        );
        // sched_info: the wait continues on the new CPU.
        self.tasks[id].cpu = to;
        self.tasks[id].stats.migrations += 1;
        self.with_rq(to, |f, c| f.enqueue_attach(c, id));
        self.check_preempt_curr(to, id, false, false);
        self.kick(to);
        self.kick(from);
    }
}

/// Runs a whole simulation of `variant`.
pub fn simulate(cfg: &SimConfig, variant: &Variant) -> Result<Output, String> {
    Ok(Simulator::new(cfg, variant)?.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wake_affine_weight` biases by the affine domain's `imbalance_pct` (kernel/sched/fair.c:
    /// `select_task_rq_fair` passes the `tmp` domain it found to `wake_affine`): SMT's 110 for a
    /// sibling, MC's 117 for another core of the LLC, PKG's 117 across LLCs.
    #[test]
    fn the_affine_domain_is_the_lowest_spanning_both_cpus() {
        let (d, n) = domains_of(0, 16, 8, 2);
        assert_eq!(n, 3);
        let pct = |prev| affine_domain(&d[..n], prev).map(|d| d.imbalance_pct);
        assert_eq!(pct(1), Some(110));
        assert_eq!(pct(2), Some(117));
        assert_eq!(
            affine_domain(&d[..n], 2).map(|d| (d.lo, d.hi)),
            Some((0, 8))
        );
        assert_eq!(
            affine_domain(&d[..n], 9).map(|d| (d.lo, d.hi)),
            Some((0, 16))
        );
        // One LLC, no SMT: MC only (PKG is degenerate).
        let (d, n) = domains_of(3, 4, 4, 1);
        assert_eq!((n, d[0].lo, d[0].hi, d[0].imbalance_pct), (1, 0, 4, 117));
    }
}
