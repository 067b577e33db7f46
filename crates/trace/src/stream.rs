//! The plumbing under [`crate::Importer`]: which parser runs, lines split across chunks, gzip in
//! front, and how JSON input is told apart.

use crate::builder::Builder;
use crate::{ftrace, jsonl, perf_script, perfetto, timehist, Format};

/// Which parser is running.
pub(crate) enum Parser {
    /// Not known yet: the text held so far.
    Undecided(Vec<u8>),
    Lines(LineParser, Lines),
    Perfetto(Box<perfetto::Perfetto>),
}

pub(crate) enum LineParser {
    Perf(perf_script::PerfScript),
    Timehist(timehist::Timehist),
    Ftrace(ftrace::Ftrace),
    Jsonl(jsonl::Jsonl),
}

impl LineParser {
    pub(crate) fn line(&mut self, no: u64, line: &str, b: &mut Builder) {
        match self {
            LineParser::Perf(p) => p.line(no, line, b),
            LineParser::Timehist(p) => p.line(no, line, b),
            LineParser::Ftrace(p) => p.line(no, line, b),
            LineParser::Jsonl(p) => p.line(no, line, b),
        }
        if let Some(cpu) = b.bad_cpu.take() {
            b.warn(no, line, bad_cpu(cpu));
        }
    }
}

/// Splits text into lines across chunks (`\n`, `\r\n`).
#[derive(Default)]
pub(crate) struct Lines {
    partial: Vec<u8>,
    pub(crate) no: u64,
}

impl Lines {
    pub(crate) fn push(&mut self, chunk: &[u8], mut f: impl FnMut(u64, &str)) {
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|&c| c == b'\n') {
            self.no += 1;
            if self.partial.is_empty() {
                emit(self.no, &rest[..i], &mut f);
            } else {
                self.partial.extend_from_slice(&rest[..i]);
                let line = std::mem::take(&mut self.partial);
                emit(self.no, &line, &mut f);
            }
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest);
    }

    pub(crate) fn finish(&mut self, mut f: impl FnMut(u64, &str)) {
        if !self.partial.is_empty() {
            self.no += 1;
            let line = std::mem::take(&mut self.partial);
            emit(self.no, &line, &mut f);
        }
    }
}

pub(crate) fn emit(no: u64, line: &[u8], f: &mut impl FnMut(u64, &str)) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(s) => f(no, s),
        Err(_) => f(no, &String::from_utf8_lossy(line)),
    }
}

/// Gzip in front of the parser.
pub(crate) enum Input {
    /// Not known yet (fewer than two bytes seen).
    Sniff(Vec<u8>),
    Plain,
    Gzip(Box<flate2::write::MultiGzDecoder<Vec<u8>>>),
}

/// Whether text starts like a JSON object or an array of objects (`[package]`, a TOML header,
/// does not): `{`, or `[` then `{` or `]` after any white space (or nothing yet).
pub(crate) fn looks_json(held: &[u8]) -> bool {
    match held.first() {
        Some(b'{') => true,
        Some(b'[') => held[1..]
            .iter()
            .find(|c| !c.is_ascii_whitespace())
            .is_none_or(|&c| c == b'{' || c == b']'),
        _ => false,
    }
}

/// `{…` or `[…`: Perfetto if it looks like trace-event JSON, JSONL if the first line is one of
/// schedlab's trace events; `None` to wait for more text.
pub(crate) fn json_format(held: &[u8], at_end: bool) -> Option<Format> {
    if held[0] == b'[' {
        return Some(Format::Perfetto);
    }
    let head = &held[..held.len().min(4096)];
    let has = |k: &[u8]| head.windows(k.len()).any(|w| w == k);
    if has(b"\"traceEvents\"") || has(b"\"ph\"") {
        return Some(Format::Perfetto);
    }
    if let Some(nl) = held.iter().position(|&c| c == b'\n') {
        let line = String::from_utf8_lossy(&held[..nl]);
        if jsonl::looks_like(line.trim_end()) {
            return Some(Format::Jsonl);
        }
        return None;
    }
    if at_end && jsonl::looks_like(String::from_utf8_lossy(held).trim_end()) {
        return Some(Format::Jsonl);
    }
    if has(b"\"t_ns\"") && has(b"\"event\"") && held.len() >= 4096 {
        return Some(Format::Jsonl);
    }
    None
}

/// The message for an event on a CPU number no kernel has.
pub(crate) fn bad_cpu(cpu: u32) -> String {
    format!(
        "CPU {cpu} is out of range (at most {}, the kernel's largest NR_CPUS): the event is skipped",
        crate::builder::MAX_CPU - 1
    )
}
