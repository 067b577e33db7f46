//! Measured machines: the CPU costs of a real machine that the model cannot derive from
//! fair.c (what a wakeup onto an idle CPU, a context switch and a wakeup's IPI cost there),
//! each measured with the commands of `scripts/record-fixtures.sh` and held against that
//! machine's recordings (`tests/fixtures/<fixtures>/`). A scenario names one with `"machine"`;
//! its explicit `idle_wakeup_ns`, `switch_cost_ns` and `wakeup_cost_ns` still win.
//! docs/measurements.md has the figures behind every value.

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
        switch_cost_ns: 960,
        wakeup_cost_ns: 9_000,
    },
    Machine {
        name: "epyc-vm",
        description: "2-vCPU Firecracker VM on an AMD EPYC (one LLC), Linux 6.18.44, HZ=250, \
                      no cpuidle driver",
        fixtures: "real-epyc",
        idle_wakeup_ns: 3_000,
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
    fn names_are_unique_and_found() {
        for m in MACHINES {
            assert_eq!(machine(m.name), Some(m));
        }
        assert_eq!(machine("pdp-11"), None);
    }
}
