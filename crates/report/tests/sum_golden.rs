//! The "Sum delay" table against a table from a real LKML mail.
use schedlab_report::latency::{format_sum, LatencyRow};

fn row(
    comm: &str,
    pid: u32,
    threads: u32,
    runtime: u64,
    count: u64,
    sum: u64,
    max: u64,
) -> LatencyRow {
    LatencyRow {
        comm: comm.into(),
        pid,
        threads,
        runtime_ns: runtime,
        count,
        delay_sum_ns: sum,
        delay_max_ns: max,
        max_start_ns: 0,
        max_end_ns: 0,
    }
}

#[test]
fn matches_mail() {
    let rows = [
        row(
            "massive_intr",
            9000,
            9,
            1_897_454_685_000,
            11_581_161,
            296_184_363_000,
            43_008_000,
        ),
        row(
            "Compositor",
            5824,
            1,
            36_851_590_000,
            61_771,
            4_965_456_000,
            9_310_000,
        ),
        // The rows the mail's excerpt leaves out, lumped so the TOTAL line matches.
        row(
            "others",
            1,
            40,
            2_242_804_984_000 - 1_897_454_685_000 - 36_851_590_000,
            26_015_202 - 11_581_161 - 61_771,
            416_326_240_000 - 296_184_363_000 - 4_965_456_000,
            1_000_000,
        ),
    ];
    let text = format_sum(&rows);
    let dashes = format!(" {}", "-".repeat(106));
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], dashes);
    assert_eq!(
        lines[2],
        "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Sum delay ms     |"
    );
    assert_eq!(lines[3], dashes);
    assert_eq!(
        lines[4],
        "  massive_intr:(9)      |1897454.685 ms | 11581161 | avg:   0.026 ms | max:  43.008 ms | sum:296184.363 ms |"
    );
    assert_eq!(
        lines[5],
        "  Compositor:5824       |  36851.590 ms |    61771 | avg:   0.080 ms | max:   9.310 ms | sum: 4965.456 ms |"
    );
    assert_eq!(
        lines[6],
        "  others:(40)           | 308498.709 ms | 14372270 | avg:   0.008 ms | max:   1.000 ms | sum:115176.421 ms |"
    );
    assert_eq!(lines[7], dashes);
    assert_eq!(
        lines[8],
        "  TOTAL:                |2242804.984 ms | 26015202 |                 |       43.008 ms |    416326.240 ms |"
    );
    assert_eq!(lines[9], dashes);
    // Lines without overflowing numbers are 107 bytes (the sums above 99999.999 overflow).
    for l in [lines[1], lines[2], lines[5], lines[8]] {
        assert_eq!(l.len(), 107, "{l:?}");
    }
}
