#![allow(dead_code)]
use schedlab_sim::{Event, EventKind, Pid, PrevState, TaskInfo, Trace};

pub const MS: u64 = 1_000_000;

pub fn trace(cpus: u32, tasks: &[(Pid, &str)], events: Vec<Event>) -> Trace {
    let end_ns = events.last().map_or(0, |e| e.t_ns);
    Trace {
        cpus,
        tasks: tasks
            .iter()
            .map(|&(pid, comm)| TaskInfo {
                pid,
                comm: comm.into(),
                group: None,
            })
            .collect(),
        events: events.into(),
        end_ns,
        ..Default::default()
    }
}

pub fn sw(t_ns: u64, cpu: u32, prev_pid: Pid, s: char, next_pid: Pid) -> Event {
    let prev_state = match s {
        'R' => PrevState::Running,
        'S' => PrevState::Sleeping,
        _ => PrevState::Dead,
    };
    Event {
        t_ns,
        cpu,
        kind: EventKind::Switch {
            prev_pid,
            prev_state,
            next_pid,
        },
    }
}

pub fn waking(t_ns: u64, cpu: u32, pid: Pid) -> Event {
    Event {
        t_ns,
        cpu,
        kind: EventKind::Waking {
            pid,
            target_cpu: cpu,
        },
    }
}

pub fn wakeup(t_ns: u64, cpu: u32, pid: Pid) -> Event {
    Event {
        t_ns,
        cpu,
        kind: EventKind::Wakeup {
            pid,
            target_cpu: cpu,
        },
    }
}

pub fn runtime(t_ns: u64, cpu: u32, pid: Pid, runtime_ns: u64) -> Event {
    Event {
        t_ns,
        cpu,
        kind: EventKind::StatRuntime { pid, runtime_ns },
    }
}

pub fn migrate(t_ns: u64, cpu: u32, pid: Pid, dest_cpu: u32) -> Event {
    Event {
        t_ns,
        cpu,
        kind: EventKind::MigrateTask {
            pid,
            orig_cpu: cpu,
            dest_cpu,
        },
    }
}

pub fn wakeup_new(t_ns: u64, cpu: u32, pid: Pid) -> Event {
    Event {
        t_ns,
        cpu,
        kind: EventKind::WakeupNew {
            pid,
            target_cpu: cpu,
        },
    }
}

/// A trace whose tasks carry scenario groups: `(pid, comm, group)`.
pub fn grouped_trace(
    cpus: u32,
    tasks: &[(Pid, &str, Option<u32>)],
    events: Vec<Event>,
    end_ns: u64,
) -> Trace {
    Trace {
        cpus,
        tasks: tasks
            .iter()
            .map(|&(pid, comm, group)| TaskInfo {
                pid,
                comm: comm.into(),
                group,
            })
            .collect(),
        events: events.into(),
        end_ns,
        ..Default::default()
    }
}
