#!/usr/bin/env bash
# Installs what schedlab needs to build and test, only when it is missing: safe to run again,
# and fast (well under a second) when everything is present.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is not installed; install Rust (rustup) first" >&2
  exit 1
fi

if command -v rustup >/dev/null 2>&1; then
  # The simulation core must build for the browser.
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "setup: adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  installed=$(rustup component list --installed)
  for c in rustfmt clippy; do
    if ! grep -q "^$c" <<<"$installed"; then
      echo "setup: adding the $c component"
      rustup component add "$c"
    fi
  done
else
  echo "setup: rustup not found; assuming the wasm32 target, rustfmt and clippy are installed" >&2
fi
