//! # schedlab-report
//!
//! Turns a [`schedlab_sim::Trace`] into the reports people read off real kernels:
//! `perf sched latency` ([`latency`]), `perf sched timehist` ([`timehist`]), schbench's
//! percentile blocks ([`percentiles`]), raw wakeup-latency samples ([`wakeup`]), histogram
//! arithmetic ([`histogram`]), CPU share per task group ([`groups`]) and charts on any plotters backend ([`plot`]); per-workload figures and the benchmarks' own summaries
//! (hackbench, schbench, rates: [`workload`]) and a side-by-side summary of variants
//! ([`compare`]), and the one report of a run that the command line and the page print as CSV
//! and JSON ([`export`]).
//!
//! Pure and deterministic: no I/O, no clock, no hash-map iteration order; text outputs are
//! byte-for-byte what the C tools' `printf` calls would print (glibc rounding included).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cfmt;
pub mod compare;
pub mod diff;
pub mod export;
pub mod figures;
pub mod groups;
pub mod histogram;
pub mod latency;
pub mod observed;
#[cfg(feature = "serde")]
mod packed;
pub mod percentiles;
pub mod perfetto;
pub mod plot;
pub mod sweep;
pub mod timehist;
pub mod timeline;
pub mod wakeup;
pub mod why;
pub mod workload;

/// A text CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; and
/// one that a spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`, a tab or
/// a carriage return) is prefixed with `'`, as OWASP advises, so that opening an exported
/// table never runs a task's name.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn csv_fields_are_quoted_when_they_must_be() {
        assert_eq!(super::csv_field("tbench"), "tbench");
        assert_eq!(super::csv_field("a,b"), "\"a,b\"");
        assert_eq!(super::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(super::csv_field("two\nlines"), "\"two\nlines\"");
        // Formula-like cells are neutralised.
        assert_eq!(super::csv_field("=1+2"), "'=1+2");
        assert_eq!(super::csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(super::csv_field("-x,y"), "\"'-x,y\"");
        assert_eq!(
            super::csv_field("eevdf-6.6:NO_RUN_TO_PARITY"),
            "eevdf-6.6:NO_RUN_TO_PARITY"
        );
    }
}
