#!/usr/bin/env bash
# Builds the page as a static site in dist/, for any static web host.
#
#   scripts/build-site.sh [PUBLIC_URL]
#
# PUBLIC_URL is where the site will live (Trunk's --public-url). The default, `./`, makes every
# address in the site relative, so dist/ works from any host at any sub-path
# (https://example.org/, https://example.org/tools/schedlab/, a file server on a laptop).
# Give an absolute path or URL (/schedlab/, https://example.org/schedlab/) to pin it instead.
# The site is a plain release build: no live-reload client, no server logic.
set -euo pipefail
cd "$(dirname "$0")/.."

public_url="${1:-./}"
if [ $# -gt 1 ]; then
  echo "build-site: one argument at most: the public URL (got $#)" >&2
  exit 2
fi

scripts/setup.sh --serve
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"   # binaryen's wasm-opt
export TRUNK_SKIP_VERSION_CHECK=true
trunk build --release --public-url "$public_url"
echo "build-site: dist/ is the site (public URL $public_url); copy it to any static host"
