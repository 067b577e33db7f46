//! The bodies of the sched tracepoints as the kernel's `TP_printk` formats print them
//! (`include/trace/events/sched.h`); perf script (through libtraceevent) and ftrace print the
//! same text:
//!
//! ```text
//! sched_switch:       prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d
//! sched_waking, sched_wakeup, sched_wakeup_new:
//!                     comm=%s pid=%d prio=%d target_cpu=%03d      (before 4.x also success=%d)
//! sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d
//! sched_process_exit: comm=%s pid=%d prio=%d                       (6.x: group_dead=%d)
//! sched_stat_runtime: comm=%s pid=%d runtime=%Lu [ns]              (before 6.8: vruntime=%Lu [ns])
//! ```
//!
//! A comm is the text between its key and the next field's key (` pid=`, ` prev_pid=`,
//! ` next_pid=`), so spaces, brackets and colons in it are kept.

use schedlab_sim::EventKind;

use crate::builder::Builder;
use crate::text::{after, lead_i64, lead_u64, token};

/// The events the model holds (without the `sched:` prefix); anything else is skipped.
pub(crate) fn known(name: &str) -> bool {
    matches!(
        name,
        "sched_switch"
            | "sched_waking"
            | "sched_wakeup"
            | "sched_wakeup_new"
            | "sched_migrate_task"
            | "sched_process_exit"
            | "sched_stat_runtime"
    )
}

/// Applies one tracepoint hit (`name` without the `sched:` prefix) at `t_ns` on `cpu`.
/// `Err` is the reason a known event's body could not be read.
pub(crate) fn apply(
    b: &mut Builder,
    name: &str,
    body: &str,
    t_ns: u64,
    cpu: u32,
) -> Result<(), &'static str> {
    let body = body.trim();
    match name {
        "sched_switch" => {
            let s = switch(body).ok_or(
                "sched_switch without prev_comm=…prev_pid=…prev_state=… ==> next_comm=…next_pid=…",
            )?;
            b.switch(
                t_ns,
                cpu,
                (s.prev_comm, s.prev_pid, s.prev_prio),
                s.prev_state,
                (s.next_comm, s.next_pid, s.next_prio),
            )?;
        }
        "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
            let (comm, real, rest) = comm_pid(body).ok_or("no comm=… pid=…")?;
            let prio = after(rest, "prio=").and_then(|s| lead_i64(s)).map(|v| v.0);
            let target_cpu = after(rest, "target_cpu=")
                .and_then(lead_u64)
                .and_then(|(v, _)| u32::try_from(v).ok())
                .ok_or("no target_cpu=")?;
            let kind = if name == "sched_wakeup_new" {
                let pid = b.new_task(real, Some(comm), prio);
                EventKind::WakeupNew { pid, target_cpu }
            } else {
                let pid = b.pid(real, Some(comm), prio);
                if name == "sched_waking" {
                    EventKind::Waking { pid, target_cpu }
                } else {
                    EventKind::Wakeup { pid, target_cpu }
                }
            };
            b.push(t_ns, cpu, kind);
        }
        "sched_migrate_task" => {
            let (comm, real, rest) = comm_pid(body).ok_or("no comm=… pid=…")?;
            let prio = after(rest, "prio=").and_then(|s| lead_i64(s)).map(|v| v.0);
            let orig_cpu = after(rest, "orig_cpu=")
                .and_then(lead_u64)
                .and_then(|(v, _)| u32::try_from(v).ok())
                .ok_or("no orig_cpu=")?;
            let dest_cpu = after(rest, "dest_cpu=")
                .and_then(lead_u64)
                .and_then(|(v, _)| u32::try_from(v).ok())
                .ok_or("no dest_cpu=")?;
            let pid = b.pid(real, Some(comm), prio);
            b.push(
                t_ns,
                cpu,
                EventKind::MigrateTask {
                    pid,
                    orig_cpu,
                    dest_cpu,
                },
            );
        }
        "sched_process_exit" => {
            // The model has no exit event (an exit is the final switch in state X); the exit
            // only marks the pid as free for reuse.
            let (comm, real, _) = comm_pid(body).ok_or("no comm=… pid=…")?;
            b.pid(real, Some(comm), None);
            b.exited(real);
        }
        "sched_stat_runtime" => {
            let (comm, real, rest) = comm_pid(body).ok_or("no comm=… pid=…")?;
            let runtime_ns = after(rest, "runtime=")
                .and_then(lead_u64)
                .map(|v| v.0)
                .ok_or("no runtime=")?;
            let pid = b.pid(real, Some(comm), None);
            b.push(t_ns, cpu, EventKind::StatRuntime { pid, runtime_ns });
        }
        _ => return Err("not a sched event the model holds"),
    }
    b.read(name);
    Ok(())
}

/// `comm=%s pid=%d …`: the comm, the pid and the text after it.
fn comm_pid(body: &str) -> Option<(&str, u32, &str)> {
    let rest = body.strip_prefix("comm=")?;
    let at = rest.find(" pid=")?;
    let comm = &rest[..at];
    let (pid, rest) = lead_u64(&rest[at + 5..])?;
    Some((comm, u32::try_from(pid).ok()?, rest))
}

/// A parsed `sched_switch` body.
pub(crate) struct Switch<'a> {
    pub(crate) prev_comm: &'a str,
    pub(crate) prev_pid: u32,
    pub(crate) prev_prio: Option<i64>,
    pub(crate) prev_state: &'a str,
    pub(crate) next_comm: &'a str,
    pub(crate) next_pid: u32,
    pub(crate) next_prio: Option<i64>,
}

pub(crate) fn switch(body: &str) -> Option<Switch<'_>> {
    let rest = body.strip_prefix("prev_comm=")?;
    let at = rest.find(" prev_pid=")?;
    let prev_comm = &rest[..at];
    let (prev_pid, rest) = lead_u64(&rest[at + 10..])?;
    let (prev_prio, rest) = match rest.strip_prefix(" prev_prio=") {
        Some(r) => {
            let (v, r) = lead_i64(r)?;
            (Some(v), r)
        }
        None => (None, rest),
    };
    let rest = rest.strip_prefix(" prev_state=")?;
    let (prev_state, rest) = token(rest);
    let rest = rest.trim_start().strip_prefix("==> next_comm=")?;
    let at = rest.find(" next_pid=")?;
    let next_comm = &rest[..at];
    let (next_pid, rest) = lead_u64(&rest[at + 10..])?;
    let next_prio = rest
        .strip_prefix(" next_prio=")
        .and_then(lead_i64)
        .map(|v| v.0);
    Some(Switch {
        prev_comm,
        prev_pid: u32::try_from(prev_pid).ok()?,
        prev_prio,
        prev_state,
        next_comm,
        next_pid: u32::try_from(next_pid).ok()?,
        next_prio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_with_odd_comms() {
        let s = switch("prev_comm=my hog [a:1] prev_pid=1329 prev_prio=120 prev_state=R+ ==> next_comm=kworker/u8:0-ev next_pid=12 next_prio=120").unwrap();
        assert_eq!(s.prev_comm, "my hog [a:1]");
        assert_eq!(s.prev_pid, 1329);
        assert_eq!(s.prev_state, "R+");
        assert_eq!(s.next_comm, "kworker/u8:0-ev");
        assert_eq!(s.next_pid, 12);
        assert_eq!(s.next_prio, Some(120));
    }

    #[test]
    fn comm_pid_reads_spaces() {
        let (c, p, rest) = comm_pid("comm=a b pid=7 prio=120 target_cpu=001").unwrap();
        assert_eq!((c, p), ("a b", 7));
        assert_eq!(after(rest, "target_cpu="), Some("001"));
    }
}
