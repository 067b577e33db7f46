//! Task groups in the scenario format: `"cgroups"` with the kernel's file names, nested paths,
//! `"autogroup"` with sessions, and the errors bad input gets.

use schedlab_scenario::{Scenario, ScenarioErrors};

fn doc(top: &str, tasks: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "g", "cpus": 2, "hz": 1000, "duration_ms": 100{top},
        "tasks": [{tasks}]}}"#
    )
}

const HOG: &str = r#""program": [{"run": "forever"}]"#;

fn errors(text: &str) -> Vec<String> {
    match Scenario::from_json(text) {
        Ok(_) => panic!("expected errors for {text}"),
        Err(ScenarioErrors(e)) => e.iter().map(|e| e.to_string()).collect(),
    }
}

fn check_err(top: &str, tasks: &str, want: &str) {
    let errs = errors(&doc(top, tasks));
    assert!(
        errs.iter().any(|e| e.contains(want)),
        "wanted `{want}` in {errs:#?}"
    );
}

#[test]
fn weights_nesting_and_aliases_reach_the_engine() {
    let text = doc(
        r#", "cgroups": [{"path": "/db", "cpu.weight": 300}, {"path": "/db/ro", "cpu.shares": 512},
            {"path": "/n", "cpu.weight.nice": 19}, {"path": "/batch", "cpu.idle": 1}]"#,
        &format!(
            r#"{{"name": "a", {HOG}, "cgroup": "/db/ro", "count": 2}}, {{"name": "b", {HOG}, "cgroup": "/batch"}},
               {{"name": "c", {HOG}, "cgroup": "/n"}}, {{"name": "d", {HOG}}}"#
        ),
    );
    let s = Scenario::from_json(&text).unwrap();
    let c = s.sim_config().cgroups;
    let paths: Vec<&str> = c.groups.iter().map(|g| g.path.as_str()).collect();
    assert_eq!(paths, ["/", "/db", "/db/ro", "/n", "/batch"]);
    // cpu.weight 300 → 3072 (weight·1024/100); cpu.shares as is; cpu.weight.nice 19 → the nice
    // table's 15; idle → WEIGHT_IDLEPRIO.
    let shares: Vec<u64> = c.groups.iter().map(|g| g.shares).collect();
    assert_eq!(shares, [1024, 3072, 512, 15, 3]);
    assert_eq!(c.groups[2].parent, 1);
    assert!(c.groups[4].idle);
    assert_eq!(c.task_group, [2, 2, 4, 3, 0]);
    // The canonical JSON says the same and parses back to the same scenario.
    let back = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn cpu_max_and_its_v1_aliases_reach_the_engine() {
    use schedlab_sim::cgroup::Bandwidth;
    let text = doc(
        r#", "cgroups": [{"path": "/ct", "cpu.max": "50000 100000"},
            {"path": "/q", "cpu.max": "20000", "cpu.max.burst": 10000},
            {"path": "/open", "cpu.max": "max 50000"},
            {"path": "/v1", "cpu.cfs_quota_us": 30000, "cpu.cfs_period_us": 60000},
            {"path": "/v1d", "cpu.cfs_quota_us": 5000},
            {"path": "/v1max", "cpu.cfs_quota_us": -1}]"#,
        &format!(
            r#"{{"name": "a", {HOG}, "cgroup": "/ct"}}, {{"name": "b", {HOG}, "cgroup": "/q"}},
               {{"name": "c", {HOG}, "cgroup": "/v1"}}"#
        ),
    );
    let s = Scenario::from_json(&text).unwrap();
    let c = s.sim_config().cgroups;
    let bw = |q: u64, p: u64, b: u64| {
        Some(Bandwidth {
            quota_ns: q * 1000,
            period_ns: p * 1000,
            burst_ns: b * 1000,
        })
    };
    let got: Vec<_> = c.groups.iter().map(|g| g.bandwidth).collect();
    assert_eq!(
        got,
        [
            None,
            bw(50_000, 100_000, 0),
            bw(20_000, 100_000, 10_000),
            None,
            bw(30_000, 60_000, 0),
            bw(5_000, 100_000, 0),
            None
        ]
    );
    // Written back under the names used, with the default period filled in; parses back the same.
    let j = s.to_json();
    assert!(j.contains(r#""cpu.max": "50000 100000""#), "{j}");
    assert!(j.contains(r#""cpu.max": "max 50000""#), "{j}");
    assert!(j.contains(r#""cpu.cfs_quota_us": -1"#), "{j}");
    assert!(j.contains(r#""cpu.cfs_period_us": 100000"#), "{j}");
    assert_eq!(Scenario::from_json(&j).unwrap(), s);
}

#[test]
fn sessions_become_autogroups_with_their_nice() {
    let text = doc(
        r#", "autogroup": true"#,
        &format!(
            r#"{{"name": "a", {HOG}, "session": 7, "autogroup_nice": 19}}, {{"name": "b", {HOG}, "session": 7}},
               {{"name": "c", {HOG}, "session": 2}}"#
        ),
    );
    let s = Scenario::from_json(&text).unwrap();
    let c = s.sim_config().cgroups;
    let g: Vec<(&str, u64)> = c
        .groups
        .iter()
        .map(|g| (g.path.as_str(), g.shares))
        .collect();
    assert_eq!(
        g,
        [("/", 1024), ("/autogroup-7", 15), ("/autogroup-2", 1024)]
    );
    assert_eq!(c.task_group, [1, 1, 2]);
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn a_flat_scenario_has_no_groups() {
    let s = Scenario::from_json(&doc(
        r#", "autogroup": true"#,
        &format!(r#"{{"name": "a", {HOG}}}"#),
    ))
    .unwrap();
    assert_eq!(s.sim_config().cgroups, Default::default());
    let s = Scenario::from_json(&doc("", &format!(r#"{{"name": "a", {HOG}}}"#))).unwrap();
    assert!(!s.to_json().contains("cgroup"));
}

#[test]
fn bad_cgroups_are_named() {
    let t = format!(r#"{{"name": "a", {HOG}}}"#);
    for (max, want) in [
        (
            r#""cpu.max": 50000"#,
            "cgroups[0].cpu.max: expected \"QUOTA PERIOD\"",
        ),
        (r#""cpu.max": "50000 100000 7""#, "is not \"QUOTA PERIOD\""),
        (
            r#""cpu.max": "fifty 100000""#,
            "the quota \"fifty\" is not a whole number",
        ),
        (
            r#""cpu.max": "999 100000""#,
            "the quota 999 µs is out of range",
        ),
        (
            r#""cpu.max": "50000 2000000""#,
            "the period 2000000 µs is out of range",
        ),
        (
            r#""cpu.max": "50000 100000", "cpu.max.burst": 60000"#,
            "more than the quota",
        ),
        (
            r#""cpu.max": "50000", "cpu.cfs_period_us": 100000"#,
            "not both",
        ),
        (
            r#""cpu.cfs_quota_us": 0"#,
            "expected -1 (no limit) or a quota of 1000",
        ),
        (
            r#""cpu.cfs_period_us": 500"#,
            "cpu.cfs_period_us: 500 is out of range",
        ),
    ] {
        check_err(
            &format!(r#", "cgroups": [{{"path": "/x", {max}}}]"#),
            &t,
            want,
        );
    }
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.wieght": 3}]"#,
        &t,
        "cgroups[0].cpu.wieght: unknown field",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.weight": 0}]"#,
        &t,
        "cgroups[0].cpu.weight: 0 is out of range (allowed 1..=10000)",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.weight": 10001}]"#,
        &t,
        "out of range",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.shares": 1}]"#,
        &t,
        "allowed 2..=262144",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.idle": 2}]"#,
        &t,
        "cpu.idle: 2 is out of range",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.weight": 100, "cpu.shares": 1024}]"#,
        &t,
        "set one of",
    );
    check_err(
        r#", "cgroups": [{"path": "/x", "cpu.weight": 100, "cpu.idle": 1}]"#,
        &t,
        "WEIGHT_IDLEPRIO",
    );
    check_err(
        r#", "cgroups": [{"path": "x"}]"#,
        &t,
        "is not a cgroup path",
    );
    check_err(
        r#", "cgroups": [{"path": "/"}]"#,
        &t,
        "is not a cgroup path",
    );
    check_err(
        r#", "cgroups": [{"path": "/a/b"}]"#,
        &t,
        "its parent /a is not listed before it",
    );
    check_err(
        r#", "cgroups": [{"path": "/a"}, {"path": "/a"}]"#,
        &t,
        "listed twice",
    );
    check_err(r#", "cgroups": [{"path": "/a b"}]"#, &t, "contains ' '");
    check_err(
        r#", "cgroups": [{"cpu.weight": 5}]"#,
        &t,
        "cgroups[0].path: missing",
    );
    check_err(
        r#", "cgroups": {"path": "/a"}"#,
        &t,
        "expected an array of cgroups",
    );
    check_err(
        r#", "autogroup": 1"#,
        &t,
        "autogroup: expected true or false",
    );
}

#[test]
fn bad_memberships_are_named() {
    let cg = r#", "cgroups": [{"path": "/db"}]"#;
    check_err(
        cg,
        &format!(r#"{{"name": "a", {HOG}, "cgroup": "/dv"}}"#),
        "\"/dv\" is not a listed cgroup (listed: /db)",
    );
    check_err(
        "",
        &format!(r#"{{"name": "a", {HOG}, "cgroup": 3}}"#),
        "tasks[0].cgroup: expected a string",
    );
    check_err(
        "",
        &format!(r#"{{"name": "a", {HOG}, "session": 1}}"#),
        "set \"autogroup\": true",
    );
    check_err(
        r#", "autogroup": true"#,
        &format!(r#"{{"name": "a", {HOG}, "session": 0}}"#),
        "session: 0 is out of range",
    );
    check_err(
        r#", "autogroup": true"#,
        &format!(r#"{{"name": "a", {HOG}, "autogroup_nice": 3}}"#),
        "give the task group a \"session\"",
    );
    check_err(
        r#", "autogroup": true"#,
        &format!(
            r#"{{"name": "a", {HOG}, "session": 1, "autogroup_nice": 3}}, {{"name": "b", {HOG}, "session": 1, "autogroup_nice": 4}}"#
        ),
        "session 1 already has autogroup_nice 3",
    );
    check_err(
        r#", "autogroup": true, "cgroups": [{"path": "/db"}]"#,
        &format!(r#"{{"name": "a", {HOG}, "cgroup": "/db", "session": 1}}"#),
        "drop one of cgroup and session",
    );
}
