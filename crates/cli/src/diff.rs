//! `schedlab diff`: where two variants of one scenario first make a different scheduling
//! decision, with the shared events before it and what the fair class saw on each side.

use std::fmt::Write as _;
use std::io::Write;

use schedlab_report::diff::{first_divergence, format_divergence, setting_differences};
use schedlab_sim::Variant;

use crate::args::DiffArgs;
use crate::sweep::run_one;
use crate::{usage_err, Fail};

pub(crate) fn diff(a: &DiffArgs, out: &mut dyn Write) -> Result<(), Fail> {
    let (_, sc) = a.source.load()?;
    let variants: Vec<Variant> = if a.variants.is_empty() {
        sc.variants.iter().take(2).cloned().collect()
    } else {
        let mut v = vec![];
        for n in &a.variants {
            v.push(Variant::parse(n).map_err(|e| usage_err(format!("--variant: {e}")))?);
        }
        v
    };
    if variants.len() != 2 {
        return Err(usage_err(format!(
            "diff compares two variants; {} given (pass --variant A --variant B, or a scenario that lists at least two)",
            variants.len()
        )));
    }
    // Snapshots only observe: the events are the same with or without them.
    let runs = variants
        .iter()
        .map(|v| run_one(&sc, v, a.max_events, true).map_err(|e| Fail(1, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let (ta, tb) = (&runs[0].trace, &runs[1].trace);
    let d = first_divergence(ta, tb, a.runtime);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} ({} CPUs, HZ={}, seed {}): {} vs {}",
        sc.name, sc.cpus, sc.hz, sc.seed, variants[0].name, variants[1].name
    );
    let diffs = setting_differences(&variants[0], &variants[1], sc.cpus as u32);
    if diffs.is_empty() {
        let _ = writeln!(s, "# settings: identical");
    } else {
        let _ = writeln!(s, "# settings that differ: {}", diffs.join(", "));
    }
    s.push_str(&format_divergence(
        (&variants[0].name, &variants[1].name),
        ta,
        tb,
        d.as_ref(),
        a.context,
    ));
    out.write_all(s.as_bytes())
        .map_err(|e| Fail(1, format!("cannot write output: {e}")))
}
