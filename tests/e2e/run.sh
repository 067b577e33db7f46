#!/usr/bin/env bash
# Serves dist/ (the release build) on 127.0.0.1 and runs the browser tests against it: the page
# at the server's root (page.test.mjs), and the same files as a static site under /schedlab/ of
# another server (site.test.mjs), as a project page would be served.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${SCHEDLAB_E2E_PORT:-8765}"
SITE_PORT="${SCHEDLAB_E2E_SITE_PORT:-8766}"
[ -f dist/index.html ] || { echo "e2e: dist/ is missing; run scripts/build-site.sh first" >&2; exit 1; }
site_root=$(mktemp -d /tmp/schedlab-site.XXXXXX)
cp -r dist "$site_root/schedlab"
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist >/tmp/schedlab-e2e-server.log 2>&1 &
server=$!
python3 -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$site_root" >/tmp/schedlab-e2e-site.log 2>&1 &
site=$!
trap 'kill "$server" "$site" 2>/dev/null || true; rm -rf "$site_root"' EXIT
for url in "http://127.0.0.1:$PORT/" "http://127.0.0.1:$SITE_PORT/schedlab/"; do
  for _ in $(seq 1 50); do
    curl -fsS "$url" >/dev/null 2>&1 && break
    sleep 0.1
  done
done
# Every preset's trace hashes from the native command line, for the determinism test: the page
# (wasm, in the browser's worker) must produce the same traces.
hashes="$site_root/native-hashes.json"
python3 - "$hashes" <<'PY'
import glob, json, os, subprocess, sys
out = {}
for path in sorted(glob.glob("scenarios/presets/*.json")):
    name = os.path.basename(path)[:-5]
    report = json.loads(subprocess.check_output(
        ["cargo", "run", "-q", "--locked", "-p", "schedlab-cli", "--",
         "run", "--preset", name, "--format", "json"]))
    out[name] = {v["variant"]: v["trace_hash"] for v in report["variants"]}
json.dump(out, open(sys.argv[1], "w"), indent=1)
PY
# The command line's answers the page's panels must give too: schedlab diff's first divergence
# and schedlab sweep's rows.
native="$site_root/native-cli.json"
python3 - "$native" <<'PY'
import json, re, subprocess, sys
def cli(*args):
    return subprocess.check_output(["cargo", "run", "-q", "--locked", "-p", "schedlab-cli", "--", *args], text=True)
diff = cli("diff", "--preset", "hackbench", "--variant", "eevdf-6.6", "--variant", "eevdf-6.6:NO_RUN_TO_PARITY")
at = re.search(r"^first divergence at ([0-9.]+) s", diff, re.M)
out = {"diff_hackbench": at.group(1)}
# schedlab sweep's rows, for the sweep panel.
out["sweep_sched_idle_csv"] = cli("sweep", "--preset", "sched-idle", "--param", "latency_ns=3000000..12000000:4", "--format", "csv")
json.dump(out, open(sys.argv[1], "w"), indent=1)
PY
cd tests/e2e
SCHEDLAB_URL="http://127.0.0.1:$PORT/" SCHEDLAB_SITE_URL="http://127.0.0.1:$SITE_PORT/schedlab/" \
  SCHEDLAB_NATIVE_HASHES="$hashes" SCHEDLAB_NATIVE_CLI="$native" \
  node --test --test-concurrency=1 page.test.mjs trace.test.mjs site.test.mjs
# The measuring scripts of README's "Speed", once on a small scenario so that they keep working
# (they must finish; their figures are printed, not judged).
node measure.mjs "http://127.0.0.1:$PORT/" ../../scenarios/sched-idle-pair.json
node measure-timeline.mjs "http://127.0.0.1:$PORT/" ../../scenarios/sched-idle-pair.json
