//! Imports a trace file and prints what the import saw and the `perf sched latency` table of
//! the result: `cargo run -p schedlab-trace --example import -- FILE [--pids]`.

use std::fs::File;

use schedlab_report::latency::{format_perf, latency_rows};
use schedlab_trace::{import_reader, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: import FILE [--pids]");
        std::process::exit(2);
    };
    let file = File::open(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let imp = match import_reader(file, Options::default()) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "{path}: {} (gzip: {}), {} lines, {} bytes, {} CPUs, {} tasks, {} events, {:.3} s",
        imp.format,
        imp.gzip,
        imp.lines,
        imp.bytes,
        imp.trace.cpus,
        imp.trace.tasks.len(),
        imp.trace.events.len(),
        imp.trace.end_ns as f64 / 1e9
    );
    println!("events read: {:?}", imp.events_read);
    println!("skipped: {:?}", imp.skipped);
    println!("prev_state forms: {:?}", imp.prev_states);
    println!(
        "warnings: {} (kept {})",
        imp.warnings_total,
        imp.warnings.len()
    );
    for w in imp.warnings.iter().take(10) {
        println!("  {w}");
    }
    for n in &imp.notes {
        println!("note: {n}");
    }
    let rows = latency_rows(&imp.trace, !args.iter().any(|a| a == "--pids"));
    print!("{}", format_perf(&rows));
}
