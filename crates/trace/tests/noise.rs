//! Real-world noise, and a seeded mutation loop per parser: mutated input never panics, every
//! warning names a line that exists, and a text that is no trace is refused with the formats
//! tried.

mod common;

use std::io::Write;

use schedlab_trace::{import_bytes, Format, ImportError, Importer, Options};

/// A few hundred lines of each format, from the fixtures (and schedlab's own exports).
fn samples() -> Vec<(Format, String)> {
    let head = |name: &str, n: usize| -> String {
        common::text(name)
            .lines()
            .take(n)
            .map(|l| format!("{l}\n"))
            .collect()
    };
    vec![
        (Format::PerfScript, head("hogs.perf-script.txt.gz", 300)),
        (
            Format::PerfScript,
            head("hogs.perf-script-fields.txt.gz", 300),
        ),
        (
            Format::PerfScript,
            head("pipe.perf-script-callchain.txt.gz", 300),
        ),
        (Format::PerfTimehist, head("hogs.timehist.txt.gz", 300)),
        (Format::Ftrace, head("hogs.trace-cmd.txt.gz", 300)),
        (Format::Ftrace, head("hogs.trace-cmd-lat.txt.gz", 300)),
        (Format::Ftrace, head("periodic.ftrace.txt.gz", 300)),
        (Format::Jsonl, JSONL.to_string()),
        (Format::Perfetto, PERFETTO.to_string()),
    ]
}

const JSONL: &str = r#"{"t_ns":0,"cpu":0,"event":"sched_wakeup_new","comm":"hog","pid":1,"target_cpu":0}
{"t_ns":5000,"cpu":0,"event":"sched_switch","prev_comm":"swapper/0","prev_pid":0,"prev_state":"R","next_comm":"hog","next_pid":1}
{"t_ns":9000,"cpu":0,"event":"sched_waking","comm":"my hog [a:1]","pid":2,"target_cpu":1}
{"t_ns":9500,"cpu":1,"event":"sched_wakeup","comm":"my hog [a:1]","pid":2,"target_cpu":1}
{"t_ns":10000,"cpu":1,"event":"sched_switch","prev_comm":"swapper/1","prev_pid":0,"prev_state":"R","next_comm":"my hog [a:1]","next_pid":2}
{"t_ns":4000000,"cpu":0,"event":"sched_stat_runtime","comm":"hog","pid":1,"runtime_ns":3995000}
{"t_ns":4000000,"cpu":0,"event":"sched_switch","prev_comm":"hog","prev_pid":1,"prev_state":"X","next_comm":"swapper/0","next_pid":0}
{"t_ns":4100000,"cpu":1,"event":"sched_migrate_task","comm":"my hog [a:1]","pid":2,"orig_cpu":1,"dest_cpu":0}
"#;

const PERFETTO: &str = r#"{"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"eevdf-6.6"}},
{"name":"thread_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"CPU 0"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CPU 1"}},
{"name":"hog:1","ph":"X","pid":1,"tid":0,"ts":0.005,"dur":3000.0,"args":{"ended":"preempted by b:c:2 (slice used up, tick)"}},
{"name":"b:c:2","ph":"X","pid":1,"tid":0,"ts":3000.005,"dur":1000.0,"args":{"ended":"blocked (slept)"}},
{"name":"wakeup b:c:2","ph":"i","s":"t","pid":1,"tid":1,"ts":1.5},
{"name":"b:c:2","ph":"X","pid":1,"tid":1,"ts":5000,"dur":10,"args":{"ended":"still running at the end of the trace"}}],
"displayTimeUnit":"ns","otherData":{"source":"schedlab"}}"#;

/// A small deterministic generator (xorshift64*), so failures replay.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation: flip, insert, delete or duplicate bytes, cut the text, swap two lines.
fn mutate(rng: &mut Rng, text: &mut Vec<u8>) {
    const BYTES: &[u8] = b" :=[]()/-.0123456789Rr+SX\n\r\t{}\",\xff\xc3";
    let n = text.len().max(1);
    match rng.below(6) {
        0 => {
            if !text.is_empty() {
                let i = rng.below(n);
                text[i] = BYTES[rng.below(BYTES.len())];
            }
        }
        1 => {
            let i = rng.below(n + 1).min(text.len());
            text.insert(i, BYTES[rng.below(BYTES.len())]);
        }
        2 => {
            if !text.is_empty() {
                let i = rng.below(n);
                let len = rng.below(40).min(text.len() - i);
                text.drain(i..i + len);
            }
        }
        3 => {
            if !text.is_empty() {
                let i = rng.below(n);
                let len = rng.below(80).min(text.len() - i);
                let piece: Vec<u8> = text[i..i + len].to_vec();
                let j = rng.below(n + 1).min(text.len());
                text.splice(j..j, piece);
            }
        }
        4 => {
            let cut = rng.below(n + 1).min(text.len());
            text.truncate(cut);
        }
        _ => {
            let mut lines: Vec<Vec<u8>> = text.split(|&c| c == b'\n').map(|l| l.to_vec()).collect();
            if lines.len() > 2 {
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
            }
            *text = lines.join(&b'\n');
        }
    }
}

fn check_import(text: &[u8], opts: Options, what: &str) {
    match import_bytes(text, opts) {
        Ok(imp) => {
            for w in &imp.warnings {
                assert!(
                    w.line >= 1 && w.line <= imp.lines.max(1),
                    "{what}: warning names line {} of {}: {w}",
                    w.line,
                    imp.lines
                );
                assert!(w.to_string().starts_with(&format!("line {}: ", w.line)));
            }
            assert!(imp.warnings.len() as u64 <= imp.warnings_total);
            // The trace is usable: time-ordered events on known CPUs, tasks sorted by pid.
            let ev = &imp.trace.events;
            assert!(
                ev.iter()
                    .zip(ev.iter().skip(1))
                    .all(|(a, b)| a.t_ns <= b.t_ns),
                "{what}"
            );
            assert!(ev.iter().all(|e| e.cpu < imp.trace.cpus), "{what}");
            assert!(
                imp.trace.tasks.windows(2).all(|w| w[0].pid < w[1].pid),
                "{what}"
            );
        }
        Err(ImportError::NotATrace { tried, .. }) => assert_eq!(tried.len(), 5, "{what}"),
        Err(ImportError::Empty) => {}
        Err(e) => panic!("{what}: unexpected error {e}"),
    }
}

#[test]
fn mutated_input_never_panics_and_every_warning_names_a_line() {
    let mut rng = Rng(0x5eed_0012);
    for (format, sample) in samples() {
        for round in 0..300 {
            let mut text = sample.as_bytes().to_vec();
            for _ in 0..1 + rng.below(8) {
                mutate(&mut rng, &mut text);
            }
            let what = format!("{format} round {round}");
            check_import(&text, Options::default(), &what);
            // Forced format too: every parser sees the others' text and garbage.
            check_import(
                &text,
                Options {
                    format: Some(format),
                    ..Default::default()
                },
                &what,
            );
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for round in 0..500 {
        let len = rng.below(2000);
        let text: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        for format in [
            None,
            Some(Format::PerfScript),
            Some(Format::PerfTimehist),
            Some(Format::Ftrace),
            Some(Format::Jsonl),
            Some(Format::Perfetto),
        ] {
            check_import(
                &text,
                Options {
                    format,
                    ..Default::default()
                },
                &format!("random {round}"),
            );
        }
    }
}

#[test]
fn chunking_does_not_change_the_result() {
    let mut rng = Rng(7);
    for (format, sample) in samples() {
        let whole = import_bytes(sample.as_bytes(), Options::default()).unwrap();
        assert_eq!(whole.format, format);
        // Gzip too: the same text compressed, pushed in random chunk sizes.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(sample.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        for input in [sample.as_bytes(), &gz[..]] {
            let mut imp = Importer::new(Options::default());
            let mut rest = input;
            while !rest.is_empty() {
                let n = (1 + rng.below(300)).min(rest.len());
                imp.push(&rest[..n]).unwrap();
                rest = &rest[n..];
            }
            let chunked = imp.finish().unwrap();
            assert_eq!(chunked.trace, whole.trace, "{format}");
            assert_eq!(chunked.warnings, whole.warnings, "{format}");
            assert_eq!(chunked.lines, whole.lines, "{format}");
        }
    }
}

#[test]
fn crlf_and_a_truncated_last_line() {
    for (format, sample) in samples() {
        if format == Format::Perfetto {
            continue;
        }
        let whole = import_bytes(sample.as_bytes(), Options::default()).unwrap();
        let crlf = sample.replace('\n', "\r\n");
        let imp = import_bytes(crlf.as_bytes(), Options::default()).unwrap();
        assert_eq!(imp.trace, whole.trace, "{format} with CRLF");
        // Cut in the middle of the last line: at most that line is lost, and reported.
        let cut = &sample[..sample.len() - 20];
        let imp = import_bytes(cut.as_bytes(), Options::default()).unwrap();
        assert!(
            imp.trace.events.len() + 2 >= whole.trace.events.len(),
            "{format}"
        );
        for w in imp.warnings.iter().filter(|w| !whole.warnings.contains(w)) {
            assert_eq!(
                w.line, imp.lines,
                "{format}: only the last line may be bad: {w}"
            );
        }
    }
}

#[test]
fn a_truncated_gzip_keeps_what_was_read() {
    let raw = std::fs::read(common::fixture("hogs.perf-script.txt.gz")).unwrap();
    let cut = &raw[..raw.len() / 2];
    let imp = import_bytes(cut, Options::default()).unwrap();
    assert!(imp.gzip);
    assert!(imp.trace.events.len() > 100);
    assert!(
        imp.notes
            .iter()
            .any(|n| n.contains("gzip stream ends early")),
        "{:?}",
        imp.notes
    );
}

/// A gzip stream whose text is no trace and whose checksum is wrong (found by the `trace` fuzz
/// target): pushed whole, the checksum's error came first, since the text decoded before it
/// was dropped with the error; pushed in pieces, the text was read first and refused. The
/// text decoded before a corruption is now read first either way.
#[test]
fn a_corrupt_gzip_of_no_trace_fails_alike_whole_and_in_pieces() {
    let text = "perf 1260 [000] 35.564458: not a line of any trace\n".repeat(1500);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let mut gz = gz.finish().unwrap();
    // The trailer's CRC-32, checked as the next member begins.
    let n = gz.len();
    gz[n - 8] ^= 0xff;
    gz.extend_from_slice(&gz.clone());
    let whole = import_bytes(&gz, Options::default()).unwrap_err();
    let mut imp = Importer::new(Options::default());
    let pieces: Result<(), ImportError> = gz.chunks(64).try_for_each(|c| imp.push(c));
    let pieced = match pieces {
        Err(e) => e,
        Ok(()) => imp.finish().unwrap_err(),
    };
    assert_eq!(whole, pieced);
    assert!(matches!(whole, ImportError::NotATrace { .. }), "{whole:?}");
}

#[test]
fn a_bad_line_is_reported_with_its_number_and_text() {
    let text = "\
            hog  1328 [001]  1941.593792:       sched:sched_switch: prev_comm=hog prev_pid=1328 prev_prio=120 prev_state=R ==> next_comm=bash next_pid=1325 next_prio=120
            hog  1328 [001]  1941.593800:       sched:sched_switch: prev_comm=hog prev_pid=x prev_state=R
            hog  1328 [001]  1941.593900: irq:softirq_entry: vec=1 [action=TIMER]
            hog  1328 [001]  1941.594000: sched:sched_process_fork: comm=hog pid=1328 child_comm=hog child_pid=1400
";
    let imp = import_bytes(text.as_bytes(), Options::default()).unwrap();
    assert_eq!(imp.warnings_total, 1);
    let w = &imp.warnings[0];
    assert_eq!(w.line, 2);
    assert!(w.text.contains("prev_pid=x"));
    assert!(w.message.contains("sched_switch"), "{}", w.message);
    assert_eq!(imp.skipped["irq:softirq_entry"], 1);
    assert_eq!(imp.skipped["sched:sched_process_fork"], 1);
    assert_eq!(imp.trace.events.len(), 1);
}

#[test]
fn warnings_are_capped_but_counted() {
    let mut text = String::from(
        "  a  1 [000]  1.000000: sched:sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n",
    );
    for _ in 0..500 {
        text.push_str("  a  1 [000]  1.000001: sched:sched_waking: comm=b\n");
    }
    let imp = import_bytes(
        text.as_bytes(),
        Options {
            max_warnings: 10,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(imp.warnings.len(), 10);
    assert_eq!(imp.warnings_total, 500);
}

#[test]
fn prev_state_forms() {
    let mut text = String::new();
    for (i, s) in [
        "R", "R+", "S", "D", "X", "Z", "I", "t", "T", "D|K", "P", "W",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!(
            "  a  1 [000]  1.{i:06}: sched:sched_switch: prev_comm=a prev_pid={} prev_prio=120 prev_state={s} ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
            i + 1
        ));
    }
    let imp = import_bytes(text.as_bytes(), Options::default()).unwrap();
    assert_eq!(imp.warnings_total, 0, "{:?}", imp.warnings);
    assert_eq!(imp.prev_states.len(), 12);
    use schedlab_sim::{EventKind, PrevState};
    let states: Vec<PrevState> = imp
        .trace
        .events
        .iter()
        .map(|e| match e.kind {
            EventKind::Switch { prev_state, .. } => prev_state,
            _ => unreachable!(),
        })
        .collect();
    use PrevState::*;
    assert_eq!(
        states,
        [
            Running, Running, Sleeping, Sleeping, Dead, Dead, Sleeping, Sleeping, Sleeping,
            Sleeping, Sleeping, Sleeping
        ]
    );
}

#[test]
fn pid_reuse_after_exit_is_a_new_task() {
    let text = "\
  a  9 [000]  1.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=old next_pid=77 next_prio=120
  a  9 [000]  1.000100: sched:sched_process_exit: comm=old pid=77 prio=120 group_dead=1
  a  9 [000]  1.000200: sched:sched_switch: prev_comm=old prev_pid=77 prev_prio=120 prev_state=X ==> next_comm=swapper/0 next_pid=0 next_prio=120
  a  9 [001]  1.000300: sched:sched_wakeup_new: comm=new pid=77 prio=120 target_cpu=001
  a  9 [001]  1.000400: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=new next_pid=77 next_prio=120
";
    let imp = import_bytes(text.as_bytes(), Options::default()).unwrap();
    assert_eq!(imp.pids.len(), 2);
    assert_eq!(
        (imp.pids[0].real_pid, imp.pids[0].comm.as_str()),
        (77, "old")
    );
    assert_eq!(
        (imp.pids[1].real_pid, imp.pids[1].comm.as_str()),
        (77, "new")
    );
    assert_eq!(imp.model_pid(77), Some(2));
    assert_eq!(imp.t0_ns, 1_000_000_000);
    assert_eq!(imp.trace.end_ns, 400_000);
}

#[test]
fn no_trace_is_refused_naming_the_formats() {
    let e = import_bytes(b"hello\nworld\n", Options::default()).unwrap_err();
    let msg = e.to_string();
    for f in [
        "perf script",
        "perf sched timehist",
        "ftrace / trace-cmd report",
        "JSONL",
        "Perfetto",
    ] {
        assert!(msg.contains(f), "{msg}");
    }
    assert!(msg.contains("\"hello\""), "{msg}");
    assert_eq!(
        import_bytes(b"", Options::default()).unwrap_err(),
        ImportError::Empty
    );
    assert_eq!(
        import_bytes(b"\n \n", Options::default()).unwrap_err(),
        ImportError::Empty
    );
}

/// Found by the `trace` fuzz target: an empty text read as Perfetto JSON (the format given)
/// counted one line.
#[test]
fn an_empty_text_has_no_lines_in_any_format() {
    for format in schedlab_trace::Format::ALL {
        let mut imp = schedlab_trace::Importer::new(schedlab_trace::Options {
            format: Some(format),
            ..Default::default()
        });
        imp.push(b"").unwrap();
        let got = imp.finish().unwrap();
        assert_eq!(got.lines, 0, "{format}");
    }
}

/// Found by the `trace` fuzz target: a damaged CPU number (`[85160000]`) made every per-CPU
/// table that large (out of memory). CPU numbers of 8192 and more (the kernel's largest
/// NR_CPUS) are refused with the line, and a `cpus=` header that large is ignored.
#[test]
fn a_cpu_number_no_kernel_has_is_a_warning_with_its_line() {
    let good = "            perf 12608 [000]  2269.564462:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000\n";
    let bad = "            perf 12608 [85160000]  2269.564463:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000\n";
    let target = "            perf 12608 [001]  2269.564464:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=4000000000\n";
    let imp = import_bytes(
        format!("{good}{bad}{target}").as_bytes(),
        Options::default(),
    )
    .unwrap();
    assert_eq!(imp.trace.cpus, 1, "only CPU 0 is real");
    let lines: Vec<u64> = imp.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [2, 3], "{:?}", imp.warnings);
    assert!(
        imp.warnings[0]
            .message
            .contains("CPU 85160000 is out of range"),
        "{}",
        imp.warnings[0]
    );
    assert!(
        imp.warnings[1]
            .message
            .contains("CPU 4000000000 is out of range"),
        "{}",
        imp.warnings[1]
    );
    let ftrace = "cpus=99999999\n          <idle>-0     [000] d..2.  100.000001: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n";
    let imp = import_bytes(ftrace.as_bytes(), Options::default()).unwrap();
    assert_eq!(imp.trace.cpus, 1);
}

/// Found by the `trace` fuzz target: the format was judged from the start of a line cut by a
/// chunk boundary (`# tracer:o…` read as ftrace's header, where the whole line is perf
/// script's), so the detected format depended on the chunks.
#[test]
fn detection_waits_for_whole_lines() {
    let text = "hello\n# tracer: perf 12608 [000]  2269.564458: sched:sched_stat_runtime: comm=perf pid=12608 runtime=29144 [ns]\n";
    let whole = import_bytes(text.as_bytes(), Options::default()).unwrap();
    let mut imp = Importer::new(Options::default());
    let (a, b) = text.split_at("hello\n# tracer:".len());
    imp.push(a.as_bytes()).unwrap();
    imp.push(b.as_bytes()).unwrap();
    let split = imp.finish().unwrap();
    assert_eq!(whole.format, split.format);
}

/// Found by the `trace` fuzz target: `[` and white space at the end of a chunk were taken for
/// the start of Perfetto JSON before the next byte said otherwise.
#[test]
fn a_bracket_waits_for_what_follows_it() {
    let text = "[\x0c\x0c x\n";
    let whole = import_bytes(text.as_bytes(), Options::default()).map(|i| i.format);
    let split = (|| {
        let mut imp = Importer::new(Options::default());
        let (a, b) = text.split_at(3);
        imp.push(a.as_bytes())?;
        imp.push(b.as_bytes())?;
        imp.finish()
    })()
    .map(|i| i.format);
    assert!(
        matches!(whole, Err(ImportError::NotATrace { .. })),
        "{whole:?}"
    );
    assert_eq!(whole, split);
}

/// Found by the `trace` fuzz target: a timehist line on CPU [85160000] sized the parser's
/// per-CPU state by it (out of memory) before the event was refused.
#[test]
fn a_timehist_line_on_a_cpu_no_kernel_has_is_a_warning() {
    let text = "           time    cpu  task name                       wait time  sch delay   run time\n    2272.555873 [85160000]  perf[12674]                         0.000      0.000      0.000 \n";
    let imp = import_bytes(text.as_bytes(), Options::default()).unwrap();
    assert_eq!(imp.warnings.len(), 1, "{:?}", imp.warnings);
    assert_eq!(imp.warnings[0].line, 2);
    assert!(imp.warnings[0]
        .message
        .contains("CPU 85160000 is out of range"));
}
