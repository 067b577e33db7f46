#!/bin/sh
# A sleeper beside a CPU loop on one CPU: the sleeper (scripts/workloads/hogsleeper.c) works
# RUN_US and sleeps SLEEP_US, a nice-0 loop runs beside it, both pinned to CPU 1; the share of
# CPU 1 each gets over 3 s, read from /proc/PID/schedstat (no tracer). Each case runs twice,
# with the sleeper's work a calibrated loop ("loop") and, for two cases, spinning on its own
# CPU clock ("cputime", which calls update_curr at every read).
#
# Run with the build lock held and the machine otherwise idle:
#   flock /tmp/schedlab-build.lock sh scripts/measure-sleeper.sh [OUT]
# OUT defaults to tests/fixtures/real/sleeper.txt (the Xeon VM's fixtures); the file is
# written only once every run succeeded.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real/sleeper.txt}
[ "$(nproc)" -ge 2 ] || { echo "measure-sleeper: needs CPUs 0 and 1" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cc -O2 -Wall -o "$TMP/hogsleeper" "$HERE/workloads/hogsleeper.c"
printf 'int main(void){volatile unsigned long x=0;for(;;)x++;}\n' > "$TMP/loop.c"
cc -O2 -o "$TMP/loop" "$TMP/loop.c"
runtime() { awk '{print $1}' "/proc/$1/schedstat"; }
one() { # RUN SLEEP MODE: the sleeper alone for 1.5 s (its calibration), then the loop joins
	taskset -c 1 "$TMP/hogsleeper" "$1" "$2" 6 "$3" > /dev/null & s=$!
	sleep 1.5
	taskset -c 1 "$TMP/loop" & h=$!
	sleep 1
	a1=$(runtime $h); b1=$(runtime $s)
	sleep 3
	a2=$(runtime $h); b2=$(runtime $s)
	kill $h; wait $s || { echo "measure-sleeper: hogsleeper $* failed" >&2; exit 1; }
	wait $h 2>/dev/null || true
	echo "run_us $1 sleep_us $2 $3: sleeper_permille $(( (b2 - b1) * 1000 / ((a2 - a1) + (b2 - b1)) ))"
}
{
	echo "# sleeper beside a CPU loop on CPU 1 (scripts/measure-sleeper.sh), $(date -u +%FT%TZ)"
	echo "# kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "# cpuidle $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?')"
	for c in "100 50" "500 100" "1000 500" "2000 1000" "4000 1000" "300 1000"; do
		for i in 1 2; do one $c loop; done
	done
	for c in "1000 500" "2000 1000"; do
		for i in 1 2; do one $c cputime; done
	done
} > "$TMP/out"
mv "$TMP/out" "$OUT"
echo "measure-sleeper: wrote $OUT"
