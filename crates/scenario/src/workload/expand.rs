//! The generators' expansion into task groups (in the order and with the programs each tool's
//! threads follow) and the channel capacities they need.

use schedlab_sim::SchedPolicy;
use serde_json::Number;

use super::{MassiveIntr, Placement, Role, Workload, WorkloadInfo};
use crate::{Duration, Step, TaskGroup, Unit};

pub(super) fn massive_count(m: &MassiveIntr, cpus: u64) -> u64 {
    if m.count == 0 {
        cpus
    } else {
        m.count
    }
}

fn group(name: &str, count: u64, affinity: Option<Vec<u64>>, program: Vec<Step>) -> TaskGroup {
    TaskGroup {
        name: name.into(),
        count,
        nice: 0,
        policy: SchedPolicy::Normal,
        affinity,
        slice_us: None,
        start_ms: None,
        program,
        rt: None,
        create_every_us: None,
        kthread: false,
        cpu_clock: false,
    }
}

/// hackbench's main thread creates one thread every `HACKBENCH_CREATE_NS`: the median gap
/// between successive `sched_wakeup_new` of hackbench's threads in the Linux 6.18 recording
/// (tests/fixtures/real/hackbench.perf-script.gz, `hackbench -g 2 --threads`: 99 gaps of
/// 12–84 µs, median 20 µs), the `pthread_create` and the new thread's first run included.
pub(crate) const HACKBENCH_CREATE_NS: u64 = 20_000;

/// The most iterations of one loop (`limits::MAX_LOOP_TIMES`): three nested make a job that
/// never ends.
const MAX_LOOP: u64 = 1_000_000;

fn run_us(n: &Number) -> Step {
    Step::Run(Duration::Fixed(n.clone()), Unit::Us)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The channel-name prefix of workload `k`: its kind's (`hb`, `sb`, `pp`), with `w{k}.` in
/// front for a second workload of the same kind.
fn prefix_of(workloads: &[Workload], k: usize) -> String {
    let kind = workloads[k].kind();
    if workloads[..k].iter().any(|x| x.kind() == kind) {
        format!("w{k}.{}", kind.chan_prefix())
    } else {
        kind.chan_prefix().to_string()
    }
}

/// Channel capacities the workloads need: hackbench's fds (see [`crate::workload::Hackbench`]
/// for the arithmetic): a pipe holds 16 pages of ⌊4096 / datasize⌋ messages (at least one)
/// before a sender blocks (`pipe_write`) and wakes it when a read frees a page; a unix socket holds
/// ⌈212992 / truesize⌉ and wakes it at a quarter. Other workloads keep at most one message in
/// flight.
/// `net.core.wmem_default`, a unix socket's `sk_sndbuf`.
const SK_SNDBUF: u64 = 212_992;

pub(crate) fn channel_specs(cpus: u64, workloads: &[Workload]) -> Vec<crate::ChannelSpec> {
    let mut out = vec![];
    for (k, w) in workloads.iter().enumerate() {
        if let Workload::FioLike(f) = w {
            let prefix = prefix_of(workloads, k);
            out.push(crate::ChannelSpec {
                name: format!("{prefix}.io{{i}}"),
                capacity: f.iodepth,
                wake_writer_at: None,
                futex: false,
                poll: false,
                device: Some(crate::DeviceSpec {
                    latency_us: f.io_us.clone(),
                    hardirq_ns: f.hardirq_ns,
                    irq_cpu: None,
                    rq_affinity: 1,
                    workqueue: f.write.then(|| format!("{prefix}.dio{{cpu}}")),
                }),
                wait_ns: 0,
                page_msgs: 0,
            });
        }
        if let Workload::PipePair(p) = w {
            // The request and reply channels stay unbounded; they are listed only to carry
            // the reads' wait paths.
            let prefix = prefix_of(workloads, k);
            for (name, us) in [("req", &p.server_wait_us), ("rsp", &p.client_wait_us)] {
                let wait_ns = (us.as_f64().unwrap_or(0.0) * 1e3).round() as u64;
                if wait_ns > 0 {
                    out.push(crate::ChannelSpec {
                        name: format!("{prefix}.{name}{{i}}"),
                        capacity: 0,
                        wake_writer_at: None,
                        futex: false,
                        poll: false,
                        device: None,
                        wait_ns,
                        page_msgs: 0,
                    });
                }
            }
        }
        if let Workload::Schbench(s) = w {
            // Each thread's futex word (fpost / fwait): a wake without WF_SYNC. The message
            // thread's word carries the workers' requests (at most one outstanding per worker),
            // each worker's its own wakes (at most one outstanding), so none ever fills.
            let prefix = prefix_of(workloads, k);
            let workers = s.workers_for(cpus);
            for m in 0..s.message_threads {
                for (name, capacity) in [("post", workers), ("wake{i}", 1)] {
                    out.push(crate::ChannelSpec {
                        name: format!("{prefix}{m}.{name}"),
                        capacity,
                        wake_writer_at: None,
                        futex: true,
                        poll: false,
                        device: None,
                        wait_ns: 0,
                        page_msgs: 0,
                    });
                }
            }
        }
        if let Workload::Hackbench(h) = w {
            let prefix = prefix_of(workloads, k);
            // A pipe: 16 page slots; messages up to a page merge into the last page
            // (`pipe_write`), and a writer waits for a whole slot (`pipe_read`'s wake_writer).
            // Larger messages span pages: counted per message.
            let per_page = 4096 / h.datasize.max(1);
            let (capacity, wake_writer_at, page_msgs) = if h.pipe {
                ((16 * per_page).max(1), None, per_page)
            } else {
                // sock_alloc_send_pskb blocks once sk_wmem_alloc ≥ sk_sndbuf; unix_write_space
                // wakes the writer when (sk_wmem_alloc << 2) ≤ sk_sndbuf.
                let head = (h.datasize.div_ceil(64) * 64 + 320).next_power_of_two();
                let truesize = head + 256;
                (
                    SK_SNDBUF.div_ceil(truesize),
                    Some(SK_SNDBUF / 4 / truesize),
                    0,
                )
            };
            for g in 0..h.groups {
                out.push(crate::ChannelSpec {
                    name: format!("{prefix}{g}.r{{i}}"),
                    capacity,
                    wake_writer_at,
                    futex: false,
                    poll: false,
                    device: None,
                    wait_ns: 0,
                    page_msgs,
                });
            }
            // The ready and start pipes of main(): every thread writes one byte to the first
            // and polls the second.
            for (name, poll) in [("ready", false), ("start", true)] {
                out.push(crate::ChannelSpec {
                    name: format!("{prefix}.{name}"),
                    capacity: (2 * h.fds * h.groups).clamp(1, MAX_LOOP),
                    wake_writer_at: None,
                    futex: false,
                    poll,
                    device: None,
                    wait_ns: 0,
                    page_msgs: 0,
                });
            }
        }
    }
    out
}

/// Expands `workloads` into task groups numbered from `first_group` on a machine with `cpus`
/// CPUs. Channel names start with the kind's prefix (`hb`, `sb`, `pp`); a second workload of
/// the same kind gets `w{index}.` in front so that the two never share a channel.
pub(crate) fn expand(
    cpus: u64,
    workloads: &[Workload],
    first_group: usize,
) -> (Vec<TaskGroup>, Vec<WorkloadInfo>) {
    let mut groups: Vec<TaskGroup> = vec![];
    let mut infos = vec![];
    for (k, w) in workloads.iter().enumerate() {
        let kind = w.kind();
        let prefix = prefix_of(workloads, k);
        let mut roles: Vec<(Role, Vec<u32>)> = vec![];
        let mut add = |groups: &mut Vec<TaskGroup>, role: Role, g: TaskGroup| {
            let idx = (first_group + groups.len()) as u32;
            match roles.iter_mut().find(|(r, _)| *r == role) {
                Some((_, v)) => v.push(idx),
                None => roles.push((role, vec![idx])),
            }
            groups.push(g);
        };
        let label = match w {
            Workload::Hackbench(h) => {
                // main(): creates every thread (group() by group()), reads one ready byte from
                // each, then writes the one byte that wakes them all polling on the start pipe
                // (the latest poller first: see `Channel::poll`), and joins them.
                let threads = 2 * h.fds * h.groups;
                let ready = format!("{prefix}.ready");
                let start = format!("{prefix}.start");
                add(
                    &mut groups,
                    Role::Main,
                    group(
                        "hackbench",
                        1,
                        h.affinity.clone(),
                        vec![
                            Step::Run(
                                Duration::Fixed((threads * HACKBENCH_CREATE_NS / 1000).into()),
                                Unit::Us,
                            ),
                            Step::Loop(threads, vec![Step::Recv(ready.clone())]),
                            Step::Send(start.clone()),
                            Step::Exit,
                        ],
                    ),
                );
                // Each thread: ready(): write the ready pipe, poll the start pipe.
                let ready_then_wait = [Step::Send(ready), Step::Recv(start)];
                // Thread k (from 0, in creation order) is created at (k + 1) × the interval.
                let created = |g: TaskGroup, k: u64| TaskGroup {
                    start_ms: Some(
                        Number::from_f64(((k + 1) * HACKBENCH_CREATE_NS) as f64 / 1e6)
                            .expect("finite"),
                    ),
                    create_every_us: Some((HACKBENCH_CREATE_NS / 1000).into()),
                    ..g
                };
                for g in 0..h.groups {
                    // Receivers: fds × loops reads from their own pipe, recv_us each.
                    let mut recv = ready_then_wait.to_vec();
                    recv.extend([
                        Step::Loop(
                            h.fds * h.loops,
                            vec![
                                Step::Recv(format!("{prefix}{g}.r{{i}}")),
                                run_us(&h.recv_us),
                            ],
                        ),
                        Step::Exit,
                    ]);
                    let first = 2 * h.fds * g;
                    add(
                        &mut groups,
                        Role::Receiver,
                        created(group("hackbench", h.fds, h.affinity.clone(), recv), first),
                    );
                    // Senders: loops × one write to every receiver of the group.
                    let body = (0..h.fds)
                        .flat_map(|j| [run_us(&h.send_us), Step::Send(format!("{prefix}{g}.r{j}"))])
                        .collect();
                    let mut send = ready_then_wait.to_vec();
                    send.extend([Step::Loop(h.loops, body), Step::Exit]);
                    add(
                        &mut groups,
                        Role::Sender,
                        created(
                            group("hackbench", h.fds, h.affinity.clone(), send),
                            first + h.fds,
                        ),
                    );
                }
                format!(
                    "hackbench {} x {}",
                    plural(h.groups, "group", "groups"),
                    plural(h.fds, "fd", "fds")
                )
            }
            Workload::Schbench(s) => {
                // schbench.c v1.0: run_msg_thread and worker_thread / msg_and_wait, over the
                // futex channels of channel_specs.
                let workers = s.workers_for(cpus);
                let request = match &s.request_us {
                    Some(d) => Step::Run(d.clone(), Unit::Us),
                    None => Step::Run(Duration::Fixed(Number::from(s.request_ns())), Unit::Ns),
                };
                for m in 0..s.message_threads {
                    let (post, wake) = (
                        format!("{prefix}{m}.post"),
                        format!("{prefix}{m}.wake{{i}}"),
                    );
                    // Sleep on its futex until a worker posts; take each queued worker off
                    // its list and post that worker's futex (xlist_wake_all).
                    let mt = vec![Step::Recv(post.clone()), run_us(&s.think_us), Step::Reply];
                    add(
                        &mut groups,
                        Role::MessageThread,
                        group("schbench", 1, s.affinity.clone(), mt),
                    );
                    // msg_and_wait (post the message thread, wait on its own futex), then a
                    // request: usleep, then do_work's matrix multiplications.
                    let mut worker = vec![
                        Step::Request(post, wake.clone()),
                        Step::Recv(wake),
                        Step::Sleep(Duration::Fixed(s.sleep_us.clone()), Unit::Us),
                    ];
                    if s.lock {
                        // do_work: lock_this_cpu, the math, pthread_mutex_unlock; one lock
                        // array for the run's workers (all message threads').
                        let lock = format!("{prefix}.cpu");
                        worker.push(Step::LockCpu(lock.clone()));
                        worker.push(request.clone());
                        worker.push(Step::UnlockCpu(lock));
                    } else {
                        worker.push(request.clone());
                    }
                    add(
                        &mut groups,
                        Role::Worker,
                        group("schbench", workers, s.affinity.clone(), worker),
                    );
                }
                format!(
                    "schbench {} x {}",
                    plural(s.message_threads, "message thread", "message threads"),
                    plural(workers, "worker", "workers")
                )
            }
            Workload::PipePair(p) => {
                let client = |i: &str| {
                    let mut steps =
                        vec![run_us(&p.client_us), Step::Send(format!("{prefix}.req{i}"))];
                    if p.client_post_us.as_f64().unwrap_or(0.0) > 0.0 {
                        steps.push(run_us(&p.client_post_us));
                    }
                    steps.push(Step::Recv(format!("{prefix}.rsp{i}")));
                    steps
                };
                let server = |i: &str| {
                    let mut steps = vec![
                        Step::Recv(format!("{prefix}.req{i}")),
                        run_us(&p.server_us),
                        Step::Send(format!("{prefix}.rsp{i}")),
                    ];
                    if p.server_post_us.as_f64().unwrap_or(0.0) > 0.0 {
                        steps.push(run_us(&p.server_post_us));
                    }
                    steps
                };
                let cpus = cpus.max(1);
                match p.placement {
                    Placement::Free => {
                        add(
                            &mut groups,
                            Role::Client,
                            group("tbench", p.pairs, None, client("{i}")),
                        );
                        add(
                            &mut groups,
                            Role::Server,
                            group("tbench_srv", p.pairs, None, server("{i}")),
                        );
                    }
                    Placement::Stacked | Placement::Cross => {
                        for k in 0..p.pairs {
                            let (c, s) = if p.placement == Placement::Stacked {
                                (k % cpus, k % cpus)
                            } else {
                                ((2 * k) % cpus, (2 * k + 1) % cpus)
                            };
                            let i = k.to_string();
                            add(
                                &mut groups,
                                Role::Client,
                                group("tbench", 1, Some(vec![c]), client(&i)),
                            );
                            add(
                                &mut groups,
                                Role::Server,
                                group("tbench_srv", 1, Some(vec![s]), server(&i)),
                            );
                        }
                    }
                }
                format!(
                    "pipe_pair {} ({})",
                    plural(p.pairs, "pair", "pairs"),
                    p.placement.name()
                )
            }
            Workload::MassiveIntr(m) => {
                let n = massive_count(m, cpus);
                let prog = vec![
                    Step::Run(Duration::Fixed(m.work_ms.clone()), Unit::Ms),
                    Step::Sleep(Duration::Fixed(m.sleep_ms.clone()), Unit::Ms),
                ];
                add(
                    &mut groups,
                    Role::Hog,
                    group("massive_intr", n, m.affinity.clone(), prog),
                );
                format!(
                    "massive_intr {} ({} ms work, {} ms sleep)",
                    plural(n, "hog", "hogs"),
                    m.work_ms,
                    m.sleep_ms
                )
            }
            Workload::Periodic(p) => {
                let prog = vec![
                    Step::Run(p.work_us.clone(), Unit::Us),
                    Step::WaitPeriod(p.period_us.clone(), Unit::Us),
                ];
                let mut g = group(&p.name, p.count, p.affinity.clone(), prog);
                g.nice = p.nice;
                g.policy = p.policy;
                g.slice_us = p.slice_us.clone();
                add(&mut groups, Role::Periodic, g);
                format!("periodic {} x {} every {} us", p.name, p.count, p.period_us)
            }
            Workload::FioLike(f) => {
                // fio's do_io: fill the queue (iodepth submissions), then for ever reap one
                // completion (io_getevents, min_nr 1) and submit the next.
                let io = format!("{prefix}.io{{i}}");
                let submit = vec![run_us(&f.cpu_us), Step::Send(io.clone())];
                let cycle = vec![
                    Step::Recv(io.clone()),
                    run_us(&f.cpu_us),
                    Step::Send(io.clone()),
                ];
                let prog = vec![
                    Step::Loop(f.iodepth, submit),
                    Step::Loop(
                        MAX_LOOP,
                        vec![Step::Loop(MAX_LOOP, vec![Step::Loop(MAX_LOOP, cycle)])],
                    ),
                ];
                add(
                    &mut groups,
                    Role::Job,
                    group("fio", f.jobs, f.affinity.clone(), prog),
                );
                if f.write {
                    // The dio workqueue's kworker on every CPU, bound to it.
                    let wq = format!("{prefix}.dio{{cpu}}");
                    for c in 0..cpus {
                        let w = wq.replace("{cpu}", &c.to_string());
                        let prog = vec![
                            Step::Recv(w.clone()),
                            run_us(&f.kworker_us),
                            Step::Complete(w),
                        ];
                        let mut g = group("kworker", 1, Some(vec![c]), prog);
                        g.name = format!("kworker-{c}");
                        g.kthread = true;
                        add(&mut groups, Role::Kworker, g);
                    }
                }
                format!(
                    "fio_like {} x iodepth {} ({})",
                    plural(f.jobs, "job", "jobs"),
                    f.iodepth,
                    if f.write { "write" } else { "read" }
                )
            }
        };
        infos.push(WorkloadInfo {
            kind,
            label,
            roles,
            params: w.clone(),
        });
    }
    (groups, infos)
}
