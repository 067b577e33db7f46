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
}

#[derive(Default)]
struct Chan {
    count: u64,
    waiters: VecDeque<Tid>,
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
    scratch: Vec<Tid>,
    /// Tasks not yet exited; the run ends early when it reaches 0.
    alive: usize,
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
            chans: (0..cfg.channels.len()).map(|_| Chan::default()).collect(),
            trace: Trace {
                cpus: cfg.cpus,
                tasks: infos,
                events: Vec::new(),
                snapshots: Vec::new(),
                end_ns: cfg.duration_ns,
            },
            processed: 0,
            done: false,
            scratch: Vec::new(),
            alive: cfg.tasks.len(),
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
            let end = if self.alive == 0 { self.now } else { self.cfg.duration_ns };
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
                    self.wake(id, cpu, false);
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
        let cpu = self.tasks[id].cpu;
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

    /// `try_to_wake_up` by a waker running on `waker_cpu`.
    fn wake(&mut self, id: Tid, waker_cpu: u32, sync: bool) {
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
            // select_task_rq: the task stays on its CPU (load balancing is not modelled yet).
            self.with_rq(cpu, |f, c| f.enqueue_wakeup(c, id));
            self.sched_info_enqueue(id);
            self.check_preempt_curr(cpu, id, false, sync);
        }
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
        self.snapshot(cpu, curr);
        self.arm_tick(cpu);
        self.kick(cpu);
    }

    /// `__schedule()`.
    fn schedule(&mut self, cpu: u32) {
        let now = self.now;
        {
            let c = &mut self.cpus[cpu as usize];
            c.rq.need_resched = false;
            c.sched_gen = c.sched_gen.wrapping_add(1);
            c.schedule_pending = false;
            c.rq.stats.sched_count += 1;
            c.hrtick_gen = c.hrtick_gen.wrapping_add(1);
            c.hrtick_expires = None;
        }
        let prev = self.cpus[cpu as usize].rq.curr;
        let mut blocked = core::mem::take(&mut self.scratch);
        blocked.clear();
        let next = self.with_rq(cpu, |f, c| f.pick_next(c, &mut blocked));
        self.scratch = blocked;
        // clear_tsk_need_resched(prev) comes after pick_next_task: a resched that the pick's
        // update_curr raised on prev is void.
        self.cpus[cpu as usize].rq.need_resched = false;
        if next.is_none() {
            self.cpus[cpu as usize].rq.stats.sched_goidle += 1;
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
                    self.advance_pc(id);
                    let chan = &mut self.chans[ch as usize];
                    chan.count += 1;
                    if let Some(w) = chan.waiters.pop_front() {
                        self.wake(w, cpu, true);
                    }
                }
                Op::Recv(ch) => {
                    let chan = &mut self.chans[ch as usize];
                    if chan.count > 0 {
                        chan.count -= 1;
                        self.advance_pc(id);
                    } else {
                        chan.waiters.push_back(id);
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

/// Runs a whole simulation of `variant`.
pub fn simulate(cfg: &SimConfig, variant: &Variant) -> Result<Output, String> {
    Ok(Simulator::new(cfg, variant)?.finish())
}
