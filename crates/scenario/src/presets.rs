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
    /// The figures of `observed`, per variant, for the table `schedlab run --preset` prints
    /// beside the model's.
    pub figures: &'static [ThreadFigure],
}

/// A figure the source reports for some of a preset's variants. The presets are scaled down
/// (fewer CPUs, seconds instead of minutes), so the figures to compare are each one's changes
/// between variants more than its values.
#[derive(Clone, Copy, Debug)]
pub struct ThreadFigure {
    /// What is measured, by the name the report computes it under
    /// (`schedlab_report::observed::FIGURES`), e.g. `preempt` or `delay_avg:dav1d-worker`.
    pub key: &'static str,
    /// The source's value per variant (as the preset names the variant), in the figure's unit;
    /// a single `("*", value)` when the source does not say which kernel it measured.
    pub values: &'static [(&'static str, f64)],
}

impl PartialEq for ThreadFigure {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
            && self.values.len() == o.values.len()
            && self
                .values
                .iter()
                .zip(o.values)
                .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

impl Eq for ThreadFigure {}

const fn fig(key: &'static str, values: &'static [(&'static str, f64)]) -> ThreadFigure {
    ThreadFigure { key, values }
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

/// The same figure in every variant of a version-independent preset.
const ALL3: [&str; 3] = ["cfs-6.1", "eevdf-6.6", "eevdf-6.12"];
const ALL4: [&str; 4] = ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"];
const ALL3_25: &[(&str, f64)] = &[(ALL3[0], 25.0), (ALL3[1], 25.0), (ALL3[2], 25.0)];
const ALL3_75: &[(&str, f64)] = &[(ALL3[0], 75.0), (ALL3[1], 75.0), (ALL3[2], 75.0)];
const ALL3_50: &[(&str, f64)] = &[(ALL3[0], 50.0), (ALL3[1], 50.0), (ALL3[2], 50.0)];
const ALL3_0_29: &[(&str, f64)] = &[(ALL3[0], 0.29), (ALL3[1], 0.29), (ALL3[2], 0.29)];
const ALL4_90: &[(&str, f64)] = &[
    (ALL4[0], 90.0),
    (ALL4[1], 90.0),
    (ALL4[2], 90.0),
    (ALL4[3], 90.0),
];
const ALL4_50: &[(&str, f64)] = &[
    (ALL4[0], 50.0),
    (ALL4[1], 50.0),
    (ALL4[2], 50.0),
    (ALL4[3], 50.0),
];
const ALL4_5: &[(&str, f64)] = &[
    (ALL4[0], 5.0),
    (ALL4[1], 5.0),
    (ALL4[2], 5.0),
    (ALL4[3], 5.0),
];

static PRESETS: &[Preset] = &[
    Preset {
        name: "sched-idle",
        title: "A SCHED_IDLE hog next to a nice-0 hog on one CPU",
        source: "\"[PATCH 2/2] sched: adjust SCHED_IDLE interactions\", Josh Don, Jul 2021",
        observed: "Two threads affined to one CPU at HZ=1000, one SCHED_IDLE: without the patch \
                   the SCHED_IDLE thread runs for 4 ms then waits 1.4 s; with it, it runs 1 ms \
                   and waits 340 ms.",
        json: include_str!("../../../scenarios/presets/sched-idle.json"),
        figures: &[
            fig("turn:idle", &[("cfs-5.14", 4.0), ("cfs-6.1", 1.0)]),
            fig(
                "delay_avg:idle",
                &[("cfs-5.14", 1400.0), ("cfs-6.1", 340.0)],
            ),
        ],
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
                   101 s with it. The thread's RUN_TO_PARITY \
                   was its own patch, WAKEUP_PARITY here (a wakeup never preempts an eligible \
                   curr), not the one merged in 6.6.",
        json: include_str!("../../../scenarios/presets/hackbench.json"),
        figures: &[
            fig(
                "preempt",
                &[
                    ("cfs-6.1", 20.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 80.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 23.0),
                ],
            ),
            fig(
                "local",
                &[
                    ("cfs-6.1", 26.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 96.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 100.0),
                ],
            ),
            fig(
                "switches_per_cpu_5s",
                &[
                    ("cfs-6.1", 60609.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 155748.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 25486.0),
                ],
            ),
            fig(
                "hackbench_s",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 117.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 101.0),
                ],
            ),
        ],
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
        figures: &[
            fig(
                "wakeup_p50",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 4.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 4.0),
                ],
            ),
            fig(
                "wakeup_p90",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 3772.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 3772.0),
                ],
            ),
            fig(
                "wakeup_p99",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 7448.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 7496.0),
                ],
            ),
            fig(
                "request_p50",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 23264.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 23072.0),
                ],
            ),
            fig(
                "request_p90",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 32672.0),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 32096.0),
                ],
            ),
            fig(
                "requests_per_cpu_s",
                &[
                    ("eevdf-6.6:NO_RUN_TO_PARITY", 84.1),
                    ("eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY", 84.2),
                ],
            ),
        ],
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
        figures: &[
            fig(
                "switches:massive_intr",
                &[
                    ("cfs-6.1", 11.58e6),
                    ("eevdf-6.6", 6.13e6),
                    ("eevdf-6.6:RESCHED_CURR_INELIGIBLE", 6.28e6),
                ],
            ),
            fig(
                "delay_avg:massive_intr",
                &[
                    ("cfs-6.1", 0.026),
                    ("eevdf-6.6", 0.034),
                    ("eevdf-6.6:RESCHED_CURR_INELIGIBLE", 0.034),
                ],
            ),
            fig(
                "delay_avg:dav1d-worker",
                &[
                    ("cfs-6.1", 0.089),
                    ("eevdf-6.6", 0.262),
                    ("eevdf-6.6:RESCHED_CURR_INELIGIBLE", 0.240),
                ],
            ),
            fig(
                "runs_per_task:kworker-",
                &[
                    ("cfs-6.1", 1.6e6),
                    ("eevdf-6.6", 0.6e6),
                    ("eevdf-6.6:RESCHED_CURR_INELIGIBLE", 0.7e6),
                ],
            ),
        ],
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
        figures: &[fig(
            "share:tbench",
            &[
                ("cfs-6.1", 50.0),
                ("eevdf-6.12:NO_DELAY_DEQUEUE", 56.0),
                ("eevdf-6.12", 52.0),
            ],
        )],
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
        figures: &[
            fig("cpu:tbench", &[("*", 60.13)]),
            fig("cpu:tbench_srv", &[("*", 46.84)]),
        ],
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
        figures: &[fig(
            "throughput",
            &[
                ("eevdf-6.12", 519.0),
                ("eevdf-6.12:NO_DELAY_DEQUEUE", 590.0),
                ("eevdf-6.12:NO_WAKEUP_PREEMPTION", 427.0),
                ("eevdf-6.12:NO_WAKEUP_PREEMPTION,NO_DELAY_DEQUEUE", 498.0),
            ],
        )],
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
        figures: &[fig("cpu:hog", ALL4_90)],
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
        figures: &[fig("share:web", ALL3_25), fig("share:db", ALL3_75)],
    },
    Preset {
        name: "cgroup-idle",
        title: "A cpu.idle cgroup beside a busy cgroup",
        source: "\"[PATCH v3] sched: Cgroup SCHED_IDLE support\", Josh Don, Aug 2021",
        observed: "A hog in a cgroup with cpu.idle = 1 beside a nice-0 hog on one CPU gets about \
                   3 / 1027 = 0.3 % of it, as a SCHED_IDLE task would.",
        json: include_str!("../../../scenarios/presets/cgroup-idle.json"),
        figures: &[fig("share:batch", ALL3_0_29)],
    },
    Preset {
        name: "autogroup-nice",
        title: "Autogroup: nice 19 vs nice 0 in two sessions",
        source: "\"[PATCH] sched: automated per session task groups\", Mike Galbraith, Nov 2010; \
                 sched(7), \"The autogroup feature\"",
        observed: "With autogroup on, nice acts only inside a session: a nice 19 hog and a nice 0 \
                   hog in two sessions split a CPU 50/50.",
        json: include_str!("../../../scenarios/presets/autogroup-nice.json"),
        figures: &[fig("share:nice19", ALL3_50), fig("share:nice0", ALL3_50)],
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
        figures: &[fig("cpu:fair", ALL4_5)],
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
        figures: &[fig("cpu:ct", ALL4_50)],
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
        figures: &[fig("share:ct", ALL4_50), fig("share:web", ALL4_50)],
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

/// The preset `sc` is, its variants aside (the page lets them be chosen): the one whose
/// figures apply to a run of it.
pub fn preset_of(sc: &Scenario) -> Option<&'static Preset> {
    let mut s = sc.clone();
    s.variants.clear();
    presets().iter().find(|p| {
        let mut q = p.scenario();
        q.variants.clear();
        s == q
    })
}
