#!/usr/bin/env bash
# Checks the README's main command as a new user meets it: clones this repository's HEAD into a
# temporary directory (no target/, no dist/, no node_modules/), starts its scripts/run.sh in the
# background on a free port, waits until the page answers, checks that the page, the app's wasm
# and the worker load, and stops it by its process group. Run by scripts/test.sh.
#
# Compiled dependencies are reused through CARGO_TARGET_DIR when it is set (the clone gets no
# target/ either way); nothing else from this checkout is used, only the installed tools.
# SCHEDLAB_RUN_TIMEOUT (seconds, default 1200) bounds the wait for the first page.
set -euo pipefail
cd "$(dirname "$0")/.."

timeout_s="${SCHEDLAB_RUN_TIMEOUT:-1200}"
say() { printf 'check-run: %s\n' "$*"; }
fail() { say "FAILED: $*" >&2; [ -f "${log:-}" ] && { echo "--- last lines of run.sh's output:" >&2; tail -n 40 "$log" >&2; }; exit 1; }

# A process is alive while it exists and is not a zombie waiting to be reaped.
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }

work=$(mktemp -d /tmp/schedlab-clone.XXXXXX)
log="$work/run.log"
pgid=""
cleanup() {
  if [ -n "$pgid" ]; then kill -TERM -- "-$pgid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

head=$(git rev-parse HEAD)
git clone --quiet --no-checkout "$PWD" "$work/schedlab"
git -C "$work/schedlab" checkout --quiet --detach "$head"
for d in target dist tests/e2e/node_modules; do
  [ ! -e "$work/schedlab/$d" ] || fail "the clone has $d/"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port/"
say "clone of $head in $work/schedlab; scripts/run.sh --port $port"

# setsid: run.sh leads a process group of its own, so it can be stopped with everything it started.
(cd "$work/schedlab" && exec setsid ./scripts/run.sh --port "$port" </dev/null >"$log" 2>&1) &
pgid=$!
start=$(date +%s)
until grep -q "serving on $url" "$log" 2>/dev/null; do
  alive "$pgid" || fail "run.sh exited before serving"
  [ $(( $(date +%s) - start )) -lt "$timeout_s" ] || fail "nothing served within ${timeout_s} s"
  sleep 2
done
say "serving after $(( $(date +%s) - start )) s"

# fetch PATH → the file in $work/got, the content type on stdout; fails unless HTTP 200.
fetch() {
  local out
  out=$(curl -sS -o "$work/got" -w '%{http_code} %{content_type}' "$url$1") || fail "GET /$1: curl failed"
  [ "${out%% *}" = 200 ] || fail "GET /$1: HTTP ${out%% *}"
  echo "${out#* }"
}
wasm_magic() { [ "$(head -c 4 "$work/got" | od -An -tx1 | tr -d ' \n')" = 0061736d ] || fail "/$1 is not WebAssembly"; }

type=$(fetch "")
[[ "$type" == text/html* ]] || fail "/ is $type, not text/html"
grep -q '<script type="module"' "$work/got" || fail "index.html loads no module"
app_wasm=$(grep -o 'app-[0-9a-f]*_bg\.wasm' "$work/got" | head -n 1)
[ -n "$app_wasm" ] || fail "index.html names no app-…_bg.wasm"
cp "$work/got" "$work/index.html"
type=$(fetch "$app_wasm")
[ "$type" = application/wasm ] || fail "/$app_wasm is $type, not application/wasm"
wasm_magic "$app_wasm"
type=$(fetch worker.js)
[[ "$type" == *javascript* ]] || fail "/worker.js is $type, not JavaScript"
grep -q 'wasm_bindgen' "$work/got" || fail "/worker.js is not the wasm-bindgen worker"
type=$(fetch worker_bg.wasm)
[ "$type" = application/wasm ] || fail "/worker_bg.wasm is $type, not application/wasm"
wasm_magic worker_bg.wasm
say "index.html, $app_wasm, worker.js and worker_bg.wasm load"

kill -TERM -- "-$pgid"
for _ in $(seq 1 100); do
  alive "$pgid" || break
  sleep 0.2
done
alive "$pgid" && fail "run.sh did not stop within 20 s of SIGTERM"
wait "$pgid" 2>/dev/null || true
pgid=""
sleep 0.5
[ "$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)" = 000 ] || fail "the page still answers after run.sh stopped"
say "stopped; the main command works from a clean clone"
