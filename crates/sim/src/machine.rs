//! Measured machines: the CPU costs of a real machine that the model cannot derive from
//! fair.c (what a wakeup onto an idle CPU costs, by how long it was idle, and what a context
//! switch and a wakeup's IPI cost there),
//! each measured with the commands of `scripts/record-fixtures.sh` and held against that
//! machine's recordings (`tests/fixtures/<fixtures>/`). A scenario names one with `"machine"`;
//! its explicit `idle_wakeup_ns`, `idle_states`, `switch_cost_ns` and `wakeup_cost_ns` still
//! win.
//! docs/measurements.md has the figures behind every value.

use crate::config::IdleState;

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
    /// write that wakes a partner blocked on the other CPU less a write nobody waits on.
    pub wakeup_cost_ns: u64,
}

/// The machines measured so far. Both are 2-vCPU KVM guests running Linux 6.18.44 with
/// HZ=250 and `Dynamic Preempt: none`; their costs differ by up to 5×, which is why a
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
        wakeup_cost_ns: 9_000,
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
        wakeup_cost_ns: 2_000,
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
