//! The oracles the fuzz targets share: what must hold for any input, beyond "no panic".
//!
//! Every target is also bounded in time: [`within`] fails an input whose one run costs more
//! than its stated bound (libFuzzer's own `-timeout` in `scripts/fuzz.sh` is the backstop for
//! an input that never returns).

use std::time::Duration;

/// CPU time this thread has used: the cost of an input, whatever else the machine runs (a
/// wall-clock bound fails at random on a loaded machine, with the fuzzer at nice 19).
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(r, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs `f` and fails (panics, which libFuzzer reports as a crash with the input) if it used
/// more than `bound` of CPU time: a cost no cap bounds is a finding, like a panic.
pub fn within<T>(what: &str, bound: Duration, f: impl FnOnce() -> T) -> T {
    let start = thread_cpu_time();
    let out = f();
    let took = thread_cpu_time().saturating_sub(start);
    assert!(
        took <= bound,
        "{what} took {took:?}, more than its bound of {bound:?}"
    );
    out
}

/// A small deterministic PRNG (splitmix64) for chunk splits derived from the input.
pub struct Split(pub u64);

impl Split {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `bytes` cut into chunks of 1 to `max` bytes (sizes drawn from the seed; mostly small,
    /// so that lines, CRLF pairs, UTF-8 sequences and the gzip header are split).
    pub fn chunks<'a>(&mut self, bytes: &'a [u8], max: usize) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let r = self.next();
            let n = if r & 3 == 0 {
                1 + (r >> 8) as usize % max
            } else {
                1 + (r >> 8) as usize % 16
            };
            let n = n.min(rest.len());
            out.push(&rest[..n]);
            rest = &rest[n..];
        }
        out
    }
}
