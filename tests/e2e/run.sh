#!/usr/bin/env bash
# Serves dist/ (the release build) on 127.0.0.1 and runs the browser tests against it.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${SCHEDLAB_E2E_PORT:-8765}"
[ -f dist/index.html ] || { echo "e2e: dist/ is missing; run trunk build --release first" >&2; exit 1; }
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist >/tmp/schedlab-e2e-server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
  curl -fsS "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break
  sleep 0.1
done
cd tests/e2e
SCHEDLAB_URL="http://127.0.0.1:$PORT/" node --test --test-concurrency=1 page.test.mjs
