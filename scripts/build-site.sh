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

# A strict Content-Security-Policy in index.html: scripts only from the site itself (plus Trunk's
# one inline loader, allowed by its hash, computed here because its text names hashed file
# names) and wasm compilation; the worker from a blob: URL (gloo-worker's loader shim, which
# fetches worker.js and its wasm from the site); style sheets only from the site, and style
# attributes (plotters measures chart labels with a styled span; an attribute runs no code); no
# other hosts. frame-ancestors cannot be set by a meta tag, so pages elsewhere may still embed
# schedlab, as the embed code intends.
python3 - dist/index.html <<'PY'
import base64, hashlib, re, sys
path = sys.argv[1]
html = open(path, encoding="utf-8").read()
scripts = re.findall(r"<script type=\"module\">(.*?)</script>", html, re.S)
if len(scripts) != 1:
    sys.exit(f"build-site: expected Trunk's one inline loader script in {path}, found {len(scripts)}")
digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
csp = ("default-src 'self'; "
       f"script-src 'self' 'wasm-unsafe-eval' 'sha256-{digest}'; "
       "style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'self'; "
       "frame-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'")
meta = f'<meta http-equiv="Content-Security-Policy" content="{csp}" />'
html, n = re.subn(r'(<meta charset="utf-8" />)', lambda m: m.group(1) + "\n    " + meta, html, count=1)
if n != 1:
    sys.exit(f"build-site: no <meta charset> in {path} to put the CSP after")
open(path, "w", encoding="utf-8").write(html)
PY
echo "build-site: dist/ is the site (public URL $public_url); copy it to any static host"
