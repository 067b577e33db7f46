#!/usr/bin/env bash
# Builds the playground page and serves it on http://127.0.0.1:8080/ until Ctrl-C. The first
# visit opens with a comparison already run; editing the sources rebuilds and reloads it.
#
#   scripts/run.sh [--port N] [more trunk serve options]     (or SCHEDLAB_PORT=N)
#
# "serving on …" is printed once the page answers. The first run installs the build tools
# (scripts/setup.sh --serve) and builds everything; later runs start in well under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${SCHEDLAB_PORT:-8080}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || { echo "run: --port needs a number" >&2; exit 2; }; port="$2"; shift 2 ;;
    --port=*) port="${1#--port=}"; shift ;;
    *) extra+=("$1"); shift ;;
  esac
done
case "$port" in
  ''|*[!0-9]*) echo "run: the port must be a number, not \`$port\`" >&2; exit 2 ;;
esac
url="http://127.0.0.1:$port/"

# A process is alive while it exists and is not a zombie waiting to be reaped.
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" 2>/dev/null || true; }
if [ "$(status)" != 000 ]; then
  echo "run: something already answers on $url; stop it or pass --port N" >&2
  exit 1
fi

scripts/setup.sh --serve
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"   # binaryen's wasm-opt
export TRUNK_SKIP_VERSION_CHECK=true

# Trunk runs in a session of its own, so that stopping it also stops the cargo build it may be
# running; this script's trap does that on Ctrl-C (SIGINT), SIGTERM and exit.
setsid trunk serve --release --port "$port" ${extra[@]+"${extra[@]}"} &
trunk=$!
stop() {
  trap - INT TERM EXIT
  kill -TERM -- "-$trunk" 2>/dev/null || true
  wait "$trunk" 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

# Trunk starts its server after the first build: until then nothing answers (000). A page that
# answers with anything but 200 means the first build failed.
while :; do
  code=$(status)
  [ "$code" = 200 ] && break
  if ! alive "$trunk"; then
    wait "$trunk" && rc=0 || rc=$?
    echo "run: trunk serve stopped (status $rc) before the page was served" >&2
    exit 1
  fi
  if [ "$code" != 000 ]; then
    echo "run: the page answers $code instead of 200: the first build failed (see above)" >&2
    exit 1
  fi
  sleep 1
done
echo "schedlab: serving on $url (Ctrl-C stops)"
wait "$trunk"
