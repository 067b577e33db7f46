//! Timeline slices, end reasons, and the level-of-detail layout.

mod common;
use common::*;
use schedlab_report::timeline::{
    fmt_duration, layout, tick_step_ns, Block, EndReason, Slice, Timeline, Viewport,
};

/// `n` back-to-back slices of `len` ns alternating between two pids on CPU 0.
fn synthetic(n: usize, len: u64) -> Vec<Slice> {
    (0..n)
        .map(|i| Slice {
            cpu: 0,
            pid: 1 + (i % 2) as u32,
            start_ns: i as u64 * len,
            end_ns: (i as u64 + 1) * len,
            reason: EndReason::Preempted {
                by: 2 - (i % 2) as u32,
                wakeup: false,
            },
        })
        .collect()
}

#[test]
fn a_million_slices_fit_in_the_pixels() {
    let slices = synthetic(1_000_000, 1_000);
    let vp = Viewport {
        t0_ns: 0,
        t1_ns: 1_000_000_000,
        width_px: 1000,
    };
    let blocks = layout(&slices, vp, |s| s.pid);
    assert!(blocks.len() <= 1000, "{} blocks", blocks.len());
    assert_eq!(blocks.len(), 1000, "every pixel column is busy");
    for b in &blocks {
        match b {
            Block::Aggregate { busy, .. } => {
                assert!((*busy - 1.0).abs() < 1e-3, "fully busy: {busy}")
            }
            Block::Slice { .. } => panic!("1 µs slices at 1 ms per pixel must aggregate"),
        }
    }
}

#[test]
fn at_high_zoom_slices_have_exact_boundaries() {
    let slices = synthetic(1_000_000, 1_000);
    // 10 µs over 1000 px: 10 ns per pixel; slices of 1 µs are 100 px wide.
    let vp = Viewport {
        t0_ns: 500_000_000,
        t1_ns: 500_010_000,
        width_px: 1000,
    };
    let blocks = layout(&slices, vp, |s| s.pid);
    assert_eq!(blocks.len(), 10);
    for (k, b) in blocks.iter().enumerate() {
        let Block::Slice { x0, x1, index } = *b else {
            panic!("{b:?}")
        };
        assert_eq!((x0, x1), (k as u32 * 100, (k as u32 + 1) * 100));
        assert_eq!(slices[index].start_ns, 500_000_000 + k as u64 * 1_000);
    }
    // A viewport cutting a slice clips it to the pixels it covers.
    let vp = Viewport {
        t0_ns: 500_000_500,
        t1_ns: 500_001_500,
        width_px: 100,
    };
    let blocks = layout(&slices, vp, |s| s.pid);
    assert_eq!(
        blocks,
        vec![
            Block::Slice {
                x0: 0,
                x1: 50,
                index: 500_000
            },
            Block::Slice {
                x0: 50,
                x1: 100,
                index: 500_001
            }
        ]
    );
}

#[test]
fn aggregates_report_busy_fraction_and_dominant_task() {
    // In one 100-ns pixel: pid 1 runs 30 ns, pid 2 runs 50 ns, 20 ns idle.
    let s = |pid, a, b| Slice {
        cpu: 0,
        pid,
        start_ns: a,
        end_ns: b,
        reason: EndReason::Slept,
    };
    let slices = vec![s(1, 0, 30), s(2, 40, 90)];
    let blocks = layout(
        &slices,
        Viewport {
            t0_ns: 0,
            t1_ns: 1000,
            width_px: 10,
        },
        |s| s.pid,
    );
    match blocks[..] {
        [Block::Aggregate {
            x: 0,
            busy,
            dominant: 2,
        }] => assert!((busy - 0.8).abs() < 1e-6, "{busy}"),
        _ => panic!("{blocks:?}"),
    }
}

#[test]
fn slices_and_why_they_ended() {
    // T (pid 1) and U (pid 2) on CPU 0: U wakes and preempts T, U sleeps, T runs until the end.
    let tr = trace(
        1,
        &[(1, "T"), (2, "U")],
        vec![
            sw(0, 0, 0, 'R', 1),
            waking(1_000, 0, 2),
            wakeup(1_000, 0, 2),
            sw(1_005, 0, 1, 'R', 2),
            sw(3_000, 0, 2, 'S', 1),
            sw(9_000, 0, 1, 'X', 0),
        ],
    );
    let tl = Timeline::from_trace(&tr);
    let t = tl.task_lane(1);
    assert_eq!((t[0].start_ns, t[0].end_ns), (0, 1_005));
    assert_eq!(
        t[0].reason,
        EndReason::Preempted {
            by: 2,
            wakeup: true
        }
    );
    assert_eq!(
        (t[1].start_ns, t[1].end_ns, t[1].reason),
        (3_000, 9_000, EndReason::Exited)
    );
    assert_eq!(tl.task_lane(2)[0].reason, EndReason::Slept);
    // T waited from its preemption to its next run; U from its wakeup to its run.
    assert_eq!(tl.task_waits(1)[0].start_ns, 1_005);
    assert_eq!(tl.task_waits(1)[0].end_ns, 3_000);
    assert_eq!(
        (tl.task_waits(2)[0].start_ns, tl.task_waits(2)[0].end_ns),
        (1_000, 1_005)
    );
    let comm = |p: u32| {
        if p == 2 {
            "U".to_string()
        } else {
            "T".to_string()
        }
    };
    assert_eq!(
        t[0].reason.describe(comm),
        "preempted by U (wakeup preemption)"
    );
    assert_eq!(
        EndReason::Preempted {
            by: 2,
            wakeup: false
        }
        .describe(comm),
        "preempted by U (slice used up, tick)"
    );
}

#[test]
fn axis_steps_and_units() {
    assert_eq!(tick_step_ns(1_000_000_000, 1000), 100_000_000);
    assert_eq!(tick_step_ns(3_000_000, 1200), 500_000);
    assert_eq!(fmt_duration(999), "999 ns");
    assert_eq!(fmt_duration(12_500), "12.5 µs");
    assert_eq!(fmt_duration(4_000_000), "4.000 ms");
    assert_eq!(fmt_duration(1_365_333_333), "1.365 s");
}

#[test]
fn the_lane_index_lays_out_like_the_reference() {
    use schedlab_report::timeline::{LaneIndex, LaneKey};
    use schedlab_sim::rng::Rng;
    let mut r = Rng::new(5, 0);
    for case in 0..40 {
        // Random lanes: bursts of tiny slices, gaps, and long runs.
        let mut t = r.below(1_000);
        let mut slices = vec![];
        for k in 0..(1 + r.below(20_000)) {
            let len = match r.below(10) {
                0 => 1 + r.below(5_000_000),
                1..=3 => 1 + r.below(50_000),
                _ => 1 + r.below(3_000),
            };
            slices.push(Slice {
                cpu: 0,
                pid: 1 + r.below(5) as u32,
                start_ns: t,
                end_ns: t + len,
                reason: EndReason::Slept,
            });
            t += len
                + if k % 7 == 0 {
                    r.below(2_000_000)
                } else {
                    r.below(2_000)
                };
        }
        let idx = LaneIndex::new(slices.clone());
        let end = t;
        for _ in 0..10 {
            let a = r.below(end);
            let b = a + 1_000 + r.below(end - a + 1);
            let vp = Viewport {
                t0_ns: a,
                t1_ns: b,
                width_px: 1 + r.below(1500) as u32,
            };
            let want = layout(&slices, vp, |s| s.pid);
            let got = idx.layout(vp, LaneKey::Pid);
            assert_eq!(want.len(), got.len(), "case {case}, {vp:?}");
            for (w, g) in want.iter().zip(&got) {
                match (w, g) {
                    (
                        Block::Aggregate {
                            x: wx, busy: wb, ..
                        },
                        Block::Aggregate {
                            x: gx, busy: gb, ..
                        },
                    ) => {
                        assert_eq!(wx, gx, "case {case}");
                        assert!((wb - gb).abs() < 1e-4, "case {case}: busy {wb} vs {gb}");
                    }
                    _ => assert_eq!(w, g, "case {case}, {vp:?}"),
                }
            }
        }
    }
    // And at a million slices it stays within the pixels.
    let idx = LaneIndex::new(synthetic(1_000_000, 1_000));
    let blocks = idx.layout(
        Viewport {
            t0_ns: 0,
            t1_ns: 1_000_000_000,
            width_px: 1000,
        },
        LaneKey::Pid,
    );
    assert_eq!(blocks.len(), 1000);
}

#[test]
fn cpus_that_never_ran_a_task_fold_into_one_lane() {
    use schedlab_report::timeline::{EndReason, RunTimeline, Slice};
    let slice = |cpu, pid, start_ns| Slice {
        cpu,
        pid,
        start_ns,
        end_ns: start_ns + 10,
        reason: EndReason::Slept,
    };
    let tl = RunTimeline {
        cpus: 6,
        end_ns: 100,
        tasks: vec![(1, "a".into()), (2, "b".into())],
        slices: vec![slice(0, 1, 0), slice(2, 2, 5), slice(2, 1, 20)],
        ..RunTimeline::default()
    };
    let labels = |fold| -> Vec<String> {
        tl.lanes(false, None, 48, fold)
            .into_iter()
            .map(|l| l.label)
            .collect()
    };
    assert_eq!(labels(true), ["CPU 0", "CPU 2", "4 idle CPUs: 1, 3–5"]);
    assert_eq!(labels(false).len(), 6, "every CPU when asked");
    // Per-task lanes: the tasks that ran, the selected one first.
    let per_task: Vec<String> = tl
        .lanes(true, Some("b"), 48, true)
        .into_iter()
        .map(|l| l.label)
        .collect();
    assert_eq!(per_task, ["b:2", "a:1"]);
}

#[test]
fn a_selected_comms_runs_in_a_window_are_those_a_walk_finds() {
    use schedlab_report::timeline::{RunTimeline, TaskRuns};
    // Two tasks named "w" (pids 1 and 3, on CPUs 0 and 1, their runs overlapping each other)
    // and one named "x" (pid 2), with runs of varied lengths, some long.
    let mut slices = vec![];
    let mut t = [0u64; 2];
    for i in 0..3000u64 {
        let cpu = (i % 2) as u32;
        let pid = [1, 2, 3][(i % 3) as usize];
        let len = [7, 1, 300, 2, 40][(i % 5) as usize] + i % 11;
        let start = t[cpu as usize] + i % 4;
        t[cpu as usize] = start + len;
        slices.push(Slice {
            cpu,
            pid,
            start_ns: start,
            end_ns: start + len,
            reason: EndReason::Slept,
        });
    }
    slices.sort_by_key(|s| s.start_ns);
    let tl = RunTimeline {
        cpus: 2,
        end_ns: t[0].max(t[1]),
        tasks: vec![(1, "w".into()), (2, "x".into()), (3, "w".into())],
        slices: slices.clone(),
        ..Default::default()
    };
    for name in ["w", "x", "none"] {
        let runs = TaskRuns::new(&tl, name);
        for (t0, t1) in [
            (0, 1),
            (0, 200_000),
            (5000, 5001),
            (1234, 9876),
            (77_000, 78_000),
            (300_000, 400_000),
        ] {
            let walk: Vec<Slice> = slices
                .iter()
                .filter(|s| tl.comm(s.pid) == name && s.end_ns > t0 && s.start_ns < t1)
                .copied()
                .collect();
            let (n, rows) = runs.in_window(t0, t1, 50);
            assert_eq!(n, walk.len(), "{name} in [{t0}, {t1})");
            assert_eq!(rows, walk[..walk.len().min(50)], "{name} in [{t0}, {t1})");
        }
    }
    assert!(tl.comm_is(0, "swapper") && tl.comm_is(3, "w") && !tl.comm_is(2, "w"));
    assert!(
        tl.comm_is(9, "9"),
        "an unknown pid is named by its number, as comm() names it"
    );
}

#[test]
fn a_task_lanes_waits_shade_what_they_cover_in_at_most_a_span_per_pixel() {
    use schedlab_report::timeline::{wait_spans, Wait};
    // 200 000 waits of 3 ns every 10 ns, then a gap, then a few long ones.
    let mut waits: Vec<Wait> = (0..200_000u64)
        .map(|i| Wait {
            pid: 1,
            start_ns: i * 10,
            end_ns: i * 10 + 3,
        })
        .collect();
    waits.extend((0..5u64).map(|i| Wait {
        pid: 1,
        start_ns: 3_000_000 + i * 100_000,
        end_ns: 3_000_000 + i * 100_000 + 50_000,
    }));
    for (t0, t1, w) in [
        (0, 4_000_000, 1000),
        (0, 2_000_000, 500),
        (100, 400, 300),
        (2_900_000, 3_600_000, 700),
    ] {
        let vp = Viewport {
            t0_ns: t0,
            t1_ns: t1,
            width_px: w,
        };
        let spans = wait_spans(&waits, vp);
        assert!(
            spans.len() <= w as usize,
            "{} spans for {w} px",
            spans.len()
        );
        assert!(
            spans.windows(2).all(|p| p[0].1 < p[1].0),
            "sorted and apart: {spans:?}"
        );
        // Every wait in view lies in a span (to a pixel), and every span starts at a wait.
        for wt in waits.iter().filter(|x| x.end_ns > t0 && x.start_ns < t1) {
            let (a, b) = (vp.x(wt.start_ns).max(0.0), vp.x(wt.end_ns).min(w as f64));
            assert!(
                spans.iter().any(|s| s.0 <= a && b <= s.1 + 1.0),
                "wait {wt:?} at {a}..{b} not shaded in {t0}..{t1}"
            );
        }
        for s in &spans {
            assert!(
                waits.iter().any(|x| x.end_ns > t0
                    && x.start_ns < t1
                    && (vp.x(x.start_ns).max(0.0) - s.0).abs() < 1e-9),
                "span {s:?} starts at no wait"
            );
        }
    }
    // The 200 000 short waits are one span each way they are seen whole: one per pixel run.
    let all = wait_spans(
        &waits,
        Viewport {
            t0_ns: 0,
            t1_ns: 2_000_000,
            width_px: 1000,
        },
    );
    assert_eq!(all.len(), 1, "{all:?}");
}

#[test]
fn the_overlay_draws_a_mark_per_snapshot_when_sparse_and_per_pixel_when_dense() {
    use schedlab_report::plot::{timeline_svg, TimelineView, TIMELINE_PLOT_W};
    use schedlab_report::timeline::RunTimeline;
    use schedlab_sim::Snapshot;
    let snap = |t_ns: u64, lag: i64, eligible: bool| Snapshot {
        t_ns,
        cpu: 0,
        pid: 1,
        vruntime: 0,
        deadline: 3_000_000 - lag,
        v: 0,
        lag,
        eligible,
    };
    let svg_rects = |snapshots: Vec<Snapshot>, t1_ns: u64| {
        let tl = RunTimeline {
            cpus: 1,
            end_ns: t1_ns,
            tasks: vec![(1, "w".into())],
            slices: vec![],
            snapshots,
            eevdf: true,
            ..Default::default()
        };
        let lanes = tl.lanes(false, Some("w"), 8, false);
        let view = TimelineView {
            viewport: Viewport {
                t0_ns: 0,
                t1_ns,
                width_px: TIMELINE_PLOT_W,
            },
            selected: Some("w"),
            runs: None,
            overlay: true,
            hover_ns: None,
            ruler: &[],
        };
        let svg = timeline_svg(&tl, &lanes, &view).unwrap();
        svg.matches("<rect").count()
    };
    let base = svg_rects(vec![], 1_000_000);
    // Three snapshots far apart: a band, a lag mark and a deadline mark each.
    let sparse = vec![
        snap(100_000, 5, true),
        snap(500_000, -7, false),
        snap(900_000, 0, true),
    ];
    assert_eq!(svg_rects(sparse, 1_000_000) - base, 9);
    // A million snapshots over 1 ms: at most three shapes per pixel column, not per snapshot.
    let dense: Vec<Snapshot> = (0..1_000_000u64)
        .map(|i| snap(i, (i % 1000) as i64 - 500, i % 3 != 0))
        .collect();
    let n = svg_rects(dense, 1_000_000) - base;
    assert!(
        n <= 3 * TIMELINE_PLOT_W as usize && n >= TIMELINE_PLOT_W as usize,
        "{n} shapes"
    );
}

#[test]
fn a_dense_columns_colour_is_the_key_with_most_of_its_time() {
    use schedlab_report::timeline::{LaneIndex, LaneKey};
    // Per 100 ns: pid 1 on CPU 3 for 70 ns, then pids 2, 3, 4 on CPU 5 for 10 ns each: pid 1
    // has most of the time by pid, CPU 3 by CPU. In the second half the pattern flips (pid 2
    // for 70 ns on CPU 5, the others 10 ns each on CPU 3): pid 2 and CPU 5 have most.
    let mut slices = vec![];
    let mut t = 0;
    for k in 0..200_000u64 {
        let flip = k >= 100_000;
        for (j, len) in [70u64, 10, 10, 10].into_iter().enumerate() {
            let pid = if flip {
                [2, 1, 3, 4][j]
            } else {
                [1, 2, 3, 4][j]
            };
            let cpu = if (j == 0) != flip { 3 } else { 5 };
            slices.push(Slice {
                cpu,
                pid,
                start_ns: t,
                end_ns: t + len,
                reason: EndReason::Slept,
            });
            t += len;
        }
    }
    let idx = LaneIndex::new(slices);
    for (width, t1) in [(1000, t), (700, t / 3), (1500, t)] {
        let vp = Viewport {
            t0_ns: 0,
            t1_ns: t1,
            width_px: width,
        };
        for (key, first, second) in [(LaneKey::Pid, 1, 2), (LaneKey::Cpu, 3, 5)] {
            let blocks = idx.layout(vp, key);
            assert_eq!(blocks.len(), width as usize);
            for b in blocks {
                let Block::Aggregate { x, dominant, busy } = b else {
                    panic!("{b:?}")
                };
                // A slice counts in the column it starts in: a column's busy time is exact to
                // a slice (at most 70 ns of a column's ≥ 9.5 µs).
                assert!((busy - 1.0).abs() < 1e-2, "column {x} busy {busy}");
                let t = vp.t(x as f64 + 0.5);
                let want = if t < t1.min(10_000_000) {
                    first
                } else {
                    second
                };
                // The columns around the flip may go either way.
                if t.abs_diff(10_000_000) > 2 * vp.ns_per_px() as u64 {
                    assert_eq!(dominant, want, "{key:?} column {x} at {t} ns");
                }
            }
        }
    }
}

#[test]
fn the_overlays_columns_hold_what_a_walk_over_their_snapshots_finds() {
    use schedlab_report::timeline::{RunTimeline, TaskRuns};
    use schedlab_sim::rng::Rng;
    use schedlab_sim::Snapshot;
    let mut r = Rng::new(9, 0);
    let mut t = 0;
    let snapshots: Vec<Snapshot> = (0..50_000)
        .map(|_| {
            // Bursts of close snapshots and gaps, of two tasks (pid 1 selected, pid 2 not).
            t += if r.below(10) == 0 {
                r.below(2_000_000)
            } else {
                r.below(300)
            };
            let lag = r.below(2_000_000) as i64 - 1_000_000;
            Snapshot {
                t_ns: t,
                cpu: 0,
                pid: 1 + r.below(2) as u32,
                vruntime: 0,
                deadline: r.below(3_000_000) as i64,
                v: 0,
                lag,
                eligible: lag >= 0,
            }
        })
        .collect();
    let tl = RunTimeline {
        cpus: 1,
        end_ns: t,
        tasks: vec![(1, "w".into()), (2, "x".into())],
        snapshots: snapshots.clone(),
        eevdf: true,
        ..Default::default()
    };
    let runs = TaskRuns::new(&tl, "w");
    for _ in 0..30 {
        let a = r.below(t);
        let vp = Viewport {
            t0_ns: a,
            t1_ns: a + 1 + r.below(t - a + 1),
            width_px: 1 + r.below(1500) as u32,
        };
        let cols = runs.overlay_columns(vp);
        // The walk: every selected snapshot in view, by the column vp.x puts it in (column,
        // lag range, deadline − V range, eligible, ineligible).
        type Column = (i64, (f64, f64), (f64, f64), u32, u32);
        let mut want: Vec<Column> = vec![];
        for s in snapshots
            .iter()
            .filter(|s| s.pid == 1 && s.t_ns >= vp.t0_ns && s.t_ns < vp.t1_ns)
        {
            let (x, a, b) = (
                vp.x(s.t_ns).floor() as i64,
                s.lag as f64,
                (s.deadline - s.v) as f64,
            );
            match want.last_mut() {
                Some(w) if w.0 == x => {
                    w.1 = (w.1 .0.min(a), w.1 .1.max(a));
                    w.2 = (w.2 .0.min(b), w.2 .1.max(b));
                    w.3 += s.eligible as u32;
                    w.4 += !s.eligible as u32;
                }
                _ => want.push((x, (a, a), (b, b), s.eligible as u32, !s.eligible as u32)),
            }
        }
        let got: Vec<_> = cols
            .iter()
            .map(|c| (c.x.floor() as i64, c.a, c.b, c.eligible, c.ineligible))
            .collect();
        assert_eq!(got, want, "{vp:?}");
    }
}
