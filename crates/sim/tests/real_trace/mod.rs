//! A minimal reader of the real-kernel fixtures (`tests/fixtures/real/*.perf-script.gz`,
//! recorded by `scripts/record-fixtures.sh`): `perf script -F comm,tid,cpu,time,event,trace`
//! text, gzip-compressed. It extracts only what the comparisons need (CPU time, migrations,
//! wakeups and wake-to-run latencies per pid); the full trace importer is another crate's job.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// What one pid did over the recording.
#[derive(Clone, Debug, Default)]
pub struct PidFigures {
    pub comm: String,
    /// CPU time between its switch-ins and switch-outs, in ns.
    pub runtime_ns: u64,
    /// Each of those runs, in ns.
    pub runs_ns: Vec<u64>,
    /// `sched_migrate_task` events.
    pub migrations: u64,
    /// `sched_waking` events.
    pub wakeups: u64,
    /// Wakeups that put it on the waker's CPU (`ttwu_stat`'s local count): `sched_waking`'s
    /// `target_cpu` is the task's previous CPU, so a `sched_migrate_task` of the same pid from
    /// the waker's CPU at the same moment (`set_task_cpu` in `try_to_wake_up`) corrects it.
    pub wakeups_local: u64,
    /// `sched_waking` → switch-in, in ns.
    pub wake_to_run_ns: Vec<u64>,
    /// The same, for wakeups from another CPU onto a CPU that was idle (running pid 0).
    pub wake_to_run_idle_remote_ns: Vec<u64>,
    /// From this pid's switch-in to the first wakeup it does while on the CPU, in ns.
    pub run_to_first_waking_ns: Vec<u64>,
    /// Between consecutive wakeups this pid does (its cycle, for a ping-pong), in ns.
    pub waking_cycle_ns: Vec<u64>,
}

/// A recording reduced to per-pid figures.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub start_ns: u64,
    pub end_ns: u64,
    pub pids: BTreeMap<u32, PidFigures>,
}

impl Recording {
    pub fn duration_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }

    /// The `n` pids named `comm` with the most CPU time, most first.
    pub fn top(&self, comm: &str, n: usize) -> Vec<(u32, &PidFigures)> {
        let mut v: Vec<(u32, &PidFigures)> = self
            .pids
            .iter()
            .filter(|(_, f)| f.comm == comm)
            .map(|(&p, f)| (p, f))
            .collect();
        v.sort_by_key(|(p, f)| (std::cmp::Reverse(f.runtime_ns), *p));
        v.truncate(n);
        v
    }

    /// CPU time of `pid` as a fraction of one CPU, in per mille.
    pub fn share_permille(&self, f: &PidFigures) -> u64 {
        f.runtime_ns * 1000 / self.duration_ns()
    }

    /// Events per second, ×1000 (milli-events per second).
    pub fn per_s_milli(&self, count: u64) -> u64 {
        count * 1_000_000_000_000 / self.duration_ns()
    }
}

/// Inflates a `gzip -n` file (header of 10 bytes, optional FEXTRA/FNAME/FCOMMENT/FHCRC).
fn gunzip(b: &[u8]) -> Vec<u8> {
    assert!(
        b.len() > 18 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8,
        "not gzip"
    );
    let flg = b[3];
    let mut i = 10;
    if flg & 4 != 0 {
        i += 2 + u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    }
    for bit in [8u8, 16] {
        if flg & bit != 0 {
            while b[i] != 0 {
                i += 1;
            }
            i += 1;
        }
    }
    if flg & 2 != 0 {
        i += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&b[i..b.len() - 8]).expect("inflate")
}

/// The bytes of `tests/fixtures/<machine>/<name>.perf-script.gz` from the workspace root
/// (`real` is the Xeon VM's recordings, `real-epyc` the EPYC VM's: `schedlab_sim::MACHINES`).
fn read_fixture(machine: &str, name: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/{machine}/{name}.perf-script.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    String::from_utf8_lossy(&gunzip(&raw)).into_owned()
}

/// The text of `tests/fixtures/real/<name>.perf-script.gz`.
#[allow(dead_code)]
pub fn load_text(name: &str) -> String {
    read_fixture("real", name)
}

/// Reads `tests/fixtures/real/<name>.perf-script.gz` (the Xeon VM).
pub fn load(name: &str) -> Recording {
    load_from("real", name)
}

/// Reads `tests/fixtures/<machine>/<name>.perf-script.gz`.
pub fn load_from(machine: &str, name: &str) -> Recording {
    parse(&read_fixture(machine, name))
}

/// `secs.micros` → ns.
fn time_ns(s: &str) -> u64 {
    let (a, b) = s.trim_end_matches(':').split_once('.').expect("time");
    let frac = format!("{b:0<9}");
    a.parse::<u64>().unwrap() * 1_000_000_000 + frac[..9].parse::<u64>().unwrap()
}

fn field<'a>(rest: &'a str, key: &str) -> Option<&'a str> {
    let i = rest.find(&format!("{key}="))? + key.len() + 1;
    Some(rest[i..].split_whitespace().next().unwrap_or(""))
}

/// Parses the `perf script` text. A line is `comm tid [cpu] secs.us: sched:event: args`
/// (comm may hold spaces, so the line is read from the `[cpu]` field outwards).
pub fn parse(text: &str) -> Recording {
    let mut r = Recording::default();
    let mut on_cpu: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    // pid → (when it was woken, whether remotely onto an idle CPU).
    let mut waking: BTreeMap<u32, (u64, bool)> = BTreeMap::new();
    // pid → (switch-in time, whether it has woken anyone since), and its last waking.
    let mut since_in: BTreeMap<u32, (u64, bool)> = BTreeMap::new();
    let mut last_waking: BTreeMap<u32, u64> = BTreeMap::new();
    // pid → (time, waker's CPU, counted local) of its last sched_waking.
    let mut woke_by: BTreeMap<u32, (u64, u32, bool)> = BTreeMap::new();
    let mut first = None;
    for line in text.lines() {
        let Some(ev_at) = line.find(" sched:") else {
            continue;
        };
        let (head, tail) = line.split_at(ev_at);
        let Some(lb) = head.rfind('[') else { continue };
        let cpu: u32 = head[lb + 1..].split(']').next().unwrap().parse().unwrap();
        let current: u32 = head[..lb]
            .split_whitespace()
            .last()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let t = time_ns(head[lb..].split_whitespace().nth(1).unwrap());
        first.get_or_insert(t);
        r.end_ns = t;
        let tail = tail.trim_start();
        let (ev, args) = tail.split_once(": ").unwrap_or((tail, ""));
        match ev.trim_end_matches(':') {
            "sched:sched_switch" => {
                let prev: u32 = field(args, "prev_pid").unwrap().parse().unwrap();
                let next: u32 = field(args, "next_pid").unwrap().parse().unwrap();
                if let Some((p, since)) = on_cpu.get(&cpu).copied() {
                    if p == prev && p != 0 {
                        let f = r.pids.entry(p).or_default();
                        f.runtime_ns += t - since;
                        f.runs_ns.push(t - since);
                    }
                }
                on_cpu.insert(cpu, (next, t));
                let comm = args
                    .split("next_comm=")
                    .nth(1)
                    .and_then(|s| s.split(" next_pid=").next())
                    .unwrap_or("")
                    .to_string();
                let f = r.pids.entry(next).or_default();
                f.comm = comm;
                if let Some((w, idle_remote)) = waking.remove(&next) {
                    f.wake_to_run_ns.push(t - w);
                    if idle_remote {
                        f.wake_to_run_idle_remote_ns.push(t - w);
                    }
                }
                since_in.insert(next, (t, false));
                woke_by.remove(&next);
            }
            "sched:sched_migrate_task" => {
                let pid: u32 = field(args, "pid").unwrap().parse().unwrap();
                let dest: u32 = field(args, "dest_cpu").unwrap().parse().unwrap();
                let f = r.pids.entry(pid).or_default();
                f.migrations += 1;
                if let Some((tw, wcpu, local)) = woke_by.remove(&pid) {
                    // The wakeup's own migration: same CPU, within the same try_to_wake_up.
                    if wcpu == cpu && t - tw < 100_000 {
                        match (local, dest == wcpu) {
                            (true, false) => f.wakeups_local -= 1,
                            (false, true) => f.wakeups_local += 1,
                            _ => {}
                        }
                    }
                }
            }
            "sched:sched_waking" => {
                let pid: u32 = field(args, "pid").unwrap().parse().unwrap();
                let target: u32 = field(args, "target_cpu").unwrap().parse().unwrap();
                let f = r.pids.entry(pid).or_default();
                f.wakeups += 1;
                if target == cpu {
                    f.wakeups_local += 1;
                }
                woke_by.insert(pid, (t, cpu, target == cpu));
                let target_idle = on_cpu.get(&target).is_none_or(|&(p, _)| p == 0);
                waking.insert(pid, (t, target != cpu && target_idle));
                // The waker is the task current on this CPU.
                let w = r.pids.entry(current).or_default();
                if let Some(prev) = last_waking.insert(current, t) {
                    w.waking_cycle_ns.push(t - prev);
                }
                if let Some((t_in, woke)) = since_in.get_mut(&current) {
                    if !*woke {
                        *woke = true;
                        w.run_to_first_waking_ns.push(t - *t_in);
                    }
                }
            }
            _ => {}
        }
    }
    r.start_ns = first.unwrap_or(0);
    r
}

/// The `q`-th per-mille percentile (nearest rank below) of `v`.
pub fn percentile(v: &[u64], q_permille: u64) -> u64 {
    let mut s = v.to_vec();
    s.sort_unstable();
    if s.is_empty() {
        return 0;
    }
    s[((s.len() - 1) as u64 * q_permille / 1000) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_events() {
        let text = "\
              sh  101 [000]  10.000000:       sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=101 next_prio=120
              sh  101 [000]  10.004000:       sched:sched_waking: comm=pp pid=7 prio=120 target_cpu=001
              sh  101 [000]  10.004500:       sched:sched_switch: prev_comm=sh prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=102 next_prio=120
     migration/0   18 [001]  10.004600: sched:sched_migrate_task: comm=sh pid=101 prio=120 orig_cpu=0 dest_cpu=1
          <idle>    0 [001]  10.004700:       sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=pp next_pid=7 next_prio=120
";
        let r = parse(text);
        assert_eq!(r.duration_ns(), 4_700_000);
        assert_eq!(r.pids[&101].runtime_ns, 4_500_000);
        assert_eq!(r.pids[&101].migrations, 1);
        assert_eq!(r.pids[&101].wakeups_local, 0);
        assert_eq!(r.pids[&7].wakeups, 1);
        assert_eq!(r.pids[&7].wakeups_local, 0);
        assert_eq!(r.pids[&7].wake_to_run_ns, vec![700_000]);
        assert_eq!(r.pids[&7].wake_to_run_idle_remote_ns, vec![700_000]);
        assert_eq!(r.pids[&101].run_to_first_waking_ns, vec![4_000_000]);
        assert_eq!(r.top("sh", 5).len(), 2);
    }
}
