//! Byte-level helpers shared by the text parsers: the `SECONDS.FRACTION:` timestamp every
//! tracer prints, `key=value` fields whose values may hold spaces (comms), and numbers.
//!
//! Comms are printed verbatim by perf and ftrace (`%s` of `task->comm`, up to 15 bytes), so
//! they may hold spaces, brackets, colons and dashes: every parser anchors on what follows a
//! comm (the timestamp, the next field's key) rather than on what the comm may not contain.

/// Finds the timestamp of a trace line: the first `DIGITS.DIGITS:` preceded by white space (or
/// the line's start). Returns the byte range of the number (without the colon).
pub(crate) fn find_ts(line: &str) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(off) = b[from..].iter().position(|&c| c == b':') {
        let colon = from + off;
        if let Some(start) = ts_before(b, colon) {
            return Some((start, colon));
        }
        from = colon + 1;
    }
    None
}

/// `Some(start)` if `b[start..end]` is `DIGITS.DIGITS` preceded by white space or the start.
fn ts_before(b: &[u8], end: usize) -> Option<usize> {
    let mut i = end;
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i == end || i == 0 || b[i - 1] != b'.' {
        return None;
    }
    let dot = i - 1;
    let mut j = dot;
    while j > 0 && b[j - 1].is_ascii_digit() {
        j -= 1;
    }
    if j == dot || (j > 0 && !b[j - 1].is_ascii_whitespace()) {
        return None;
    }
    Some(j)
}

/// `SECONDS.FRACTION` in ns (fraction digits past the ninth are dropped). `None` on overflow
/// or a malformed number.
pub(crate) fn parse_ts_ns(s: &str) -> Option<u64> {
    let (secs, frac) = s.split_once('.')?;
    if secs.is_empty() || frac.is_empty() {
        return None;
    }
    let secs: u64 = parse_u64(secs)?;
    let mut ns: u64 = 0;
    let mut digits = 0;
    for c in frac.bytes() {
        if !c.is_ascii_digit() {
            return None;
        }
        if digits < 9 {
            ns = ns * 10 + (c - b'0') as u64;
            digits += 1;
        }
    }
    while digits < 9 {
        ns *= 10;
        digits += 1;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// A milliseconds figure as perf prints it (`%.3f`, possibly negative) in ns, rounded to the ns.
pub(crate) fn parse_ms_ns(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let whole = parse_u64(whole)? as i64;
    let mut ns: i64 = 0;
    let mut digits = 0;
    for c in frac.bytes() {
        if !c.is_ascii_digit() {
            return None;
        }
        if digits < 6 {
            ns = ns * 10 + (c - b'0') as i64;
            digits += 1;
        }
    }
    while digits < 6 {
        ns *= 10;
        digits += 1;
    }
    let v = whole.checked_mul(1_000_000)?.checked_add(ns)?;
    Some(if neg { -v } else { v })
}

/// All-digit decimal; `None` if empty, not all digits or too large.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for c in s.bytes() {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// Like [`parse_u64`] for a u32.
pub(crate) fn parse_u32(s: &str) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// The leading digits of `s` as a number and the rest.
pub(crate) fn lead_u64(s: &str) -> Option<(u64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    Some((parse_u64(&s[..n])?, &s[n..]))
}

/// A signed leading integer (`prio=-1` happens for deadline tasks) and the rest.
pub(crate) fn lead_i64(s: &str) -> Option<(i64, &str)> {
    match s.strip_prefix('-') {
        Some(r) => lead_u64(r).map(|(v, rest)| (-(v as i64), rest)),
        None => lead_u64(s).map(|(v, rest)| (v as i64, rest)),
    }
}

/// The text after `key` where `key` starts the string or follows a space.
pub(crate) fn after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(off) = s[from..].find(key) {
        let at = from + off;
        if at == 0 || s.as_bytes()[at - 1] == b' ' {
            return Some(&s[at + key.len()..]);
        }
        from = at + 1;
    }
    None
}

/// The first white-space-delimited token of `s` and the rest.
pub(crate) fn token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let n = s.find(|c: char| c.is_ascii_whitespace()).unwrap_or(s.len());
    (&s[..n], &s[n..])
}

/// A `[NNN]` CPU token.
pub(crate) fn bracket_cpu(tok: &str) -> Option<u32> {
    parse_u32(tok.strip_prefix('[')?.strip_suffix(']')?)
}

/// The last white-space-delimited token of `s` and what precedes it (trimmed at the end).
pub(crate) fn last_token(s: &str) -> (&str, &str) {
    let s = s.trim_end();
    let n = s
        .rfind(|c: char| c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    (&s[n..], s[..n].trim_end())
}

/// A line shortened for a warning (at most 200 bytes, on a char boundary).
pub(crate) fn excerpt(line: &str) -> String {
    if line.len() <= 200 {
        return line.to_string();
    }
    let mut end = 200;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        let l = "    my hog [a:1]  1329 [001]  1939.641590: sched:sched_switch: x";
        let (a, b) = find_ts(l).unwrap();
        assert_eq!(&l[a..b], "1939.641590");
        assert_eq!(parse_ts_ns("1939.641590"), Some(1_939_641_590_000));
        assert_eq!(parse_ts_ns("1.000000001"), Some(1_000_000_001));
        assert_eq!(parse_ts_ns("1.0000000019"), Some(1_000_000_001));
        assert_eq!(
            find_ts("kworker/u8:0-ev 12 [000] 5.5: e: x").map(|r| r.0),
            Some(25)
        );
        assert_eq!(find_ts("a1.5: b"), None);
        assert_eq!(parse_ms_ns("0.003"), Some(3_000));
        assert_eq!(parse_ms_ns("-1.5"), Some(-1_500_000));
    }

    #[test]
    fn fields() {
        assert_eq!(after("comm=a pid=3", "pid="), Some("3"));
        assert_eq!(after("prev_pid=3 pid=4", "pid="), Some("4"));
        assert_eq!(last_token("a b  c  "), ("c", "a b"));
        assert_eq!(bracket_cpu("[001]"), Some(1));
    }
}
