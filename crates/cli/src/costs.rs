//! A machine's costs as `scripts/record-fixtures.sh` measured them: `schedlab machines
//! --metadata FILE` reads the `metadata.txt` that script writes and derives the scenario's
//! cost fields the way docs/measurements.md derives each measured machine's.
//!
//! The lines read (one per run, three runs by default):
//! - `costs, run N: alone A ns/iter | pair P ns/round-trip… | wake W ns/round-trip; write
//!   waking the partner X ns, write alone Y ns | busy …; write waking the partner X ns,
//!   write alone Y ns | local write waking the partner X ns, write alone Y ns, local wakeup L
//!   ns` (`scripts/workloads/switchcost.c`; an older form lacks `busy` and `local`, and some
//!   write `wake:` without the round trip);
//! - `idle wakeup, run N: gap G us: wake p10 A p50 B p90 C us` (`scripts/workloads/idlelat.c`).
//!
//! Hand-written: the format is this project's own, a few lines of text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The model's δ between a wakeup and the woken CPU's switch, part of every recorded
/// wake-to-run (`SimConfig::switch_delay_ns`'s default).
const DELTA_NS: f64 = 5_000.0;

/// What the metadata's runs give, in ns, each with the per-run values it is the median of.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredCosts {
    /// (pair − 2 × alone) / 2 per run: `switch_cost_ns`.
    pub switch: Vec<f64>,
    /// A wakeup onto the other, busy CPU (`busy`: the waking write less a plain one):
    /// `wakeup_cost_ns`. Empty where the runs have no `busy` part.
    pub busy_wakeup: Vec<f64>,
    /// The same onto the other, idle CPU (`wake`), the IPI included.
    pub idle_wakeup_write: Vec<f64>,
    /// A wakeup on the waker's own CPU (`local wakeup`), part of `switch` as measured.
    pub local_wakeup: Vec<f64>,
    /// Per idle gap (µs), the runs' p50 wake-to-run (µs).
    pub idle_by_gap: BTreeMap<u64, Vec<f64>>,
}

/// The median (the mean of the middle two for an even count); `None` when empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The number after `key` in `text` (`alone 653.5 ns/iter` → 653.5).
fn number_after(text: &str, key: &str) -> Option<f64> {
    let at = text.find(key)? + key.len();
    text[at..]
        .trim_start_matches([' ', ':'])
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()?
        .parse()
        .ok()
}

/// The waking write less the plain one, in a `wake` or `busy` part.
fn waking_write(part: &str) -> Option<f64> {
    Some(number_after(part, "write waking the partner")? - number_after(part, "write alone")?)
}

impl MeasuredCosts {
    /// Reads a `metadata.txt`; an error names what is missing.
    pub fn from_metadata(text: &str) -> Result<Self, String> {
        let mut c = MeasuredCosts {
            switch: vec![],
            busy_wakeup: vec![],
            idle_wakeup_write: vec![],
            local_wakeup: vec![],
            idle_by_gap: BTreeMap::new(),
        };
        for line in text.lines() {
            if line.starts_with("costs, run ") {
                let Some((_, body)) = line.split_once(": ") else {
                    continue;
                };
                let part =
                    |name: &str| body.split(" | ").find(|p| p.trim_start().starts_with(name));
                if let (Some(alone), Some(pair)) = (part("alone"), part("pair")) {
                    if let (Some(a), Some(p)) =
                        (number_after(alone, "alone"), number_after(pair, "pair"))
                    {
                        c.switch.push((p - 2.0 * a) / 2.0);
                    }
                }
                if let Some(w) = part("wake").and_then(waking_write) {
                    c.idle_wakeup_write.push(w);
                }
                if let Some(w) = part("busy").and_then(waking_write) {
                    c.busy_wakeup.push(w);
                }
                if let Some(l) = part("local").and_then(|p| number_after(p, "local wakeup")) {
                    c.local_wakeup.push(l);
                }
            } else if line.starts_with("idle wakeup, run ") {
                if let (Some(gap), Some(p50)) =
                    (number_after(line, "gap"), number_after(line, "p50"))
                {
                    c.idle_by_gap.entry(gap as u64).or_default().push(p50);
                }
            }
        }
        if c.switch.is_empty() {
            return Err(
                "no `costs, run N: alone … | pair …` lines: record them with \
                 `ONLY=costs sh scripts/record-fixtures.sh DIR`"
                    .into(),
            );
        }
        Ok(c)
    }

    /// `switch_cost_ns`.
    pub fn switch_cost_ns(&self) -> u64 {
        median(&self.switch).unwrap_or(0.0).max(0.0).round() as u64
    }

    /// `wakeup_cost_ns`: the busy target's where measured, else the idle target's (its IPI
    /// included, and `ipi_cost_ns` 0), as the measured machines were derived.
    pub fn wakeup_cost_ns(&self) -> u64 {
        median(&self.busy_wakeup)
            .or_else(|| median(&self.idle_wakeup_write))
            .unwrap_or(0.0)
            .max(0.0)
            .round() as u64
    }

    /// `ipi_cost_ns`: the idle target's waking write less the busy one's; 0 where only one
    /// was measured.
    pub fn ipi_cost_ns(&self) -> u64 {
        match (median(&self.idle_wakeup_write), median(&self.busy_wakeup)) {
            (Some(idle), Some(busy)) => (idle - busy).max(0.0).round() as u64,
            _ => 0,
        }
    }

    /// `idle_wakeup_ns`: the median wake-to-run after the shortest idle gaps (up to 150 µs,
    /// before a host's halt polling gives up) less δ; `None` without `idlelat` runs.
    pub fn idle_wakeup_ns(&self) -> Option<u64> {
        let short: Vec<f64> = self
            .idle_by_gap
            .range(..=150)
            .filter_map(|(_, v)| median(v))
            .collect();
        median(&short).map(|us| (us * 1e3 - DELTA_NS).max(0.0).round() as u64)
    }

    /// What `schedlab machines --metadata` prints: each figure with the runs behind it, and
    /// the scenario fields.
    pub fn text(&self) -> String {
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "switch_cost_ns   {:>6}  (pinned pair's round trip less twice the write and read \
             alone, halved; runs: {} ns)",
            self.switch_cost_ns(),
            list(&self.switch)
        );
        if self.busy_wakeup.is_empty() {
            let _ = writeln!(
                s,
                "wakeup_cost_ns   {:>6}  (a write waking a partner on the other, idle CPU, less \
                 a plain write, its IPI included: no `busy` runs; runs: {} ns)",
                self.wakeup_cost_ns(),
                list(&self.idle_wakeup_write)
            );
        } else {
            let _ = writeln!(
                s,
                "wakeup_cost_ns   {:>6}  (a write waking a partner on the other, busy CPU, less \
                 a plain write; runs: {} ns)",
                self.wakeup_cost_ns(),
                list(&self.busy_wakeup)
            );
            let _ = writeln!(
                s,
                "ipi_cost_ns      {:>6}  (the same onto the idle CPU, less the busy one; idle \
                 runs: {} ns)",
                self.ipi_cost_ns(),
                list(&self.idle_wakeup_write)
            );
        }
        if !self.local_wakeup.is_empty() {
            let _ = writeln!(
                s,
                "local wakeup     {:>6}  (runs: {} ns; part of switch_cost_ns as measured: to \
                 charge it to the waker, set local_wakeup_ns and take it off switch_cost_ns)",
                median(&self.local_wakeup).unwrap_or(0.0).round(),
                list(&self.local_wakeup)
            );
        }
        let mut fields = format!(
            "\"switch_cost_ns\": {}, \"wakeup_cost_ns\": {}, \"ipi_cost_ns\": {}",
            self.switch_cost_ns(),
            self.wakeup_cost_ns(),
            self.ipi_cost_ns()
        );
        if let Some(idle) = self.idle_wakeup_ns() {
            let _ = writeln!(
                s,
                "idle_wakeup_ns   {idle:>6}  (idlelat's wake-to-run p50 after up to 150 us of idle, \
                 less the model's 5 us delta; the measured machines take the pinned ping-pong's \
                 across the CPUs, pingpong-cross, which can differ by a few us)"
            );
            let _ = writeln!(
                s,
                "wake-to-run p50 by idle gap (us; one value per run): a deeper idle state is a \
                 step up from the short gaps' value (scenario \"idle_states\": after_ns, \
                 wakeup_ns = the step's wake-to-run less 5 us)"
            );
            for (gap, v) in &self.idle_by_gap {
                let p: Vec<String> = v.iter().map(|x| format!("{x:.1}")).collect();
                let _ = writeln!(s, "  {gap:>6} us idle: {}", p.join(", "));
            }
            let _ = write!(fields, ", \"idle_wakeup_ns\": {idle}");
        }
        let _ = writeln!(s, "scenario fields: {{{fields}}}");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEC6: &str = "\
costs, run 1: alone 653.5 ns/iter | pair 4965.0 ns/round-trip; write waking the partner 2356.0 ns, write alone 370.1 ns | wake 38755.7 ns/round-trip; write waking the partner 6390.5 ns, write alone 368.2 ns | busy 1023032.8 ns/round-trip; write waking the partner 2464.1 ns, write alone 366.6 ns | local write waking the partner 1807.0 ns, write alone 643.5 ns, local wakeup 1163.6 ns
costs, run 2: alone 720.2 ns/iter | pair 4962.4 ns/round-trip; write waking the partner 2352.9 ns, write alone 368.1 ns | wake 40528.6 ns/round-trip; write waking the partner 6916.3 ns, write alone 367.1 ns | busy 1023906.1 ns/round-trip; write waking the partner 2027.1 ns, write alone 364.4 ns | local write waking the partner 1812.1 ns, write alone 669.6 ns, local wakeup 1142.5 ns
idle wakeup, run 1: gap 0 us: wake p10 16.6 p50 21.3 p90 22.6 us
idle wakeup, run 1: gap 1000 us: wake p10 20.0 p50 27.0 p90 30.0 us
";

    #[test]
    fn each_figure_is_the_median_of_its_runs() {
        let c = MeasuredCosts::from_metadata(DEC6).unwrap();
        // (4965.0 − 1307.0) / 2 = 1829, (4962.4 − 1440.4) / 2 = 1761: their mean.
        assert_eq!(c.switch_cost_ns(), 1795);
        // 2464.1 − 366.6 = 2097.5, 2027.1 − 364.4 = 1662.7.
        assert_eq!(c.wakeup_cost_ns(), 1880);
        // 6022.3 and 6549.2 (mean 6285.75) less 1880.1.
        assert_eq!(c.ipi_cost_ns(), 4406);
        // 21.3 µs after no idle, less δ; the 1-ms gap is not a short one.
        assert_eq!(c.idle_wakeup_ns(), Some(16_300));
        let t = c.text();
        assert!(t.contains("\"switch_cost_ns\": 1795"), "{t}");
        assert!(t.contains("local wakeup"), "{t}");
        assert!(t.contains("1000 us idle: 27.0"), "{t}");
    }

    #[test]
    fn without_busy_runs_the_idle_targets_write_is_the_wakeup_cost() {
        let c = MeasuredCosts::from_metadata(
            "costs, run 1 of an earlier set (copied): alone 833 ns/iter | pair 6287 ns/round-trip | wake: write waking the partner 2324 ns, write alone 462 ns\n",
        )
        .unwrap();
        assert_eq!(c.switch_cost_ns(), 2311);
        assert_eq!(c.wakeup_cost_ns(), 1862);
        assert_eq!(c.ipi_cost_ns(), 0);
        assert_eq!(c.idle_wakeup_ns(), None);
    }

    #[test]
    fn a_file_without_cost_runs_says_how_to_record_them() {
        let e = MeasuredCosts::from_metadata("uname -a: Linux\n").unwrap_err();
        assert!(e.contains("ONLY=costs"), "{e}");
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
