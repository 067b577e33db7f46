#!/usr/bin/env bash
# Installs what schedlab needs, only when it is missing: safe to run again, and fast (well
# under a second) when everything is present. Versions are pinned; see the README for why.
#
#   scripts/setup.sh           everything: to build, serve and test (scripts/test.sh)
#   scripts/setup.sh --serve   only what building and serving the page needs (scripts/run.sh,
#                              scripts/build-site.sh): no rustfmt/clippy, no Chromium
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
case "${1:-}" in
  "") ;;
  --serve) mode=serve ;;
  *) echo "setup: unknown option \`$1\` (expected --serve or nothing)" >&2; exit 2 ;;
esac

TRUNK_VERSION=0.21.14          # 0.22 needs a newer rustc than this toolchain
WB_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-$(nproc)}"

say() { printf 'setup: %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1; then
  say "cargo is not installed; install Rust (rustup) first" >&2
  exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
  say "npm is not installed; install Node.js first (it brings binaryen's wasm-opt)" >&2
  exit 1
fi

if command -v rustup >/dev/null 2>&1; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$mode" = all ]; then
    installed=$(rustup component list --installed)
    for c in rustfmt clippy; do
      if ! grep -q "^$c" <<<"$installed"; then
        say "adding the $c component"
        rustup component add "$c"
      fi
    done
  fi
fi

# Trunk builds the page; it must never download tools itself (offline = true in Trunk.toml).
if ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (several minutes, once)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# wasm-bindgen's CLI must be exactly the library version in Cargo.lock. Its own lockfile
# names a crate version the registry mirror may lack, so fall back to an unlocked install.
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WB_VERSION"; then
  say "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked 2>/dev/null ||
    cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# The fuzz targets (fuzz/, scripts/fuzz.sh; test.sh runs each for a few seconds) need a
# nightly toolchain (libFuzzer's instrumentation) and cargo-fuzz; the project itself builds
# on stable.
# The nightly is pinned (scripts/fuzz.sh reads the same name) so a fuzz run is reproducible.
CARGO_FUZZ_VERSION=0.13.2
FUZZ_TOOLCHAIN=nightly-2026-05-19
if [ "$mode" = all ] && command -v rustup >/dev/null 2>&1; then
  if ! rustup run "$FUZZ_TOOLCHAIN" rustc --version >/dev/null 2>&1; then
    say "installing the $FUZZ_TOOLCHAIN toolchain (minimal profile) for the fuzz targets"
    rustup toolchain install "$FUZZ_TOOLCHAIN" --profile minimal
  fi
  if ! cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $CARGO_FUZZ_VERSION"; then
    say "installing cargo-fuzz $CARGO_FUZZ_VERSION (about a minute, once)"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
fi

# Browser tests drive Debian's Chromium (tools that download their own browser cannot work here).
if [ "$mode" = all ] && { ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; }; then
  say "installing chromium and chromium-driver"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver
fi

# valgrind: scripts/bench-instructions.sh counts instructions with callgrind (no PMU needed).
if [ "$mode" = all ] && ! command -v valgrind >/dev/null 2>&1; then
  say "installing valgrind"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends valgrind
fi

# binaryen's wasm-opt (the page's release build) and playwright-core (drives Chromium in the
# browser tests), pinned in tests/e2e/package-lock.json. Neither downloads anything else.
if [ ! -d tests/e2e/node_modules/playwright-core ] || [ ! -x tests/e2e/node_modules/.bin/wasm-opt ]; then
  say "installing the npm packages of tests/e2e (npm ci)"
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
