//! Every trace importer (`schedlab_trace`): perf script, perf sched timehist, ftrace /
//! trace-cmd report, schedlab's JSONL and Perfetto JSON, and format detection. The first byte
//! of the input chooses the importer (0: detect, 1–5: the formats in `Format::ALL` order), the
//! second seeds how the rest is cut into chunks.
//!
//! Oracles: no panic; importing in random chunks gives exactly what one push gives (trace,
//! pids, warnings, counts, notes, or the same error); every warning names a line that exists
//! and whose text it quotes; the report crate's tables of the imported trace do not panic;
//! the scenario derived from it validates; 5 s per input.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::{within, Split};
use schedlab_scenario::Scenario;
use schedlab_trace::{derive_scenario, Format, Import, ImportError, Importer, Options};

fn import(chunks: &[&[u8]], format: Option<Format>) -> Result<Import, ImportError> {
    let mut imp = Importer::new(Options {
        format,
        max_warnings: 1000,
        ..Options::default()
    });
    for c in chunks {
        imp.push(c)?;
    }
    imp.finish()
}

/// The lines of a plain (not gzip) text as the importer numbers them.
fn lines(text: &[u8]) -> Vec<String> {
    if text.is_empty() {
        return vec![];
    }
    let mut v: Vec<String> = text
        .split(|&c| c == b'\n')
        .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
        .collect();
    if text.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let format = match data[0] % 6 {
        0 => None,
        i => Some(Format::ALL[i as usize - 1]),
    };
    let seed = data[1];
    let input = &data[2..];
    within("importing a trace", Duration::from_secs(5), || {
        let whole = import(&[input], format);
        let chunks = Split(u64::from(seed)).chunks(input, 4096);
        let split = import(&chunks, format);
        match (&whole, &split) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.format, b.format, "the format depends on the chunks");
                assert_eq!(
                    a.trace.events, b.trace.events,
                    "the events depend on the chunks"
                );
                assert_eq!(
                    a.trace.tasks, b.trace.tasks,
                    "the tasks depend on the chunks"
                );
                assert_eq!(a.pids, b.pids, "the pids depend on the chunks");
                assert_eq!(a.warnings, b.warnings, "the warnings depend on the chunks");
                assert_eq!(a.warnings_total, b.warnings_total);
                assert_eq!(a.lines, b.lines, "the line count depends on the chunks");
                assert_eq!(a.notes, b.notes, "the notes depend on the chunks");
                assert_eq!(a.skipped, b.skipped);
                assert_eq!(a.events_read, b.events_read);
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "the error depends on the chunks"),
            _ => panic!(
                "one push and chunks disagree: {:?} vs {:?}",
                whole.as_ref().err(),
                split.as_ref().err()
            ),
        }
        let Ok(imp) = whole else {
            return;
        };
        if !imp.gzip {
            let text = lines(input);
            assert_eq!(imp.lines, text.len() as u64, "the line count is wrong");
            for w in &imp.warnings {
                assert!(
                    w.line >= 1 && w.line <= imp.lines,
                    "a warning names line {} of {}",
                    w.line,
                    imp.lines
                );
                // The warning quotes (the start of) its line; an object of Perfetto JSON
                // starts on the line named.
                let quoted = w.text.trim_end_matches('…');
                let first = quoted.split('\n').next().unwrap_or("");
                let first = first.strip_suffix('\r').unwrap_or(first);
                assert!(
                    text[w.line as usize - 1].contains(first),
                    "warning {w} does not quote line {}: {:?}",
                    w.line,
                    text[w.line as usize - 1]
                );
            }
        }
        let t = &imp.trace;
        let rows = schedlab_report::latency::latency_rows(t, true);
        let _ = schedlab_report::latency::format_perf(&rows);
        let _ =
            schedlab_report::latency::format_sum(&schedlab_report::latency::latency_rows(t, false));
        let lines = schedlab_report::timehist::timehist_lines(t);
        let _ = schedlab_report::timehist::format_timehist(t, &lines);
        let _ = schedlab_report::wakeup::wakeup_latencies_ns(t, None);
        let _ = schedlab_report::wakeup::sched_delays_ns(t);
        // A recording where no task ran derives no task group: the CLI refuses it with its
        // own message. Any other derived scenario must validate.
        let d = derive_scenario(&imp, "fuzz", &["eevdf-6.6".to_string()], 0);
        if d.groups.is_empty() {
            return;
        }
        if let Err(e) = Scenario::from_value(d.scenario.clone()) {
            panic!(
                "the derived scenario does not validate: {e}\n{}",
                d.scenario
            );
        }
    });
});
