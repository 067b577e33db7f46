//! The command line's own behaviour: help for every command, typo suggestions, usage errors
//! with status 2, completions, and one scenario source (FILE or `--preset NAME`) for every
//! command that reads a scenario. Run in-process through `main_with`.

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

#[test]
fn every_command_has_help_with_its_own_usage() {
    let names: Vec<String> = schedlab_cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for want in [
        "run",
        "presets",
        "check",
        "expand",
        "bench",
        "link",
        "decode",
        "variants",
        "completions",
        "sweep",
        "diff",
        "schedstat",
    ] {
        assert!(names.iter().any(|n| n == want), "no `{want}` in {names:?}");
    }
    for name in &names {
        for flag in ["--help", "-h"] {
            let (code, out, err) = schedlab(&[name, flag]);
            assert_eq!(code, 0, "schedlab {name} {flag}: {err}");
            assert!(
                out.contains(&format!("Usage: schedlab {name}")),
                "schedlab {name} {flag}:\n{out}"
            );
            assert!(
                err.is_empty(),
                "schedlab {name} {flag} wrote to stderr: {err}"
            );
        }
    }
    let (code, out, _) = schedlab(&["run", "--help"]);
    assert_eq!(code, 0);
    for option in [
        "--variant",
        "--format",
        "--layout",
        "--max-events",
        "--preset",
    ] {
        assert!(out.contains(option), "run --help lacks {option}:\n{out}");
    }
    // `schedlab help run` is the same as `schedlab run --help`.
    assert_eq!(schedlab(&["help", "run"]), (0, out, String::new()));
}

#[test]
fn top_level_help_and_version() {
    for args in [&[][..], &["--help"], &["help"]] {
        let (code, out, _) = schedlab(args);
        assert_eq!(code, 0, "{args:?}");
        assert!(out.contains("Usage: schedlab"), "{args:?}: {out}");
        assert!(out.contains("completions"), "{args:?}: {out}");
    }
    let (code, out, _) = schedlab(&["--version"]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("schedlab {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn typos_get_a_suggestion_and_status_2() {
    let (code, out, err) = schedlab(&["runn", "--preset", "sched-idle"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("unknown command `runn`; did you mean `run`?"),
        "{err}"
    );
    let (code, _, err) = schedlab(&["chek", "--preset", "sched-idle"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown command `chek`; did you mean `check`?"),
        "{err}"
    );

    let (code, _, err) = schedlab(&["run", "--preset", "sched-idle", "--formt", "json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown option `--formt`; did you mean `--format`?"),
        "{err}"
    );
    assert!(err.contains("see `schedlab run --help`"), "{err}");

    let (code, _, err) = schedlab(&["run", "--preset", "sched-ilde"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--preset `sched-ilde`: expected `sched-idle`, "),
        "{err}"
    );
    assert!(err.contains("did you mean `sched-idle`?"), "{err}");

    let (code, _, err) = schedlab(&["run", "--preset", "sched-idle", "--format", "yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--format `yaml`: expected `table`, `json` or `csv`"),
        "{err}"
    );
}

#[test]
fn usage_errors_say_what_is_wrong_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run"],
            "schedlab: run needs a scenario file or --preset NAME",
        ),
        (
            &["check"],
            "schedlab: check needs a scenario file or --preset NAME",
        ),
        (
            &[
                "run",
                "scenarios/sched-idle-pair.json",
                "--preset",
                "sched-idle",
            ],
            "give either a scenario file or --preset, not both",
        ),
        (
            &["run", "--preset", "sched-idle", "--max-events", "0"],
            "--max-events `0`: expected a positive whole number",
        ),
        (
            &["run", "--preset", "sched-idle", "--variant"],
            "--variant needs a value",
        ),
        (
            &["check", "a.json", "b.json"],
            "unexpected argument `b.json`",
        ),
        (&["decode"], "schedlab: decode needs <LINK>"),
        (&["completions", "tcsh"], "`tcsh`: expected `bash`, "),
        (
            &["link", "--preset", "sched-idle", "--embed", "gantt"],
            "--embed `gantt`",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = schedlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert!(err.starts_with("schedlab: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in\n{err}");
    }
}

#[test]
fn check_expand_and_link_take_a_file_or_a_preset() {
    let (code, out, err) = schedlab(&["check", "--preset", "sched-idle"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("sched-idle: ok: "), "{out}");
    assert!(out.contains("variants: cfs-5.14, cfs-6.1"), "{out}");

    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/presets/sched-idle.json"
    );
    let (code, from_file, _) = schedlab(&["expand", file]);
    let (code2, from_preset, _) = schedlab(&["expand", "--preset", "sched-idle"]);
    assert_eq!((code, code2), (0, 0));
    assert!(from_file.contains("\"policy\": \"idle\""), "{from_file}");
    assert_eq!(from_file, from_preset);

    let (code, out, _) = schedlab(&["link", "--embed", "table", "--preset", "sched-idle"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("http://127.0.0.1:8080/#embed=table&v1."),
        "{out}"
    );
}

#[test]
fn completions_for_bash_zsh_and_fish_name_the_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = schedlab(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        // fish spells options `-l preset`, the others `--preset`.
        for word in [
            "schedlab",
            "run",
            "preset",
            "sched-idle",
            "format",
            "tbench-cross",
        ] {
            assert!(out.contains(word), "{shell} completions lack {word}");
        }
    }
}

#[test]
fn long_work_is_quiet_on_stderr_when_it_is_not_a_terminal() {
    // The progress bar is for terminals: with stderr a pipe, nothing but errors goes there.
    for args in [
        &["run", "--preset", "sched-idle", "--format", "csv"][..],
        &["bench", "--preset", "sched-idle"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args(args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .output()
            .expect("run schedlab");
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

#[test]
fn inputs_are_read_up_to_their_cap_and_links_from_files() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A scenario file over the 1 MiB cap is refused by size, before it is parsed.
    let big = dir.join("big.json");
    std::fs::write(&big, vec![b' '; (1 << 20) + 10]).unwrap();
    let (code, _, err) = schedlab(&["check", big.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("larger than 1048576 bytes"), "{err}");
    // A link in a file decodes like the link itself.
    let (code, link, _) = schedlab(&["link", "--preset", "sched-idle"]);
    assert_eq!(code, 0);
    let file = dir.join("link.txt");
    std::fs::write(&file, &link).unwrap();
    let (code, from_file, err) = schedlab(&["decode", &format!("@{}", file.display())]);
    assert_eq!(code, 0, "{err}");
    let (_, direct, _) = schedlab(&["decode", link.trim()]);
    assert_eq!(from_file, direct);
    let (code, _, err) = schedlab(&["decode", "@/nonexistent/link.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/link.txt"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn report_reads_a_real_recording_and_cuts_it() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/traces");
    let hogs = format!("{dir}/hogs.perf-script.txt.gz");
    let (code, out, err) = schedlab(&["report", &hogs]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# perf script recording (gzip): "), "{out}");
    assert!(
        out.contains("  Task                  |   Runtime ms  |"),
        "{out}"
    );
    assert!(out.contains("CPU share"), "{out}");
    // JSON: the same recording's counts; a window and a CPU set only ever remove events.
    let all: serde_json::Value =
        serde_json::from_str(&schedlab(&["report", &hogs, "--format", "json"]).1).unwrap();
    let cut: serde_json::Value = serde_json::from_str(
        &schedlab(&[
            "report",
            &hogs,
            "--format",
            "json",
            "--from-ms",
            "100",
            "--to-ms",
            "300",
            "--cpus",
            "1",
        ])
        .1,
    )
    .unwrap();
    assert!(all["switches"].as_u64().unwrap() > 0);
    assert!(cut["switches"].as_u64().unwrap() < all["switches"].as_u64().unwrap());
    assert_eq!(cut["end_ns"], 300_000_000);
    // The page's charts, for the recording.
    let svg = std::env::temp_dir().join(format!("schedlab-report-svg-{}", std::process::id()));
    let (code, _, err) = schedlab(&["report", &hogs, "--export-svg", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for f in [
        "recorded-wakeup.svg",
        "recorded-delay.svg",
        "recorded-timeline.svg",
    ] {
        let text = std::fs::read_to_string(svg.join(f)).unwrap();
        assert!(text.starts_with("<svg") && text.contains("<rect"), "{f}");
    }
    std::fs::remove_dir_all(&svg).ok();
    // CSV: one row per task with its real pid.
    let (code, csv, _) = schedlab(&["report", &hogs, "--format", "csv"]);
    assert_eq!(code, 0);
    assert!(csv.starts_with("name,pid,runtime_ns,switches,"), "{csv}");
    // Not a trace: refused with status 2, naming the formats tried.
    let (code, _, err) = schedlab(&["report", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("perf script") && err.contains("trace-cmd"),
        "{err}"
    );
    // Bad options name themselves.
    let (code, _, err) = schedlab(&["report", &hogs, "--cpus", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("--cpus 7"), "{err}");
    let (code, _, err) = schedlab(&["report", &hogs, "--from-ms", "5", "--to-ms", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("--to-ms must be after --from-ms"), "{err}");
}

#[test]
fn a_spinning_scenario_stops_at_its_budget_and_a_deadlock_is_reported() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-bounded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two million zero-time steps per simulated nanosecond: bounded by --max-events.
    let spin = dir.join("spin.json");
    std::fs::write(
        &spin,
        r#"{"version": 1, "name": "spin", "cpus": 1, "hz": 1000, "duration_ms": 100, "variants": ["eevdf-6.6"],
            "tasks": [{"name": "spin", "program": [{"loop": 1000000, "steps": [{"send": "c"}, {"recv": "c"}]}, {"run_ns": 1}]}]}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["run", spin.to_str().unwrap(), "--max-events", "200000"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("zero-time program steps at 0.000 s"), "{err}");
    // Both read first: the run ends at once, says who waits on what, and still reports.
    let dead = dir.join("dead.json");
    std::fs::write(
        &dead,
        r#"{"version": 1, "name": "dead", "cpus": 1, "hz": 1000, "duration_ms": 100, "variants": ["cfs-6.1"],
            "tasks": [{"name": "ping", "program": [{"recv": "p1"}, {"run_us": 10}, {"send": "p0"}]},
                      {"name": "pong", "program": [{"recv": "p0"}, {"run_us": 10}, {"send": "p1"}]}]}"#,
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", dead.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("cfs-6.1: deadlock at ") && err.contains("ping:1 reads empty p1"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Task"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn import_derives_a_scenario_that_runs_and_compares_it() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/traces");
    let tmp = std::env::temp_dir().join(format!("schedlab-cli-import-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // Three recorded hogs become a group of hogs on the recording's two CPUs.
    let out = tmp.join("hogs.json");
    let (code, text, err) = schedlab(&[
        "import",
        &format!("{dir}/hogs.perf-script.txt.gz"),
        "--to-scenario",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("wrote ") && text.contains("# note: "),
        "{text}"
    );
    let sc = schedlab_scenario::Scenario::from_json(&std::fs::read_to_string(&out).unwrap())
        .expect("the derived scenario validates");
    assert_eq!(sc.cpus, 2);
    let hog = sc
        .tasks
        .iter()
        .find(|t| t.name == "hog")
        .expect("the hogs' group");
    assert_eq!(hog.count, 2);
    assert_eq!(
        hog.program,
        vec![schedlab_scenario::Step::RunForever],
        "hogs never block"
    );
    // The pipe ping-pong: its two threads wake each other, so they become two groups
    // coupled by a channel each way; the comparison simulates the scenario.
    // (The summary goes to standard error when the scenario goes to standard output.)
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "import",
            &format!("{dir}/pipe.perf-script.txt.gz"),
            "--to-scenario",
            "-",
            "--compare",
        ])
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    );
    assert_eq!(run.status.code(), Some(0), "{err}");
    let sc = schedlab_scenario::Scenario::from_json(&text).expect("a scenario on stdout");
    let pipes: Vec<_> = sc.tasks.iter().filter(|t| t.name == "sched-pipe").collect();
    assert_eq!(pipes.len(), 2, "{text}");
    use schedlab_scenario::Step;
    for p in &pipes {
        assert!(
            p.program.iter().any(|s| matches!(s, Step::Send(_)))
                && p.program.iter().any(|s| matches!(s, Step::Recv(_))),
            "{:?}",
            p.program
        );
    }
    assert_eq!(sc.channels.len(), 2, "{text}");
    assert!(
        err.contains("channel wake-12615") && err.contains("sched-pipe #"),
        "{err}"
    );
    assert!(
        err.contains("recorded  simulated")
            && err.contains("wakeup latency p50")
            && err.contains("% on the waker's CPU), migrations"),
        "{err}"
    );
    // A variant that does not exist is the user's error.
    let (code, _, err) = schedlab(&[
        "import",
        &format!("{dir}/pipe.perf-script.txt.gz"),
        "--to-scenario",
        "-",
        "--variant",
        "eevdf-9.9",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--variant: unknown kernel variant `eevdf-9.9`"),
        "{err}"
    );
    // --session: the named groups in one autogroup session; an unknown name is refused
    // with the names there are.
    let (code, text, err) = schedlab(&[
        "import",
        &format!("{dir}/hogs.perf-script.txt.gz"),
        "--to-scenario",
        "-",
        "--session",
        "hog",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["autogroup"], true, "{text}");
    let tasks = v["tasks"].as_array().unwrap();
    assert!(tasks
        .iter()
        .all(|t| (t["name"] == "hog") == (t["session"] == 1)));
    let (code, _, err) = schedlab(&[
        "import",
        &format!("{dir}/hogs.perf-script.txt.gz"),
        "--to-scenario",
        "-",
        "--session",
        "nope",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--session nope: no derived task group has that name (they are: ")
            && err.contains("hog"),
        "{err}"
    );
    std::fs::remove_dir_all(&tmp).ok();
}

/// The comparison says how each group's runs went, recorded against simulated. Three hogs on
/// the EPYC VM's two CPUs (`real-epyc/hogs3`, HZ=250): a slice (1.4 ms there) is shorter than
/// the tick, so a hog on a shared CPU is switched out at the first tick after its slice ends,
/// still runnable: the median run lasts one tick (4 ms) and every run ends preempted, on the
/// machine and in the model, and the two make about as many runs (1 375 recorded, within 10 %).
#[test]
fn import_compare_says_how_long_each_groups_runs_were_and_how_they_ended() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/real-epyc/hogs3.perf-script.gz"
    );
    let out = std::env::temp_dir().join(format!("schedlab-cli-runs-{}.json", std::process::id()));
    let (code, text, err) = schedlab(&[
        "import",
        trace,
        "--to-scenario",
        out.to_str().unwrap(),
        "--compare",
    ]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{err}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("sh ") && l.contains(" median "))
        .unwrap_or_else(|| panic!("no runs line for the hogs: {text}"));
    // "  sh               1375 / 1448, median 4000 / 4000 µs, preempted 100 / 100 %"
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    let [recorded, simulated, rec_median, sim_median, rec_pre, sim_pre] = numbers[..] else {
        panic!("{line}");
    };
    assert_eq!((rec_median, sim_median), (4000, 4000), "{line}");
    assert_eq!((rec_pre, sim_pre), (100, 100), "{line}");
    assert!(
        simulated * 10 >= recorded * 9 && simulated * 10 <= recorded * 11,
        "{line}"
    );
}

/// Every preset's run prints what its thread observed above the model's tables.
#[test]
fn every_preset_prints_its_threads_figures() {
    for p in schedlab_scenario::presets::presets() {
        let (code, out, err) = schedlab(&["run", "--preset", p.name, "--variant", "eevdf-6.6"]);
        assert_eq!(code, 0, "{}: {err}", p.name);
        let observed = format!("# observed: {}\n", p.observed);
        assert!(
            out.contains(&observed) && out.find(&observed) < out.find("eevdf-6.6"),
            "{}: no observed line before the tables:\n{out}",
            p.name
        );
    }
}

#[test]
fn a_run_keeps_a_bounded_trace() {
    // The tables read every kept event at the end, so the events all variants keep together are
    // capped (--max-trace-events, ~3.2 GB by default); past it the run stops with a message.
    let (code, out, err) = schedlab(&[
        "run",
        "--preset",
        "sched-idle",
        "--max-trace-events",
        "2000",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("keeps more than 2000 trace events across its variants"),
        "{err}"
    );
    let (code, _, err) = schedlab(&[
        "run",
        "--preset",
        "sched-idle",
        "--max-trace-events",
        "100000",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn import_refuses_a_recording_where_nothing_ran() {
    // Found by the trace fuzz target: a recording with only idle switches derived a scenario
    // without tasks, which the CLI reported as "does not validate (a bug)".
    let tmp = std::env::temp_dir().join(format!("schedlab-cli-idle-{}.txt", std::process::id()));
    std::fs::write(
        &tmp,
        "       swapper/0     0 [000]     1.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
    )
    .unwrap();
    let (code, _, err) = schedlab(&["import", tmp.to_str().unwrap(), "--to-scenario", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nothing to derive: no task in the recording ran for 1 ms or more"),
        "{err}"
    );
    std::fs::remove_file(&tmp).ok();
}

/// `check` lists what shapes a run besides its tasks: the machine's costs, RT tasks,
/// interrupt sources, the cache-warmth cost and reads' wait costs, from the scenario as written.
#[test]
fn check_lists_costs_rt_tasks_interrupts_and_cache_warmth() {
    let (code, out, err) = schedlab(&["check", "--preset", "irq-load"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  interrupt sources: 2 on CPU 0,1\n"), "{out}");
    assert!(out.contains("  costs: switch delay "), "{out}");
    assert!(!out.contains("RT tasks"), "{out}");

    let (code, out, err) = schedlab(&["check", "--preset", "tbench-stacked"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  read waits: pp.req0 3.500 us, pp.rsp0 1.900 us\n"),
        "{out}"
    );

    let dir = std::env::temp_dir().join(format!("schedlab-check-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("cache.json");
    std::fs::write(
        &f,
        r#"{"version": 1, "name": "warm", "cpus": 1, "hz": 250, "duration_ms": 10, "cache": "measured",
            "tasks": [{"name": "hog", "count": 2, "program": [{"run": "forever"}]}]}"#,
    )
    .unwrap();
    let (code, out, err) = schedlab(&["check", f.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    let k = schedlab_sim::MEASURED_CACHE_COST;
    assert!(
        out.contains(&format!(
            "cold ({:.3} us to refill) from {} us, migration {:.3} us",
            k.refill_ns as f64 / 1e3,
            k.cold_ns / 1000,
            k.migrate_ns as f64 / 1e3
        )),
        "{out}"
    );

    let dir = std::env::temp_dir().join(format!("schedlab-check-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("rt.json");
    std::fs::write(
        &f,
        r#"{"version": 1, "name": "rt", "cpus": 2, "hz": 250, "duration_ms": 10, "switch_cost_ns": 960,
            "tasks": [
              {"name": "fifo", "policy": "fifo", "rt_priority": 50, "program": [{"run_us": 100}, {"sleep_us": 900}]},
              {"name": "rr", "count": 2, "policy": "rr", "rt_priority": 10, "program": [{"run": "forever"}]},
              {"name": "hog", "program": [{"run": "forever"}]}
            ]}"#,
    )
    .unwrap();
    let (code, out, err) = schedlab(&["check", f.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  RT tasks: 3 (1 SCHED_FIFO, 2 SCHED_RR), priorities 10, 50\n"),
        "{out}"
    );
    assert!(out.contains("context switch 0.960 us"), "{out}");
    assert!(!out.contains("interrupt sources"), "{out}");
}

/// `run --preset` ends its tables with the source's figures beside the model's: tbench-stacked's
/// client share, 50 / 56 / 52 % in the thread, each with its change from CFS.
#[test]
fn a_preset_run_prints_its_sources_figures_beside_the_models() {
    let (code, out, _) = schedlab(&["run", "--preset", "tbench-stacked"]);
    assert_eq!(code, 0);
    let table = out
        .split("the source's figures beside the model's")
        .nth(1)
        .expect("the figures table");
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[1].starts_with("figure") && lines[1].contains("source") && lines[1].contains("model")
    );
    let cells = |l: &str| {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let first = cells(lines[2]);
    assert_eq!(
        first[..3],
        ["CPU share of tbench (% of the tasks')", "cfs-6.1", "50.0"],
        "{table}"
    );
    assert_eq!(
        cells(lines[3])[..2],
        ["eevdf-6.12:NO_DELAY_DEQUEUE", "56.0 (+6.0pp)"],
        "{table}"
    );
    assert_eq!(
        cells(lines[4])[..2],
        ["eevdf-6.12", "52.0 (+2.0pp)"],
        "{table}"
    );
    // In JSON, per variant: the thread's 56 % without DELAY_DEQUEUE beside the model's.
    let (_, out, _) = schedlab(&["run", "--preset", "tbench-stacked", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &j["variants"][1]["source_figures"][0];
    assert_eq!(j["variants"][1]["variant"], "eevdf-6.12:NO_DELAY_DEQUEUE");
    assert_eq!(
        (&f["figure"], &f["source"]),
        (&"share:tbench".into(), &56.0.into())
    );
    assert!(
        f["model"]
            .as_f64()
            .is_some_and(|m| (50.0..60.0).contains(&m)),
        "{f}"
    );
    // A preset's own file gets them too; another scenario has none.
    let (_, out, _) = schedlab(&["run", "../../scenarios/presets/tbench-stacked.json"]);
    assert!(out.contains("the source's figures beside the model's"));
    let (_, out, _) = schedlab(&["run", "../../scenarios/sched-idle-pair.json"]);
    assert!(!out.contains("the source's figures"));
}

/// `machines --metadata` derives each measured machine's costs from the metadata its
/// recordings came with, as docs/measurements.md did by hand: the profiles in
/// `schedlab_sim::MACHINES` are those figures (rounded), so they are held to their fixtures.
#[test]
fn machines_metadata_derives_each_profiles_costs_from_its_fixtures() {
    let field = |text: &str, key: &str| -> u64 {
        let at = text
            .find(&format!("\"{key}\": "))
            .unwrap_or_else(|| panic!("{key}: {text}"));
        text[at + key.len() + 4..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let near = |got: u64, want: u64| got.abs_diff(want) * 100 <= want * 3;
    for m in schedlab_sim::MACHINES
        .iter()
        .filter(|m| m.name.starts_with("epyc"))
    {
        let path = format!(
            "{}/../../tests/fixtures/{}/metadata.txt",
            env!("CARGO_MANIFEST_DIR"),
            m.fixtures
        );
        let (code, out, err) = schedlab(&["machines", "--metadata", &path]);
        assert_eq!(code, 0, "{err}");
        let (s, w, i) = (
            field(&out, "switch_cost_ns"),
            field(&out, "wakeup_cost_ns"),
            field(&out, "ipi_cost_ns"),
        );
        assert!(
            near(s, m.switch_cost_ns),
            "{}: switch {s} against {}",
            m.name,
            m.switch_cost_ns
        );
        assert!(
            near(w, m.wakeup_cost_ns),
            "{}: wakeup {w} against {}",
            m.name,
            m.wakeup_cost_ns
        );
        assert!(
            i == m.ipi_cost_ns || near(i, m.ipi_cost_ns),
            "{}: ipi {i} against {}",
            m.name,
            m.ipi_cost_ns
        );
    }
}

#[test]
fn machines_metadata_names_what_is_wrong_with_its_file() {
    let (code, _, err) = schedlab(&["machines", "--metadata", "/nonexistent/metadata.txt"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read /nonexistent/metadata.txt"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("schedlab-machines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("metadata.txt");
    std::fs::write(&file, "uname -a: Linux\n").unwrap();
    let (code, _, err) = schedlab(&["machines", "--metadata", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no `costs, run N"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
