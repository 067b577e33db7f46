//! # schedlab-sim
//!
//! A deterministic, sans-IO model of the Linux fair scheduling class as it is in
//! `kernel/sched/fair.c` of 5.14 and 6.1 (CFS) and 6.6, 6.12 and 6.19 (EEVDF): integer
//! nanoseconds, the kernel's fixed-point weight arithmetic, a per-CPU tick, and the trace the
//! kernel's tracepoints would give.
//!
//! `no_std` + `alloc`, no dependencies, no clock, no floats in scheduling maths, no hash maps:
//! the same config and variant give the same trace, bit for bit, natively and in wasm.
//!
//! ```
//! use schedlab_sim::{simulate, Op, SchedPolicy, SimConfig, TaskSpec, Variant};
//! let hog = |comm: &str, policy| TaskSpec {
//!     comm: comm.into(), group: 0, nice: 0, policy, slice_ns: None, affinity: vec![0],
//!     program: vec![Op::Run(None)], start_ns: 0, kthread: false, daemon: false,
//!     cpu_clock: false,
//! };
//! let cfg = SimConfig {
//!     cpus: 16, llc_size: 0, smt: 1, hz: 1000, duration_ns: 1_000_000_000, seed: 1, switch_delay_ns: 5_000, irq_ns: 5_000, idle_wakeup_ns: 0, idle_states: vec![], switch_cost_ns: 0, wakeup_cost_ns: 0, ipi_cost_ns: 0, local_wakeup_ns: 0, cost_spread_ppm: 0, launcher_wakee_flips: 0,
//!     channels: vec![], record_snapshots: false, record_decisions: false, irq_load: vec![],
//!     cache: None,
//!     cgroups: Default::default(),
//!     rt_tasks: vec![], rt_bandwidth: Default::default(),
//!     tasks: vec![hog("hog", SchedPolicy::Normal), hog("idle", SchedPolicy::Idle)],
//! };
//! let out = simulate(&cfg, &Variant::parse("cfs-6.1").unwrap()).unwrap();
//! assert!(out.tasks[1].sum_exec_runtime_ns < 10_000_000); // the SCHED_IDLE hog gets ~0.3 %
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod cgroup;
pub mod config;
pub mod decision;
mod engine;
pub mod events;
mod fair;
pub mod machine;
pub mod pelt;
pub mod rng;
pub mod stats;
pub mod trace;
pub mod variant;
pub mod weight;
mod wire;

pub use config::{
    limits, CacheCost, Channel, Dist, IdleState, IoDevice, IrqArrival, IrqSource, Op, RtBandwidth,
    RtPolicy, RtTask, SchedPolicy, SimConfig, TaskSpec, MAX_LOCK_SETS, MEASURED_CACHE_COST,
};
pub use engine::{balance, simulate, Deadlock, Output, Simulator, Status};
pub use events::Events;
pub use machine::{machine, Housekeeping, Machine, MACHINES};
pub use stats::{BandwidthStats, CpuStats, TaskStats};
pub use trace::{
    Event, EventKind, Pid, PrevState, Sink, Snapshot, TaskInfo, Trace, TraceCounts, TraceLevel,
};
pub use variant::{
    kernel_version, scaling_factor, Class, Feature, FeatureSet, KernelVersion, SchedParams,
    Tunables, Variant, VariantError, ALL_FEATURES, KERNEL_VERSIONS, UNMODELLED_FEATURES,
};
