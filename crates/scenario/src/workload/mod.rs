//! Workload generators: one line of a scenario that stands for a benchmark people run on LKML
//! (`hackbench`, `schbench`, a tbench buddy pair, `massive_intr`, a periodic frame thread, an
//! fio-like I/O loop), expanded into ordinary task groups.
//!
//! Each generator models its tool faithfully but simply: what the tool's tasks do to the
//! scheduler (how much CPU they burn between blocking, whom they wake, how they block), not what
//! they compute. The expansion is plain scenario text: [`crate::Scenario::expanded`] shows it.
//!
//! This file holds each generator's parameters and their canonical JSON; `expand.rs` turns them
//! into task groups and channels.

use schedlab_sim::SchedPolicy;
use serde_json::{Map, Number, Value};

use crate::Duration;

mod expand;
mod params;

use expand::massive_count;
pub(crate) use expand::{channel_specs, expand};
pub use params::ParamSpec;

/// What kind of benchmark a workload is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WorkloadKind {
    /// `hackbench` (pipe mode): groups of senders flooding groups of receivers.
    Hackbench,
    /// `schbench`: message threads waking workers over futexes; workers sleep, then multiply matrices.
    Schbench,
    /// A tbench-like client/server buddy pair over a pipe.
    PipePair,
    /// `massive_intr`: CPU hogs that sleep briefly between bursts.
    MassiveIntr,
    /// A periodic thread (a video frame, cyclictest).
    Periodic,
    /// An fio-like job: a CPU burst per I/O, then an I/O wait.
    FioLike,
}

impl WorkloadKind {
    /// Every kind, in the order of its JSON names.
    pub const ALL: [WorkloadKind; 6] = [
        WorkloadKind::Hackbench,
        WorkloadKind::Schbench,
        WorkloadKind::PipePair,
        WorkloadKind::MassiveIntr,
        WorkloadKind::Periodic,
        WorkloadKind::FioLike,
    ];

    /// The JSON key naming the kind (`"hackbench"`, `"pipe_pair"`, …).
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Hackbench => "hackbench",
            WorkloadKind::Schbench => "schbench",
            WorkloadKind::PipePair => "pipe_pair",
            WorkloadKind::MassiveIntr => "massive_intr",
            WorkloadKind::Periodic => "periodic",
            WorkloadKind::FioLike => "fio_like",
        }
    }

    /// The kind a JSON key names.
    pub fn from_name(name: &str) -> Option<WorkloadKind> {
        WorkloadKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Short prefix of the kind's channel names.
    fn chan_prefix(self) -> &'static str {
        match self {
            WorkloadKind::Hackbench => "hb",
            WorkloadKind::Schbench => "sb",
            WorkloadKind::PipePair => "pp",
            WorkloadKind::MassiveIntr => "mi",
            WorkloadKind::Periodic => "per",
            WorkloadKind::FioLike => "fio",
        }
    }
}

/// The part a task group plays in its workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Role {
    /// hackbench's main thread (creates the others and starts them together).
    Main,
    /// hackbench sender.
    Sender,
    /// hackbench receiver.
    Receiver,
    /// schbench message thread.
    MessageThread,
    /// schbench worker.
    Worker,
    /// pipe_pair client (`tbench`).
    Client,
    /// pipe_pair server (`tbench_srv`).
    Server,
    /// massive_intr hog.
    Hog,
    /// periodic thread.
    Periodic,
    /// fio job.
    Job,
    /// fio's per-CPU dio completion kworker.
    Kworker,
}

impl Role {
    /// The role's name in outputs (`"sender"`, `"message_thread"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Role::Main => "main",
            Role::Sender => "sender",
            Role::Receiver => "receiver",
            Role::MessageThread => "message_thread",
            Role::Worker => "worker",
            Role::Client => "client",
            Role::Server => "server",
            Role::Hog => "hog",
            Role::Periodic => "periodic",
            Role::Job => "job",
            Role::Kworker => "kworker",
        }
    }
}

/// `hackbench -g GROUPS -f FDS -l LOOPS -s DATASIZE [--threads] [-p]`, as rt-tests'
/// `hackbench.c` runs it.
///
/// Per group, `fds` receivers and `fds` senders (`group()` creates the receivers first). Each
/// sender writes `loops` rounds of one message to every receiver of its group (`sender()`:
/// `for i < loops, for j < num_fds: write(out_fds[j])`); each receiver reads `fds × loops`
/// messages from its own fd (`receiver()`). A write costs the sender `send_us` of CPU and wakes
/// the receiver if it waits (WF_SYNC); a read costs the receiver `recv_us`. Both exit when
/// done, so the run's length is hackbench's "Time:".
///
/// The fds are AF_UNIX stream socketpairs by default and pipes with `-p` (`pipe`), and the two
/// differ in what blocks a sender: a socket holds `sk_sndbuf` (212992 bytes,
/// `net.core.wmem_default`) of skbs, each costing its `truesize` (the kmalloc'd head of
/// datasize + 320 bytes of `skb_shared_info`, rounded up to a power of two, plus the 256-byte
/// `sk_buff`): 278 messages of 100 bytes, and a blocked writer wakes only when the reader has
/// drained it to a quarter (`unix_writable`), 69 messages (both measured on Linux 6.18 with a
/// non-blocking socketpair: 278 writes, then POLLOUT after 209 reads). A pipe holds 16 pages
/// of ⌊4096 / datasize⌋ messages (640 of 100 bytes): writes merge into the last page, and a
/// blocked writer is woken (one) when a read empties the oldest page of the full pipe
/// (`pipe_read` frees a page only when it is empty), so it waits for 40 reads, not one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hackbench {
    /// `-g`: groups (default 10, 1..=1000).
    pub groups: u64,
    /// `-f`: senders and receivers per group (default 20, 1..=500).
    pub fds: u64,
    /// `-l`: messages each sender writes to each receiver (default 100; `fds × loops` ≤ 1 000 000).
    pub loops: u64,
    /// `-s`: message size in bytes (default 100, 1..=65536). The model does not copy bytes: the
    /// per-message cost is `send_us` / `recv_us`, which the user scales with it.
    pub datasize: u64,
    /// `--threads` (default false, process mode). Recorded only: threads and processes schedule
    /// alike in the model, and comm is `hackbench` either way.
    pub threads: bool,
    /// `-p`: pipes instead of socketpairs (default false).
    pub pipe: bool,
    /// CPU time of one write, µs (default 2).
    pub send_us: Number,
    /// CPU time of one read, µs (default 2).
    pub recv_us: Number,
    /// CPUs of all its tasks (default all).
    pub affinity: Option<Vec<u64>>,
}

impl Default for Hackbench {
    fn default() -> Self {
        Hackbench {
            groups: 10,
            fds: 20,
            loops: 100,
            datasize: 100,
            threads: false,
            pipe: false,
            send_us: 2.into(),
            recv_us: 2.into(),
            affinity: None,
        }
    }
}

/// `schbench -m MESSAGE_THREADS -t WORKERS [-F KB] [-n OPS]` in its default mode (no `-R`,
/// `-p` or `-C`), as schbench.c v1.0 (Chris Mason, 2023-04-21) runs it.
///
/// Every thread waits on a futex word of its own (`fwait`) and is woken by `fpost`, a plain
/// `FUTEX_WAKE`: a wakeup without WF_SYNC. A worker (`worker_thread`) loops over
/// `msg_and_wait`, queueing itself on its message thread's list and posting the message
/// thread's futex, then waiting on its own; once woken it runs one request: `usleep(100)`
/// ("simulated networking", `sleep_us`) and `do_work`, `operations` matrix multiplications
/// (`do_some_math`) of a `cache_footprint_kb` footprint. A message thread (`run_msg_thread`)
/// does no work of its own: it sleeps on its futex until a worker posts, wakes every worker
/// queued on its list (`xlist_wake_all`), and sleeps again; it never waits for answers.
///
/// The model keeps that shape with futex channels (`"futex": true`): the message thread's
/// word `sb{m}.post` and each worker's own `sb{m}.wake{i}`. A worker writes a request to `post`
/// that names its own word for the answer (`{"send": "sb0.post", "reply_to": "sb0.wake{i}"}`:
/// it adds itself to the list, then posts) and reads its word; a message thread reads `post`
/// (taking the whole list when it has walked the last one, newest first, as `xlist_splice`
/// and the walk do), pays `think_us` and posts the word of the worker whose request it took
/// (`{"reply": true}`), once per listed worker. A post that finds nobody waiting is kept, as
/// the futex word stays set until its owner's next `fwait`. Wakeup latency (schbench's: from the message thread's wake to the worker running)
/// and request latency (from the start of the `usleep` to the end of the math) are what
/// schbench reports.
///
/// `do_work` holds a per-CPU lock around the math (`lock_this_cpu`, `lock`; off with `-L`):
/// one array of locks per schbench run (`{"lock_cpu": "sb.cpu"}`), taken by spinning on
/// `pthread_mutex_trylock`, so a worker switched in on a CPU whose lock a preempted worker
/// holds burns its CPU time until the holder runs again and finishes its math.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Schbench {
    /// `-m`: message threads (default 1, 1..=1024).
    pub message_threads: u64,
    /// `-t`: workers per message thread; 0 (default) = ⌈CPUs / message threads⌉, as schbench
    /// sets it from `get_nprocs()` (0..=1000).
    pub workers: u64,
    /// `-F`: the matrices' cache footprint, KiB (default 256, 1..=1048576): three `n × n`
    /// matrices of `unsigned long`, n = ⌊√(KiB × 1024 / 3 / 8)⌋ (104 at 256 KiB).
    pub cache_footprint_kb: u64,
    /// `-n`: matrix multiplications per request (default 5, 1..=1000).
    pub operations: u64,
    /// CPU time of one request's math, µs, a number or a distribution drawn per request
    /// (`{"normal": [mean, sd]}`...: a real CPU's math time varies with its caches and
    /// frequency); default (none): `operations` × n³ multiply-adds at [`SCHBENCH_MADD_PS`] each
    /// (3656 µs at the defaults).
    pub request_us: Option<Duration>,
    /// The `usleep` before the math, µs (default 100, v1.0's fixed `usleep(100)`; later
    /// schbench versions take it as `-s`).
    pub sleep_us: Number,
    /// The message thread's CPU time per worker it wakes (the list splice, `gettimeofday`,
    /// `FUTEX_WAKE`), µs (default 5: with the EPYC VM's switch and wakeup costs the message
    /// thread then spends 7.5–7.7 µs a request, where traced real runs spend 6.4–8.3;
    /// `real_schbench`).
    pub think_us: Number,
    /// Take the CPU's lock around the math (default true; false is schbench's `-L`).
    pub lock: bool,
    /// CPUs of all its tasks (default all).
    pub affinity: Option<Vec<u64>>,
}

/// One multiply-add of schbench's `do_some_math`, ps: 650 on the machine of
/// docs/measurements.md (`perf stat` task-clock per request of `schbench -m 1 -t 1 -r 5`,
/// 5 × 104³ multiply-adds: 3.57–4.33 ms over three runs, median 3.65 ms).
pub const SCHBENCH_MADD_PS: u64 = 650;

impl Schbench {
    /// `matrix_size`: ⌊√(cache_footprint_kb × 1024 / 3 / sizeof(unsigned long))⌋.
    pub fn matrix_size(&self) -> u64 {
        let cells = self.cache_footprint_kb.saturating_mul(1024) / 3 / 8;
        let mut n = (cells as f64).sqrt() as u64;
        while n * n > cells {
            n -= 1;
        }
        while (n + 1) * (n + 1) <= cells {
            n += 1;
        }
        n
    }

    /// Mean CPU time of one request's math, ns: `request_us`'s mean, or `operations` × n³
    /// multiply-adds.
    pub fn request_ns(&self) -> u64 {
        match &self.request_us {
            Some(us) => (us.mean() * 1e3).round() as u64,
            None => {
                let n = self.matrix_size();
                let madds = self
                    .operations
                    .saturating_mul(n.saturating_mul(n).saturating_mul(n));
                madds.saturating_mul(SCHBENCH_MADD_PS) / 1000
            }
        }
    }

    /// The `usleep` before the math, ns.
    pub fn sleep_ns(&self) -> u64 {
        (self.sleep_us.as_f64().unwrap_or(100.0) * 1e3).round() as u64
    }

    /// Workers per message thread on a machine with `cpus` CPUs (`-t`, or schbench's default).
    pub fn workers_for(&self, cpus: u64) -> u64 {
        if self.workers == 0 {
            cpus.max(1).div_ceil(self.message_threads.max(1))
        } else {
            self.workers
        }
    }
}

impl Default for Schbench {
    fn default() -> Self {
        Schbench {
            message_threads: 1,
            workers: 0,
            cache_footprint_kb: 256,
            operations: 5,
            request_us: None,
            sleep_us: 100.into(),
            think_us: 5.into(),
            lock: true,
            affinity: None,
        }
    }
}

/// Where the two tasks of each [`PipePair`] may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Placement {
    /// Any CPU (default).
    Free,
    /// Pair k: both on CPU k mod cpus.
    Stacked,
    /// Pair k: client on CPU 2k mod cpus, server on CPU 2k+1 mod cpus.
    Cross,
}

impl Placement {
    /// The name in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Free => "free",
            Placement::Stacked => "stacked",
            Placement::Cross => "cross",
        }
    }
}

/// tbench-like buddies: a client (`tbench`) and a server (`tbench_srv`) ping-ponging over two
/// pipes. The client does `client_us` of work and sends a request, does `client_post_us` more
/// (work that overlaps the server's, as tbench's client keeps processing), then waits for the
/// reply; the server waits for a request, does `server_us` of work and replies. Both are 1:1 sleepers of
/// different widths, the asymmetry of the delayed-dequeue thread.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PipePair {
    /// Pairs (default 1, 1..=10000); `tbench N` runs N pairs.
    pub pairs: u64,
    /// Client work per message before sending, µs (default 60).
    pub client_us: Number,
    /// Client work after sending, before waiting for the reply, µs (default 0).
    pub client_post_us: Number,
    /// Server work per message, µs (default 40).
    pub server_us: Number,
    /// Server work after replying, before it waits for the next request, µs (default 0): the
    /// reply's send returning to user space.
    pub server_post_us: Number,
    /// Client CPU time for a reply it had to wait for, beyond one it finds waiting: the read's
    /// wait path (µs, default 0; tbench's TCP socket: `sk_wait_data` and the read's retry).
    pub client_wait_us: Number,
    /// Server CPU time for a request it had to wait for (µs, default 0), as `client_wait_us`.
    pub server_wait_us: Number,
    /// Where the pairs run (default free).
    pub placement: Placement,
}

impl Default for PipePair {
    fn default() -> Self {
        PipePair {
            pairs: 1,
            client_us: 60.into(),
            client_post_us: 0.into(),
            server_us: 40.into(),
            server_post_us: 0.into(),
            client_wait_us: 0.into(),
            server_wait_us: 0.into(),
            placement: Placement::Free,
        }
    }
}

/// `massive_intr`: each process loops over `work_ms` of CPU and `sleep_ms` of sleep, an ~88%
/// hog at the tool's defaults (8 ms / 1 ms).
///
/// Follows massive_intr.c (Satoru Takeuchi, 2007, `massive_intr <nproc> <runtime>`): the
/// parent calibrates a busy loop's iterations per millisecond, forks `nproc` children and
/// waits for them in `wait()`; each child runs `loopfnc(WORK_MSECS × loops_per_msec)`, a fixed
/// amount of CPU work (8 ms of CPU, not 8 ms of wall time: preemptions stretch it), then
/// `nanosleep` for `SLEEP_MSECS` (1 ms), counts the loop and checks `time()`, until `runtime`
/// seconds have passed; it prints its count. Here `count` is `nproc` and each process is
/// `run work_ms` then `sleep sleep_ms`; not modelled: the start (each child's 200 ms `usleep`
/// and the `SIGUSR1` that releases them together), the sleeping parent, and the 50 µs timer
/// slack of a normal task's `nanosleep`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MassiveIntr {
    /// Processes; 0 (default) = one per CPU (0..=10000).
    pub count: u64,
    /// CPU time per burst, ms (default 8).
    pub work_ms: Number,
    /// Sleep between bursts, ms (default 1).
    pub sleep_ms: Number,
    /// CPUs of all its tasks (default all).
    pub affinity: Option<Vec<u64>>,
}

impl Default for MassiveIntr {
    fn default() -> Self {
        MassiveIntr {
            count: 0,
            work_ms: 8.into(),
            sleep_ms: 1.into(),
            affinity: None,
        }
    }
}

/// A periodic thread (a video decoder's frame, a compositor, cyclictest): `work_us` of CPU, then
/// sleep until the next multiple of `period_us` since the task started (an absolute timer; an
/// overrun skips the missed periods).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Periodic {
    /// Threads (default 1, 1..=10000).
    pub count: u64,
    /// Period, µs (default 16667, one 60 Hz frame).
    pub period_us: Number,
    /// Work per period, µs: a number or a distribution (default 2000).
    pub work_us: Duration,
    /// Custom slice in µs (`sched_attr.sched_runtime`, 100..=100000), honoured from 6.12.
    pub slice_us: Option<Number>,
    /// Nice value (default 0).
    pub nice: i64,
    /// Policy (default normal).
    pub policy: SchedPolicy,
    /// comm (default `periodic`, 1–15 bytes).
    pub name: String,
    /// CPUs (default all).
    pub affinity: Option<Vec<u64>>,
}

impl Default for Periodic {
    fn default() -> Self {
        Periodic {
            count: 1,
            period_us: 16667.into(),
            work_us: Duration::Fixed(2000.into()),
            slice_us: None,
            nice: 0,
            policy: SchedPolicy::Normal,
            name: "periodic".into(),
            affinity: None,
        }
    }
}

/// fio jobs doing direct asynchronous I/O, as `fio --ioengine libaio --direct 1 --iodepth D
/// --numjobs N` runs them (the job of seed 004: `--rw randwrite --bs 4k --iodepth 32
/// --numjobs 8`, Phil Auld, "Re: [PATCH 17/24] sched/fair: Implement delayed dequeue",
/// 2024-11-01).
///
/// Each job (fio's `thread_main` → `do_io`) fills its queue, `iodepth` I/Os, each costing
/// `cpu_us` of CPU (fio's `io_u` preparation and `io_submit` through the filesystem and block
/// layer); then it waits in `io_getevents(min_nr = 1)` (`iodepth_batch_complete_min` 1) and
/// for every completion it reaps submits the next I/O (`iodepth_low` = `iodepth`: the queue is
/// kept full), again `cpu_us`. Its own AIO context is a device channel (`io{i}`).
///
/// The device answers each I/O after `io_us` with an interrupt on the submitting CPU (a
/// hardware queue per CPU) costing `hardirq_ns`. A read completes in the interrupt
/// (`iomap_dio_bio_end_io` completes inline) and `aio_complete` wakes the job from there. A
/// write's completion needs filesystem work in process context: the bio's end_io queues it on
/// the superblock's per-CPU `dio/<dev>` workqueue, and that CPU's kworker runs
/// `iomap_dio_complete_work` (`kworker_us`: the filesystem's end_io, e.g. converting an
/// unwritten extent, then `aio_complete`), which wakes the job. So with `rw` "write" there is
/// one kworker per CPU, pinned to it, woken by the interrupt and waking the job: the shape in
/// which delayed dequeue and wakeup preemption meet fio's I/O.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FioLike {
    /// `numjobs` (default 4, 1..=10000).
    pub jobs: u64,
    /// `iodepth`: I/Os each job keeps in flight (default 1, 1..=1024).
    pub iodepth: u64,
    /// CPU time per I/O in the job (prepare, submit, reap), µs (default 24: measured, the
    /// median of four runs, 20.5–28.2 µs).
    pub cpu_us: Number,
    /// Device time per I/O, submission to completion interrupt, µs: a number or a
    /// distribution (default `{"exp": 280}`: the measured mean of a 4 KiB direct random write
    /// at queue depth 32 on the machine of docs/measurements.md, median of four runs).
    pub io_us: Duration,
    /// `rw`: "read" (completion in the interrupt) or "write" (completion by the per-CPU dio
    /// kworker); default "read".
    pub write: bool,
    /// CPU time of a write completion's work in the kworker, µs (default: measured, see
    /// docs/measurements.md).
    pub kworker_us: Number,
    /// The completion interrupt's handler time, ns (default: measured).
    pub hardirq_ns: u64,
    /// CPUs of all its jobs (default all).
    pub affinity: Option<Vec<u64>>,
}

/// `kworker_us`'s default: `iomap_dio_complete_work` of a 4 KiB O_DIRECT write into an
/// unwritten ext4 extent, measured on Linux 6.18 (median of four runs' means, 10.8–13.7 µs;
/// docs/measurements.md).
pub const FIO_KWORKER_US: u64 = 13;
/// `hardirq_ns`'s default: the virtio-blk completion interrupt and its BLOCK softirq per
/// completion on the same machine (median of four runs, 4.6–5.7 µs).
pub const FIO_HARDIRQ_NS: u64 = 5200;

impl Default for FioLike {
    fn default() -> Self {
        FioLike {
            jobs: 4,
            iodepth: 1,
            cpu_us: 24.into(),
            io_us: Duration::Exp(280.into()),
            write: false,
            kworker_us: FIO_KWORKER_US.into(),
            hardirq_ns: FIO_HARDIRQ_NS,
            affinity: None,
        }
    }
}

/// One workload generator with its parameters, as written.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Workload {
    /// `{"hackbench": {...}}`.
    Hackbench(Hackbench),
    /// `{"schbench": {...}}`.
    Schbench(Schbench),
    /// `{"pipe_pair": {...}}`.
    PipePair(PipePair),
    /// `{"massive_intr": {...}}`.
    MassiveIntr(MassiveIntr),
    /// `{"periodic": {...}}`.
    Periodic(Periodic),
    /// `{"fio_like": {...}}`.
    FioLike(FioLike),
}

/// What one workload expanded to.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorkloadInfo {
    /// Its kind.
    pub kind: WorkloadKind,
    /// A one-line description, e.g. `hackbench 8 groups x 20 fds`.
    pub label: String,
    /// Task-group indices in the expanded task list (= `TaskSpec.group`) per role.
    pub roles: Vec<(Role, Vec<u32>)>,
    /// Its parameters.
    pub params: Workload,
}

impl Workload {
    /// Its kind.
    pub fn kind(&self) -> WorkloadKind {
        match self {
            Workload::Hackbench(_) => WorkloadKind::Hackbench,
            Workload::Schbench(_) => WorkloadKind::Schbench,
            Workload::PipePair(_) => WorkloadKind::PipePair,
            Workload::MassiveIntr(_) => WorkloadKind::MassiveIntr,
            Workload::Periodic(_) => WorkloadKind::Periodic,
            Workload::FioLike(_) => WorkloadKind::FioLike,
        }
    }

    /// How many tasks it expands to on a machine with `cpus` CPUs.
    pub fn task_count(&self, cpus: u64) -> u64 {
        match self {
            Workload::Hackbench(h) => h
                .groups
                .saturating_mul(h.fds)
                .saturating_mul(2)
                .saturating_add(1),
            Workload::Schbench(s) => s
                .message_threads
                .saturating_mul(s.workers_for(cpus).saturating_add(1)),
            Workload::PipePair(p) => p.pairs.saturating_mul(2),
            Workload::MassiveIntr(m) => massive_count(m, cpus),
            Workload::Periodic(p) => p.count,
            Workload::FioLike(f) => f.jobs,
        }
    }

    /// The canonical JSON value: `{"kind": {params that differ from the defaults}}`.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        fn put<T: PartialEq + Into<Value> + Clone>(
            o: &mut Map<String, Value>,
            k: &str,
            v: &T,
            d: &T,
        ) {
            if v != d {
                o.insert(k.into(), v.clone().into());
            }
        }
        fn aff(o: &mut Map<String, Value>, a: &Option<Vec<u64>>) {
            if let Some(a) = a {
                o.insert(
                    "affinity".into(),
                    Value::Array(a.iter().map(|&c| c.into()).collect()),
                );
            }
        }
        match self {
            Workload::Hackbench(h) => {
                let d = Hackbench::default();
                put(&mut o, "groups", &h.groups, &d.groups);
                put(&mut o, "fds", &h.fds, &d.fds);
                put(&mut o, "loops", &h.loops, &d.loops);
                put(&mut o, "datasize", &h.datasize, &d.datasize);
                put(&mut o, "threads", &h.threads, &d.threads);
                put(&mut o, "pipe", &h.pipe, &d.pipe);
                put(&mut o, "send_us", &h.send_us, &d.send_us);
                put(&mut o, "recv_us", &h.recv_us, &d.recv_us);
                aff(&mut o, &h.affinity);
            }
            Workload::Schbench(s) => {
                let d = Schbench::default();
                put(
                    &mut o,
                    "message_threads",
                    &s.message_threads,
                    &d.message_threads,
                );
                put(&mut o, "workers", &s.workers, &d.workers);
                put(
                    &mut o,
                    "cache_footprint_kb",
                    &s.cache_footprint_kb,
                    &d.cache_footprint_kb,
                );
                put(&mut o, "operations", &s.operations, &d.operations);
                if let Some(r) = &s.request_us {
                    o.insert("request_us".into(), r.to_value());
                }
                put(&mut o, "sleep_us", &s.sleep_us, &d.sleep_us);
                put(&mut o, "think_us", &s.think_us, &d.think_us);
                put(&mut o, "lock", &s.lock, &d.lock);
                aff(&mut o, &s.affinity);
            }
            Workload::PipePair(p) => {
                let d = PipePair::default();
                put(&mut o, "pairs", &p.pairs, &d.pairs);
                put(&mut o, "client_us", &p.client_us, &d.client_us);
                put(
                    &mut o,
                    "client_post_us",
                    &p.client_post_us,
                    &d.client_post_us,
                );
                put(&mut o, "server_us", &p.server_us, &d.server_us);
                put(
                    &mut o,
                    "server_post_us",
                    &p.server_post_us,
                    &d.server_post_us,
                );
                put(
                    &mut o,
                    "client_wait_us",
                    &p.client_wait_us,
                    &d.client_wait_us,
                );
                put(
                    &mut o,
                    "server_wait_us",
                    &p.server_wait_us,
                    &d.server_wait_us,
                );
                if p.placement != d.placement {
                    o.insert("placement".into(), p.placement.name().into());
                }
            }
            Workload::MassiveIntr(m) => {
                let d = MassiveIntr::default();
                put(&mut o, "count", &m.count, &d.count);
                put(&mut o, "work_ms", &m.work_ms, &d.work_ms);
                put(&mut o, "sleep_ms", &m.sleep_ms, &d.sleep_ms);
                aff(&mut o, &m.affinity);
            }
            Workload::Periodic(p) => {
                let d = Periodic::default();
                put(&mut o, "name", &p.name, &d.name);
                put(&mut o, "count", &p.count, &d.count);
                put(&mut o, "period_us", &p.period_us, &d.period_us);
                if p.work_us != d.work_us {
                    o.insert("work_us".into(), p.work_us.to_value());
                }
                if let Some(s) = &p.slice_us {
                    o.insert("slice_us".into(), Value::Number(s.clone()));
                }
                put(&mut o, "nice", &p.nice, &d.nice);
                if p.policy != d.policy {
                    o.insert("policy".into(), p.policy.name().into());
                }
                aff(&mut o, &p.affinity);
            }
            Workload::FioLike(f) => {
                let d = FioLike::default();
                put(&mut o, "jobs", &f.jobs, &d.jobs);
                put(&mut o, "iodepth", &f.iodepth, &d.iodepth);
                put(&mut o, "cpu_us", &f.cpu_us, &d.cpu_us);
                if f.io_us != d.io_us {
                    o.insert("io_us".into(), f.io_us.to_value());
                }
                if f.write {
                    o.insert("rw".into(), "write".into());
                }
                put(&mut o, "kworker_us", &f.kworker_us, &d.kworker_us);
                put(&mut o, "hardirq_ns", &f.hardirq_ns, &d.hardirq_ns);
                aff(&mut o, &f.affinity);
            }
        }
        let mut w = Map::new();
        w.insert(self.kind().name().into(), Value::Object(o));
        Value::Object(w)
    }
}
