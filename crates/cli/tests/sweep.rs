//! `schedlab sweep`: every point is the same run `schedlab run` makes of the same scenario
//! (equal trace hashes and figures), rows come in grid order whatever the number of jobs, bad
//! parameters are named, and the plot is an SVG with one line per variant.

use serde_json::Value;

/// (status, stdout, stderr) of `schedlab ARGS`.
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

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The sched-idle preset's document with `edit` applied, written by hand here (not by the
/// sweep's own code), then run by `schedlab run --format json`: its one variant's report.
fn single_run(file: &str, edit: impl Fn(&mut Value)) -> Value {
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let mut doc = sc.to_value();
    edit(&mut doc);
    let path = tmp(file);
    std::fs::write(&path, doc.to_string()).unwrap();
    let (code, out, err) = schedlab(&["run", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["variants"].as_array().unwrap().len(), 1);
    v
}

fn sweep_json(args: &[&str]) -> Value {
    let mut a = vec!["sweep", "--preset", "sched-idle", "--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = schedlab(&a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// A hand edit of the preset's document.
type Edit = Box<dyn Fn(&mut Value)>;
/// A variant, a parameter, and per point its label and the edit that makes it.
type Case = (&'static str, &'static str, Vec<(&'static str, Edit)>);

#[test]
fn each_point_equals_a_single_run_of_that_scenario() {
    // A tunable, a feature and a value of the document.
    // (variant, parameter, per point: its label and the edit that makes it by hand)
    let cases: Vec<Case> = vec![
        (
            "eevdf-6.6",
            "base_slice_ns=500000,4000000",
            vec![
                (
                    "0.5",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.6:base_slice_ns=500000"])
                    }),
                ),
                (
                    "4",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.6:base_slice_ns=4000000"])
                    }),
                ),
            ],
        ),
        (
            "eevdf-6.19",
            "RUN_TO_PARITY",
            vec![
                (
                    "on",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.19:RUN_TO_PARITY"])
                    }),
                ),
                (
                    "off",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.19:NO_RUN_TO_PARITY"])
                    }),
                ),
            ],
        ),
        (
            "eevdf-6.6",
            "hz=250,1000",
            vec![
                (
                    "250",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.6"]);
                        d["hz"] = 250.into();
                    }),
                ),
                (
                    "1000",
                    Box::new(|d: &mut Value| {
                        d["variants"] = serde_json::json!(["eevdf-6.6"]);
                        d["hz"] = 1000.into();
                    }),
                ),
            ],
        ),
    ];
    for (variant, param, points) in cases {
        let sw = sweep_json(&["--variant", variant, "--param", param]);
        let rows = sw["rows"].as_array().unwrap();
        assert_eq!(rows.len(), points.len(), "{param}");
        let mut hashes = vec![];
        for (row, (label, edit)) in rows.iter().zip(points) {
            let single = single_run(&format!("{param}-{label}.json"), edit);
            let v = &single["variants"][0];
            let s = &single["summary"][0];
            assert_eq!(row["trace_hash"], v["trace_hash"], "{param} at {label}");
            assert_eq!(row["switches"], s["switches"], "{param} at {label}");
            assert_eq!(row["delay_avg_ns"], s["delay_avg_ns"], "{param} at {label}");
            assert_eq!(row["delay_max_ns"], s["delay_max_ns"], "{param} at {label}");
            assert_eq!(row["run"], v["variant"], "{param} at {label}");
            hashes.push(row["trace_hash"].clone());
        }
        // The parameter changed something (else the equality above proves little).
        assert_ne!(
            hashes[0], hashes[1],
            "{param}: both points ran the same trace"
        );
    }
}

#[test]
fn rows_do_not_depend_on_the_number_of_jobs() {
    let args = [
        "sweep",
        "--preset",
        "sched-idle",
        "--variant",
        "eevdf-6.6",
        "--variant",
        "eevdf-6.19",
        "--param",
        "base_slice_ns=700000..2800000:4",
        "--format",
        "csv",
    ];
    let (c1, one, e1) = schedlab(&[&args[..], &["--jobs", "1"]].concat());
    let (c3, three, e3) = schedlab(&[&args[..], &["--jobs", "3"]].concat());
    assert_eq!((c1, c3), (0, 0), "{e1}{e3}");
    assert_eq!(one, three);
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 1 + 4 * 2, "{one}");
    assert!(lines[1].starts_with("700000,eevdf-6.6,"), "{}", lines[1]);
    assert!(lines[2].starts_with("700000,eevdf-6.19,"), "{}", lines[2]);
    assert!(lines[8].starts_with("2800000,eevdf-6.19,"), "{}", lines[8]);
}

#[test]
fn the_slice_sets_the_idle_hogs_turns() {
    // Seed 002's pair under EEVDF: a SCHED_IDLE hog (weight 3) beside a nice-0 hog (1024) on
    // one CPU at HZ=1000. The idle hog runs one request of base_slice_ns per turn, ended at the
    // first tick past its deadline (so a whole number of ticks), and then waits while the
    // other hog's vruntime catches up: its run × 1024/3. So the longest wait is a whole
    // number of 341.3 ms and grows with the slice, and the CPU shares stay at 1024 : 3.
    let sw = sweep_json(&[
        "--variant",
        "eevdf-6.6",
        "--param",
        "base_slice_ns=1000000,3000000",
    ]);
    let rows = sw["rows"].as_array().unwrap();
    let max = |r: &Value| r["delay_max_ns"].as_u64().unwrap() as f64;
    assert!(max(&rows[1]) > 1.5 * max(&rows[0]), "{rows:?}");
    let per_tick = 1e6 * 1024.0 / 3.0;
    for r in rows {
        let k = max(r) / per_tick;
        assert!(
            k >= 1.0 && (k - k.round()).abs() < 0.01,
            "wait {} ns is {k} ticks' worth",
            max(r)
        );
    }
    for r in rows {
        let idle = r["cpu_shares"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["tasks"] == "idle")
            .unwrap()["share"]
            .as_f64()
            .unwrap();
        let want = 3.0 / 1027.0;
        assert!(
            (idle - want).abs() < want * 0.5,
            "idle share {idle}, weights say {want}"
        );
    }
}

#[test]
fn bad_parameters_are_named_and_nothing_runs() {
    for (args, want) in [
        (vec!["--param", "nope-nope=1"], "neither a tunable"),
        (
            vec!["--param", "base_slice_ns=1..2"],
            "needs a number of points",
        ),
        (
            vec!["--param", "hz=7"],
            "at hz=7: hz: 7 is not a CONFIG_HZ value",
        ),
        (vec!["--param", "tasks.5.nice=1"], "past the end"),
        (
            vec!["--variant", "cfs-6.1", "--param", "base_slice_ns=1000000"],
            "does not exist in cfs-6.1",
        ),
        (
            vec!["--param", "hz=100,250", "--plot", "switches"],
            "needs --export-svg",
        ),
        (
            vec![
                "--param",
                "RUN_TO_PARITY",
                "--plot",
                "switches",
                "--export-svg",
                "x.svg",
            ],
            "one numeric --param",
        ),
        (
            vec![
                "--param",
                "hz=100,250",
                "--plot",
                "speed",
                "--export-svg",
                "x.svg",
            ],
            "unknown figure",
        ),
        (
            vec![
                "--param", "a=1", "--param", "b=1", "--param", "c=1", "--param", "d=1",
            ],
            "at most 3",
        ),
        (
            vec![
                "--param",
                "seed=1..64:64",
                "--param",
                "hz=100,250,300,1000",
                "--param",
                "RUN_TO_PARITY",
            ],
            "a sweep runs at most 512",
        ),
    ] {
        let mut a = vec!["sweep", "--preset", "sched-idle"];
        a.extend(args.iter().copied());
        let (code, out, err) = schedlab(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn the_plot_has_a_line_per_variant() {
    let svg = tmp("plot.svg");
    let (code, _, err) = schedlab(&[
        "sweep",
        "--preset",
        "sched-idle",
        "--variant",
        "eevdf-6.6",
        "--variant",
        "eevdf-6.19",
        "--param",
        "base_slice_ns=1000000..3000000:3",
        "--plot",
        "delay_max",
        "--export-svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..80.min(s.len())]);
    // One polyline per variant in the chart, plus the legend's sample lines.
    assert!(s.matches("<polyline").count() >= 2, "{s}");
    assert!(s.contains("eevdf-6.6") && s.contains("eevdf-6.19"));
    assert!(s.contains("maximum delay (ms)"));
}
