//! Measured machines: the CPU costs of a real machine that the model cannot derive from
//! fair.c (what a wakeup onto an idle CPU costs, by how long it was idle, and what a context
//! switch and a wakeup's IPI cost there),
//! each measured with the commands of `scripts/record-fixtures.sh` and held against that
//! machine's recordings (`tests/fixtures/<fixtures>/`). A scenario names one with `"machine"`;
//! its explicit `idle_wakeup_ns`, `idle_states`, `switch_cost_ns` and `wakeup_cost_ns` still
//! win.
//! docs/measurements.md has the figures behind every value.

use alloc::vec;
use alloc::vec::Vec;

use crate::config::{Dist, IdleState, Op, SchedPolicy, TaskSpec};

/// One measured machine's costs (the `SimConfig` fields of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The name a scenario's `"machine"` gives.
    pub name: &'static str,
    /// What it is: CPU, kernel, idle driver, topology.
    pub description: &'static str,
    /// The directory under `tests/fixtures/` with its recordings.
    pub fixtures: &'static str,
    /// IPI + idle exit of a wakeup onto an idle CPU, beyond δ (`SimConfig::idle_wakeup_ns`):
    /// the recorded wake-to-run p50 onto an idle CPU less δ (5 µs).
    pub idle_wakeup_ns: u64,
    /// Its deeper idle states (`SimConfig::idle_states`): the wake-to-run of a CPU idle for
    /// longer, by `scripts/workloads/idlelat.c`.
    pub idle_states: &'static [IdleState],
    /// CPU time of a context switch (`SimConfig::switch_cost_ns`): a ping-pong pair pinned to
    /// one CPU, (round trip − 2 × the same write + read alone) / 2.
    pub switch_cost_ns: u64,
    /// The waker's CPU time for a wakeup onto another CPU (`SimConfig::wakeup_cost_ns`): a
    /// write that wakes a partner blocked on the other, busy CPU (`switchcost busy`) less a
    /// write nobody waits on; where that was not measured, the same onto an idle CPU
    /// (`switchcost wake`), IPI included, with `ipi_cost_ns` 0.
    pub wakeup_cost_ns: u64,
    /// What the waker pays more when its wakeup sends an IPI (`SimConfig::ipi_cost_ns`):
    /// `switchcost wake` less `switchcost busy`.
    pub ipi_cost_ns: u64,
    /// The spread of those costs from one event to the next (`SimConfig::cost_spread_ppm`):
    /// `switchcost spread`, a pipe write and read alone in a loop, each iteration timed on its
    /// own: its p10–p90 width over 2.563 (a normal's) as a share of its median.
    pub cost_spread_ppm: u32,
    /// The other work of each CPU (kworkers, `rcu_preempt`, `ksoftirqd`, daemons): what the
    /// recordings' non-workload tasks ran in runs shorter than 1 ms.
    pub housekeeping: Housekeeping,
}

/// A machine's housekeeping: on each CPU a pinned kernel thread that wakes `runs_per_s`
/// times a second (Poisson) and runs for an exponentially distributed time of mean `run_ns`.
/// It is the noise that keeps the balancer's decisions off the tick's parity: on a machine
/// without it, identical hogs are balanced the same way at every tick edge (ARCHITECTURE.md,
/// "Housekeeping").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Housekeeping {
    /// Wakeups per second on each CPU.
    pub runs_per_s: u32,
    /// Mean CPU time of a run, in ns.
    pub run_ns: u64,
}

impl Housekeeping {
    /// The tasks that stand for it on `cpus` CPUs, one pinned to each: per-CPU kthreads
    /// named `housekeep` (one row in a latency table), of the root group, nice 0, daemons
    /// whose program begins with a sleep, so each starts asleep at a random phase (the engine's
    /// `start_asleep`: kernel threads that exist before the run). `group` is the scenario
    /// task-group index they are reported under.
    pub fn tasks(&self, cpus: u32, group: u32) -> Vec<TaskSpec> {
        if self.runs_per_s == 0 {
            return Vec::new();
        }
        let every_ns = 1_000_000_000 / self.runs_per_s as u64;
        (0..cpus)
            .map(|c| TaskSpec {
                comm: "housekeep".into(),
                group,
                nice: 0,
                policy: SchedPolicy::Normal,
                slice_ns: None,
                affinity: vec![c],
                program: vec![
                    Op::Sleep(Dist::Exp(every_ns)),
                    Op::Run(Some(Dist::Exp(self.run_ns.max(1)))),
                ],
                start_ns: 0,
                kthread: true,
                daemon: true,
                cpu_clock: false,
            })
            .collect()
    }

    /// The housekeeping a task made by [`Housekeeping::tasks`] stands for (`None` for any
    /// other task).
    pub fn of(task: &TaskSpec) -> Option<Housekeeping> {
        match (task.daemon, task.program.as_slice()) {
            (true, [Op::Sleep(Dist::Exp(every)), Op::Run(Some(Dist::Exp(run)))]) => {
                Some(Housekeeping {
                    runs_per_s: (1_000_000_000 / (*every).max(1)) as u32,
                    run_ns: *run,
                })
            }
            _ => None,
        }
    }
}

/// The machines measured so far. All are 2-vCPU KVM guests running Linux 6.18.44 with
/// HZ=250 and `Dynamic Preempt: none`; their costs differ by up to 10×, which is why a
/// scenario names the one it describes.
pub const MACHINES: &[Machine] = &[
    Machine {
        name: "xeon-vm",
        description: "2-vCPU Firecracker VM on an Intel Xeon, Linux 6.18.44, HZ=250, cpuidle \
                      haltpoll without polling (an idle vCPU halts to the host)",
        fixtures: "real",
        idle_wakeup_ns: 17_000,
        // Not measured; haltpoll without polling halts on every idle, so the one cost stands
        // for all idle lengths.
        idle_states: &[],
        switch_cost_ns: 960,
        // Onto an idle CPU; a busy target's cost was not measured apart.
        wakeup_cost_ns: 9_000,
        ipi_cost_ns: 0,
        // Not measured.
        cost_spread_ppm: 0,
        // The hogs3 and periodic recordings' other tasks, runs under 1 ms, pooled over both
        // CPUs (real_fixtures.rs, `housekeeping_is_what_the_recordings_ran_besides`).
        housekeeping: Housekeeping {
            runs_per_s: 28,
            run_ns: 51_000,
        },
    },
    Machine {
        name: "epyc-vm",
        description: "2-vCPU Firecracker VM on an AMD EPYC (one LLC), Linux 6.18.44, HZ=250, \
                      no cpuidle driver",
        fixtures: "real-epyc",
        idle_wakeup_ns: 3_000,
        // idlelat: the wake takes ~6 µs after up to 150 µs of idle, 15 µs more from 200 µs
        // (the host's halt polling gives up), 27 µs more from 1 ms, 47 µs more from 5 ms.
        idle_states: &[
            IdleState {
                after_ns: 200_000,
                wakeup_ns: 18_000,
            },
            IdleState {
                after_ns: 1_000_000,
                wakeup_ns: 30_000,
            },
            IdleState {
                after_ns: 5_000_000,
                wakeup_ns: 50_000,
            },
        ],
        switch_cost_ns: 2_400,
        // Onto an idle CPU; a busy target's cost was not measured apart.
        wakeup_cost_ns: 2_000,
        ipi_cost_ns: 0,
        // switchcost spread, three runs of 200 000: p10 381–390, p50 391, p90 401 ns, so
        // σ ≈ 20 / 2.563 ≈ 7.8 ns, 2.0 % of the median (docs/measurements.md).
        cost_spread_ppm: 20_000,
        // The hogs3 and periodic recordings' other tasks, runs under 1 ms, pooled over both
        // CPUs (real_fixtures.rs, `housekeeping_is_what_the_recordings_ran_besides`).
        housekeeping: Housekeeping {
            runs_per_s: 15,
            run_ns: 69_000,
        },
    },
    Machine {
        name: "epyc-vm-haltpoll",
        description: "2-vCPU Firecracker VM on an AMD EPYC (one LLC), Linux 6.18.44, HZ=250, \
                      cpuidle haltpoll without polling (an idle vCPU halts to the host at once)",
        fixtures: "real-epyc-haltpoll",
        // The pinned ping-pong's wake-to-run onto the idle CPU, p50 37 µs, less δ.
        idle_wakeup_ns: 32_000,
        // idlelat: ~41 µs (δ + 36) after up to 500 µs of idle, ~53 µs after 1 ms, ~64 µs
        // after 5 ms. There is no step at 200 µs as on `epyc-vm`: the guest halts at once and
        // the host does not poll for it.
        idle_states: &[
            IdleState {
                after_ns: 1_000_000,
                wakeup_ns: 47_000,
            },
            IdleState {
                after_ns: 5_000_000,
                wakeup_ns: 59_000,
            },
        ],
        // switchcost pair: (round trip − 2 × alone) / 2 in six runs, 2 344–3 564 ns, median
        // 2 569.
        switch_cost_ns: 2_600,
        // switchcost busy: a write waking a partner onto the other CPU while a task it cannot
        // preempt runs there (no IPI), less a write alone: 3.5, 3.7 and 4.1 µs.
        wakeup_cost_ns: 3_700,
        // switchcost wake: the same onto the idle (halted) CPU, 10.3–13.4 µs in six runs
        // (median 12.6; on `epyc-vm` 2 µs): the IPI to a halted vCPU costs the waker ~8.9 µs
        // more.
        ipi_cost_ns: 8_900,
        // The same VM as `epyc-vm` (its `switchcost spread`); the idle driver does not enter
        // a loop that never idles.
        cost_spread_ppm: 20_000,
        // The hogs3 and periodic recordings' other tasks, runs under 1 ms, pooled over both
        // CPUs (real_fixtures.rs, `housekeeping_is_what_the_recordings_ran_besides`).
        housekeeping: Housekeeping {
            runs_per_s: 13,
            run_ns: 114_000,
        },
    },
];

/// The measured machine named `name`.
pub fn machine(name: &str) -> Option<&'static Machine> {
    MACHINES.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_states_are_valid_configs() {
        for m in MACHINES {
            let w = m.idle_states.windows(2);
            assert!(
                w.clone().all(|w| w[0].after_ns < w[1].after_ns),
                "{}",
                m.name
            );
            assert!(m
                .idle_states
                .iter()
                .all(|s| s.wakeup_ns >= m.idle_wakeup_ns));
        }
    }

    #[test]
    fn names_are_unique_and_found() {
        for m in MACHINES {
            assert_eq!(machine(m.name), Some(m));
        }
        assert_eq!(machine("pdp-11"), None);
    }
}
