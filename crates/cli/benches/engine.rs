//! The engine per kernel variant and the reports, on the benchmark scenario
//! (`scenarios/bench/mixed-8cpu.json`, cut to 1 s of simulated time so that one iteration takes
//! a fraction of a second): `cargo bench -p schedlab-cli --bench engine`.
//! `cargo test --benches` (and so `scripts/test.sh`) runs each once, as a smoke test.
//! `schedlab bench` measures the whole 10 s scenario.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use schedlab_cli::{json, table_text};
use schedlab_report::latency::latency_rows;
use schedlab_report::timehist::timehist_lines;
use schedlab_scenario::Scenario;
use schedlab_sim::{simulate, Simulator, TraceLevel, Variant};

/// The benchmark scenario, 1 s long.
fn scenario() -> Scenario {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/bench/mixed-8cpu.json"
    );
    let text = std::fs::read_to_string(path).expect("the benchmark scenario is in the repository");
    let text = text.replace("\"duration_ms\": 10000", "\"duration_ms\": 1000");
    let s = Scenario::from_json(&text).expect("the benchmark scenario is valid");
    assert_eq!(s.sim_config().duration_ns, 1_000_000_000, "cut to 1 s");
    s
}

fn engine(c: &mut Criterion) {
    let s = scenario();
    let cfg = s.sim_config();
    let mut g = c.benchmark_group("engine, mixed 8 CPUs / 200 tasks / 1 s");
    g.sample_size(10);
    for name in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        let v = Variant::parse(name).expect("a preset variant");
        let events = Simulator::with_trace(&cfg, &v, TraceLevel::Counters, None)
            .expect("valid")
            .finish()
            .events_processed;
        g.throughput(Throughput::Elements(events));
        for (level, label) in [
            (TraceLevel::Counters, "counters"),
            (TraceLevel::Full, "full trace"),
        ] {
            g.bench_function(format!("{name}, {label}"), |b| {
                b.iter(|| {
                    Simulator::with_trace(&cfg, &v, level, None)
                        .expect("valid")
                        .finish()
                })
            });
        }
    }
    g.finish();
}

fn reports(c: &mut Criterion) {
    let s = scenario();
    let cfg = s.sim_config();
    let v = Variant::parse("eevdf-6.12").expect("a preset variant");
    let out = vec![simulate(&cfg, &v).expect("valid")];
    let trace = &out[0].trace;
    let mut g = c.benchmark_group("reports, mixed 8 CPUs / 200 tasks / 1 s, eevdf-6.12");
    g.sample_size(10);
    g.throughput(Throughput::Elements(trace.events.len() as u64));
    g.bench_function("perf sched latency rows", |b| {
        b.iter(|| latency_rows(std::hint::black_box(trace), true))
    });
    g.bench_function("timehist lines", |b| {
        b.iter(|| timehist_lines(std::hint::black_box(trace)))
    });
    g.bench_function("run's tables (what schedlab run prints)", |b| {
        b.iter(|| table_text(&s, std::hint::black_box(&out), true, false))
    });
    g.bench_function("JSON report", |b| {
        b.iter(|| json(&s, std::hint::black_box(&out)))
    });
    g.finish();
}

criterion_group!(benches, engine, reports);
criterion_main!(benches);
