//! The timeline layout on a 1 M-slice lane: `cargo bench -p schedlab-report --bench timeline`.

use criterion::{criterion_group, criterion_main, Criterion};
use schedlab_report::timeline::{layout, EndReason, LaneIndex, LaneKey, Slice, Viewport};

fn lane(n: usize) -> Vec<Slice> {
    (0..n)
        .map(|i| Slice {
            cpu: 0,
            pid: 1 + (i % 7) as u32,
            start_ns: i as u64 * 1_000,
            end_ns: i as u64 * 1_000 + 900,
            reason: EndReason::Slept,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let slices = lane(1_000_000);
    let whole = Viewport {
        t0_ns: 0,
        t1_ns: 1_000_000_000,
        width_px: 1000,
    };
    c.bench_function("layout 1M slices, whole range, 1000 px", |b| {
        b.iter(|| layout(std::hint::black_box(&slices), whole, |s| s.pid))
    });
    let index = LaneIndex::new(slices.clone());
    c.bench_function("indexed layout 1M slices, whole range, 1000 px", |b| {
        b.iter(|| index.layout(std::hint::black_box(whole), LaneKey::Pid))
    });
    let zoomed = Viewport {
        t0_ns: 400_000_000,
        t1_ns: 401_000_000,
        width_px: 1000,
    };
    c.bench_function("layout 1M slices, 1 ms window, 1000 px", |b| {
        b.iter(|| layout(std::hint::black_box(&slices), zoomed, |s| s.pid))
    });
    c.bench_function("indexed layout 1M slices, 1 ms window, 1000 px", |b| {
        b.iter(|| index.layout(std::hint::black_box(zoomed), LaneKey::Pid))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
