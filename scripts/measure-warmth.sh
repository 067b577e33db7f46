#!/bin/sh
# Measure the cache-warmth cost (schedlab's SimConfig::cache, scenario key "cache") on this
# machine and keep the results in tests/fixtures/real/warmth.txt. Run on an otherwise idle
# machine, with nothing building:
#   flock /tmp/schedlab-build.lock sh scripts/measure-warmth.sh [OUTFILE]
# scripts/workloads/warmth.c says what each mode does. The working set is 256 KiB (one
# read-modify-write per 64-byte line): larger than the L1 and well inside the L2, a task's
# buffers and stack between two switches. The defaults (MEASURED_CACHE_COST) are the medians
# of three sweeps (refill_ns, hot_ns, cold_ns) and of three migration runs (migrate_ns).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../tests/fixtures/real/warmth.txt}
WS_KB=${WS_KB:-256}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -Wall -o "$TMP/warmth" "$HERE/workloads/warmth.c" -lm
hz() { # CONFIG_HZ from the kernel config if readable, else LOC interrupts/s on a busy CPU 1
	if [ -r /proc/config.gz ] && zcat /proc/config.gz | grep -q '^CONFIG_HZ='; then
		zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'
	else
		taskset -c 1 sh -c 'while :; do :; done' & p=$!
		a=$(awk '/LOC:/ {print $3}' /proc/interrupts); sleep 2
		b=$(awk '/LOC:/ {print $3}' /proc/interrupts); kill $p
		echo "$(( (b - a) / 2 )) (LOC interrupts/s on busy CPU 1)"
	fi
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
{
	echo "# Cache-warmth cost, scripts/measure-warmth.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "uname -a: $(uname -a)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); cpus: $(nproc)"
	echo "caches: $(lscpu | grep -i 'cache' | tr -s ' ' | tr '\n' ';')"
	echo "HZ: $(hz)"
	echo "working set: $WS_KB KiB; thrash buffer 16 MiB"
	for i in 1 2 3; do
		echo "## sweep $i: warmth sweep 0 $WS_KB"
		"$TMP/warmth" sweep 0 "$WS_KB" | tee "$TMP/sweep$i"
	done
	for i in 1 2 3; do
		echo "## migrate $i: warmth migrate 0 1 $WS_KB"
		"$TMP/warmth" migrate 0 1 "$WS_KB" | tee "$TMP/mig$i"
	done
	echo "## split: warmth split 0 1 $WS_KB"
	"$TMP/warmth" split 0 1 "$WS_KB"
	refill=$(cat "$TMP"/sweep? | awk '/^fit/ {print $3}' | median)
	hot=$(cat "$TMP"/sweep? | awk '/^fit/ {print $5}' | median)
	cold=$(cat "$TMP"/sweep? | awk '/^fit/ {print $7}' | median)
	mig=$(cat "$TMP"/mig? | awk '{printf "%.0f\n", $7}' | median)
	echo "## medians: refill_ns $refill migrate_ns $mig hot_ns $hot cold_ns $cold"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
tail -1 "$OUT"
