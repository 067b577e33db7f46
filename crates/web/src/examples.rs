//! The scenarios of the presets menu: the LKML experiments and a few teaching examples.

/// What a first visit opens with (and runs).
pub const DEFAULT: (&str, &str) = EXAMPLES[2];

/// Teaching examples: (menu label, scenario document).
pub const EXAMPLES: [(&str, &str); 4] = [
    (
        "Two nice-0 hogs on one CPU",
        r#"{"version": 1, "name": "Two nice-0 hogs on one CPU", "description": "13 ms turns on CFS 6.1, 4 ms on EEVDF 6.6 (3 ms slice + the extra tick), 3 ms on 6.19.", "cpus": 16, "hz": 1000, "duration_ms": 300, "seed": 1, "variants": ["cfs-6.1", "eevdf-6.6", "eevdf-6.19"], "tasks": [{"name": "hog", "count": 2, "affinity": [0], "program": [{"run": "forever"}]}]}"#,
    ),
    (
        "Nice 0 against nice 5",
        r#"{"version": 1, "name": "Nice 0 against nice 5", "description": "Weights 1024 and 335: 75.3% / 24.7% of the CPU under every variant; the turns differ.", "cpus": 16, "hz": 1000, "duration_ms": 1000, "seed": 1, "variants": ["cfs-6.1", "eevdf-6.12"], "tasks": [{"name": "nice0", "affinity": [0], "program": [{"run": "forever"}]}, {"name": "nice5", "nice": 5, "affinity": [0], "program": [{"run": "forever"}]}]}"#,
    ),
    (
        "SCHED_IDLE hog against a nice-0 hog",
        r#"{"version": 1, "name": "SCHED_IDLE hog vs nice-0 hog", "description": "Seed 002: before the 2021 SCHED_IDLE series the idle hog runs ~4 ms every ~1.37 s; with it ~1 ms every ~341 ms.", "cpus": 16, "hz": 1000, "duration_ms": 3000, "seed": 1, "variants": ["cfs-5.14", "cfs-6.1"], "tasks": [{"name": "hog", "affinity": [0], "program": [{"run": "forever"}]}, {"name": "idle", "policy": "idle", "affinity": [0], "program": [{"run": "forever"}]}]}"#,
    ),
    (
        "A periodic task against hogs",
        r#"{"version": 1, "name": "Periodic task against hogs", "description": "A 60 Hz frame task with a 0.5 ms custom slice next to two hogs on one CPU: PREEMPT_SHORT (6.12) lets it in early.", "cpus": 8, "hz": 1000, "duration_ms": 2000, "seed": 1, "variants": ["eevdf-6.6", "eevdf-6.12", "eevdf-6.12:NO_PREEMPT_SHORT"], "tasks": [{"name": "hog", "count": 2, "affinity": [0], "program": [{"run": "forever"}]}, {"name": "frame", "slice_us": 500, "affinity": [0], "program": [{"run_us": 1500}, {"wait_period_us": 16667}]}]}"#,
    ),
];
