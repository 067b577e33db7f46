//! Parameter sweeps: one scenario run across a range of one knob (or a small grid of knobs).
//!
//! A knob is one of
//! - a **tunable** of the variants (`base_slice_ns`, `migration_cost_ns`,
//!   `wakeup_granularity_ns`, …): every variant gets `tunable=value` appended to its override
//!   list, exactly as if it had been written in the variant string;
//! - a **feature** of `features.h` (`RUN_TO_PARITY`, `PLACE_LAG`, …) swept over `on` and `off`:
//!   every variant gets `FEATURE` or `NO_FEATURE` appended;
//! - a **path** into the scenario document (`hz`, `cpus`, `seed`, `workloads.0.groups`,
//!   `tasks.1.nice`): the number is written there and the document is validated again, so a
//!   point gets the same checks and messages as a scenario file.
//!
//! Values are `FROM..TO:N` (N evenly spaced whole numbers including both ends), a list
//! `A,B,C`, or `on,off` for a feature. A point is therefore an ordinary scenario: running it
//! with `schedlab run` gives the same trace as the sweep's row for it.

use schedlab_sim::variant::Tunable;
use schedlab_sim::{Feature, Variant};
use serde_json::Value;

use crate::Scenario;

/// Most values one `--param` may take.
pub const MAX_POINTS: usize = 64;
/// Most runs (points × variants) in one sweep.
pub const MAX_RUNS: usize = 512;
/// Most knobs swept together (their values form a grid).
pub const MAX_PARAMS: usize = 3;

/// What a knob changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Knob {
    /// A tunable appended to every variant's override list.
    Tunable(String),
    /// A feature switched on or off in every variant.
    Feature(String),
    /// A dotted path into the scenario document.
    Path(Vec<String>),
}

/// One value of a knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value1 {
    /// A whole number.
    Int(i64),
    /// A feature on (`true`) or off.
    Switch(bool),
}

impl core::fmt::Display for Value1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Value1::Int(n) => write!(f, "{n}"),
            Value1::Switch(true) => f.write_str("on"),
            Value1::Switch(false) => f.write_str("off"),
        }
    }
}

/// A parsed `NAME=VALUES`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name as written.
    pub name: String,
    /// What it changes.
    pub knob: Knob,
    /// The values, in sweep order.
    pub values: Vec<Value1>,
}

impl Param {
    /// Parses `NAME=FROM..TO:N`, `NAME=A,B,C`, `FEATURE=on,off` or a bare `FEATURE` (both).
    pub fn parse(spec: &str) -> Result<Param, String> {
        let spec = spec.trim();
        let (name, values) = match spec.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim())),
            None => (spec, None),
        };
        if name.is_empty() {
            return Err(format!(
                "`{spec}`: no parameter name before `=` (e.g. base_slice_ns=500000..4000000:8)"
            ));
        }
        let knob = if Tunable::all().iter().any(|t| t.name() == name) {
            Knob::Tunable(name.to_string())
        } else if Feature::from_name(name).is_some() {
            Knob::Feature(name.to_string())
        } else if name
            .split('.')
            .all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            Knob::Path(name.split('.').map(str::to_string).collect())
        } else {
            return Err(format!(
                "`{name}` is neither a tunable, a feature nor a path into the scenario (like `hz` or `workloads.0.groups`)"
            ));
        };
        let values = match (&knob, values) {
            (Knob::Feature(_), None) => vec![Value1::Switch(true), Value1::Switch(false)],
            (Knob::Feature(f), Some(v)) => v
                .split(',')
                .map(|s| match s.trim() {
                    "on" | "1" => Ok(Value1::Switch(true)),
                    "off" | "0" => Ok(Value1::Switch(false)),
                    o => Err(format!("{f}: `{o}` is not on or off")),
                })
                .collect::<Result<_, _>>()?,
            (_, None) => {
                return Err(format!(
                    "{name}: give its values, e.g. {name}=FROM..TO:N or {name}=A,B,C"
                ))
            }
            (_, Some(v)) => int_values(name, v)?,
        };
        if values.is_empty() || values.len() > MAX_POINTS {
            return Err(format!(
                "{name}: {} values; a sweep takes 1 to {MAX_POINTS}",
                values.len()
            ));
        }
        Ok(Param {
            name: name.to_string(),
            knob,
            values,
        })
    }
}

fn int_values(name: &str, v: &str) -> Result<Vec<Value1>, String> {
    let num = |s: &str| -> Result<i64, String> {
        s.trim()
            .parse::<i64>()
            .map_err(|_| format!("{name}: `{}` is not a whole number", s.trim()))
    };
    if let Some((range, n)) = v.split_once(':') {
        let (a, b) = range
            .split_once("..")
            .ok_or_else(|| format!("{name}: `{v}` is not FROM..TO:N (e.g. 500000..4000000:8)"))?;
        let (a, b) = (num(a)?, num(b)?);
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("{name}: `{}` is not a number of points", n.trim()))?;
        if !(2..=MAX_POINTS).contains(&n) {
            return Err(format!(
                "{name}: {n} points; a range takes 2 to {MAX_POINTS}"
            ));
        }
        if a == b {
            return Err(format!("{name}: the range {a}..{b} is empty"));
        }
        // a + (b − a)·i/(n − 1), rounded to the nearest whole number, in i128 so no span
        // overflows.
        let (a, b, d) = (a as i128, b as i128, (n - 1) as i128);
        return Ok((0..n as i128)
            .map(|i| {
                let num = (b - a) * i;
                let q = (2 * num + d * num.signum()) / (2 * d);
                Value1::Int((a + q) as i64)
            })
            .collect());
    }
    if v.contains("..") {
        return Err(format!(
            "{name}: `{v}` needs a number of points, e.g. {v}:8"
        ));
    }
    v.split(',').map(|s| num(s).map(Value1::Int)).collect()
}

/// One point of a sweep: a value per parameter.
pub type Point = Vec<Value1>;

/// Every point of the grid the parameters span (the first parameter varies slowest).
pub fn points(params: &[Param]) -> Vec<Point> {
    let mut out: Vec<Point> = vec![vec![]];
    for p in params {
        out = out
            .into_iter()
            .flat_map(|pre| {
                p.values.iter().map(move |v| {
                    let mut q = pre.clone();
                    q.push(*v);
                    q
                })
            })
            .collect();
    }
    out
}

/// The scenario at one point: tunables and features appended to every variant, paths written
/// into the document and the whole validated again. `variants` replaces the scenario's own
/// when it is not empty.
pub fn apply(
    base: &Scenario,
    variants: &[Variant],
    params: &[Param],
    point: &[Value1],
) -> Result<Scenario, String> {
    let mut doc = base.to_value();
    let mut names: Vec<String> = if variants.is_empty() {
        base.variants.iter().map(|v| v.name.clone()).collect()
    } else {
        variants.iter().map(|v| v.name.clone()).collect()
    };
    if names.is_empty() {
        return Err("the scenario lists no variants; pass one with --variant".into());
    }
    for (p, v) in params.iter().zip(point) {
        let item = match (&p.knob, v) {
            (Knob::Tunable(t), Value1::Int(n)) => {
                if *n < 0 {
                    return Err(format!("{t}: {n} is negative"));
                }
                Some(format!("{t}={n}"))
            }
            (Knob::Feature(f), Value1::Switch(on)) => {
                Some(if *on { f.clone() } else { format!("NO_{f}") })
            }
            (Knob::Path(path), Value1::Int(n)) => {
                set_path(&mut doc, path, *n).map_err(|e| format!("{}: {e}", p.name))?;
                None
            }
            _ => return Err(format!("{}: value {v} does not fit the parameter", p.name)),
        };
        if let Some(item) = item {
            for n in names.iter_mut() {
                n.push(if n.contains(':') { ',' } else { ':' });
                n.push_str(&item);
            }
        }
    }
    for n in &names {
        Variant::parse(n).map_err(|e| e.0)?;
    }
    if let Value::Object(m) = &mut doc {
        m.insert(
            "variants".into(),
            Value::Array(names.into_iter().map(Value::String).collect()),
        );
    }
    Scenario::from_value(doc).map_err(|es| {
        es.0.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Writes `n` at a dotted path of `doc`; every step but the last must exist (array steps are
/// indices), so a typo is named rather than silently creating a key the format then refuses.
fn set_path(doc: &mut Value, path: &[String], n: i64) -> Result<(), String> {
    let mut at = doc;
    for (i, step) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        at = match at {
            Value::Object(m) => {
                if last {
                    m.insert(step.clone(), Value::from(n));
                    return Ok(());
                }
                m.get_mut(step)
                    .ok_or_else(|| format!("the scenario has no `{step}`"))?
            }
            Value::Array(a) => {
                let k: usize = step
                    .parse()
                    .map_err(|_| format!("`{step}` is not an index into a list"))?;
                let len = a.len();
                let slot = a
                    .get_mut(k)
                    .ok_or_else(|| format!("index {k} is past the end of a list of {len}"))?;
                if last {
                    *slot = Value::from(n);
                    return Ok(());
                }
                slot
            }
            _ => {
                return Err(format!(
                    "`{step}` goes inside a value that is not an object or list"
                ))
            }
        };
    }
    Err("an empty path".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(p: &Param) -> Vec<i64> {
        p.values
            .iter()
            .map(|v| match v {
                Value1::Int(n) => *n,
                _ => panic!("not an int"),
            })
            .collect()
    }

    #[test]
    fn ranges_include_both_ends_evenly() {
        let p = Param::parse("base_slice_ns=500000..4000000:8").unwrap();
        assert_eq!(p.knob, Knob::Tunable("base_slice_ns".into()));
        assert_eq!(
            ints(&p),
            [500000, 1000000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000]
        );
        let p = Param::parse("tasks.0.nice=5..-5:3").unwrap();
        assert_eq!(ints(&p), [5, 0, -5]);
        assert_eq!(
            p.knob,
            Knob::Path(vec!["tasks".into(), "0".into(), "nice".into()])
        );
        // 0..10:4 is 0, 3.33, 6.67, 10: rounded to the nearest.
        assert_eq!(ints(&Param::parse("hz=0..10:4").unwrap()), [0, 3, 7, 10]);
        assert_eq!(ints(&Param::parse("cpus=1,2,8").unwrap()), [1, 2, 8]);
    }

    #[test]
    fn features_sweep_on_and_off() {
        let p = Param::parse("RUN_TO_PARITY").unwrap();
        assert_eq!(p.values, [Value1::Switch(true), Value1::Switch(false)]);
        assert!(Param::parse("RUN_TO_PARITY=maybe")
            .unwrap_err()
            .contains("not on or off"));
    }

    #[test]
    fn bad_specs_are_named() {
        for (spec, want) in [
            ("=1,2", "no parameter name"),
            ("base_slice_ns", "give its values"),
            ("base_slice_ns=1..2", "needs a number of points"),
            ("base_slice_ns=1..2:1", "2 to 64"),
            ("base_slice_ns=1..2:1000", "2 to 64"),
            ("base_slice_ns=3..3:4", "empty"),
            ("base_slice_ns=abc", "not a whole number"),
            ("a-b=1", "neither a tunable"),
        ] {
            let e = Param::parse(spec).unwrap_err();
            assert!(e.contains(want), "{spec}: {e}");
        }
    }

    #[test]
    fn grid_varies_the_last_parameter_fastest() {
        let a = Param::parse("hz=100,1000").unwrap();
        let b = Param::parse("RUN_TO_PARITY").unwrap();
        let pts = points(&[a, b]);
        assert_eq!(pts.len(), 4);
        assert_eq!(pts[1], [Value1::Int(100), Value1::Switch(false)]);
        assert_eq!(pts[2], [Value1::Int(1000), Value1::Switch(true)]);
    }

    #[test]
    fn a_point_is_an_ordinary_scenario() {
        let base = crate::presets::preset("sched-idle").unwrap().scenario();
        let v = [Variant::parse("eevdf-6.6").unwrap()];
        let p = [Param::parse("base_slice_ns=1000000,2000000").unwrap()];
        let s = apply(&base, &v, &p, &[Value1::Int(2000000)]).unwrap();
        assert_eq!(s.variants[0].name, "eevdf-6.6:base_slice_ns=2000000");
        let p = [Param::parse("hz=250").unwrap()];
        let s = apply(&base, &v, &p, &[Value1::Int(250)]).unwrap();
        assert_eq!(s.hz, 250);
        // Out of the format's range: the format's own message.
        let p = [Param::parse("hz=7").unwrap()];
        let e = apply(&base, &v, &p, &[Value1::Int(7)]).unwrap_err();
        assert!(e.contains("hz"), "{e}");
        // A tunable the version lacks: the variant parser's message.
        let v = [Variant::parse("cfs-6.1").unwrap()];
        let p = [Param::parse("base_slice_ns=1000000").unwrap()];
        let e = apply(&base, &v, &p, &[Value1::Int(1000000)]).unwrap_err();
        assert!(e.contains("does not exist in cfs-6.1"), "{e}");
        let p = [Param::parse("tasks.9.nice=1").unwrap()];
        let e = apply(&base, &v, &p, &[Value1::Int(1)]).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
    }
}
