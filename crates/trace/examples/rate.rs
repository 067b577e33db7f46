//! Measures the import rate on a large synthetic input built from the recorded fixtures:
//! `cargo run --release -p schedlab-trace --example rate [MB]` (default 200 MB of text per
//! format). The text is generated in memory chunk by chunk and pushed in 64 KiB chunks, as
//! the page reads a file; the clock covers only `push`/`finish`.

use std::io::Read;
use std::time::Instant;

use schedlab_trace::{Importer, Options};

fn fixture(name: &str) -> String {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/traces/").to_string() + name;
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).expect(&path))
        .read_to_string(&mut s)
        .expect(&path);
    s
}

/// Lines of the fixture's events, repeated with increasing timestamps.
fn synthetic(base: &str, mb: usize, header_lines: usize) -> Vec<Vec<u8>> {
    let lines: Vec<&str> = base.lines().skip(header_lines).collect();
    let mut chunks = vec![];
    let mut chunk = String::with_capacity(1 << 16);
    let mut total = 0;
    let mut round = 0u64;
    while total < mb << 20 {
        for l in &lines {
            // Shift the seconds so time keeps increasing from round to round.
            let l = shift(l, round * 10);
            chunk.push_str(&l);
            chunk.push('\n');
            if chunk.len() >= 1 << 16 {
                total += chunk.len();
                chunks.push(std::mem::take(&mut chunk).into_bytes());
            }
        }
        round += 1;
    }
    chunks.push(chunk.into_bytes());
    chunks
}

/// Adds `secs` to the first `N.NNNNNN` number that is a timestamp.
fn shift(line: &str, secs: u64) -> String {
    let b = line.as_bytes();
    for (i, w) in b.windows(2).enumerate() {
        if w[1] == b'.' && w[0].is_ascii_digit() {
            let start = line[..=i]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |p| p + 1);
            if let Ok(v) = line[start..=i].parse::<u64>() {
                if start == 0 || b[start - 1] == b' ' {
                    return format!("{}{}{}", &line[..start], v + secs, &line[i + 1..]);
                }
            }
        }
    }
    line.to_string()
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    for (name, header) in [
        ("hackbench.perf-script.txt.gz", 0),
        ("hackbench.trace-cmd-lat.txt.gz", 1),
        ("hackbench.timehist.txt.gz", 3),
    ] {
        let chunks = synthetic(&fixture(name), mb, header);
        let bytes: usize = chunks.iter().map(Vec::len).sum();
        let start = Instant::now();
        let mut imp = Importer::new(Options::default());
        for c in &chunks {
            for part in c.chunks(64 * 1024) {
                imp.push(part).expect("push");
            }
        }
        let out = imp.finish().expect("finish");
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name}: {:.0} MB in {secs:.2} s = {:.0} MB/s ({}; {} events, {} warnings)",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / secs,
            out.format,
            out.trace.events.len(),
            out.warnings_total
        );
    }
}
