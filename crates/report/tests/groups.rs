//! CPU share per task group, on the group presets, against the kernel's arithmetic (the same
//! expectations and tolerances as the engine's tests in crates/sim/tests/groups.rs and
//! bandwidth.rs): a group entity whose whole load is on one CPU weighs `tg->shares`
//! (calc_group_shares), so groups split a CPU by their weights.
//!
//! Tolerances: a group's share of the tasks' CPU time ±0.5 pp for the 1:3 and 1:1 splits and
//! ±0.12 pp for the idle group's 0.29 % (the engine's tests say why); its share of the machine
//! also carries the time no task runs (the model's context-switch cost, under 1 % here).

use schedlab_report::export::{csv, json, RunReport};
use schedlab_report::groups::GroupShare;
use schedlab_scenario::presets::preset;
use schedlab_scenario::Scenario;
use schedlab_sim::simulate;

fn report(name: &str) -> RunReport {
    let s = preset(name).expect("preset").scenario();
    let cfg = s.sim_config();
    let outs: Vec<_> = s
        .variants()
        .iter()
        .map(|v| simulate(&cfg, v).unwrap())
        .collect();
    RunReport::new(&s, &outs)
}

fn get<'a>(groups: &'a [GroupShare], path: &str) -> &'a GroupShare {
    groups
        .iter()
        .find(|g| g.path == path)
        .unwrap_or_else(|| panic!("no group {path}"))
}

/// `path`'s share of the CPU time all tasks got, in %.
fn of_tasks(groups: &[GroupShare], path: &str) -> f64 {
    get(groups, path).runtime_ns as f64 * 100.0 / get(groups, "/").runtime_ns as f64
}

fn assert_near(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: {got:.3} % (arithmetic {want:.3} % ± {tol})"
    );
}

/// cpu.weight 100 vs 300 = shares 1024 and 3072: 25 % and 75 %.
#[test]
fn cgroup_weights_split_one_to_three() {
    let r = report("cgroup-weights");
    for v in &r.variants {
        let g = &v.groups;
        assert_eq!(
            g.iter().map(|x| x.path.as_str()).collect::<Vec<_>>(),
            ["/", "/web", "/db"],
            "the root first, then the cgroups in order"
        );
        assert_eq!((get(g, "/").tasks, get(g, "/web").tasks), (2, 1));
        assert_near(of_tasks(g, "/web"), 25.0, 0.5, &v.variant);
        assert_near(of_tasks(g, "/db"), 75.0, 0.5, &v.variant);
        // Of the machine: the same within the time no task runs.
        assert_near(get(g, "/web").share * 100.0, 25.0, 1.0, &v.variant);
        assert_near(get(g, "/db").share * 100.0, 75.0, 1.0, &v.variant);
        assert!(get(g, "/").share <= 1.0);
        assert!(g.iter().all(|x| x.cpu_stat.is_none()), "no cpu.max here");
    }
}

/// cpu.idle = 1: WEIGHT_IDLEPRIO, 3 / (1024 + 3) = 0.29 %.
#[test]
fn cgroup_idle_gets_weight_idleprio() {
    let r = report("cgroup-idle");
    for v in &r.variants {
        assert_near(
            of_tasks(&v.groups, "/batch"),
            300.0 / 1027.0,
            0.12,
            &v.variant,
        );
    }
}

/// Two autogroup sessions of nice 0 each weigh 1024, whatever their tasks' nice: 50/50.
#[test]
fn autogroup_sessions_split_evenly() {
    let r = report("autogroup-nice");
    for v in &r.variants {
        assert_near(of_tasks(&v.groups, "/autogroup-1"), 50.0, 0.5, &v.variant);
        assert_near(of_tasks(&v.groups, "/autogroup-2"), 50.0, 0.5, &v.variant);
    }
}

/// cpu.max 50000 100000 alone on a CPU: 50 ms per 100 ms period, half the machine, and every
/// period throttled; beside /web, the quota (not the 3:1 weights) decides: 50/50.
#[test]
fn cpu_max_caps_the_group_and_reports_cpu_stat() {
    let r = report("cpu-max");
    for v in &r.variants {
        let ct = get(&v.groups, "/ct");
        assert_near(ct.share * 100.0, 50.0, 0.5, &v.variant);
        let st = ct.cpu_stat.as_ref().expect("cpu.stat of /ct");
        assert_eq!(Some(st), v.bandwidth.first(), "{}", v.variant);
        assert!(st.nr_periods > 0 && st.nr_throttled == st.nr_periods);
        assert!(get(&v.groups, "/").cpu_stat.is_none());
    }
    let r = report("cpu-max-beside");
    for v in &r.variants {
        assert_near(of_tasks(&v.groups, "/ct"), 50.0, 0.5, &v.variant);
        assert_near(of_tasks(&v.groups, "/web"), 50.0, 0.5, &v.variant);
    }
}

/// The exports: CSV gains a `group` column and JSON `group_shares` with groups, and neither
/// changes without them.
#[test]
fn exports_carry_the_group_only_with_groups() {
    let r = report("cgroup-weights");
    let c = csv(&r);
    let mut lines = c.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with(",involuntary_switches,group"));
    let first = lines.next().unwrap();
    assert!(first.ends_with(",/web"), "{first}");
    let j: serde_json::Value = serde_json::from_str(&json(&r)).unwrap();
    let v0 = &j["variants"][0];
    assert_eq!(v0["tasks"][1]["group"], "/db");
    assert_eq!(v0["group_shares"][1]["path"], "/web");
    assert_eq!(v0["group_shares"][0]["tasks"], 2);

    let flat: Scenario = preset("sched-idle").unwrap().scenario();
    let cfg = flat.sim_config();
    let outs = vec![simulate(&cfg, &flat.variants()[0]).unwrap()];
    let r = RunReport::new(&flat, &outs);
    assert!(r.variants[0].groups.is_empty());
    assert!(!csv(&r).contains("group"));
    assert!(!json(&r).contains("group_shares"));
    assert!(r.variants[0].tasks.iter().all(|t| t.group.is_none()));
}
