//! Links: round trips, the checked-in links of every released format version, and damage.

use schedlab_scenario::link::{decode, embed_view, encode, find_payload, LinkSweep, LinkView};
use schedlab_scenario::presets::presets;
use schedlab_scenario::Scenario;

const LINKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/links");

#[test]
fn every_preset_round_trips_through_a_link() {
    for p in presets() {
        let s = p.scenario();
        let view = LinkView {
            view: Some("timeline".into()),
            window_ns: Some((5, 9_000)),
            selected: Some("idle".into()),
            per_task: true,
            log_axis: Some(true),
            sweep: Some(LinkSweep {
                param: "base_slice_ns=500000..4000000:8".into(),
                figure: "share:idle".into(),
            }),
        };
        let link = encode(&s, &view);
        assert!(link.starts_with("v1."), "{link}");
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "URL-safe: {link}"
        );
        let back = decode(&format!("https://example.invalid/schedlab/#{link}")).unwrap();
        assert_eq!(back.scenario, s, "{}", p.name);
        assert_eq!(back.view, view);
    }
}

#[test]
fn random_valid_scenarios_round_trip() {
    // Mutations of the example that still parse: whatever is valid survives a link unchanged.
    let base = include_str!("../../../scenarios/issue-example.json");
    let mut r = schedlab_sim::rng::Rng::new(9, 0);
    let mut checked = 0;
    for _ in 0..2000 {
        let mut b = base.as_bytes().to_vec();
        let i = r.below(b.len() as u64) as usize;
        b[i] = b"0123456789 "[r.below(11) as usize];
        let Ok(text) = String::from_utf8(b) else {
            continue;
        };
        let Ok(s) = Scenario::from_json(&text) else {
            continue;
        };
        let back = decode(&encode(&s, &LinkView::default())).unwrap();
        assert_eq!(back.scenario, s);
        checked += 1;
    }
    assert!(checked > 100, "only {checked} valid mutations");
}

#[test]
fn released_links_keep_decoding() {
    // Every format version ever released has a link checked in with the scenario it must give.
    let mut n = 0;
    for e in std::fs::read_dir(LINKS).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "link") {
            let link = std::fs::read_to_string(&path).unwrap();
            let want = std::fs::read_to_string(path.with_extension("json")).unwrap();
            let got = decode(link.trim()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                got.scenario,
                Scenario::from_json(&want).unwrap(),
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 1, "no checked-in links in {LINKS}");
}

#[test]
fn damaged_links_say_what_is_wrong() {
    let s = presets()[0].scenario();
    let good = encode(&s, &LinkView::default());
    let err = |l: &str| decode(l).unwrap_err().0;
    assert!(err("https://example.invalid/#nothing-here").contains("not a schedlab link"));
    assert!(err(&good.replacen("v1.", "v7.", 1)).contains(
        "format v7, which this schedlab does not read (it reads v1); a newer schedlab made it"
    ));
    // No schedlab ever wrote v0 (or v01): that is damage, not a newer version.
    for v in ["v0.", "v01."] {
        let e = err(&good.replacen("v1.", v, 1));
        assert!(
            e.contains("is not one schedlab ever wrote") && !e.contains("newer"),
            "{e}"
        );
    }
    assert!(err(&format!("{}!!", &good[..good.len() / 2])).contains("not base64url"));
    // A link cut short fails at its base64 or its deflate stream, and says it may be cut short.
    for cut in [good.len() / 2, good.len() / 2 + 1, good.len() - 3] {
        assert!(
            err(&good[..cut]).contains("cut short"),
            "{}",
            err(&good[..cut])
        );
    }
    // A decompression bomb: 8 MiB of zeros packs into a few kB but is refused.
    let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; 8 << 20], 9);
    use base64::Engine;
    let l = format!(
        "v1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bomb)
    );
    assert!(err(&l).contains("exceeds 1 MiB"));
    let json = |v: &str| {
        let p = miniz_oxide::deflate::compress_to_vec(v.as_bytes(), 9);
        format!(
            "v1.{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(p)
        )
    };
    assert!(err(&json("[1]")).contains("not a JSON object"));
    assert!(err(&json("{\"scenario\": {\"version\": 1}}"))
        .contains("the link's scenario is invalid: name: missing"));
}

#[test]
fn fragments_with_embed_and_payload() {
    assert_eq!(
        find_payload("https://x.invalid/#embed=table&v1.abc"),
        Some("v1.abc")
    );
    assert_eq!(
        embed_view("https://x.invalid/#embed=table&v1.abc").as_deref(),
        Some("table")
    );
    assert_eq!(
        embed_view("https://x.invalid/?embed=1#v1.abc").as_deref(),
        Some("")
    );
    assert_eq!(embed_view("https://x.invalid/#v1.abc"), None);
}

#[test]
fn embed_fragments_name_a_known_view() {
    use schedlab_scenario::link::{embed_fragment, EMBED_VIEWS};
    for v in EMBED_VIEWS {
        let url = format!("https://x.invalid/#{}", embed_fragment(v, "v1.abc"));
        assert_eq!(embed_view(&url).as_deref(), Some(v));
        assert_eq!(find_payload(&url), Some("v1.abc"));
    }
    assert_eq!(embed_fragment("gantt", "v1.abc"), "embed=comparison&v1.abc");
    assert_eq!(embed_fragment("", "v1.abc"), "embed=comparison&v1.abc");
}

/// Task groups in every form the format takes survive a link: a nested hierarchy, each way of
/// writing a weight, cpu.idle, cpu.max with a burst and its cgroup v1 aliases, autogroup
/// sessions with their nice, and each task group's cgroup.
#[test]
fn group_scenarios_round_trip_through_a_link() {
    let s = Scenario::from_json(
        r#"{
        "version": 1, "name": "groups", "cpus": 2, "hz": 250, "duration_ms": 100,
        "variants": ["cfs-6.1", "eevdf-6.12"],
        "autogroup": true,
        "cgroups": [
            {"path": "/db", "cpu.weight": 300, "cpu.max": "50000 100000", "cpu.max.burst": 10000},
            {"path": "/db/replica", "cpu.weight.nice": 5},
            {"path": "/batch", "cpu.idle": 1},
            {"path": "/v1", "cpu.shares": 2048, "cpu.cfs_quota_us": 20000, "cpu.cfs_period_us": 50000},
            {"path": "/open", "cpu.max": "max 200000"}
        ],
        "tasks": [
            {"name": "pg", "cgroup": "/db/replica", "program": [{"run": "forever"}]},
            {"name": "etl", "cgroup": "/batch", "count": 2, "program": [{"run": "forever"}]},
            {"name": "old", "cgroup": "/v1", "program": [{"run": "forever"}]},
            {"name": "vim", "session": 3, "autogroup_nice": 10, "program": [{"run": "forever"}]},
            {"name": "root", "program": [{"run": "forever"}]}
        ]
    }"#,
    )
    .unwrap();
    assert_eq!(s.cgroups.groups.len(), 5);
    let link = encode(&s, &LinkView::default());
    let back = decode(&format!("https://example.invalid/#{link}")).unwrap();
    assert_eq!(back.scenario, s);
    assert_eq!(back.scenario.cgroups, s.cgroups);
    assert_eq!(back.scenario.sim_config().cgroups, s.sim_config().cgroups);
    // And through the JSON the link carries, written back as it was written.
    let again = Scenario::from_json(&back.scenario.to_json()).unwrap();
    assert_eq!(again, s);
    assert!(back
        .scenario
        .to_json()
        .contains("\"cpu.cfs_quota_us\": 20000"));
}
