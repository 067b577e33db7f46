//! schbench's percentile blocks.
use schedlab_report::percentiles::{format_schbench_block, plat_idx_to_val, plat_val_to_idx, Hist};

#[test]
fn bucket_values() {
    assert_eq!(plat_idx_to_val(plat_val_to_idx(3770)), 3772);
    assert_eq!(plat_idx_to_val(plat_val_to_idx(7450)), 7448);
}

#[test]
fn latency_and_rps_blocks() {
    let mut h = Hist::new();
    for v in 1..=100 {
        h.add(v);
    }
    assert_eq!(h.count(), 100);
    assert_eq!(
        format_schbench_block("Wakeup Latencies", "usec", 30, &h, false),
        "Wakeup Latencies percentiles (usec) runtime 30 (s) (100 total samples)\n\
         \t  50.0th: 50         (30 samples)\n\
         \t  90.0th: 90         (40 samples)\n\
         \t* 99.0th: 99         (9 samples)\n\
         \t  99.9th: 100        (1 samples)\n\
         \t  min=1, max=100\n"
    );
    assert_eq!(
        format_schbench_block("RPS", "requests", 30, &h, true),
        "RPS percentiles (requests) runtime 30 (s) (100 total samples)\n\
         \t  20.0th: 20         (20 samples)\n\
         \t* 50.0th: 50         (30 samples)\n\
         \t  90.0th: 90         (40 samples)\n\
         \t  min=1, max=100\n"
    );
}

#[test]
fn bucketed_values_in_block() {
    let mut h = Hist::new();
    for _ in 0..90 {
        h.add(10);
    }
    for _ in 0..9 {
        h.add(3770);
    }
    h.add(7450);
    let p = h.percentiles();
    let vals: Vec<u32> = p.iter().map(|p| p.value).collect();
    assert_eq!(vals, [10, 10, 10, 3772, 7448]);
    assert_eq!(
        format_schbench_block("Request Latencies", "usec", 60, &h, false),
        "Request Latencies percentiles (usec) runtime 60 (s) (100 total samples)\n\
         \t  50.0th: 10         (0 samples)\n\
         \t  90.0th: 10         (0 samples)\n\
         \t* 99.0th: 3772       (9 samples)\n\
         \t  99.9th: 7448       (1 samples)\n\
         \t  min=10, max=7450\n"
    );
}
