//! # schedlab-trace
//!
//! Streaming importers of scheduler traces into the simulator's trace model
//! ([`schedlab_sim::Trace`]), so that the report crate's tables, histograms and timelines work
//! on a real recording exactly as on a simulated run.
//!
//! ## Formats
//!
//! | [`Format`] | made by | what the import gives |
//! |---|---|---|
//! | [`Format::PerfScript`] | `perf sched record` + `perf script` (perf 5.x–6.x; default layout, `-F comm,pid,tid,cpu,time,event,trace`, `--ns`, with or without callchains) | every sched event: switches with `prev_state`, wakeups (`sched_waking` and/or `sched_wakeup`), `sched_wakeup_new`, migrations, `sched_stat_runtime`; exits free a pid for reuse |
//! | [`Format::PerfTimehist`] | `perf sched timehist` (`-w` wakeup and `-M` migration lines, `--state` are read when present) | switch-level only: **no wakeup events** in the default view; switches rebuilt from the sched-out lines, `prev_state` inferred, runtimes from the run-time column; µs precision |
//! | [`Format::Ftrace`] | the tracefs `trace` file, `trace-cmd report`, `trace-cmd report -l` (irqs-off latency columns), the kernel's and trace-cmd's plugin forms of `sched_switch`/`sched_wakeup*` | as perf script; the CPU count from `cpus=N` / `#P:N`; `[LOST N EVENTS]` counted |
//! | [`Format::Jsonl`] | schedlab's `--trace FILE.jsonl` | the simulated events as they were (one run of a multi-variant file) |
//! | [`Format::Perfetto`] | schedlab's Chrome/Perfetto trace-event JSON | the stints (CPU, task, start, end, why it ended) and `sched_wakeup`s; switches rebuilt from the stints |
//!
//! The input may be gzip-compressed (detected by its magic bytes), may use CRLF line ends, and
//! may end in the middle of a line. The format is detected from the first lines
//! ([`detect_line`]); a text that fits none is refused with [`ImportError::NotATrace`], which
//! names the formats tried.
//!
//! ## Noise
//!
//! Lines of events the model does not hold (`sched_process_fork`, `irq:*`, …) are skipped and
//! counted by name ([`Import::skipped`]); lines that cannot be read are kept as
//! [`LineWarning`]s with their number and text (the first [`Options::max_warnings`]; all are
//! counted), and the import goes on. Comms are taken verbatim (spaces, brackets, colons).
//! `prev_state` maps to the model's three states: `R`/`R+` preempted, `X`/`Z` exited, anything
//! else (`S`, `D`, `I`, `T`, `t`, `P`, `W`, combinations) blocked; every form is counted in
//! [`Import::prev_states`].
//!
//! ## Pids and time
//!
//! Real pids are renumbered into the model's dense pid space from 1 (the report crate and the
//! page index tasks by pid), in the order of (real pid, incarnation), so orders by pid are
//! kept; a pid reused by a new task after an exit becomes a new model pid. [`Import::pids`]
//! maps every model pid back to its real pid, last comm and last priority. The idle task is pid
//! 0. Times are rebased to the first event ([`Import::t0_ns`] is that event's time on the
//! recording's clock). schedlab's own formats (JSONL, Perfetto) keep their pids and times.
//!
//! ## What cannot be derived
//!
//! A trace has no scheduling policy or nice value (only `prio` fields, kept in
//! [`RealTask::prio`]), no CPU topology, no tunables, no I/O devices: the model's tasks are
//! plain tasks. Stint lengths include interrupt time (`sched_stat_runtime` does not, with IRQ
//! time accounting). Without `sched_stat_runtime` (kernels that do not emit it for a class)
//! runtimes are 0 in perf-sched-latency tables; without wakeups (timehist) only preemption
//! delays are measured. Events the tracer did not see (lost buffers, threads whose
//! tracepoints never reach it) leave gaps: a switch whose `prev` is not the task the CPU's
//! previous switch put on it is counted in a note, and the timeline shows nothing there.
//!
//! Against perf's own `perf sched latency`: perf before the upstream fix that added a
//! `sched_waking` handler (6.1 has not got it) ignores `sched_waking`, which `perf sched
//! record` records instead of `sched_wakeup`, and reads `R+` as a sleep; the report crate
//! follows current perf (`crates/trace/tests/perf_latency.rs` shows the difference).
//!
//! ## Streaming and speed
//!
//! [`Importer::push`] takes chunks of bytes of any size; only the model is kept (an event is
//! 32 bytes; a line of perf script text is ~130), plus one partial line between chunks (and,
//! before the format is known, at most the first 1000 lines / 1 MiB). [`import_reader`] reads
//! any [`std::io::Read`] in 64 KiB chunks. Perfetto JSON is split into its event objects by a
//! byte scanner, so it streams too (the switches are rebuilt from all stints at the end).
//!
//! Rate, `cargo run --release -p schedlab-trace --example rate` (200 MB of synthetic text
//! built from the hackbench fixtures, pushed in 64 KiB chunks, on this project's 2-vCPU VM
//! with other builds running): perf script 150–200 MB/s, ftrace (`trace-cmd report -l`)
//! 120–220 MB/s, timehist 90–145 MB/s.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builder;
mod derive;
mod ftrace;
mod jsonl;
pub mod machine;
mod perf_script;
mod perfetto;
mod stream;
mod text;
mod timehist;
mod tracepoint;

pub use derive::{
    derive_scenario, Derived, DerivedChannel, DerivedGroup, MAX_DERIVED_CGROUPS, MIN_PAIR_WAKEUPS,
};
use stream::{json_format, looks_json, Input, LineParser, Lines, Parser};

use std::collections::BTreeMap;
use std::fmt;
use std::io::{Read, Write};

use schedlab_sim::{Pid, Trace};

use builder::Builder;

/// The formats the importer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `perf script` text of the sched tracepoints.
    PerfScript,
    /// `perf sched timehist` text.
    PerfTimehist,
    /// ftrace text: the tracefs `trace` file or `trace-cmd report`.
    Ftrace,
    /// schedlab's JSONL trace (`schedlab run --trace`).
    Jsonl,
    /// schedlab's Chrome/Perfetto trace-event JSON.
    Perfetto,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 5] = [
        Format::Perfetto,
        Format::Jsonl,
        Format::PerfScript,
        Format::Ftrace,
        Format::PerfTimehist,
    ];

    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::PerfScript => "perf script",
            Format::PerfTimehist => "perf sched timehist",
            Format::Ftrace => "ftrace / trace-cmd report",
            Format::Jsonl => "schedlab JSONL trace",
            Format::Perfetto => "schedlab Perfetto JSON",
        }
    }

    /// Whether the format comes from a real kernel (rebased time, renumbered pids).
    pub fn is_recording(self) -> bool {
        matches!(
            self,
            Format::PerfScript | Format::PerfTimehist | Format::Ftrace
        )
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to import.
#[derive(Clone, Debug)]
pub struct Options {
    /// The format, or `None` to detect it from the first lines.
    pub format: Option<Format>,
    /// For schedlab's multi-run files (JSONL with `variant`, Perfetto processes): the run to
    /// keep; `None` keeps the first.
    pub run: Option<String>,
    /// How many [`LineWarning`]s to keep (all are counted).
    pub max_warnings: usize,
    /// Put back the switches from the idle task that the tracer dropped, where the recording
    /// shows when the task began to run (on by default; `perf sched latency`, which does not,
    /// counts only the switches in the text).
    pub restore_switch_ins: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            format: None,
            run: None,
            max_warnings: 100,
            restore_switch_ins: true,
        }
    }
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineWarning {
    /// Its number, from 1 (of the decompressed text).
    pub line: u64,
    /// Its text (at most 200 bytes).
    pub text: String,
    /// Why it could not be read.
    pub message: String,
}

impl fmt::Display for LineWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.message, self.text)
    }
}

/// A task of the imported trace and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealTask {
    /// Its pid in the trace model.
    pub pid: Pid,
    /// Its pid (tid) on the recorded machine.
    pub real_pid: u32,
    /// Its last comm.
    pub comm: String,
    /// Its last kernel priority (`prio` fields: 0–99 RT, 100–139 fair = 120 + nice), if printed.
    pub prio: Option<i32>,
}

/// An imported trace and what the import saw.
#[derive(Clone, Debug)]
pub struct Import {
    /// The trace in the simulator's model.
    pub trace: Trace,
    /// The format read.
    pub format: Format,
    /// Whether the input was gzip-compressed.
    pub gzip: bool,
    /// Every model pid (index = pid − 1) with its real pid and comm.
    pub pids: Vec<RealTask>,
    /// Time 0 of the trace on the recording's clock, ns (0 for schedlab's formats).
    pub t0_ns: u64,
    /// Lines read (of the decompressed text).
    pub lines: u64,
    /// Bytes read (decompressed).
    pub bytes: u64,
    /// Events read, by tracepoint.
    pub events_read: BTreeMap<String, u64>,
    /// Events not part of the model, by name (`sched_process_fork`, `irq:softirq_entry`, …).
    pub skipped: BTreeMap<String, u64>,
    /// `prev_state` forms seen, with their counts.
    pub prev_states: BTreeMap<String, u64>,
    /// Lines that could not be read (the first [`Options::max_warnings`]).
    pub warnings: Vec<LineWarning>,
    /// How many lines could not be read.
    pub warnings_total: u64,
    /// Events the tracer reported lost (`[LOST N EVENTS]`).
    pub lost_events: u64,
    /// schedlab formats: the runs (variants) in the file; the trace is [`Import::run`].
    pub runs: Vec<String>,
    /// The run imported.
    pub run: Option<String>,
    /// What this import cannot give, and anything else worth saying.
    pub notes: Vec<String>,
}

impl Import {
    /// The real pid of a model pid (0 for the idle task).
    pub fn real_pid(&self, pid: Pid) -> Option<u32> {
        if pid == 0 {
            return Some(0);
        }
        self.pids.get(pid as usize - 1).map(|t| t.real_pid)
    }

    /// The model pid of a real pid's last incarnation.
    pub fn model_pid(&self, real_pid: u32) -> Option<Pid> {
        if real_pid == 0 {
            return Some(0);
        }
        self.pids
            .iter()
            .rev()
            .find(|t| t.real_pid == real_pid)
            .map(|t| t.pid)
    }

    /// Whether the trace has wakeup events (`sched_waking`, `sched_wakeup`, `sched_wakeup_new`).
    pub fn has_wakeups(&self) -> bool {
        ["sched_waking", "sched_wakeup", "sched_wakeup_new"]
            .iter()
            .any(|k| self.events_read.contains_key(*k))
    }
}

/// Why an import failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The text is none of the formats.
    NotATrace {
        /// The formats tried.
        tried: Vec<Format>,
        /// The first non-empty line (at most 200 bytes).
        first_line: String,
    },
    /// Nothing to read.
    Empty,
    /// The gzip stream is corrupt.
    Gzip(String),
    /// Reading failed.
    Io(String),
    /// The run asked for is not in the file.
    NoSuchRun {
        /// The run asked for.
        run: String,
        /// The runs in the file.
        runs: Vec<String>,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::NotATrace { tried, first_line } => {
                let names: Vec<&str> = tried.iter().map(|f| f.name()).collect();
                write!(
                    f,
                    "not a scheduler trace: tried {}; first line: {first_line:?}",
                    names.join(", ")
                )
            }
            ImportError::Empty => f.write_str("the file is empty"),
            ImportError::Gzip(e) => write!(f, "corrupt gzip data: {e}"),
            ImportError::Io(e) => write!(f, "reading failed: {e}"),
            ImportError::NoSuchRun { run, runs } => {
                write!(f, "no run {run:?} in the file (runs: {})", runs.join(", "))
            }
        }
    }
}

impl std::error::Error for ImportError {}

/// Lines held while the format is not known yet, and the most bytes.
const DETECT_LINES: usize = 1000;
const DETECT_BYTES: usize = 1 << 20;

/// The format a line proves, if any (`Format::PerfTimehist` for its header, `Ftrace` for
/// `# tracer:`/`cpus=N`, event lines for perf script, ftrace and timehist). JSON is recognised
/// by its first bytes, not by lines.
pub fn detect_line(line: &str) -> Option<Format> {
    if perf_script::looks_like(line) {
        Some(Format::PerfScript)
    } else if ftrace::header(line) || ftrace::looks_like(line) {
        Some(Format::Ftrace)
    } else if timehist::header(line) || timehist::looks_like(line) {
        Some(Format::PerfTimehist)
    } else {
        None
    }
}

/// A streaming import: [`push`](Importer::push) chunks, then [`finish`](Importer::finish).
pub struct Importer {
    opts: Options,
    input: Input,
    parser: Parser,
    builder: Builder,
    bytes_in: u64,
    bytes: u64,
    gzip: bool,
}

impl Importer {
    /// A new import.
    pub fn new(opts: Options) -> Importer {
        let max = opts.max_warnings;
        Importer {
            opts,
            input: Input::Sniff(Vec::new()),
            parser: Parser::Undecided(Vec::new()),
            builder: Builder::new(false, max),
            bytes_in: 0,
            bytes: 0,
            gzip: false,
        }
    }

    /// Bytes pushed so far (compressed, if the input is), for progress.
    pub fn bytes_in(&self) -> u64 {
        self.bytes_in
    }

    /// Events kept so far (switches, wakeups, …: 32 bytes each), to bound what an import holds.
    /// schedlab's Perfetto JSON is rebuilt at the end and counts 0 until then.
    pub fn events(&self) -> usize {
        self.builder.events.len()
    }

    /// Feeds the next chunk of the file. Fails only when the text is no trace (decided within
    /// the first 1000 lines / 1 MiB) or the gzip stream is corrupt.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ImportError> {
        self.bytes_in += chunk.len() as u64;
        match &mut self.input {
            Input::Sniff(buf) => {
                buf.extend_from_slice(chunk);
                if buf.len() < 2 {
                    return Ok(());
                }
                let buf = std::mem::take(buf);
                if buf[0] == 0x1f && buf[1] == 0x8b {
                    self.gzip = true;
                    self.input =
                        Input::Gzip(Box::new(flate2::write::MultiGzDecoder::new(Vec::new())));
                } else {
                    self.input = Input::Plain;
                }
                self.feed_input(&buf)
            }
            _ => self.feed_input(chunk),
        }
    }

    fn feed_input(&mut self, chunk: &[u8]) -> Result<(), ImportError> {
        match &mut self.input {
            Input::Gzip(d) => {
                let r = d.write_all(chunk);
                let out = std::mem::take(d.get_mut());
                // The text decoded before a corruption is read first, as when the stream comes
                // in smaller pieces: its own error (no trace in it) comes before the stream's.
                self.text(&out)?;
                r.map_err(|e| ImportError::Gzip(e.to_string()))
            }
            _ => self.text(chunk),
        }
    }

    /// Decompressed text.
    fn text(&mut self, chunk: &[u8]) -> Result<(), ImportError> {
        self.bytes += chunk.len() as u64;
        if let Parser::Undecided(buf) = &mut self.parser {
            buf.extend_from_slice(chunk);
            let held = std::mem::take(buf);
            match self.decide(&held, false)? {
                Some(p) => {
                    self.parser = p;
                    self.run_parser(&held);
                }
                None => self.parser = Parser::Undecided(held),
            }
            return Ok(());
        }
        self.run_parser(chunk);
        Ok(())
    }

    /// The parser for the text held so far, `None` to wait for more.
    fn decide(&mut self, held: &[u8], at_end: bool) -> Result<Option<Parser>, ImportError> {
        let first = held.iter().position(|c| !c.is_ascii_whitespace());
        let format = match self.opts.format {
            Some(f) => Some(f),
            None => {
                let Some(first) = first else {
                    return if at_end {
                        Err(ImportError::Empty)
                    } else {
                        Ok(None)
                    };
                };
                let rest = &held[first..];
                let undecided_array =
                    rest[0] == b'[' && rest[1..].iter().all(|c| c.is_ascii_whitespace());
                if undecided_array && !at_end {
                    // `[` and white space so far: whether an object follows is not known yet.
                    return Ok(None);
                }
                if looks_json(rest) {
                    json_format(&held[first..], at_end)
                } else {
                    let mut found = None;
                    let mut complete = 0;
                    // Every segment but the last ends in a line end; the last is a whole line
                    // only at the end of the input (a line cut by a chunk boundary is not
                    // judged by its start: "# tracer:" could begin any line).
                    let segments = held.split(|&c| c == b'\n').count();
                    for (i, line) in held.split(|&c| c == b'\n').enumerate() {
                        let end_of_line = i + 1 < segments || at_end;
                        if !end_of_line {
                            break;
                        }
                        complete = i + 1;
                        let s = String::from_utf8_lossy(line);
                        let s = s.strip_suffix('\r').unwrap_or(&s);
                        if let Some(f) = detect_line(s) {
                            found = Some(f);
                            break;
                        }
                    }
                    if found.is_none()
                        && (at_end || complete >= DETECT_LINES || held.len() >= DETECT_BYTES)
                    {
                        return Err(self.not_a_trace(held));
                    }
                    found
                }
            }
        };
        let Some(format) = format else {
            return if at_end {
                Err(self.not_a_trace(held))
            } else {
                Ok(None)
            };
        };
        Ok(Some(self.parser_for(format)))
    }

    fn not_a_trace(&self, held: &[u8]) -> ImportError {
        let first = held
            .split(|&c| c == b'\n')
            .map(|l| String::from_utf8_lossy(l).trim().to_string())
            .find(|l| !l.is_empty())
            .unwrap_or_default();
        ImportError::NotATrace {
            tried: Format::ALL.to_vec(),
            first_line: text::excerpt(&first),
        }
    }

    fn parser_for(&mut self, format: Format) -> Parser {
        if !format.is_recording() {
            self.builder = Builder::new(true, self.opts.max_warnings);
        }
        match format {
            Format::PerfScript => {
                Parser::Lines(LineParser::Perf(Default::default()), Lines::default())
            }
            Format::PerfTimehist => {
                self.builder.check_chain = false;
                Parser::Lines(LineParser::Timehist(Default::default()), Lines::default())
            }
            Format::Ftrace => {
                Parser::Lines(LineParser::Ftrace(Default::default()), Lines::default())
            }
            Format::Jsonl => Parser::Lines(
                LineParser::Jsonl(jsonl::Jsonl {
                    run: self.opts.run.clone(),
                    runs: Vec::new(),
                }),
                Lines::default(),
            ),
            Format::Perfetto => {
                Parser::Perfetto(Box::new(perfetto::Perfetto::new(self.opts.run.clone())))
            }
        }
    }

    fn run_parser(&mut self, chunk: &[u8]) {
        let b = &mut self.builder;
        match &mut self.parser {
            Parser::Undecided(_) => {}
            Parser::Lines(p, lines) => lines.push(chunk, |no, l| p.line(no, l, b)),
            Parser::Perfetto(p) => p.push(chunk, b),
        }
    }

    /// Ends the import: the last (possibly unterminated) line is read and the trace built.
    pub fn finish(mut self) -> Result<Import, ImportError> {
        if let Input::Sniff(buf) = &mut self.input {
            let buf = std::mem::take(buf);
            self.input = Input::Plain;
            self.text(&buf)?;
        }
        if let Input::Gzip(d) = &mut self.input {
            let r = d.try_finish();
            let out = std::mem::take(d.get_mut());
            self.text(&out)?;
            if let Err(e) = r {
                self.builder.notes.push(format!(
                    "the gzip stream ends early ({e}): the text read is kept"
                ));
            }
        }
        if let Parser::Undecided(buf) = &mut self.parser {
            let held = std::mem::take(buf);
            match self.decide(&held, true)? {
                Some(p) => {
                    self.parser = p;
                    self.run_parser(&held);
                }
                None => return Err(self.not_a_trace(&held)),
            }
        }
        let mut runs = Vec::new();
        let mut run = None;
        let (format, lines) = match &mut self.parser {
            Parser::Undecided(_) => unreachable!("decided above"),
            Parser::Lines(p, lines) => {
                let b = &mut self.builder;
                lines.finish(|no, l| p.line(no, l, b));
                let format = match p {
                    LineParser::Perf(_) => Format::PerfScript,
                    LineParser::Timehist(t) => {
                        t.finish(b);
                        Format::PerfTimehist
                    }
                    LineParser::Ftrace(_) => Format::Ftrace,
                    LineParser::Jsonl(j) => {
                        runs = j.runs.clone();
                        run = j.run.clone();
                        Format::Jsonl
                    }
                };
                (format, lines.no)
            }
            Parser::Perfetto(p) => {
                runs = p.finish(&mut self.builder);
                run = p.selected_name();
                (Format::Perfetto, p.objects.lines())
            }
        };
        if let (Some(want), false) = (&self.opts.run, runs.is_empty()) {
            if !runs.contains(want) {
                return Err(ImportError::NoSuchRun {
                    run: want.clone(),
                    runs,
                });
            }
        }
        self.builder.restore = self.opts.restore_switch_ins;
        let f = self.builder.finish(format.is_recording());
        let mut notes = f.notes;
        if format.is_recording() {
            if !f.events_read.contains_key("sched_switch") {
                notes.push("no sched_switch events: nothing ran, as far as the trace says".into());
            }
            let wakeups = ["sched_waking", "sched_wakeup", "sched_wakeup_new"]
                .iter()
                .any(|k| f.events_read.contains_key(*k));
            if !wakeups && format != Format::PerfTimehist {
                notes.push(
                    "no wakeup events: wakeup latency and the delay after a sleep cannot be measured"
                        .into(),
                );
            }
            if !f.events_read.contains_key("sched_stat_runtime") && format != Format::PerfTimehist {
                notes.push(
                    "no sched_stat_runtime events: perf-sched-latency runtimes are 0 (stint lengths in the timeline are exact)"
                        .into(),
                );
            }
            if f.lost_events > 0 {
                notes.push(format!("the tracer lost {} events", f.lost_events));
            }
            notes.push(
                "real tasks are imported as plain tasks: policy, nice (see prio), affinity and the machine's topology are not in the trace"
                    .into(),
            );
        }
        Ok(Import {
            trace: f.trace,
            format,
            gzip: self.gzip,
            pids: f.pids,
            t0_ns: f.t0_ns,
            lines,
            bytes: self.bytes,
            events_read: f.events_read,
            skipped: f.skipped,
            prev_states: f.prev_states,
            warnings: f.warnings,
            warnings_total: f.warnings_total,
            lost_events: f.lost_events,
            runs,
            run,
            notes,
        })
    }
}

/// Imports from a reader, in 64 KiB chunks.
pub fn import_reader(mut r: impl Read, opts: Options) -> Result<Import, ImportError> {
    let mut imp = Importer::new(opts);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ImportError::Io(e.to_string())),
        };
        imp.push(&buf[..n])?;
    }
    imp.finish()
}

/// Imports a whole text (or gzip) held in memory.
pub fn import_bytes(bytes: &[u8], opts: Options) -> Result<Import, ImportError> {
    let mut imp = Importer::new(opts);
    imp.push(bytes)?;
    imp.finish()
}
