//! Each generator's parameters as a form shows them: name, default, what is allowed, and a
//! line of help. The validator takes its list of known keys from here, and a test holds every
//! default to the generator's `Default` and every example of a bad value to an error at that
//! parameter, so the form and the format cannot drift apart.

use super::WorkloadKind;

/// One parameter of a workload generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// The key in the workload's object.
    pub name: &'static str,
    /// Its default as the JSON value would be written (`""`: none, e.g. all CPUs).
    pub default: &'static str,
    /// What is allowed, for a person.
    pub allowed: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// A value the validator refuses (for the tests and the form's examples).
    pub bad: &'static str,
}

const fn p(
    name: &'static str,
    default: &'static str,
    allowed: &'static str,
    help: &'static str,
    bad: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        default,
        allowed,
        help,
        bad,
    }
}

const AFFINITY: ParamSpec = p(
    "affinity",
    "",
    "a list of CPUs, e.g. [0, 1]",
    "the CPUs its tasks may run on (default: all)",
    "[-1]",
);

const CGROUP: ParamSpec = p(
    "cgroup",
    "",
    "a path listed in \"cgroups\", e.g. \"/db\"",
    "the cgroup its tasks run in (default: the root)",
    "\"/not-listed\"",
);

const SESSION: ParamSpec = p(
    "session",
    "",
    "1..=1000000, with \"autogroup\": true",
    "the autogroup session its tasks run in, as if started from one shell (default: none)",
    "0",
);

const HACKBENCH: &[ParamSpec] = &[
    p(
        "groups",
        "10",
        "1..=1000",
        "sender/receiver groups (-g)",
        "0",
    ),
    p(
        "fds",
        "20",
        "1..=500",
        "senders and receivers per group (-f)",
        "501",
    ),
    p(
        "loops",
        "100",
        "1.., loops × fds ≤ 1000000",
        "messages from each sender to each receiver (-l)",
        "0",
    ),
    p(
        "datasize",
        "100",
        "1..=65536 bytes",
        "message size (-s); sets how many fit in a pipe",
        "0",
    ),
    p(
        "threads",
        "false",
        "true or false",
        "threads (-T) or processes: the label only",
        "1",
    ),
    p(
        "pipe",
        "false",
        "true or false",
        "pipes (-p) instead of socketpairs: how many messages fit and when a blocked writer wakes",
        "0",
    ),
    p(
        "send_us",
        "2",
        "µs, > 0, ≤ 1 s",
        "CPU time of one write",
        "0",
    ),
    p(
        "recv_us",
        "2",
        "µs, > 0, ≤ 1 s",
        "CPU time of one read",
        "-1",
    ),
    AFFINITY,
    CGROUP,
    SESSION,
];

const SCHBENCH: &[ParamSpec] = &[
    p(
        "message_threads",
        "1",
        "1..=1024",
        "message threads (-m)",
        "0",
    ),
    p(
        "workers",
        "0",
        "0..=1000; 0 = ⌈CPUs / message threads⌉",
        "workers per message thread (-t)",
        "1001",
    ),
    p(
        "cache_footprint_kb",
        "256",
        "1..=1048576",
        "the matrices' cache footprint, KiB (-F)",
        "0",
    ),
    p(
        "operations",
        "5",
        "1..=1000",
        "matrix multiplications per request (-n)",
        "0",
    ),
    p(
        "request_us",
        "",
        "µs, > 0, mean ≤ 1 s; a number or a distribution",
        "CPU time of one request's math, drawn per request (default: from -F and -n, measured)",
        "0",
    ),
    p(
        "sleep_us",
        "100",
        "µs, > 0, ≤ 1 s",
        "the usleep before each request's math",
        "0",
    ),
    p(
        "think_us",
        "5",
        "µs, > 0, ≤ 1 s",
        "the message thread's CPU per worker it wakes",
        "0",
    ),
    p(
        "lock",
        "true",
        "true or false",
        "hold the CPU's lock around the math, spinning while another worker holds it (false: -L)",
        "1",
    ),
    AFFINITY,
    CGROUP,
    SESSION,
];

const PIPE_PAIR: &[ParamSpec] = &[
    p("pairs", "1", "1..=10000", "client/server pairs", "0"),
    p(
        "client_us",
        "60",
        "µs, > 0, ≤ 1 s",
        "client CPU time before each request",
        "0",
    ),
    p(
        "client_post_us",
        "0",
        "µs, 0..=1 s",
        "client CPU time after sending, overlapping the server",
        "-1",
    ),
    p(
        "server_us",
        "40",
        "µs, > 0, ≤ 1 s",
        "server CPU time per request",
        "0",
    ),
    p(
        "server_post_us",
        "0",
        "µs, 0..=1 s",
        "server CPU time after replying, before it waits for the next request",
        "-1",
    ),
    p(
        "client_wait_us",
        "0",
        "µs, 0..=1 s",
        "client CPU time for a reply it had to wait for (the read's wait path)",
        "-1",
    ),
    p(
        "server_wait_us",
        "0",
        "µs, 0..=1 s",
        "server CPU time for a request it had to wait for (the read's wait path)",
        "-1",
    ),
    p(
        "placement",
        "\"free\"",
        "\"free\", \"stacked\" (one CPU) or \"cross\" (two CPUs)",
        "where each pair may run",
        "\"near\"",
    ),
    CGROUP,
    SESSION,
];

const MASSIVE_INTR: &[ParamSpec] = &[
    p(
        "count",
        "0",
        "0..=10000 (0: one per CPU)",
        "processes",
        "-1",
    ),
    p("work_ms", "8", "ms, > 0", "CPU time of one loop", "0"),
    p("sleep_ms", "1", "ms, > 0", "sleep after each loop", "0"),
    AFFINITY,
    CGROUP,
    SESSION,
];

const PERIODIC: &[ParamSpec] = &[
    p(
        "name",
        "\"periodic\"",
        "1–15 bytes",
        "the tasks' comm",
        "\"\"",
    ),
    p("count", "1", "1..=10000", "tasks", "0"),
    p(
        "period_us",
        "16667",
        "µs, > 0",
        "the period (16667: 60 frames a second)",
        "0",
    ),
    p(
        "work_us",
        "2000",
        "µs, or a distribution like {\"exp\": 2000}",
        "CPU time each period",
        "0",
    ),
    p(
        "slice_us",
        "",
        "100..=100000 µs",
        "custom slice (sched_attr.sched_runtime, 6.12+)",
        "5",
    ),
    p("nice", "0", "-20..=19", "nice value", "20"),
    p(
        "policy",
        "\"normal\"",
        "\"normal\", \"batch\" or \"idle\"",
        "scheduling policy",
        "\"fifo\"",
    ),
    AFFINITY,
    CGROUP,
    SESSION,
];

const FIO_LIKE: &[ParamSpec] = &[
    p("jobs", "4", "1..=10000", "jobs (numjobs)", "0"),
    p(
        "iodepth",
        "1",
        "1..=1024",
        "I/Os each job keeps in flight (libaio iodepth)",
        "0",
    ),
    p(
        "cpu_us",
        "24",
        "µs, > 0, ≤ 1 s",
        "CPU time per I/O in the job (prepare, submit, reap; measured default)",
        "0",
    ),
    p(
        "io_us",
        "{\"exp\": 280}",
        "µs, or a distribution",
        "the device's time for one I/O, submission to completion interrupt (measured default)",
        "0",
    ),
    p(
        "rw",
        "\"read\"",
        "\"read\", \"write\"",
        "write: completions go through the per-CPU dio kworker; read: the interrupt wakes the job",
        "\"trim\"",
    ),
    p(
        "kworker_us",
        "13",
        "µs, > 0, ≤ 1 s",
        "CPU time of a write completion in the kworker (measured default)",
        "0",
    ),
    p(
        "hardirq_ns",
        "5200",
        "0..=1000000",
        "the completion interrupt's handler time (measured default)",
        "-1",
    ),
    AFFINITY,
    CGROUP,
    SESSION,
];

impl WorkloadKind {
    /// Its parameters, in the order a form shows them.
    pub fn params(self) -> &'static [ParamSpec] {
        match self {
            WorkloadKind::Hackbench => HACKBENCH,
            WorkloadKind::Schbench => SCHBENCH,
            WorkloadKind::PipePair => PIPE_PAIR,
            WorkloadKind::MassiveIntr => MASSIVE_INTR,
            WorkloadKind::Periodic => PERIODIC,
            WorkloadKind::FioLike => FIO_LIKE,
        }
    }

    /// The keys its object may have.
    pub fn keys(self) -> Vec<&'static str> {
        self.params().iter().map(|p| p.name).collect()
    }
}
