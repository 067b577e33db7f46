//! Workload generators: each kind's parameters with their defaults and ranges.

use schedlab_sim::limits;
use serde_json::{Map, Number, Value};

use super::program::{affinity, comm, duration, nice, opt, policy, slice, time};
use super::{join, show, KINDS, MAX_NS, P};
use crate::workload::{
    FioLike, Hackbench, MassiveIntr, Periodic, PipePair, Placement, Schbench, Workload,
    WorkloadKind,
};
use crate::{Duration, Unit, MAX_COUNT};

/// `{"kind": {params}}`.
pub(super) fn workload(p: &mut P, path: &str, v: &Value, cpus: Option<u64>) -> Option<Workload> {
    let Value::Object(o) = v else {
        p.err(
            path,
            format!(
                "a workload is an object with one key naming its kind ({KINDS}), got {}",
                show(v)
            ),
        );
        return None;
    };
    if o.len() != 1 {
        p.err(
            path,
            format!(
                "a workload has exactly one key naming its kind (one of: {KINDS}), got {}",
                o.len()
            ),
        );
        return None;
    }
    let (k, val) = o.iter().next()?;
    let path = join(path, k);
    let Some(kind) = WorkloadKind::from_name(k) else {
        p.err(
            &path,
            format!("unknown workload kind; expected one of: {KINDS}"),
        );
        return None;
    };
    let Value::Object(o) = val else {
        p.err(
            &path,
            format!(
                "expected an object of parameters ({{}} for the defaults), got {}",
                show(val)
            ),
        );
        return None;
    };
    let w = W { o, path: &path };
    match kind {
        WorkloadKind::Hackbench => hackbench(p, &w, cpus).map(Workload::Hackbench),
        WorkloadKind::Schbench => schbench(p, &w, cpus).map(Workload::Schbench),
        WorkloadKind::PipePair => pipe_pair(p, &w).map(Workload::PipePair),
        WorkloadKind::MassiveIntr => massive_intr(p, &w, cpus).map(Workload::MassiveIntr),
        WorkloadKind::Periodic => periodic(p, &w, cpus).map(Workload::Periodic),
        WorkloadKind::FioLike => fio_like(p, &w, cpus).map(Workload::FioLike),
    }
}

/// A workload's parameter object.
pub(super) struct W<'a> {
    o: &'a Map<String, Value>,
    path: &'a str,
}

impl W<'_> {
    fn path(&self, k: &str) -> String {
        join(self.path, k)
    }
    /// A whole number in lo..=hi, or `default` when absent.
    fn uint(&self, p: &mut P, k: &str, default: u64, lo: u64, hi: u64) -> Option<u64> {
        self.o
            .get(k)
            .map_or(Some(default), |v| p.uint(&self.path(k), v, lo, hi))
    }
    /// A time in µs/ms (a plain number, at least 1 ns, at most `max_ns`), or `default`.
    fn time(&self, p: &mut P, k: &str, default: Number, unit: Unit, max_ns: f64) -> Option<Number> {
        self.o
            .get(k)
            .map_or(Some(default), |v| time(p, &self.path(k), v, unit, max_ns))
    }
    /// A duration (number or distribution) in µs, or `default`.
    fn duration(&self, p: &mut P, k: &str, default: Duration) -> Option<Duration> {
        self.o
            .get(k)
            .map_or(Some(default), |v| duration(p, &self.path(k), v, Unit::Us))
    }
    fn affinity(&self, p: &mut P, cpus: Option<u64>) -> Option<Option<Vec<u64>>> {
        opt(self.o.get("affinity"), |v| {
            affinity(p, &self.path("affinity"), v, cpus)
        })
    }
}

/// Per-message and per-request costs: at most 1 s.
pub(super) const MAX_COST_NS: f64 = 1e9;

pub(super) fn hackbench(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Hackbench> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::Hackbench.keys());
    let d = Hackbench::default();
    let max_loop = limits::MAX_LOOP_TIMES as u64;
    let groups = w.uint(p, "groups", d.groups, 1, 1000);
    let fds = w.uint(p, "fds", d.fds, 1, 500);
    let loops = w.uint(p, "loops", d.loops, 1, max_loop);
    let datasize = w.uint(p, "datasize", d.datasize, 1, 65536);
    let mut flag = |key: &str, default: bool| p.flag(&w.path(key), w.o.get(key), default);
    let threads = flag("threads", d.threads);
    let pipe = flag("pipe", d.pipe);
    let send_us = w.time(p, "send_us", d.send_us, Unit::Us, MAX_COST_NS);
    let recv_us = w.time(p, "recv_us", d.recv_us, Unit::Us, MAX_COST_NS);
    let affinity = w.affinity(p, cpus);
    let (fds, loops) = (fds?, loops?);
    if fds * loops > max_loop {
        p.err(
            &w.path("loops"),
            format!(
                "{loops} loops x {fds} fds = {} messages per receiver; at most {max_loop} (allowed 1..={})",
                fds * loops,
                max_loop / fds
            ),
        );
        return None;
    }
    Some(Hackbench {
        groups: groups?,
        fds,
        loops,
        datasize: datasize?,
        threads: threads?,
        pipe: pipe?,
        send_us: send_us?,
        recv_us: recv_us?,
        affinity: affinity?,
    })
}

pub(super) fn schbench(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Schbench> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::Schbench.keys());
    let d = Schbench::default();
    let message_threads = w.uint(p, "message_threads", d.message_threads, 1, 1024);
    let workers = w.uint(p, "workers", d.workers, 0, 1000);
    let cache_footprint_kb = w.uint(p, "cache_footprint_kb", d.cache_footprint_kb, 1, 1 << 20);
    let operations = w.uint(p, "operations", d.operations, 1, 1000);
    let request_us = opt(w.o.get("request_us"), |v| {
        duration(p, &w.path("request_us"), v, Unit::Us)
    });
    let sleep_us = w.time(p, "sleep_us", d.sleep_us, Unit::Us, MAX_COST_NS);
    let think_us = w.time(p, "think_us", d.think_us, Unit::Us, MAX_COST_NS);
    let lock = p.flag(&w.path("lock"), w.o.get("lock"), d.lock);
    let affinity = w.affinity(p, cpus);
    let s = Schbench {
        message_threads: message_threads?,
        workers: workers?,
        cache_footprint_kb: cache_footprint_kb?,
        operations: operations?,
        request_us: request_us?,
        sleep_us: sleep_us?,
        think_us: think_us?,
        lock: lock?,
        affinity: affinity?,
    };
    if s.request_us.is_some() && s.request_ns() as f64 > MAX_COST_NS {
        p.err(
            &w.path("request_us"),
            format!(
                "a request's math averages {} ms of CPU; at most 1 s",
                s.request_ns() / 1_000_000
            ),
        );
        return None;
    }
    if s.request_us.is_none() && s.request_ns() as f64 > MAX_COST_NS {
        p.err(
            &w.path("operations"),
            format!(
                "{} multiplications of {}x{} matrices take {} ms of CPU per request; at most 1 s",
                s.operations,
                s.matrix_size(),
                s.matrix_size(),
                s.request_ns() / 1_000_000
            ),
        );
        return None;
    }
    Some(s)
}

pub(super) fn pipe_pair(p: &mut P, w: &W) -> Option<PipePair> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::PipePair.keys());
    let d = PipePair::default();
    let pairs = w.uint(p, "pairs", d.pairs, 1, MAX_COUNT);
    let client_us = w.time(p, "client_us", d.client_us, Unit::Us, MAX_COST_NS);
    let client_post_us = match w.o.get("client_post_us") {
        None => Some(d.client_post_us.clone()),
        Some(v) => p.num(&w.path("client_post_us"), v, 0.0, false, MAX_COST_NS / 1e3),
    };
    let server_us = w.time(p, "server_us", d.server_us, Unit::Us, MAX_COST_NS);
    let mut opt_us = |key: &str, default: &Number| match w.o.get(key) {
        None => Some(default.clone()),
        Some(v) => p.num(&w.path(key), v, 0.0, false, MAX_COST_NS / 1e3),
    };
    let server_post_us = opt_us("server_post_us", &d.server_post_us);
    let client_wait_us = opt_us("client_wait_us", &d.client_wait_us);
    let server_wait_us = opt_us("server_wait_us", &d.server_wait_us);
    let placement = match w.o.get("placement") {
        None => Some(d.placement),
        Some(v) => match v.as_str() {
            Some("free") => Some(Placement::Free),
            Some("stacked") => Some(Placement::Stacked),
            Some("cross") => Some(Placement::Cross),
            _ => {
                p.err(
                    &w.path("placement"),
                    format!(
                        "{} is not a placement (allowed \"free\", \"stacked\", \"cross\")",
                        show(v)
                    ),
                );
                None
            }
        },
    };
    Some(PipePair {
        pairs: pairs?,
        client_us: client_us?,
        client_post_us: client_post_us?,
        server_us: server_us?,
        server_post_us: server_post_us?,
        client_wait_us: client_wait_us?,
        server_wait_us: server_wait_us?,
        placement: placement?,
    })
}

pub(super) fn massive_intr(p: &mut P, w: &W, cpus: Option<u64>) -> Option<MassiveIntr> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::MassiveIntr.keys());
    let d = MassiveIntr::default();
    let count = w.uint(p, "count", d.count, 0, MAX_COUNT);
    let work_ms = w.time(p, "work_ms", d.work_ms, Unit::Ms, 60e9);
    let sleep_ms = w.time(p, "sleep_ms", d.sleep_ms, Unit::Ms, 60e9);
    let affinity = w.affinity(p, cpus);
    Some(MassiveIntr {
        count: count?,
        work_ms: work_ms?,
        sleep_ms: sleep_ms?,
        affinity: affinity?,
    })
}

pub(super) fn periodic(p: &mut P, w: &W, cpus: Option<u64>) -> Option<Periodic> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::Periodic.keys());
    let d = Periodic::default();
    let name =
        w.o.get("name")
            .map_or(Some(d.name), |v| comm(p, &w.path("name"), v));
    let count = w.uint(p, "count", d.count, 1, MAX_COUNT);
    let period_us = w.time(p, "period_us", d.period_us, Unit::Us, MAX_NS);
    let work_us = w.duration(p, "work_us", d.work_us);
    let slice_us = opt(w.o.get("slice_us"), |v| slice(p, &w.path("slice_us"), v));
    let nice =
        w.o.get("nice")
            .map_or(Some(d.nice), |v| nice(p, &w.path("nice"), v));
    let policy = w.o.get("policy").map_or(Some(d.policy), |v| {
        if matches!(v.as_str(), Some("fifo" | "rr")) {
            // A workload's tasks are fair tasks; RT tasks are task groups.
            p.err(
                &w.path("policy"),
                format!("{v} is not a fair policy (allowed \"normal\", \"batch\" or \"idle\")"),
            );
            return None;
        }
        policy(p, &w.path("policy"), v)
    });
    let affinity = w.affinity(p, cpus);
    Some(Periodic {
        count: count?,
        period_us: period_us?,
        work_us: work_us?,
        slice_us: slice_us?,
        nice: nice?,
        policy: policy?,
        name: name?,
        affinity: affinity?,
    })
}

pub(super) fn fio_like(p: &mut P, w: &W, cpus: Option<u64>) -> Option<FioLike> {
    p.unknown_keys(w.path, w.o, &WorkloadKind::FioLike.keys());
    let d = FioLike::default();
    let jobs = w.uint(p, "jobs", d.jobs, 1, MAX_COUNT);
    let iodepth = w.uint(p, "iodepth", d.iodepth, 1, 1024);
    let cpu_us = w.time(p, "cpu_us", d.cpu_us, Unit::Us, MAX_COST_NS);
    let io_us = w.duration(p, "io_us", d.io_us);
    let write = match w.o.get("rw") {
        None => Some(d.write),
        Some(v) => match v.as_str() {
            Some("read") => Some(false),
            Some("write") => Some(true),
            _ => {
                p.err(
                    &w.path("rw"),
                    format!(
                        "{} is not an I/O direction (allowed \"read\", \"write\")",
                        show(v)
                    ),
                );
                None
            }
        },
    };
    let kworker_us = w.time(p, "kworker_us", d.kworker_us, Unit::Us, MAX_COST_NS);
    let hardirq_ns = w.uint(p, "hardirq_ns", d.hardirq_ns, 0, 1_000_000);
    let affinity = w.affinity(p, cpus);
    Some(FioLike {
        jobs: jobs?,
        iodepth: iodepth?,
        cpu_us: cpu_us?,
        io_us: io_us?,
        write: write?,
        kworker_us: kworker_us?,
        hardirq_ns: hardirq_ns?,
        affinity: affinity?,
    })
}
