//! Links: a scenario and the view of it, carried in a URL fragment, so no server ever sees it.
//!
//! Format version 1: `v1.` followed by the base64url (no padding) of the raw-deflated JSON
//! `{"scenario": <canonical scenario>, "view": {…}}`. Every released version keeps decoding:
//! a checked-in link of each version is decoded by the tests. A link that cannot be decoded
//! says what is wrong; nothing here panics, and the decompressed size is capped.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{Map, Value};

use crate::Scenario;

/// The link format this crate writes.
pub const LINK_VERSION: u32 = 1;
/// Largest decompressed link payload (the scenario size limit).
const MAX_PAYLOAD: usize = crate::MAX_SCENARIO_BYTES;

/// What a link restores besides the scenario: which view, the timeline window, the selected
/// task and the timeline layout. Everything is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkView {
    /// `results`, `timeline`, `table`, `histogram` or `comparison`.
    pub view: Option<String>,
    /// Timeline window in ns.
    pub window_ns: Option<(u64, u64)>,
    /// Selected task (comm).
    pub selected: Option<String>,
    /// Timeline lanes per task.
    pub per_task: bool,
    /// The latency histograms' time axis: log (true), linear (false), or chosen from the data
    /// (absent). An optional key of v1: links without it keep opening.
    pub log_axis: Option<bool>,
    /// The sweep panel's parameter and figure (an optional key of v1: links without it keep
    /// opening, and a page that has no sweep panel ignores it).
    pub sweep: Option<LinkSweep>,
}

/// A sweep in a link: the parameter as `schedlab sweep --param` takes it and the figure
/// plotted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkSweep {
    /// `NAME=FROM..TO:N`, `NAME=A,B,C` or a feature.
    pub param: String,
    /// `switches`, `wakeup_p99`, `share:NAME`, …
    pub figure: String,
}

/// A decoded link.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// The scenario (validated).
    pub scenario: Scenario,
    /// The view.
    pub view: LinkView,
}

/// Why a link could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError(pub String);

impl core::fmt::Display for LinkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LinkError {}

/// Encodes a scenario and view as a link payload (`v1.…`, without the `#`).
pub fn encode(scenario: &Scenario, view: &LinkView) -> String {
    let mut v = Map::new();
    if let Some(x) = &view.view {
        v.insert("view".into(), x.clone().into());
    }
    if let Some((a, b)) = view.window_ns {
        v.insert("window_ns".into(), Value::Array(vec![a.into(), b.into()]));
    }
    if let Some(x) = &view.selected {
        v.insert("selected".into(), x.clone().into());
    }
    if let Some(log) = view.log_axis {
        v.insert("log_axis".into(), log.into());
    }
    if view.per_task {
        v.insert("per_task".into(), true.into());
    }
    if let Some(sw) = &view.sweep {
        let mut o = Map::new();
        o.insert("param".into(), sw.param.clone().into());
        o.insert("figure".into(), sw.figure.clone().into());
        v.insert("sweep".into(), Value::Object(o));
    }
    let mut doc = Map::new();
    doc.insert("scenario".into(), scenario.to_value());
    doc.insert("view".into(), Value::Object(v));
    let json = serde_json::to_vec(&Value::Object(doc)).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("v{LINK_VERSION}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Decodes a link payload, or a whole URL or fragment that contains one (`…#v1.…`,
/// `#embed=table&v1.…`).
pub fn decode(link: &str) -> Result<Link, LinkError> {
    let payload = find_payload(link).ok_or_else(|| {
        LinkError("this is not a schedlab link: no `v1.` scenario payload in its fragment".into())
    })?;
    let (ver, data) = payload.split_once('.').unwrap_or((payload, ""));
    match ver {
        "v1" => decode_v1(data),
        other => {
            // Versions count up from 1: a higher one comes from a newer schedlab, anything else
            // (v0, v01, vx) from no schedlab at all.
            let digits = other.get(1..).unwrap_or("");
            let newer = digits
                .parse::<u32>()
                .is_ok_and(|n| n > LINK_VERSION && !digits.starts_with('0'));
            Err(LinkError(if newer {
                format!("this link uses format {other}, which this schedlab does not read (it reads v1); a newer schedlab made it")
            } else {
                format!("this link's format `{other}` is not one schedlab ever wrote (it reads v1): the link is damaged")
            }))
        }
    }
}

/// The `vN.…` item of a URL's fragment (or of a bare payload).
pub fn find_payload(link: &str) -> Option<&str> {
    let frag = link.rsplit_once('#').map_or(link, |(_, f)| f);
    frag.split('&').map(str::trim).find(|item| {
        item.strip_prefix('v').is_some_and(|r| {
            r.split_once('.')
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

/// The views an embed can show: every variant's results side by side, the latency tables, the
/// histograms, the timeline.
pub const EMBED_VIEWS: [&str; 4] = ["comparison", "table", "histogram", "timeline"];

/// `view` if it is one of [`EMBED_VIEWS`], else the comparison.
pub fn embed_view_name(view: &str) -> &str {
    EMBED_VIEWS
        .iter()
        .find(|v| **v == view)
        .copied()
        .unwrap_or(EMBED_VIEWS[0])
}

/// The fragment (without `#`) that opens `payload` in embed mode showing `view`
/// (see [`embed_view_name`]).
pub fn embed_fragment(view: &str, payload: &str) -> String {
    format!("embed={}&{payload}", embed_view_name(view))
}

/// Whether the URL's fragment asks for embed mode, and which view (`embed` alone: the default).
pub fn embed_view(link: &str) -> Option<String> {
    let frag = link.rsplit_once('#').map_or("", |(_, f)| f);
    let query = link
        .split_once('?')
        .map_or("", |(_, q)| q.split('#').next().unwrap_or(""));
    frag.split('&')
        .chain(query.split('&'))
        .find_map(|item| match item.split_once('=') {
            Some(("embed", "1")) => Some(String::new()),
            Some(("embed", v)) => Some(v.to_string()),
            None if item == "embed" => Some(String::new()),
            _ => None,
        })
}

fn decode_v1(data: &str) -> Result<Link, LinkError> {
    let packed = URL_SAFE_NO_PAD
        .decode(data.trim_end_matches('='))
        .map_err(|e| {
            LinkError(format!(
                "the link is damaged (not base64url: {e}); was it cut short when it was copied?"
            ))
        })?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_PAYLOAD)
        .map_err(|_| LinkError("the link is damaged: its data does not decompress (or exceeds 1 MiB); was it cut short?".into()))?;
    let v: Value = serde_json::from_slice(&json)
        .map_err(|e| LinkError(format!("the link is damaged: its data is not JSON ({e})")))?;
    let Value::Object(mut o) = v else {
        return Err(LinkError(
            "the link is damaged: its data is not a JSON object".into(),
        ));
    };
    let sc = o
        .remove("scenario")
        .ok_or_else(|| LinkError("the link has no scenario".into()))?;
    let scenario = Scenario::from_json(&sc.to_string())
        .map_err(|e| LinkError(format!("the link's scenario is invalid: {e}")))?;
    let view = match o.remove("view") {
        Some(Value::Object(v)) => LinkView {
            view: v.get("view").and_then(Value::as_str).map(String::from),
            window_ns: v
                .get("window_ns")
                .and_then(Value::as_array)
                .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?))),
            selected: v.get("selected").and_then(Value::as_str).map(String::from),
            per_task: v.get("per_task").and_then(Value::as_bool).unwrap_or(false),
            log_axis: v.get("log_axis").and_then(Value::as_bool),
            sweep: v.get("sweep").and_then(|s| {
                Some(LinkSweep {
                    param: s.get("param")?.as_str()?.to_string(),
                    figure: s.get("figure")?.as_str()?.to_string(),
                })
            }),
        },
        _ => LinkView::default(),
    };
    Ok(Link { scenario, view })
}
