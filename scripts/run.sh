#!/usr/bin/env bash
# Builds the playground page and serves it on http://127.0.0.1:8080/ (Ctrl-C stops). The first
# visit opens with a comparison already run. Extra arguments go to `trunk serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
echo "schedlab: serving on http://127.0.0.1:8080/"
exec trunk serve --release "$@"
