//! The bundled experiments: the LKML threads schedlab was built to replay, each scaled down to
//! run in seconds. The documents live in `scenarios/presets/NAME.json`.
//!
//! ```
//! let p = schedlab_scenario::presets::preset("sched-idle").unwrap();
//! let s = p.scenario();
//! let names: Vec<&str> = s.variants().iter().map(|v| v.name.as_str()).collect();
//! assert_eq!(names, ["cfs-5.14", "cfs-6.1"]);
//! ```

use crate::Scenario;

/// One bundled experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Short name (`sched-idle`), also the file name.
    pub name: &'static str,
    /// One-line title.
    pub title: &'static str,
    /// The thread it comes from: subject, author, date.
    pub source: &'static str,
    /// What the thread observed on real machines.
    pub observed: &'static str,
    /// The scenario document.
    pub json: &'static str,
}

impl Preset {
    /// The scenario, parsed. Every bundled document is valid (a test parses them all).
    pub fn scenario(&self) -> Scenario {
        match Scenario::from_json(self.json) {
            Ok(s) => s,
            Err(e) => panic!("bundled preset {} does not parse: {e}", self.name),
        }
    }
}

static PRESETS: &[Preset] = &[
    Preset {
        name: "sched-idle",
        title: "A SCHED_IDLE hog next to a nice-0 hog on one CPU",
        source: "\"[PATCH 2/2] sched: adjust SCHED_IDLE interactions\", Josh Don, Jul 2021",
        observed: "Two threads affined to one CPU at HZ=1000, one SCHED_IDLE: without the patch \
                   the SCHED_IDLE thread runs for 4 ms then waits 1.4 s; with it, it runs 1 ms \
                   and waits 340 ms.",
        json: include_str!("../../../scenarios/presets/sched-idle.json"),
    },
    Preset {
        name: "hackbench",
        title: "hackbench under CFS and EEVDF: wakeup preemption",
        source: "\"[tip:sched/eevdf] [sched/fair] e0c2ff903c: phoronix-test-suite.blogbench\
                 .Write.final_score -34.8% regression\", Chen Yu and Peter Zijlstra, Aug 2023",
        observed: "With hackbench -g 112 -f 20 --threads -l 30000 -s 100 on 112 CPUs, the \
                   wakeup-preemption success ratio (need_preempt/check_preempt) is 20% on CFS, \
                   80% on EEVDF without RUN_TO_PARITY and 23% with it; wakeups on the waker's \
                   CPU (ttwu_local/ttwu_count) 26%, 96% and 100%; sched_count per CPU per 5 s \
                   60609, 155748 and 25486; hackbench takes 117 s without RUN_TO_PARITY and \
                   101 s with it.",
        json: include_str!("../../../scenarios/presets/hackbench.json"),
    },
    Preset {
        name: "schbench",
        title: "schbench wakeup latency with and without RUN_TO_PARITY",
        source: "\"[tip:sched/eevdf] [sched/fair] e0c2ff903c: phoronix-test-suite.blogbench\
                 .Write.final_score -34.8% regression\", Chen Yu and Peter Zijlstra, Aug 2023",
        observed: "schbench -m 14 -t 16 -r 100 on 112 CPUs showed no real difference between \
                   NO_RUN_TO_PARITY and RUN_TO_PARITY: wakeup latency p50 4 us, p90 3772 us, \
                   p99 7448 / 7496 us; request latency p50 23264 / 23072 us, p90 32672 / \
                   32096 us; 9416 / 9432 requests/s (84 per CPU).",
        json: include_str!("../../../scenarios/presets/schbench.json"),
    },
    Preset {
        name: "video-massive-intr",
        title: "A 1080p video player against massive_intr",
        source: "Re: \"[PATCH] sched/fair: Reschedule the cfs_rq when current is ineligible\", \
                 Mike Galbraith, May 2024",
        observed: "Playing a 1080p clip against one 88% massive_intr hog per CPU for 5 minutes \
                   (perf sched latency, 6.1.91-cfs / 6.1.91-eevdf / +tweak): massive_intr \
                   switches 11.58M / 6.13M / 6.28M (EEVDF -47%), avg delay 0.026 / 0.034 / \
                   0.034 ms; dav1d-worker avg delay 0.089 / 0.262 / 0.240 ms (2.9x); the \
                   per-CPU kworkers run 1.6M / 0.6M / 0.7M times at 5.3-5.5 us each.",
        json: include_str!("../../../scenarios/presets/video-massive-intr.json"),
    },
    Preset {
        name: "tbench-stacked",
        title: "An asymmetric tbench pair stacked on one CPU",
        source: "Re: \"[PATCH 17/24] sched/fair: Implement delayed dequeue\", Mike Galbraith, \
                 Nov 2024",
        observed: "Stacked on one CPU, CFS splits the pair 50/50; EEVDF without DELAY_DEQUEUE \
                   gives the wider client 56% and the server 44%, with it 52/49. tbench 8 \
                   throughput: 3674 MB/s on CFS, 3505 without DELAY_DEQUEUE, 3701 with it.",
        json: include_str!("../../../scenarios/presets/tbench-stacked.json"),
    },
    Preset {
        name: "tbench-cross",
        title: "An asymmetric tbench pair on two CPUs",
        source: "Re: \"[PATCH 17/24] sched/fair: Implement delayed dequeue\", Mike Galbraith, \
                 Nov 2024",
        observed: "Scheduled cross-core, the client uses 60% of its CPU and the server 47%; \
                   stacking them is what exposes the scheduler's split (see tbench-stacked). \
                   tbench 8 throughput: 3674 MB/s on CFS, 3505 without DELAY_DEQUEUE, 3701 \
                   with it.",
        json: include_str!("../../../scenarios/presets/tbench-cross.json"),
    },
    Preset {
        name: "fio-grid",
        title: "fio randwrite, libaio iodepth 32, 8 jobs: WAKEUP_PREEMPTION x DELAY_DEQUEUE",
        source: "Re: \"[PATCH 17/24] sched/fair: Implement delayed dequeue\", Phil Auld (quoted \
                 by Mike Galbraith), Nov 2024",
        observed: "FIO likes preemption: WAKEUP_PREEMPTION with NO_DELAY_DEQUEUE 590 MB/s, \
                   WAKEUP_PREEMPTION with DELAY_DEQUEUE 519, NO_WAKEUP_PREEMPTION with \
                   NO_DELAY_DEQUEUE 498, NO_WAKEUP_PREEMPTION with DELAY_DEQUEUE 427.",
        json: include_str!("../../../scenarios/presets/fio-grid.json"),
    },
    Preset {
        name: "irq-load",
        title: "Interrupt load beside fair hogs",
        source: "Issue 16 (the classes above fair as interference): CONFIG_IRQ_TIME_ACCOUNTING, \
                 kernel/sched/core.c update_rq_clock_task",
        observed: "With IRQ time accounting, the time hardirq and softirq handlers take on a CPU \
                   is left out of rq_clock_task: a 10 % interrupt load leaves the CPU's fair \
                   tasks 900 ms per second, shared by weight as if the CPU were that much \
                   slower.",
        json: include_str!("../../../scenarios/presets/irq-load.json"),
    },
    Preset {
        name: "cgroup-weights",
        title: "Two cgroups with cpu.weight 100 and 300 sharing a CPU",
        source:
            "cgroup v2 cpu controller (Documentation/admin-guide/cgroup-v2.rst, \"cpu.weight\"); \
                 recorded on this project's test machine (tests/fixtures/real/groups)",
        observed:
            "Two hogs pinned to one CPU in cgroups with cpu.shares 1024 and 3072 (cpu.weight \
                   100 and 300): 25 % and 75 % of the CPU.",
        json: include_str!("../../../scenarios/presets/cgroup-weights.json"),
    },
    Preset {
        name: "cgroup-idle",
        title: "A cpu.idle cgroup beside a busy cgroup",
        source: "\"[PATCH v3] sched: Cgroup SCHED_IDLE support\", Josh Don, Aug 2021",
        observed: "A hog in a cgroup with cpu.idle = 1 beside a nice-0 hog on one CPU gets about \
                   3 / 1027 = 0.3 % of it, as a SCHED_IDLE task would.",
        json: include_str!("../../../scenarios/presets/cgroup-idle.json"),
    },
    Preset {
        name: "autogroup-nice",
        title: "Autogroup: nice 19 vs nice 0 in two sessions",
        source: "\"[PATCH] sched: automated per session task groups\", Mike Galbraith, Nov 2010; \
                 sched(7), \"The autogroup feature\"",
        observed: "With autogroup on, nice acts only inside a session: a nice 19 hog and a nice 0 \
                   hog in two sessions split a CPU 50/50.",
        json: include_str!("../../../scenarios/presets/autogroup-nice.json"),
    },
    Preset {
        name: "rt-hog",
        title: "A SCHED_FIFO hog beside fair hogs: RT throttling and the fair server",
        source: "Issue 16; \"sched/rt: Remove default bandwidth control\" and the deferred \
                 fair server (Peter Zijlstra, Daniel Bristot de Oliveira, v6.12)",
        observed: "Until 6.11 RT tasks are throttled to sched_rt_runtime_us (950 ms) per \
                   sched_rt_period_us (1 s), leaving fair tasks 50 ms per second; from 6.12 \
                   the fair server (50 ms per 1 s, deferred to its zero-laxity point) gives \
                   them the same 50 ms per second.",
        json: include_str!("../../../scenarios/presets/rt-hog.json"),
    },
    Preset {
        name: "cpu-max",
        title: "A container with cpu.max 50 ms / 100 ms, alone on a CPU",
        source: "CFS bandwidth control (Documentation/scheduler/sched-bwc.rst; \
                 kernel/sched/fair.c); recorded on this project's test machine \
                 (tests/fixtures/real/bw-alone)",
        observed: "A hog in a cgroup with cpu.cfs_quota_us 50000 per cpu.cfs_period_us 100000 \
                   runs about 50 ms of every 100 ms period, starting at the period's start, and \
                   is throttled for the rest: cpu.stat counts every period as throttled.",
        json: include_str!("../../../scenarios/presets/cpu-max.json"),
    },
    Preset {
        name: "cpu-max-beside",
        title: "A container with cpu.max 50 ms / 100 ms beside a lighter cgroup",
        source: "CFS bandwidth control (Documentation/scheduler/sched-bwc.rst); recorded on \
                 this project's test machine (tests/fixtures/real/bw-beside)",
        observed: "A hog in a cgroup with cpu.shares 3072 and a 50 ms / 100 ms quota beside a \
                   hog in a cgroup with cpu.shares 1024 on one CPU: the quota, not the 3:1 \
                   weights, decides; each gets 50 %.",
        json: include_str!("../../../scenarios/presets/cpu-max-beside.json"),
    },
];

/// Every bundled experiment, in a fixed order.
pub fn presets() -> &'static [Preset] {
    PRESETS
}

/// The bundled experiment with this name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}
