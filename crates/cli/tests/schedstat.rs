//! `schedlab schedstat`: windows of /proc/schedstat deltas. The expectations come from the
//! kernel (reference §2.3–2.4: the slice and the "extra tick") and from `run`'s own report of
//! the same run, not from this command's output.

use serde_json::Value;

fn schedlab(args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (vec![], vec![]);
    let code = schedlab_cli::main_with(&args, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// Two nice-0 hogs pinned to CPU 0 of a 16-CPU machine at HZ=1000, 2 s.
fn two_hogs(tag: &str) -> tempfile_path::Path {
    tempfile_path::write(
        tag,
        r#"{"version": 1, "name": "two hogs on CPU 0", "cpus": 16, "hz": 1000, "duration_ms": 2000,
            "variants": ["eevdf-6.6", "eevdf-6.19"],
            "tasks": [{"name": "hog", "count": 2, "affinity": [0], "program": [{"run": "forever"}]}]}"#,
    )
}

/// A scenario file in the target's temporary directory, removed when dropped.
mod tempfile_path {
    pub struct Path(pub std::path::PathBuf);
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    impl Path {
        pub fn s(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }
    pub fn write(name: &str, text: &str) -> Path {
        let p = std::env::temp_dir().join(format!(
            "schedlab-schedstat-{name}-{}.json",
            std::process::id()
        ));
        std::fs::write(&p, text).unwrap();
        Path(p)
    }
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = schedlab(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// With 16 CPUs the base slice is scaled by 1 + ilog2(8) = 4: 3 ms on 6.6, 2.8 ms on 6.15+.
/// A hog picked at a tick starts accounting δ after it, so a 3 ms slice expires at the fourth
/// tick (each hog runs 4 ms: 250 switches a second) and 2.8 ms at the third (3 ms: 333).
#[test]
fn two_hogs_switch_at_the_slice_rounded_up_to_the_tick() {
    let f = two_hogs("slice");
    let j = json(&[
        "schedstat",
        f.s(),
        "--from",
        "1",
        "--cpu",
        "0",
        "--format",
        "json",
    ]);
    let vs = j["variants"].as_array().unwrap();
    assert_eq!(vs.len(), 2);
    for (v, want) in vs.iter().zip([250.0, 1000.0 / 3.0]) {
        let w = v["windows"].as_array().unwrap();
        assert_eq!(w.len(), 1, "{v}");
        assert_eq!(w[0]["from_ns"], 1_000_000_000u64);
        assert_eq!(w[0]["to_ns"], 2_000_000_000u64);
        let sched = w[0]["counters"]["sched_count"].as_f64().unwrap();
        assert!(
            (sched - want).abs() <= 2.0,
            "{}: {sched} switches in 1 s, the kernel's rule gives {want:.0}",
            v["variant"]
        );
        // A CPU with two hogs is never idle, and nothing wakes anyone.
        assert_eq!(w[0]["counters"]["sched_goidle"], 0);
        assert_eq!(w[0]["counters"]["ttwu_count"], 0);
        assert!(w[0]["busy_pct"].as_f64().unwrap() > 99.0, "{}", w[0]);
        // The other CPUs never schedule after the start.
        let other = json(&[
            "schedstat",
            f.s(),
            "--from",
            "1",
            "--cpu",
            "5",
            "--format",
            "json",
            "--variant",
            v["variant"].as_str().unwrap(),
        ]);
        assert_eq!(
            other["variants"][0]["windows"][0]["counters"]["sched_count"],
            0
        );
    }
}

/// The windows add up to the whole run's counters as `run --format json` reports them.
#[test]
fn windows_add_up_to_the_runs_counters() {
    // The 8-CPU preset under one variant, in 10-ms windows.
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "schedstat",
            "--preset",
            "hackbench",
            "--variant",
            "eevdf-6.6",
            "--window",
            "0.01",
        ];
        a.extend_from_slice(extra);
        a
    };
    let j = json(&args(&["--format", "json"]));
    let (code, out, err) = schedlab(&[
        "run",
        "--preset",
        "hackbench",
        "--variant",
        "eevdf-6.6",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let cpus = find_cpus(&r).expect("run's JSON has the per-CPU counters");
    let windows = j["variants"][0]["windows"].as_array().unwrap();
    assert!(windows.len() > 2, "{}", windows.len());
    for k in [
        "sched_count",
        "ttwu_count",
        "ttwu_local",
        "check_preempt_count",
        "need_preempt_count",
        "pcount",
        "run_delay_ns",
    ] {
        let total: u64 = cpus.iter().map(|c| c[k].as_u64().unwrap()).sum();
        let summed: u64 = windows
            .iter()
            .map(|w| w["counters"][k].as_u64().unwrap())
            .sum();
        assert_eq!(summed, total, "{k}");
        assert!(total > 0, "{k}");
    }
    // Consecutive windows tile the run.
    for p in windows.windows(2) {
        assert_eq!(p[0]["to_ns"], p[1]["from_ns"]);
    }
    // The table shows the same windows.
    let (code, table, _) = schedlab(&args(&[]));
    assert_eq!(code, 0);
    assert!(
        table.contains("preempt") && table.contains("local"),
        "{table}"
    );
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with(' ') && !l.contains("from s"))
            .count(),
        windows.len(),
        "{table}"
    );
    let (code, csv, _) = schedlab(&args(&["--format", "csv"]));
    assert_eq!(code, 0);
    assert_eq!(csv.lines().count(), windows.len() + 1);
    assert!(csv.starts_with("variant,from_ns,to_ns,"), "{csv}");
}

/// Where `run --format json` keeps each variant's per-CPU counters.
fn find_cpus(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(a)) = m.get("cpus") {
                if a.first().is_some_and(|c| c.get("sched_count").is_some()) {
                    return Some(a.clone());
                }
            }
            m.values().find_map(find_cpus)
        }
        Value::Array(a) => a.iter().find_map(find_cpus),
        _ => None,
    }
}

#[test]
fn bad_options_are_named() {
    let f = two_hogs("bad");
    for (args, want) in [
        (
            vec!["--cpu", "16"],
            "--cpu 16: the scenario has 16 CPUs (0 to 15)",
        ),
        (
            vec!["--from", "2"],
            "--from 2 s is not before the end of the run",
        ),
        (vec!["--window", "0"], "--window must be longer than 0 s"),
        (vec!["--window", "soon"], "expected a time in seconds"),
        (vec!["--variant", "eevdf-9.9"], "--variant"),
    ] {
        let mut a = vec!["schedstat", f.s()];
        a.extend(args.iter().copied());
        let (code, out, err) = schedlab(&a);
        assert_eq!(code, 2, "{a:?}: {out}{err}");
        assert!(err.contains(want), "{a:?}: {err}");
    }
}

/// `--each-cpu`: a row per CPU. On the two-hog machine CPU 0 switches at the slice rounded up
/// to the tick (250 a second on 6.6, see above) and CPU 5 not at all; on the hackbench preset
/// the CPUs' rows add up to the summed row, counter by counter, in every window.
#[test]
fn each_cpu_gives_every_cpu_its_own_row() {
    let f = two_hogs("each");
    let j = json(&[
        "schedstat",
        f.s(),
        "--from",
        "1",
        "--cpu",
        "5",
        "--cpu",
        "0",
        "--each-cpu",
        "--variant",
        "eevdf-6.6",
        "--format",
        "json",
    ]);
    let w = j["variants"][0]["windows"].as_array().unwrap();
    assert_eq!(w.len(), 2, "{j}");
    assert_eq!(w[0]["cpu"], 0);
    assert_eq!(w[1]["cpu"], 5);
    let sched = w[0]["counters"]["sched_count"].as_f64().unwrap();
    assert!((sched - 250.0).abs() <= 2.0, "{sched}");
    assert_eq!(w[1]["counters"]["sched_count"], 0);
    assert!(w[0]["busy_pct"].as_f64().unwrap() > 99.0, "{}", w[0]);

    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "schedstat",
            "--preset",
            "hackbench",
            "--variant",
            "eevdf-6.6:NO_RUN_TO_PARITY",
            "--window",
            "0.1",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        a
    };
    let all = json(&args(&[]));
    let each = json(&args(&["--each-cpu"]));
    let all = all["variants"][0]["windows"].as_array().unwrap();
    let each = each["variants"][0]["windows"].as_array().unwrap();
    assert_eq!(each.len(), all.len() * 8);
    for (i, w) in all.iter().enumerate() {
        let rows = &each[i * 8..(i + 1) * 8];
        for (c, r) in rows.iter().enumerate() {
            assert_eq!(r["cpu"], c as u64);
            assert_eq!(r["from_ns"], w["from_ns"]);
        }
        for (k, v) in w["counters"].as_object().unwrap() {
            let sum: u64 = rows
                .iter()
                .map(|r| r["counters"][k].as_u64().unwrap())
                .sum();
            assert_eq!(Some(sum), v.as_u64(), "window {i}, {k}");
        }
        assert!(w.get("cpu").is_none());
    }
    // The table and CSV carry the CPU too.
    let (code, out, err) = schedlab(&[
        "schedstat",
        f.s(),
        "--each-cpu",
        "--cpu",
        "3",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("variant,from_ns,to_ns,cpu,"), "{out}");
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .starts_with("eevdf-6.6,0,1000000000,3,"),
        "{out}"
    );
    let (code, out, err) = schedlab(&["schedstat", f.s(), "--each-cpu", "--cpu", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("cpu ")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("3 ")),
        "{out}"
    );
}
