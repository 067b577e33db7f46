//! Golden scenarios: each `tests/golden/NAME.json` is run under its variants and its table
//! report compared with `tests/golden/NAME.txt`. They guard against unintended changes; the
//! fidelity expectations live in the kernel checks. After a deliberate change, re-bless with
//! `SCHEDLAB_BLESS=1 cargo test -p schedlab-cli --test golden` and review the diff.

use std::path::{Path, PathBuf};

use schedlab_scenario::Scenario;
use schedlab_sim::simulate;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// Runs `json` and compares its report with `expected`, or rewrites it when blessing.
fn check(json: &Path) -> Result<(), String> {
    let scenario = Scenario::from_json(&std::fs::read_to_string(json).unwrap())
        .map_err(|e| format!("{}: {e}", json.display()))?;
    let cfg = scenario.sim_config();
    let results: Vec<_> = scenario
        .variants()
        .iter()
        .map(|v| simulate(&cfg, v).unwrap())
        .collect();
    let mut text = schedlab_cli::table_text(&scenario, &results, true, false);
    text.push('\n');
    text.push_str(&schedlab_cli::csv(&scenario, &results));
    let want_path = json.with_extension("txt");
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        std::fs::write(&want_path, &text).unwrap();
        return Ok(());
    }
    let want = std::fs::read_to_string(&want_path).map_err(|_| {
        format!(
            "{} is missing: bless it with SCHEDLAB_BLESS=1",
            want_path.display()
        )
    })?;
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(format!(
            "{} differs from {} from line {}:\n  want: {}\n  got:  {}",
            json.display(),
            want_path.display(),
            line + 1,
            want.lines().nth(line).unwrap_or(""),
            text.lines().nth(line).unwrap_or("")
        ));
    }
    Ok(())
}

#[test]
fn golden_scenarios() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "golden scenarios missing: {files:?}");
    let failures: Vec<String> = files.iter().filter_map(|f| check(f).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
