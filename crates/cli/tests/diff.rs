//! `schedlab diff`: the first decision two variants make differently, held to fair.c's rules.

use schedlab_report::diff::first_divergence;
use schedlab_scenario::presets::preset;
use schedlab_sim::{simulate, EventKind, PrevState, Trace, Variant};

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

fn run(preset_name: &str, variant: &str) -> Trace {
    let sc = preset(preset_name).unwrap().scenario();
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = true;
    simulate(&cfg, &Variant::parse(variant).unwrap())
        .unwrap()
        .trace
}

#[test]
fn identical_settings_never_diverge() {
    let (code, out, err) = schedlab(&[
        "diff",
        "--preset",
        "hackbench",
        "--variant",
        "eevdf-6.6",
        "--variant",
        "eevdf-6.6",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("# settings: identical"), "{out}");
    assert!(
        out.contains("no divergence: eevdf-6.6 and eevdf-6.6"),
        "{out}"
    );
}

#[test]
fn run_to_parity_does_not_matter_without_wakeups_in_6_6() {
    // Two hogs on one CPU (seed 002's pair). In 6.6, RUN_TO_PARITY only changes what
    // pick_eevdf returns when something asks for a pick before curr's deadline, and nothing
    // does: no task wakes, and the tick reschedules only once the deadline has passed
    // (update_deadline). So the two variants make every decision alike.
    let (code, out, err) = schedlab(&[
        "diff",
        "--preset",
        "sched-idle",
        "--variant",
        "eevdf-6.6",
        "--variant",
        "eevdf-6.6:NO_RUN_TO_PARITY",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("# settings that differ: RUN_TO_PARITY on / off"),
        "{out}"
    );
    assert!(out.contains("no divergence"), "{out}");
}

#[test]
fn without_run_to_parity_a_wakeup_preempts_where_the_protected_curr_kept_running() {
    // hackbench under eevdf-6.6 with and without RUN_TO_PARITY. The first difference must be
    // a wakeup preemption on the NO_RUN_TO_PARITY side (curr switched out still runnable),
    // and pick_eevdf may only have chosen the wakee over curr because curr was ineligible or
    // because the wakee, eligible, had the earlier deadline. With RUN_TO_PARITY the same curr
    // was protected (curr->vlag == curr->deadline), so that side did not switch there.
    let a = run("hackbench", "eevdf-6.6");
    let b = run("hackbench", "eevdf-6.6:NO_RUN_TO_PARITY");
    let d = first_divergence(&a, &b, false).expect("the variants diverge on hackbench");
    let eb = d.b.expect("the NO_RUN_TO_PARITY run goes on");
    let EventKind::Switch {
        prev_pid,
        prev_state,
        next_pid,
    } = eb.kind
    else {
        panic!("expected a switch on the NO_RUN_TO_PARITY side, got {eb:?}");
    };
    assert_eq!(prev_state, PrevState::Running, "{eb:?}");
    // On the RUN_TO_PARITY side the same curr was not preempted there: its next event on that
    // CPU is not that switch (it may be the same task leaving later, having run on until it
    // blocked).
    if let Some(ea) = d.a {
        assert!(
            !(ea.cpu == eb.cpu
                && ea.t_ns <= eb.t_ns
                && matches!(ea.kind, EventKind::Switch { prev_pid: p, prev_state: PrevState::Running, .. } if p == prev_pid)),
            "both sides preempted {prev_pid}: {ea:?} / {eb:?}"
        );
    }
    // The snapshots at that switch: what the fair class saw.
    let snap = |pid| {
        b.snapshots
            .iter()
            .rev()
            .find(|s| s.pid == pid && s.t_ns <= eb.t_ns)
            .copied()
            .unwrap_or_else(|| panic!("no snapshot of {pid}"))
    };
    let (curr, wakee) = (snap(prev_pid), snap(next_pid));
    assert!(
        wakee.eligible,
        "the wakee was picked although ineligible: {wakee:?}"
    );
    assert!(
        !curr.eligible || wakee.deadline < curr.deadline,
        "pick_eevdf had no reason to prefer the wakee: curr {curr:?}, wakee {wakee:?}"
    );
    // The CLI prints the same place.
    let (code, out, err) = schedlab(&[
        "diff",
        "--preset",
        "hackbench",
        "--variant",
        "eevdf-6.6",
        "--variant",
        "eevdf-6.6:NO_RUN_TO_PARITY",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "first divergence at {:.6} s",
            eb.t_ns.min(d.a.map_or(u64::MAX, |e| e.t_ns)) as f64 / 1e9
        )),
        "{out}"
    );
    assert!(out.contains("what the fair class saw"), "{out}");
    // The decision records name the pair of checks that differ: the same wakeup, refused on
    // the RUN_TO_PARITY side because curr was protected, and preempting without it. No other
    // branch can differ between two variants that differ only in RUN_TO_PARITY.
    let why = out
        .split("why (decision records):")
        .nth(1)
        .expect("a why section");
    let line_a = why
        .lines()
        .find(|l| l.trim_start().starts_with("eevdf-6.6 ") && l.contains("wakeup,"))
        .unwrap_or_else(|| panic!("no RUN_TO_PARITY-side check: {why}"));
    assert!(
        line_a.contains("does not preempt") && line_a.contains("RUN_TO_PARITY protected curr"),
        "{line_a}"
    );
    let line_b = why
        .lines()
        .find(|l| l.trim_start().starts_with("eevdf-6.6:NO_RUN_TO_PARITY") && l.contains("wakeup,"))
        .unwrap_or_else(|| panic!("no NO_RUN_TO_PARITY-side check: {why}"));
    assert!(line_b.contains(" preempts "), "{line_b}");
    assert!(why.contains("switched out for"), "{why}");
}

#[test]
fn diff_needs_two_variants() {
    let (code, _, err) = schedlab(&["diff", "--preset", "hackbench", "--variant", "eevdf-6.6"]);
    assert_eq!(code, 2);
    assert!(err.contains("diff compares two variants; 1 given"), "{err}");
}
