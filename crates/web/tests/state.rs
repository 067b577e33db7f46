//! The reducer and the view models, natively.

use schedlab_report::compare::VariantSummary;
use schedlab_report::export::RunReport;
use schedlab_report::latency::LatencyRow;
use schedlab_web::model::{deltas, shared_histograms, sorted_rows, Results, VariantResult};
use schedlab_web::state::{
    Action, CgroupField, MachineField, RunState, SortKey, State, TaskField, VariantChoice,
};

#[test]
fn a_first_visit_opens_a_runnable_comparison() {
    let s = State::initial();
    assert_eq!(s.variants.len(), 2, "two kernels side by side");
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let (run, sc) = s.run_request().expect("runnable");
    assert_eq!(run, 1, "the first run");
    assert_eq!(sc.variant_names(), ["cfs-5.14", "cfs-6.1"]);
    assert!(sc.to_json().contains("\"policy\": \"idle\""));
}

#[test]
fn typing_keeps_the_text_and_names_the_field() {
    let s = State::initial();
    // Half-typed values stay as typed and are reported against their field.
    let s = s.reduce(Action::SetTask {
        row: 0,
        field: TaskField::Nice,
        value: "-".into(),
    });
    assert_eq!(s.tasks[0].nice, "-");
    assert!(
        s.errors_at("tasks[0].nice")
            .iter()
            .any(|e| e.contains("-20..=19")),
        "{:?}",
        s.errors
    );
    assert!(s.can_run().is_err());
    let s = s.reduce(Action::SetTask {
        row: 0,
        field: TaskField::Nice,
        value: "-25".into(),
    });
    assert_eq!(
        s.errors_at("tasks[0].nice"),
        ["-25 is out of range (allowed -20..=19)"]
    );
    // Running an invalid scenario does not start a run.
    let s2 = s.reduce(Action::Run);
    assert!(
        matches!(&s2.run, RunState::Failed(m) if m.contains("tasks[0].nice")),
        "{:?}",
        s2.run
    );
    let s = s.reduce(Action::SetTask {
        row: 0,
        field: TaskField::Nice,
        value: "5".into(),
    });
    assert!(s.errors.is_empty());
    assert!(s.json_text.contains("\"nice\": 5"));
    let s = s.reduce(Action::SetMachine {
        field: MachineField::Hz,
        value: "1234".into(),
    });
    assert_eq!(s.errors_at("hz").len(), 1);
    assert_eq!(s.machine.hz, "1234");
}

#[test]
fn the_json_view_round_trips_with_the_form() {
    let s = State::initial();
    let text = s.json_text.clone();
    let edited = text.replace("\"hog\"", "\"worker\"");
    let s2 = s.reduce(Action::SetJson(edited.clone()));
    assert_eq!(s2.tasks[0].name, "worker");
    assert_eq!(s2.json_text, edited);
    // An unparsable document is kept as typed and the form keeps the last good one.
    let s3 = s2.reduce(Action::SetJson("{\"name\": ".into()));
    assert_eq!(s3.json_text, "{\"name\": ");
    assert!(s3
        .json_error
        .as_deref()
        .unwrap_or("")
        .contains("not valid JSON"));
    assert_eq!(s3.tasks[0].name, "worker");
    assert!(s3.can_run().is_err());
    // The form's own document parses back to the same form.
    let again = State::initial().reduce(Action::SetJson(State::initial().json_text));
    assert_eq!(again.tasks, State::initial().tasks);
    assert_eq!(again.variants, State::initial().variants);
}

#[test]
fn task_rows_add_duplicate_delete() {
    let s = State::initial();
    let n = s.tasks.len();
    let s = s.reduce(Action::AddTask);
    assert_eq!(s.tasks.len(), n + 1);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let s = s.reduce(Action::DuplicateTask(0));
    assert_eq!(s.tasks[0], s.tasks[1]);
    let s = s
        .reduce(Action::DeleteTask(0))
        .reduce(Action::DeleteTask(99));
    assert_eq!(s.tasks.len(), n + 1);
}

#[test]
fn variants_toggle_features_and_stay_within_the_formats_limit() {
    let mut s = State::initial();
    for _ in 0..10 {
        s = s.reduce(Action::AddVariant);
    }
    assert_eq!(s.variants.len(), schedlab_scenario::MAX_VARIANTS);
    s = s.reduce(Action::SetVariantPreset {
        index: 0,
        preset: "eevdf-6.6".into(),
    });
    s = s.reduce(Action::ToggleFeature {
        index: 0,
        feature: "RUN_TO_PARITY".into(),
        on: false,
    });
    assert_eq!(
        s.variants[0].to_variant_string(),
        "eevdf-6.6:NO_RUN_TO_PARITY"
    );
    // Back to the default removes the override.
    s = s.reduce(Action::ToggleFeature {
        index: 0,
        feature: "RUN_TO_PARITY".into(),
        on: true,
    });
    assert_eq!(s.variants[0].to_variant_string(), "eevdf-6.6");
    s = s.reduce(Action::SetTunables {
        index: 0,
        value: "base_slice_ns=1".into(),
    });
    assert!(
        s.variant_error(0)
            .is_some_and(|m| m.contains("out of range")),
        "{:?}",
        s.errors
    );
    assert!(s.can_run().is_err());
    let c = VariantChoice::from_string("eevdf-6.12:NO_DELAY_DEQUEUE,base_slice_ns=3000000");
    assert_eq!(
        c.to_variant_string(),
        "eevdf-6.12:NO_DELAY_DEQUEUE,base_slice_ns=3000000"
    );
}

#[test]
fn the_run_lifecycle() {
    let s = State::initial().reduce(Action::Run);
    assert!(matches!(s.run, RunState::Running(_)));
    assert!(
        s.can_run().is_err(),
        "no second run while one is in progress"
    );
    let s2 = s.reduce(Action::Cancel);
    assert_eq!(s2.run, RunState::Failed("cancelled".into()));
    // A result arriving after a cancel is ignored.
    let late = results(1, vec![], vec![]);
    assert_eq!(
        s2.reduce(Action::Finished(Box::new(late.clone()))).run,
        s2.run
    );
    assert!(matches!(
        s.reduce(Action::Finished(Box::new(late.clone()))).run,
        RunState::Done(_)
    ));
    // Cancel then Run: the cancelled run's replies, still on their way, are dropped; the new
    // run's are taken.
    let s3 = s2.reduce(Action::Run);
    assert_eq!(s3.runs, 2);
    let stale = |a: Action| s3.reduce(a).run;
    assert_eq!(stale(Action::Finished(Box::new(late.clone()))), s3.run);
    assert_eq!(
        stale(Action::Failed {
            run: 1,
            message: "old".into()
        }),
        s3.run
    );
    let fresh = results(2, vec![], vec![]);
    assert!(matches!(
        s3.reduce(Action::Finished(Box::new(fresh))).run,
        RunState::Done(_)
    ));
    assert_eq!(
        s3.reduce(Action::Failed {
            run: 2,
            message: "the worker stopped answering".into()
        })
        .run,
        RunState::Failed("the worker stopped answering".into())
    );
}

fn row(comm: &str, runtime: u64, count: u64, avg: u64) -> LatencyRow {
    LatencyRow {
        comm: comm.into(),
        pid: 1,
        threads: 1,
        runtime_ns: runtime,
        count,
        delay_sum_ns: avg * count,
        delay_max_ns: avg * 2,
        max_start_ns: 0,
        max_end_ns: 0,
    }
}

fn summary(switches: u64, avg: u64, pr: Option<f64>, tp: Option<f64>) -> VariantSummary {
    VariantSummary {
        variant: "v".into(),
        switches,
        delay_avg_ns: avg,
        delay_max_ns: avg,
        preempt_ratio: pr,
        shares: vec![],
        throughput: tp.map(|x| ("IO/s".into(), x)),
    }
}

fn variant_result(end_ns: u64, summary: VariantSummary) -> VariantResult {
    VariantResult {
        variant: summary.variant.clone(),
        merged: vec![],
        per_task: vec![],
        wakeup_ns: vec![],
        delay_ns: vec![],
        counters: vec![],
        figures: String::new(),
        note: None,
        summary,
        events: 0,
        end_ns,
        timeline: Default::default(),
        row_groups: Default::default(),
        task_groups: vec![],
        source_figures: None,
    }
}

fn results(run: u64, variants: Vec<VariantResult>, summary: Vec<VariantSummary>) -> Results {
    Results {
        run,
        scenario: "x".into(),
        variants,
        report: RunReport {
            scenario: "x".into(),
            cpus: 1,
            hz: 1000,
            duration_ns: 0,
            seed: 1,
            variants: vec![],
            summary,
        },
        divergences: vec![],
    }
}

#[test]
fn table_rows_sort_descending_by_column() {
    let rows = vec![row("a", 10, 3, 5), row("b", 30, 1, 9), row("c", 20, 2, 1)];
    let names = |k| {
        sorted_rows(&rows, k)
            .iter()
            .map(|r| r.comm.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(SortKey::Runtime), ["b", "c", "a"]);
    assert_eq!(names(SortKey::Switches), ["a", "c", "b"]);
    assert_eq!(names(SortKey::Avg), ["b", "a", "c"]);
    assert_eq!(names(SortKey::Perf), ["a", "b", "c"]);
    assert_eq!(names(SortKey::Name), ["a", "b", "c"]);
}

#[test]
fn histograms_share_axes_and_count_every_sample() {
    let a: Vec<u64> = (1..=1000).map(|i| i * 1_000).collect();
    let b: Vec<u64> = vec![500_000; 10];
    for log in [false, true] {
        let h = shared_histograms(&[&a, &b], 20, log);
        assert_eq!(h[0].edges_ns, h[1].edges_ns, "same bins");
        assert_eq!(h[0].y_max, h[1].y_max, "same y axis");
        assert_eq!(h[0].counts.iter().sum::<u64>(), 1000);
        assert_eq!(h[1].counts.iter().sum::<u64>(), 10);
        assert_eq!(
            *h[0].edges_ns.last().unwrap(),
            1_000_000,
            "up to the largest sample"
        );
        assert!(h[0].edges_ns.windows(2).all(|w| w[0] <= w[1]));
    }
    let h = shared_histograms(&[&a], 10, false);
    assert_eq!(h[0].percentiles_ns[0], 500_000);
    assert_eq!(h[0].percentiles_ns[2], 990_000);
}

#[test]
fn deltas_against_the_first_variant_are_the_command_lines() {
    let (a, b) = (
        summary(100, 10, Some(0.2), Some(100.0)),
        summary(150, 5, Some(0.5), Some(100.0)),
    );
    let r = results(1, vec![], vec![a, b]);
    let d = deltas(&r);
    let cell = |name: &str| {
        let i = d[0].iter().position(|h| h == name).expect(name);
        d[1][i].clone()
    };
    assert_eq!(cell("switches"), "+50.0%");
    assert_eq!(cell("avg delay"), "-50.0%");
    assert_eq!(cell("wakeup preempt"), "+30.0pp");
    assert_eq!(
        cell("throughput"),
        "0.0%",
        "no change is unsigned, as the CLI prints it"
    );
}

fn with_results(end_ns: u64) -> State {
    let mut v = variant_result(end_ns, summary(0, 0, None, None));
    v.timeline.end_ns = end_ns;
    let r = results(1, vec![v], vec![]);
    State::initial()
        .reduce(Action::Run)
        .reduce(Action::Finished(Box::new(r)))
}

#[test]
fn the_timeline_window_zooms_pans_and_stays_inside_the_run() {
    use schedlab_web::state::TimelineAction as T;
    let s = with_results(1_000_000_000);
    assert_eq!(
        s.timeline_window(),
        Some((0, 1_000_000_000)),
        "a new run shows all of it"
    );
    let s = s.reduce(Action::Timeline(T::Zoom {
        factor: 0.5,
        center_ns: 500_000_000,
    }));
    assert_eq!(s.timeline_window(), Some((250_000_000, 750_000_000)));
    let s = s.reduce(Action::Timeline(T::Pan(1.0)));
    assert_eq!(
        s.timeline_window(),
        Some((500_000_000, 1_000_000_000)),
        "clamped at the end"
    );
    let s = s.reduce(Action::Timeline(T::Pan(-5.0)));
    assert_eq!(
        s.timeline_window(),
        Some((0, 500_000_000)),
        "clamped at the start"
    );
    let s = s.reduce(Action::Timeline(T::Range(300, 100)));
    assert_eq!(
        s.timeline_window(),
        Some((100, 1_100)),
        "at least 1 µs wide"
    );
    // One step zooms out at most 100×; three reach the whole run, and no further.
    let mut s = s;
    for _ in 0..3 {
        s = s.reduce(Action::Timeline(T::Zoom {
            factor: 1000.0,
            center_ns: 0,
        }));
    }
    assert_eq!(
        s.timeline_window(),
        Some((0, 1_000_000_000)),
        "never wider than the run"
    );
    let s = s
        .reduce(Action::Timeline(T::Ruler(10)))
        .reduce(Action::Timeline(T::Ruler(30)))
        .reduce(Action::Timeline(T::Ruler(50)));
    assert_eq!(s.view.timeline.ruler, [50], "a third click starts over");
    let s = s.reduce(Action::Timeline(T::Select(Some("idle".into()))));
    assert_eq!(s.view.timeline.selected.as_deref(), Some("idle"));
    let s = s
        .reduce(Action::Timeline(T::ToggleHelp))
        .reduce(Action::Timeline(T::Escape));
    assert!(!s.view.timeline.help && s.view.timeline.ruler.is_empty());
    // Without results there is no window and the actions change nothing.
    let idle = State::initial().reduce(Action::Timeline(T::Pan(1.0)));
    assert_eq!(idle.timeline_window(), None);
}

#[test]
fn the_first_state_comes_from_the_url() {
    use schedlab_scenario::link::{encode, LinkView};
    use schedlab_scenario::presets::preset;
    let sc = preset("tbench-stacked").unwrap().scenario();
    let view = LinkView {
        view: None,
        window_ns: Some((1_000, 2_000_000)),
        selected: Some("tbench".into()),
        per_task: true,
        log_axis: Some(false),
        sweep: None,
    };
    let url = format!("https://x.invalid/schedlab/#{}", encode(&sc, &view));
    let s = State::from_location(&url);
    assert_eq!(s.notice, None);
    assert_eq!(s.machine.name, sc.name);
    assert_eq!(s.variants.len(), 3);
    assert_eq!(s.view.timeline.selected.as_deref(), Some("tbench"));
    assert!(s.view.timeline.per_task && s.keep_window);
    assert!(s.run_request().is_some(), "a link's scenario runs at once");
    // The page's own link of that state decodes to the same scenario.
    let again = State::from_location(&format!("https://x.invalid/#{}", s.link_payload().unwrap()));
    assert_eq!(again.json_text, s.json_text);
    // Embed mode.
    let e = State::from_location(&format!(
        "https://x.invalid/#embed=timeline&{}",
        encode(&sc, &LinkView::default())
    ));
    assert_eq!(e.embed.as_deref(), Some("timeline"));
    assert_eq!(
        State::from_location("https://x.invalid/?embed=1")
            .embed
            .as_deref(),
        Some("")
    );
    // A damaged link: the default scenario and a notice that says why.
    let bad = State::from_location("https://x.invalid/#v1.AAAA!!");
    assert!(
        bad.notice
            .as_deref()
            .unwrap_or("")
            .contains("could not be opened"),
        "{:?}",
        bad.notice
    );
    assert_eq!(bad.tasks, State::initial().tasks);
    let future = State::from_location("https://x.invalid/#v9.abc");
    assert!(
        future
            .notice
            .as_deref()
            .unwrap_or("")
            .contains("does not read"),
        "{:?}",
        future.notice
    );
    assert_eq!(State::from_location("https://x.invalid/").notice, None);
}

#[test]
fn a_file_that_is_not_a_scenario_is_refused_with_its_name() {
    let s = State::initial().reduce(Action::Load {
        json: "{not json".into(),
        source: Some("mine.json".into()),
    });
    assert!(
        s.notice
            .as_deref()
            .unwrap_or("")
            .starts_with("Could not open mine.json: not valid JSON"),
        "{:?}",
        s.notice
    );
    assert_eq!(
        s.tasks,
        State::initial().tasks,
        "the form keeps the last good scenario"
    );
}

#[test]
fn exports_carry_the_tables() {
    use schedlab_web::model::{export, results};
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let cfg = sc.sim_config();
    let outs: Vec<_> = sc
        .variants()
        .iter()
        .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
        .collect();
    let r = results(1, &sc, &outs);
    let csv = export::csv(&r);
    assert!(csv.starts_with("variant,name,pid,runtime_ns"));
    assert_eq!(csv.lines().count(), 1 + 2 * 2, "{csv}");
    let json: serde_json::Value = serde_json::from_str(&export::json(&r)).unwrap();
    assert_eq!(json["variants"][1]["variant"], "cfs-6.1");
    // The same bytes as the command line's `--format csv` and `--format json` of this run.
    let cli = RunReport::new(&sc, &outs);
    assert_eq!(csv, schedlab_report::export::csv(&cli));
    assert_eq!(export::json(&r), schedlab_report::export::json(&cli));
    let text = export::perf_text(&r);
    assert!(
        text.contains("cfs-5.14\n ------")
            && text.contains("  Task                  |   Runtime ms  | Switches |"),
        "{text}"
    );
    let p: serde_json::Value = serde_json::from_str(&export::perfetto(&r)).unwrap();
    assert!(p["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["ph"] == "X" && e["name"] == "idle:2"));
}

#[test]
fn the_embed_snippet_opens_the_same_scenario_in_the_chosen_view() {
    let mut s = State::initial();
    s = s.reduce(Action::SetMachine {
        field: MachineField::Name,
        value: "a \"quoted\" <name> & more".into(),
    });
    let snip = s
        .embed_snippet("https://x.invalid/schedlab/", "histogram", 10)
        .unwrap();
    assert!(
        snip.starts_with("<iframe ") && snip.ends_with("</iframe>"),
        "{snip}"
    );
    assert!(snip.contains("height=\"120\""), "height is clamped: {snip}");
    assert!(
        snip.contains("&quot;quoted&quot; &lt;name&gt; &amp; more"),
        "the title is escaped: {snip}"
    );
    assert!(!snip.contains("<name>"), "{snip}");
    // The src, unescaped, opens the same scenario in embed mode with that view.
    let src = snip
        .split("src=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let src = src.replace("&amp;", "&");
    assert!(
        src.starts_with("https://x.invalid/schedlab/#embed=histogram&v1."),
        "{src}"
    );
    let opened = State::from_location(&src);
    assert_eq!(opened.notice, None);
    assert_eq!(opened.embed.as_deref(), Some("histogram"));
    assert_eq!(
        opened.json_text,
        State::from_location(&format!("https://x.invalid/#{}", s.link_payload().unwrap()))
            .json_text
    );
    assert_eq!(opened.machine.name, s.machine.name);
    // An unknown view falls back to the comparison; an invalid scenario has no snippet.
    assert!(s
        .embed_snippet("https://x.invalid/", "bogus", 400)
        .unwrap()
        .contains("#embed=comparison&amp;v1."));
    let broken = s.reduce(Action::SetJson("{ not json".into()));
    assert_eq!(
        broken.embed_snippet("https://x.invalid/", "table", 400),
        None
    );
}

#[test]
fn workload_parameters_are_edited_field_by_field() {
    let mut s = State::initial().reduce(Action::AddWorkload);
    let row = s.workloads.len() - 1;
    s = s.reduce(Action::SetWorkload {
        row,
        kind: Some("hackbench".into()),
        params: None,
    });
    let set = |s: &State, name: &str, value: &str| {
        s.reduce(Action::SetWorkloadParam {
            row,
            name: name.into(),
            value: value.into(),
        })
    };
    s = set(&s, "groups", "4");
    s = set(&s, "affinity", "0,1");
    s = set(&s, "threads", "true");
    assert_eq!(s.workloads[row].param_text("groups"), "4");
    assert_eq!(s.workloads[row].param_text("affinity"), "0,1");
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let sc = s.scenario.as_ref().expect("valid");
    match &sc.workloads[row] {
        schedlab_scenario::Workload::Hackbench(h) => {
            assert_eq!((h.groups, h.threads), (4, true));
            assert_eq!(h.affinity, Some(vec![0, 1]));
        }
        w => panic!("{w:?}"),
    }
    // The JSON view shows the same document.
    assert!(s.json_text.contains("\"groups\": 4"), "{}", s.json_text);
    // A bad value stays as typed and is reported at its field.
    s = set(&s, "groups", "0");
    assert_eq!(s.workloads[row].param_text("groups"), "0");
    assert!(
        !s.errors_at(&format!("workloads[{row}].hackbench.groups"))
            .is_empty(),
        "{:?}",
        s.errors
    );
    // Emptying a field restores the default; a new kind keeps what it shares (affinity).
    s = set(&s, "groups", "");
    assert_eq!(s.workloads[row].param_text("groups"), "");
    s = s.reduce(Action::SetWorkload {
        row,
        kind: Some("fio_like".into()),
        params: None,
    });
    assert_eq!(s.workloads[row].params, r#"{"affinity":[0,1]}"#);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
}

#[test]
fn a_scenario_keeps_every_variant_it_lists() {
    // video-massive-intr compares five kernels: loading it must not drop one.
    let p = schedlab_scenario::presets::preset("video-massive-intr").unwrap();
    let s = State::initial().reduce(Action::Load {
        json: p.json.to_string(),
        source: None,
    });
    assert_eq!(s.variants.len(), p.scenario().variants().len());
    assert!(s.variants.len() > 4);
    let (_, sc) = s.run_request().expect("runnable");
    assert_eq!(sc.variants().len(), p.scenario().variants().len());
}

/// A preset opened in the page is still that preset when it runs (the form keeps its document),
/// so each variant's views carry the model's value of every figure its source reports, which the
/// results print beside the source's; a changed scenario (here its seed) is no preset's.
#[test]
fn a_preset_run_in_the_page_measures_its_sources_figures() {
    use schedlab_scenario::presets::{preset_of, presets};
    for p in presets() {
        let s = State::initial().reduce(Action::Load {
            json: p.json.to_string(),
            source: None,
        });
        let (_, sc) = s.run_request().expect("runnable");
        assert_eq!(preset_of(&sc).map(|q| q.name), Some(p.name));
        let mut fewer = sc.clone();
        fewer.variants.truncate(1);
        assert_eq!(preset_of(&fewer).map(|q| q.name), Some(p.name));
        let mut other = sc.clone();
        other.seed += 1;
        assert!(preset_of(&other).is_none(), "{}", p.name);
    }
    let sc = schedlab_scenario::presets::preset("tbench-stacked")
        .unwrap()
        .scenario();
    let o = schedlab_sim::simulate(&sc.sim_config(), &sc.variants()[1]).unwrap();
    let v = schedlab_web::model::variant_views(1, &sc, 1, &o, vec![]);
    let (name, values) = v.result.source_figures.expect("tbench-stacked's figures");
    assert_eq!(name, "tbench-stacked");
    // The client's share without DELAY_DEQUEUE (the thread's 56 %).
    assert!(
        matches!(values[..], [Some(x)] if (50.0..60.0).contains(&x)),
        "{values:?}"
    );
}

#[test]
fn a_variant_string_keeps_the_order_it_was_written_in() {
    // As the fio-grid preset writes it; the page used to sort the items.
    let s = "eevdf-6.12:NO_WAKEUP_PREEMPTION,NO_DELAY_DEQUEUE,base_slice_ns=3000000";
    assert_eq!(VariantChoice::from_string(s).to_variant_string(), s);
    let p = schedlab_scenario::presets::preset("fio-grid").unwrap();
    let st = State::initial().reduce(Action::Load {
        json: p.json.to_string(),
        source: None,
    });
    let names: Vec<String> = st.variants.iter().map(|v| v.to_variant_string()).collect();
    let want: Vec<String> = p
        .scenario()
        .variant_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert_eq!(names, want);
}

fn hogs_recording(id: u64) -> schedlab_web::recording::Recording {
    let p = format!(
        "{}/../../tests/fixtures/traces/hogs.perf-script.txt.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(p).unwrap();
    let imp = schedlab_trace::import_bytes(&bytes, Default::default()).unwrap();
    schedlab_web::recording::recording(id, "hogs.txt.gz", &imp, &["eevdf-6.19".into()])
}

#[test]
fn a_recording_is_kept_only_for_the_import_in_progress_and_widens_the_timeline() {
    let s = State::initial();
    let s = s.reduce(Action::ImportStarted {
        id: 1,
        file: "hogs.txt.gz".into(),
        total: 1000,
    });
    let s = s.reduce(Action::ImportProgress { id: 1, bytes: 400 });
    assert_eq!(s.importing.as_ref().map(|p| p.bytes), Some(400));
    // A second file replaces the first: the first one's answer is dropped.
    let s = s.reduce(Action::ImportStarted {
        id: 2,
        file: "other.txt".into(),
        total: 10,
    });
    let stale = s.reduce(Action::Imported(Box::new(hogs_recording(1))));
    assert!(stale.recording.is_none());
    let s = s.reduce(Action::Imported(Box::new(hogs_recording(2))));
    assert!(s.importing.is_none());
    let rec = s.recording.clone().expect("kept");
    // No run yet: the timeline spans the recording.
    assert_eq!(s.run_end_ns(), Some(rec.end_ns));
    assert!(
        rec.end_ns > 1_500_000_000,
        "the hogs recording is about 2 s"
    );

    // "Make a scenario" fills the editor with the derived scenario and its notes, under the
    // variants picked now.
    let picked: Vec<String> = s.variants.iter().map(|v| v.to_variant_string()).collect();
    assert_eq!(picked, ["cfs-5.14", "cfs-6.1"]);
    let s = s.reduce(Action::MakeScenario);
    assert_eq!(s.machine.name, "recorded: hogs.txt.gz");
    assert_eq!(s.scenario.as_ref().unwrap().variant_names(), picked);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert!(!s.derived_notes.is_empty());
    assert!(s.tasks.iter().any(|t| t.name == "hog"));
    // Loading another scenario clears those notes.
    let json = s.scenario.as_ref().unwrap().to_json();
    let s2 = s.reduce(Action::Load { json, source: None });
    assert!(s2.derived_notes.is_empty());

    let s = s.reduce(Action::RemoveRecording);
    assert!(s.recording.is_none());
    assert_eq!(s.run_end_ns(), None);
}

#[test]
fn a_failed_or_cancelled_import_says_why_and_keeps_the_last_recording() {
    let s = State::initial()
        .reduce(Action::ImportStarted {
            id: 1,
            file: "a".into(),
            total: 1,
        })
        .reduce(Action::Imported(Box::new(hogs_recording(1))));
    let s = s
        .reduce(Action::ImportStarted {
            id: 2,
            file: "notes.txt".into(),
            total: 1,
        })
        .reduce(Action::ImportFailed {
            id: 2,
            message: "notes.txt: not a scheduler trace".into(),
        });
    assert_eq!(
        s.import_error.as_deref(),
        Some("notes.txt: not a scheduler trace")
    );
    assert!(s.recording.is_some());
    let s = s
        .reduce(Action::ImportStarted {
            id: 3,
            file: "big.txt".into(),
            total: 1,
        })
        .reduce(Action::ImportCancel);
    assert!(s.importing.is_none());
    assert_eq!(
        s.import_error.as_deref(),
        Some("big.txt: reading cancelled")
    );
    // A late answer of the cancelled import is dropped.
    let s = s.reduce(Action::ImportFailed {
        id: 3,
        message: "late".into(),
    });
    assert_eq!(
        s.import_error.as_deref(),
        Some("big.txt: reading cancelled")
    );
}

#[test]
fn deltas_against_a_recording_have_a_row_per_variant() {
    let rec = hogs_recording(1);
    let v = vec![
        summary(100, 1000, Some(0.5), None),
        summary(120, 2000, Some(0.4), None),
    ];
    let d = schedlab_web::recording::deltas_vs_recording(&rec, &v);
    assert_eq!(d.len(), 3, "the header and one row per variant");
    // The recording has no wakeup-preemption ratio: that delta is "-".
    let col = d[0].iter().position(|h| h == "wakeup preempt").unwrap();
    assert_eq!(d[1][col], "-");
    // No variant has the recording's task groups: no share columns.
    assert!(!d[0].iter().any(|h| h.starts_with("share")), "{:?}", d[0]);
    // A variant with the "hog" group gets that share's delta against the recording's.
    let mut with_hog = summary(100, 1000, None, None);
    with_hog.shares = vec![("hog".into(), 0.5)];
    let d = schedlab_web::recording::deltas_vs_recording(&rec, &[with_hog]);
    assert_eq!(d[0].iter().filter(|h| h.starts_with("share")).count(), 1);
    assert!(d[1].last().unwrap().ends_with("pp"), "{:?}", d[1]);
}

#[test]
fn the_first_divergence_of_a_pair_in_either_order_and_none_between_identical_variants() {
    use schedlab_sim::Variant;
    let mut sc = schedlab_scenario::presets::preset("hackbench")
        .unwrap()
        .scenario();
    sc.variants = ["eevdf-6.6", "eevdf-6.6:NO_RUN_TO_PARITY", "eevdf-6.6"]
        .map(|v| Variant::parse(v).unwrap())
        .to_vec();
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = true;
    let outs: Vec<_> = sc
        .variants
        .iter()
        .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
        .collect();
    let mut s = State::initial().reduce(Action::Run);
    let r = schedlab_web::model::results(s.runs, &sc, &outs);
    // Every pair once, lower index first.
    let pairs: Vec<_> = r.divergences.iter().map(|d| (d.a, d.b)).collect();
    assert_eq!(pairs, [(0, 1), (0, 2), (1, 2)]);
    s = s.reduce(Action::Finished(Box::new(r)));
    assert_eq!(s.view.diff_pair, (0, 1));

    // Picked the other way round: the sides follow the picking.
    s = s.reduce(Action::SetDiffSide { side: 0, index: 1 });
    s = s.reduce(Action::SetDiffSide { side: 1, index: 0 });
    s = s.reduce(Action::ShowDivergence);
    let d = s.divergence().unwrap();
    assert_eq!((d.a, d.b), (1, 0));
    assert_eq!(d.settings, ["RUN_TO_PARITY off / on"]);
    let f = d
        .found
        .expect("RUN_TO_PARITY changes a decision in hackbench");
    // Everything before it is shared; the two events differ.
    let (ta, tb) = (&outs[1].trace, &outs[0].trace);
    let decisions = |t: &schedlab_sim::Trace| -> Vec<schedlab_sim::Event> {
        t.events
            .iter()
            .filter(|e| !matches!(e.kind, schedlab_sim::EventKind::StatRuntime { .. }))
            .collect()
    };
    let (da, db) = (decisions(ta), decisions(tb));
    assert_eq!(da[..f.common], db[..f.common]);
    assert_ne!(da.get(f.common), db.get(f.common));
    assert_eq!(
        f.t_ns,
        da[f.common].t_ns.min(db[f.common].t_ns),
        "the earlier of the two events"
    );
    assert_eq!(
        f.event_ns,
        [Some(da[f.common].t_ns), Some(db[f.common].t_ns)]
    );
    // The timelines jumped there and mark it.
    let (t0, t1) = s.timeline_window().unwrap();
    assert!(t0 <= f.t_ns && f.t_ns < t1, "{t0}..{t1} holds {}", f.t_ns);
    assert_eq!(s.view.timeline.ruler, [f.t_ns]);
    // The tasks of the two events, with their snapshots on each side.
    assert!(!f.state[0].is_empty());
    assert_eq!(
        f.state[0].iter().map(|t| &t.task).collect::<Vec<_>>(),
        f.state[1].iter().map(|t| &t.task).collect::<Vec<_>>()
    );

    // Two identical variants: none.
    s = s.reduce(Action::SetDiffSide { side: 0, index: 2 });
    s = s.reduce(Action::ShowDivergence);
    let d = s.divergence().unwrap();
    assert_eq!((d.a, d.b), (2, 0));
    assert!(d.found.is_none() && d.settings.is_empty(), "{d:?}");
}

#[test]
fn a_sweep_point_is_a_single_run_of_its_scenario_and_a_bad_parameter_is_named() {
    use schedlab_web::state::JobState;
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let mut s = State::initial().reduce(Action::Load {
        json: sc.to_json(),
        source: None,
    });
    s = s.reduce(Action::SetSweepParam(
        "latency_ns=3000000..12000000:4".into(),
    ));
    let run = s.sweep_request().unwrap();
    assert_eq!((run.id, run.points.len(), run.jobs.len()), (1, 4, 8));
    assert_eq!(run.labels, ["cfs-5.14", "cfs-6.1"]);
    // The last point, second variant: its figures are those of a plain run of that scenario.
    let (k, point, v) = run.work().pop().unwrap();
    assert_eq!(point.variants[v].name, "cfs-6.1:latency_ns=12000000");
    let f = schedlab_web::worker::sweep_point(&point, v).unwrap();
    let out = schedlab_sim::simulate(&point.sim_config(), &point.variants[v]).unwrap();
    assert_eq!(
        f.trace_hash,
        schedlab_report::export::trace_hash(&out.trace)
    );
    s = s.reduce(Action::SweepStarted(Box::new(run)));
    s = s.reduce(Action::SweepRow {
        id: 1,
        job: k,
        figures: Box::new(f),
    });
    let r = s.sweep.as_ref().unwrap();
    assert!(matches!(r.states[k], JobState::Done(_)) && r.running());
    assert_eq!(r.rows().len(), 1);
    // The link carries the sweep.
    let link = schedlab_scenario::link::decode(&s.link_payload().unwrap()).unwrap();
    assert_eq!(
        link.view.sweep.unwrap().param,
        "latency_ns=3000000..12000000:4"
    );
    // Cancel: late rows are dropped.
    s = s.reduce(Action::SweepCancel);
    assert!(s.sweep.as_ref().unwrap().cancelled);

    s = s.reduce(Action::SetSweepParam("base_slice_ns=1..2:2".into()));
    let e = s.sweep_request().unwrap_err();
    assert!(
        e.contains("base_slice_ns does not exist in cfs-5.14"),
        "{e}"
    );
    s = s.reduce(Action::SetSweepParam("no such thing".into()));
    let e = s.sweep_request().unwrap_err();
    assert!(e.contains("`no such thing`"), "{e}");
}

#[test]
fn a_switch_note_names_who_was_switched_out_why_and_both_tasks_last_snapshots() {
    use schedlab_report::timeline::{EndReason, RunTimeline};
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = true;
    let v = &sc.variants[1];
    let out = schedlab_sim::simulate(&cfg, v).unwrap();
    let tl = RunTimeline::from_output(&out, v);
    // The SCHED_IDLE task's runs end by the tick, in the hog's favour.
    let slice = tl
        .slices
        .iter()
        .find(|s| tl.comm(s.pid) == "idle" && matches!(s.reason, EndReason::Preempted { .. }))
        .unwrap();
    let n = schedlab_web::model::switch_note(&tl, slice);
    assert!(
        n.sentence.contains("preempted by hog:") && n.sentence.contains("(slice used up, tick)"),
        "{}",
        n.sentence
    );
    let names: Vec<&str> = n.tasks.iter().map(|(t, _)| t.as_str()).collect();
    assert!(
        names[0].starts_with("idle:") && names[1].starts_with("hog:"),
        "{names:?}"
    );
    for (t, snap) in &n.tasks {
        let snap = snap.unwrap_or_else(|| panic!("{t}: no snapshot"));
        assert!(snap.t_ns <= slice.end_ns);
        // The last one: no later snapshot of that task before the switch.
        assert!(!tl
            .snapshots
            .iter()
            .any(|s| s.pid == snap.pid && s.t_ns > snap.t_ns && s.t_ns <= slice.end_ns));
    }
}

#[test]
fn a_switch_note_says_which_rule_preempted() {
    use schedlab_report::timeline::{EndReason, RunTimeline};
    // sched-idle under cfs-6.1: the SCHED_IDLE task's turns end at the tick, by
    // check_preempt_tick's slice test (its ideal slice is used up).
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = true;
    cfg.record_decisions = true;
    let v = &sc.variants[1];
    let out = schedlab_sim::simulate(&cfg, v).unwrap();
    let tl = RunTimeline::from_output(&out, v);
    let slice = tl
        .slices
        .iter()
        .find(|s| tl.comm(s.pid) == "idle" && matches!(s.reason, EndReason::Preempted { .. }))
        .unwrap();
    let n = schedlab_web::model::switch_note(&tl, slice);
    assert!(
        n.why.len() == 1
            && n.why[0].contains("switched out for hog:")
            && n.why[0].contains("curr ran its ideal slice"),
        "{:?}",
        n.why
    );
    // hackbench without RUN_TO_PARITY: a wakeup preemption shows the check that raised it.
    let sc = schedlab_scenario::presets::preset("hackbench")
        .unwrap()
        .scenario();
    let mut cfg = sc.sim_config();
    cfg.record_decisions = true;
    let v = schedlab_sim::Variant::parse("eevdf-6.6:NO_RUN_TO_PARITY").unwrap();
    let out = schedlab_sim::simulate(&cfg, &v).unwrap();
    let tl = RunTimeline::from_output(&out, &v);
    let n = tl
        .slices
        .iter()
        .filter(|s| matches!(s.reason, EndReason::Preempted { .. }))
        .map(|s| schedlab_web::model::switch_note(&tl, s))
        .find(|n| {
            n.why
                .iter()
                .any(|l| l.contains("wakeup, check_preempt_wakeup (EEVDF, 6.6)"))
        })
        .expect("a wakeup preemption with its check");
    assert!(
        n.why.iter().any(|l| l.contains(" preempts ")),
        "{:?}",
        n.why
    );
    assert!(
        n.why.iter().any(|l| l.trim_start().starts_with("curr ")),
        "{:?}",
        n.why
    );
}

#[test]
fn a_switch_explanation_is_kept_only_for_the_switch_asked_about() {
    use schedlab_web::model::{ExplainReq, Explained};
    let req = ExplainReq {
        run: 1,
        variant: 0,
        t_ns: 5_000,
        cpu: 0,
        prev: 2,
    };
    let answer = |req: ExplainReq| {
        Action::Explained(Box::new(Explained {
            req,
            lines: vec!["prev a:2 blocked (S): it switched itself out".into()],
            cause_ns: None,
        }))
    };
    let s = State::initial().reduce(Action::Explain(req));
    assert_eq!(s.explain, Some(req));
    assert_eq!(s.explained, None);
    // A late answer about another switch is dropped.
    let other = ExplainReq { t_ns: 4_000, ..req };
    let s = s.reduce(answer(other));
    assert_eq!(s.explained, None);
    let s = s.reduce(answer(req));
    assert_eq!(s.explained.as_ref().map(|x| x.req), Some(req));
    // A new question clears the old answer.
    let s = s.reduce(Action::Explain(other));
    assert_eq!(s.explained, None);
}

fn load(json: &str) -> State {
    State::initial().reduce(Action::Load {
        json: json.into(),
        source: None,
    })
}

fn preset_state(name: &str) -> State {
    let sc = schedlab_scenario::presets::preset(name).unwrap().scenario();
    load(&sc.to_json())
}

#[test]
fn a_group_preset_loads_into_the_groups_form_and_round_trips() {
    let s = preset_state("cpu-max-beside");
    assert_eq!(s.notice, None);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let paths: Vec<&str> = s.cgroups.iter().map(|g| g.path.as_str()).collect();
    assert_eq!(paths, ["/ct", "/web"]);
    let ct = &s.cgroups[0];
    assert_eq!(
        (
            ct.weight.as_str(),
            ct.quota_us.as_str(),
            ct.period_us.as_str()
        ),
        ("300", "50000", "100000")
    );
    assert!(
        ct.extra.is_empty(),
        "every key of /ct is a field: {:?}",
        ct.extra
    );
    assert_eq!(s.tasks[0].cgroup, "/ct");
    assert!(!s.tasks[0].extra.contains_key("cgroup"));
    assert!(!s.extra.contains_key("cgroups"));
    // The form's document is the preset's scenario.
    let sc = schedlab_scenario::presets::preset("cpu-max-beside")
        .unwrap()
        .scenario();
    assert_eq!(s.scenario.as_ref().unwrap().cgroups, sc.cgroups);
    // Through the page's own link and back.
    let again = State::from_location(&format!("https://x.invalid/#{}", s.link_payload().unwrap()));
    assert_eq!(again.cgroups, s.cgroups);
    assert_eq!(again.tasks, s.tasks);
    assert_eq!(again.scenario.unwrap().cgroups, sc.cgroups);

    let s = preset_state("autogroup-nice");
    assert!(s.autogroup && s.cgroups.is_empty());
    assert_eq!(s.tasks[1].extra.get("session"), Some(&serde_json::json!(2)));
    let off = s.reduce(Action::SetAutogroup(false));
    assert!(
        off.errors_at("tasks[0].session")
            .iter()
            .any(|e| e.contains("autogroup")),
        "a session without autogroup is named: {:?}",
        off.errors
    );
    assert!(off.reduce(Action::SetAutogroup(true)).errors.is_empty());
}

#[test]
fn cgroups_are_added_nested_renamed_and_deleted() {
    let s = State::initial();
    let s = s.reduce(Action::AddCgroup(None));
    assert_eq!(s.cgroups[0].path, "/group1");
    let s = s.reduce(Action::AddCgroup(None));
    // A child of the first goes right after it (parents before children), with its path.
    let s = s.reduce(Action::AddCgroup(Some(0)));
    let paths = |s: &State| s.cgroups.iter().map(|g| g.path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&s), ["/group1", "/group1/group1", "/group2"]);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    // A task group picks a cgroup; renaming the cgroup takes its children and tasks along.
    let s = s.reduce(Action::SetTask {
        row: 0,
        field: TaskField::Cgroup,
        value: "/group1/group1".into(),
    });
    // So does a workload that names one.
    let s = s.reduce(Action::AddWorkload);
    let w = s.workloads.len() - 1;
    let s = s.reduce(Action::SetWorkloadParam {
        row: w,
        name: "cgroup".into(),
        value: "/group1".into(),
    });
    let s = s.reduce(Action::SetCgroup {
        row: 0,
        field: CgroupField::Path,
        value: "/db".into(),
    });
    assert_eq!(paths(&s), ["/db", "/db/group1", "/group2"]);
    assert_eq!(s.tasks[0].cgroup, "/db/group1");
    assert_eq!(s.workloads[w].param_text("cgroup"), "/db");
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let doc = s.document();
    assert_eq!(doc["tasks"][0]["cgroup"], "/db/group1");
    assert_eq!(doc["cgroups"][1]["path"], "/db/group1");
    assert_eq!(
        s.scenario.as_ref().unwrap().sim_config().cgroups.groups[2].parent,
        1,
        "/db/group1 is /db's child"
    );
    // Weight, idle and cpu.max.
    let s = s
        .reduce(Action::SetCgroup {
            row: 2,
            field: CgroupField::Weight,
            value: "300".into(),
        })
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::QuotaUs,
            value: "50000".into(),
        })
        .reduce(Action::SetCgroupIdle { row: 1, idle: true });
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let doc = s.document();
    assert_eq!(doc["cgroups"][2]["cpu.weight"], 300);
    assert_eq!(doc["cgroups"][0]["cpu.max"], "50000");
    assert_eq!(doc["cgroups"][1]["cpu.idle"], 1);
    let s = s.reduce(Action::SetCgroup {
        row: 0,
        field: CgroupField::PeriodUs,
        value: "200000".into(),
    });
    assert_eq!(s.document()["cgroups"][0]["cpu.max"], "50000 200000");
    // Deleting the parent: the child and the task keep their names, and the validator says
    // what is missing.
    let s = s.reduce(Action::DeleteCgroup(0));
    assert_eq!(paths(&s), ["/db/group1", "/group2"]);
    assert!(
        s.errors_at("cgroups[0].path")
            .iter()
            .any(|e| e.contains("parent /db")),
        "{:?}",
        s.errors
    );
    assert!(s.can_run().is_err());
    // The select still offers what the task names.
    assert!(s.cgroup_choices(0).contains(&"/db/group1".to_string()));
    // Out-of-range rows change nothing.
    assert_eq!(s.reduce(Action::DeleteCgroup(9)).cgroups, s.cgroups);
}

#[test]
fn bad_cgroup_fields_keep_their_text_and_are_named() {
    let s = State::initial()
        .reduce(Action::AddCgroup(None))
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::Weight,
            value: "heavy".into(),
        })
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::QuotaUs,
            value: "50ms".into(),
        })
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::Path,
            value: "db".into(),
        });
    let g = &s.cgroups[0];
    assert_eq!(
        (g.path.as_str(), g.weight.as_str(), g.quota_us.as_str()),
        ("db", "heavy", "50ms")
    );
    let errs = s.errors_at("cgroups[0]");
    assert!(errs.iter().any(|e| e.starts_with("path:")), "{errs:?}");
    assert!(
        errs.iter().any(|e| e.starts_with("cpu.weight:")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.starts_with("cpu.max:") && e.contains("50ms")),
        "{errs:?}"
    );
    // An idle cgroup with a weight is refused with the reason.
    let s = s
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::Path,
            value: "/db".into(),
        })
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::QuotaUs,
            value: "".into(),
        })
        .reduce(Action::SetCgroup {
            row: 0,
            field: CgroupField::Weight,
            value: "300".into(),
        })
        .reduce(Action::SetCgroupIdle { row: 0, idle: true });
    assert!(
        s.errors_at("cgroups[0].cpu.idle")
            .iter()
            .any(|e| e.contains("WEIGHT_IDLEPRIO")),
        "{:?}",
        s.errors
    );
    // Keys the form does not edit survive a load and an edit.
    let s = load(
        r#"{"name": "x", "cpus": 1, "hz": 1000, "duration_ms": 100, "variants": ["cfs-6.1"],
            "cgroups": [{"path": "/v1", "cpu.shares": 2048, "cpu.cfs_quota_us": 20000}],
            "tasks": [{"name": "a", "cgroup": "/v1", "program": [{"run": "forever"}]}]}"#,
    );
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let s = s.reduce(Action::SetCgroup {
        row: 0,
        field: CgroupField::Path,
        value: "/v2".into(),
    });
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let doc = s.document();
    assert_eq!(doc["cgroups"][0]["cpu.shares"], 2048);
    assert_eq!(doc["cgroups"][0]["cpu.cfs_quota_us"], 20000);
    assert_eq!(doc["tasks"][0]["cgroup"], "/v2");
}

#[test]
fn the_group_share_view_shows_each_group_and_its_cpu_stat() {
    use schedlab_web::model::{export, group_share_rows, results};
    let run = |name: &str| {
        let sc = schedlab_scenario::presets::preset(name).unwrap().scenario();
        let cfg = sc.sim_config();
        let outs: Vec<_> = sc
            .variants()
            .iter()
            .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
            .collect();
        results(1, &sc, &outs)
    };
    let r = run("cgroup-weights");
    for v in &r.report.variants {
        let rows = group_share_rows(&v.groups);
        let view: Vec<(&str, usize, u32)> = rows
            .iter()
            .map(|x| (x.path.as_str(), x.depth, x.tasks))
            .collect();
        assert_eq!(view, [("/", 0, 2), ("/web", 1, 1), ("/db", 1, 1)]);
        // 1:3 of the machine (calc_group_shares: each group entity weighs its tg->shares),
        // within the time no task runs.
        let pct = |x: &str| x.trim_end_matches('%').parse::<f64>().unwrap();
        assert!(
            (pct(&rows[1].share) - 25.0).abs() <= 1.0,
            "{}",
            rows[1].share
        );
        assert!(
            (pct(&rows[2].share) - 75.0).abs() <= 1.0,
            "{}",
            rows[2].share
        );
        assert!(rows.iter().all(|x| x.cpu_stat.is_none()));
    }
    // The latency table's group column.
    let v = &r.variants[0];
    assert_eq!(v.row_groups.get("web:1").map(String::as_str), Some("/web"));
    assert_eq!(v.row_groups.get("db:2").map(String::as_str), Some("/db"));
    assert_eq!(
        v.task_groups,
        ["/web", "/db"],
        "the timeline's names, by pid"
    );
    assert!(export::perf_text(&r).contains("| Group\n"));
    assert!(export::csv(&r).lines().next().unwrap().ends_with(",group"));

    let r = run("cpu-max");
    // The results cross from the worker as CBOR, groups and all.
    let mut buf = vec![];
    ciborium::into_writer(&r, &mut buf).unwrap();
    let back: Results = ciborium::from_reader(buf.as_slice()).unwrap();
    for (a, b) in back.report.variants.iter().zip(&r.report.variants) {
        assert_eq!(a.groups, b.groups);
        let group = |v: &schedlab_report::export::VariantReport| {
            v.tasks.iter().map(|t| t.group.clone()).collect::<Vec<_>>()
        };
        assert_eq!(group(a), group(b));
    }
    for (a, b) in back.variants.iter().zip(&r.variants) {
        assert_eq!(
            (&a.row_groups, &a.task_groups),
            (&b.row_groups, &b.task_groups)
        );
    }
    let rows = group_share_rows(&r.report.variants[0].groups);
    let (periods, throttled, _) = rows[1].cpu_stat.clone().expect("cpu.stat of /ct");
    assert!(
        periods > 0 && throttled == periods,
        "a hog is throttled every period"
    );
    assert!(rows[0].cpu_stat.is_none());

    // A flat scenario: no group view at all.
    let r = run("sched-idle");
    assert!(r.variants.iter().all(|v| v.row_groups.is_empty()));
    assert!(r
        .report
        .variants
        .iter()
        .all(|v| group_share_rows(&v.groups).is_empty()));
    assert!(!export::perf_text(&r).contains("Group"));
}

#[test]
fn variants_stream_in_while_the_run_goes_on_and_the_last_one_finishes_it() {
    let sc = schedlab_scenario::presets::preset("sched-idle")
        .unwrap()
        .scenario();
    let mut cfg = sc.sim_config();
    cfg.record_snapshots = true;
    let outs: Vec<_> = sc
        .variants
        .iter()
        .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
        .collect();
    let mut s = State::initial().reduce(Action::Run);
    let whole = schedlab_web::model::results(s.runs, &sc, &outs);
    let views: Vec<_> = (0..outs.len())
        .map(|i| {
            let divs = (0..i)
                .map(|a| schedlab_web::model::divergence(&sc, &outs, a, i))
                .collect();
            schedlab_web::model::variant_views(s.runs, &sc, i, &outs[i], divs)
        })
        .collect();
    assert!(s.shown_results().is_none());
    // A late variant of an older run is ignored.
    let mut old = views[0].clone();
    old.run = s.runs - 1;
    s = s.reduce(Action::VariantDone(Box::new(old)));
    assert!(s.shown_results().is_none());
    s = s.reduce(Action::VariantDone(Box::new(views[0].clone())));
    assert!(matches!(s.run, RunState::Running(_)));
    let shown = s.shown_results().unwrap();
    assert_eq!(shown.variants, whole.variants[..1]);
    assert_eq!(s.run_end_ns(), Some(whole.variants[0].end_ns));
    s = s.reduce(Action::VariantDone(Box::new(views[1].clone())));
    let RunState::Done(r) = &s.run else {
        panic!("{:?}", s.run);
    };
    assert_eq!(**r, whole);
    assert!(s.streamed.is_none());

    // Cancelled after one variant: nothing of it stays.
    s = s.reduce(Action::Run);
    let mut v = views[0].clone();
    v.run = s.runs;
    s = s.reduce(Action::VariantDone(Box::new(v)));
    assert!(s.shown_results().is_some());
    s = s.reduce(Action::Cancel);
    assert!(s.shown_results().is_none() && s.streamed.is_none());
}

/// The machine menu writes `"machine"`, which brings that machine's measured costs to the run;
/// a name typed in the JSON that no machine has is kept and named by the validator.
#[test]
fn the_machine_menu_sets_the_measured_costs() {
    let s = State::initial().reduce(Action::SetMachine {
        field: MachineField::Machine,
        value: "epyc-vm".into(),
    });
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert!(s.json_text.contains("\"machine\": \"epyc-vm\""));
    let (_, sc) = s.run_request().expect("runnable");
    let c = sc.sim_config();
    // docs/measurements.md: the EPYC VM's idle wakeup beyond δ, switch and IPI costs.
    assert_eq!(
        (c.idle_wakeup_ns, c.switch_cost_ns, c.wakeup_cost_ns),
        (3_000, 2_400, 2_000)
    );
    // `"housekeeping"` typed in the JSON is kept through the form's edits: set, a
    // `housekeep` task per CPU after the scenario's own; "off", none.
    let cpus = c.cpus as usize;
    let housekept = |setting: &str| {
        let typed = s.json_text.replacen(
            "\"seed\"",
            &format!("\"housekeeping\": {setting}, \"seed\""),
            1,
        );
        let t = s.clone().reduce(Action::SetJson(typed));
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        let t = t.reduce(Action::SetMachine {
            field: MachineField::Seed,
            value: "2".into(),
        });
        assert!(t.json_text.contains("\"housekeeping\""), "{}", t.json_text);
        let (_, sc) = t.run_request().expect("runnable");
        let n = sc
            .sim_config()
            .tasks
            .iter()
            .filter(|t| t.comm == "housekeep")
            .count();
        n
    };
    assert_eq!(housekept(r#"{"runs_per_s": 10, "run_us": 20}"#), cpus);
    assert_eq!(housekept(r#""off""#), 0);
    // Back to none: the key goes and the defaults return.
    let s = s.reduce(Action::SetMachine {
        field: MachineField::Machine,
        value: String::new(),
    });
    assert!(!s.json_text.contains("\"machine\""));
    // Typed in the JSON: loaded into the menu, or kept and reported when unknown.
    let typed = s
        .json_text
        .replacen("\"seed\"", "\"machine\": \"vax\", \"seed\"", 1);
    let s = s.reduce(Action::SetJson(typed));
    assert_eq!(s.machine.machine, "vax");
    assert!(
        s.errors_at("machine")
            .iter()
            .any(|e| e.contains("not a measured machine")),
        "{:?}",
        s.errors
    );
    assert!(s.can_run().is_err());
}
