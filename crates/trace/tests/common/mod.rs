//! Shared by the integration tests: the recorded fixtures.
#![allow(dead_code)]

use std::path::PathBuf;

use schedlab_trace::{import_reader, Import, Options};

/// The workloads recorded by `scripts/record-traces.sh`.
pub const WORKLOADS: [&str; 4] = ["hogs", "pipe", "periodic", "hackbench"];

/// `tests/fixtures/traces/NAME`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/traces")
        .join(name)
}

/// Imports a fixture (gzip or not) with the default options.
pub fn import(name: &str) -> Import {
    import_with(name, Options::default())
}

/// Imports a fixture (gzip or not) with `opts`.
pub fn import_with(name: &str, opts: Options) -> Import {
    let f = std::fs::File::open(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    import_reader(f, opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The decompressed text of a fixture.
pub fn text(name: &str) -> String {
    use std::io::Read;
    let f = std::fs::File::open(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(f)
        .read_to_string(&mut s)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    s
}
