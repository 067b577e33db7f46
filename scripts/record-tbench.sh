#!/bin/sh
# The real kernel's split of a tbench-like asymmetric pair stacked on one CPU (seed 004,
# preset tbench-stacked), kept in tests/fixtures/real/warmth-tbench.txt. Run as root on an
# otherwise idle machine, with nothing building:
#   flock /tmp/schedlab-build.lock sh scripts/record-tbench.sh [OUTFILE]
# scripts/workloads/tbenchpair.c says what the pair does. Each run prints both sides' CPU time,
# round trips and switches; the client's involuntary switches per round trip are the share of
# requests at which the woken server preempted it. With a writable
# /sys/kernel/debug/sched/features the stacked runs are repeated with NO_WAKEUP_PREEMPTION
# (and the feature is restored after).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real/warmth-tbench.txt}
SECS=${SECS:-3}
TMP=$(mktemp -d)
F=/sys/kernel/debug/sched/features
restore() { [ -n "${RESTORE:-}" ] && echo "$RESTORE" > "$F" 2>/dev/null || true; rm -rf "$TMP"; }
trap restore EXIT
gcc -O2 -Wall -o "$TMP/tbenchpair" "$HERE/workloads/tbenchpair.c"
split() { awk '/^client/ {c=$3; t=$5; iv=$9} /^server/ {s=$3} END {printf "split client %.1f %% server %.1f %%; server preempted the client at %.1f %% of round trips; round trip %.1f us\n", 100*c/(c+s), 100*s/(c+s), 100*iv/t, 1e6*'"$SECS"'/t}'; }
runs() { # label cpu_client cpu_server
	for i in 1 2 3; do
		echo "## $1 run $i: tbenchpair $SECS $2 $3 256"
		"$TMP/tbenchpair" "$SECS" "$2" "$3" 256 | tee "$TMP/r"
		split < "$TMP/r"
	done
}
{
	echo "# tbench-like pair, scripts/record-tbench.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "uname -a: $(uname -a)"
	echo "cpus: $(nproc); HZ: $(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')"
	echo "preempt: $(cat /sys/kernel/debug/sched/preempt 2>&1 | head -1)"
	echo "features: $(cat "$F" 2>&1 | head -1)"
	runs stacked 1 1
	runs cross 0 1
	if [ -w "$F" ] && grep -q WAKEUP_PREEMPTION "$F" 2>/dev/null && echo NO_WAKEUP_PREEMPTION > "$F" 2>/dev/null; then
		RESTORE=WAKEUP_PREEMPTION
		runs "stacked NO_WAKEUP_PREEMPTION" 1 1
		echo WAKEUP_PREEMPTION > "$F"; RESTORE=
	else
		echo "## NO_WAKEUP_PREEMPTION not recorded: $F is not writable here"
	fi
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
grep '^split\|^##' "$OUT"
