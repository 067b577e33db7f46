//! The timeline layout on a 1 M-slice lane, and a frame's layout of 10 M slices over 8 lanes:
//! `cargo bench -p schedlab-report --bench timeline`.

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
    // A frame of the page's CPU layout at 10 M slices: 8 lanes of 1.25 M (1.25 s, a switch
    // every microsecond on each CPU), the whole run and a window of an eighth of it.
    let lanes: Vec<LaneIndex> = (0..8).map(|_| LaneIndex::new(lane(1_250_000))).collect();
    for (name, t1) in [("whole range", 1_250_000_000), ("an eighth", 156_250_000)] {
        let vp = Viewport {
            t0_ns: 0,
            t1_ns: t1,
            width_px: 1000,
        };
        c.bench_function(
            &format!("frame layout, 8 lanes x 1.25M slices, {name}, 1000 px"),
            |b| {
                b.iter(|| {
                    lanes
                        .iter()
                        .map(|l| l.layout(std::hint::black_box(vp), LaneKey::Pid).len())
                        .sum::<usize>()
                })
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
