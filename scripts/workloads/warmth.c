/* The cache-warmth cost on this machine (schedlab's SimConfig::cache: refill_ns, migrate_ns,
 * hot_ns, cold_ns; docs/measurements.md says how they are derived).
 *
 *   warmth sweep CPU WS_KB        a ping-pong pair pinned to CPU over two pipes. Each turn,
 *                                 ping touches its working set (WS_KB, one read-modify-write
 *                                 per 64-byte line, timed inside ping with CLOCK_MONOTONIC),
 *                                 then wakes pong and waits for it; pong runs F ns and
 *                                 replies. Pong is either a quiet neighbour (spins on
 *                                 registers) or a cache-thrashing one (streams writes over a
 *                                 16 MiB buffer, 4x the L2). For F in a sweep, prints ping's
 *                                 mean touch time with each neighbour; the difference is what
 *                                 the thrashing neighbour's F ns cost ping's next run. Then
 *                                 fits the ramp: 0 up to hot_ns of foreign run time, refill_ns
 *                                 from cold_ns on, linear between (least squares over a grid).
 *   warmth migrate CPU0 CPU1 WS_KB one task touches its working set, then moves itself
 *                                 (sched_setaffinity) to the other CPU and touches it again,
 *                                 against the same loop re-pinned to the CPU it is on: the
 *                                 touch-time difference is the migration's refill.
 *   warmth split CPU0 CPU1 WS_KB  the pair of `sweep` (quiet neighbour, F = 0) split across the
 *                                 two CPUs: ping's touch time and the round trip (reference:
 *                                 each side keeps its own CPU's cache warm).
 * Times are wall time (CLOCK_MONOTONIC) on an otherwise idle machine. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <sys/wait.h>

#define LINE 64
#define THRASH_BYTES (16u << 20)

static void pin(int cpu) {
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s)) { perror("sched_setaffinity"); exit(1); }
}
static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}
static volatile unsigned char *ws;
static size_t ws_bytes;
/* One read-modify-write per line of the working set; returns ns. */
static double touch(void) {
	double t0 = now();
	for (size_t i = 0; i < ws_bytes; i += LINE) ws[i]++;
	return now() - t0;
}
static volatile unsigned sink;
/* The neighbour's F ns: spinning on registers or streaming over the thrash buffer. */
static void neighbour(unsigned char *buf, double f, int thrash) {
	static size_t pos;
	double end = now() + f;
	unsigned x = 1;
	do {
		for (int k = 0; k < 64; k++) {
			if (thrash) {
				buf[pos] = (unsigned char)k;
				pos += LINE;
				if (pos >= THRASH_BYTES) pos = 0;
			} else {
				x = x * 1103515245u + 12345u;
			}
		}
	} while (now() < end);
	sink = x;
}
/* The pair on cpu_ping / cpu_pong; returns ping's mean touch time, sets *rt to the round trip. */
static double pair(int cpu_ping, int cpu_pong, double f, int thrash, long n, double *rt) {
	int a2b[2], b2a[2], res[2];
	char b = 0;
	if (pipe(a2b) || pipe(b2a) || pipe(res)) { perror("pipe"); exit(1); }
	pid_t c = fork();
	if (c == 0) {
		unsigned char *buf = malloc(THRASH_BYTES);
		memset(buf, 1, THRASH_BYTES);
		pin(cpu_pong);
		for (long i = 0; i < n + 100; i++) {
			if (read(a2b[0], &b, 1) != 1) _exit(1);
			neighbour(buf, f, thrash);
			if (write(b2a[1], &b, 1) != 1) _exit(1);
		}
		_exit(0);
	}
	pin(cpu_ping);
	usleep(10000);
	double sum = 0, t0 = 0;
	for (long i = 0; i < n + 100; i++) {
		if (i == 100) t0 = now(); /* warm-up turns are not counted */
		double d = touch();
		if (i >= 100) sum += d;
		if (write(a2b[1], &b, 1) != 1) exit(1);
		if (read(b2a[0], &b, 1) != 1) exit(1);
	}
	*rt = (now() - t0) / n;
	waitpid(c, 0, 0);
	close(a2b[0]); close(a2b[1]); close(b2a[0]); close(b2a[1]); close(res[0]); close(res[1]);
	return sum / n;
}
static double ramp(double f, double refill, double hot, double cold) {
	if (f <= hot) return 0;
	if (f >= cold) return refill;
	return refill * (f - hot) / (cold - hot);
}
int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: warmth sweep CPU WS_KB | migrate CPU0 CPU1 WS_KB | split CPU0 CPU1 WS_KB\n");
		return 2;
	}
	ws_bytes = (size_t)atol(argv[argc - 1]) << 10;
	ws = malloc(ws_bytes);
	memset((void *)ws, 0, ws_bytes);
	if (!strcmp(argv[1], "sweep")) {
		int cpu = atoi(argv[2]);
		static const double fs_us[] = {0, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512};
		enum { NF = sizeof fs_us / sizeof fs_us[0] };
		double fx[NF], ex[NF];
		printf("# F_ns quiet_touch_ns thrash_touch_ns extra_ns quiet_rt_ns thrash_rt_ns\n");
		for (int i = 0; i < NF; i++) {
			double f = fs_us[i] * 1000, rq, rtq;
			long n = (long)(4e8 / (f + 20000)); /* ~0.4 s per point and neighbour */
			double q = pair(cpu, cpu, f, 0, n, &rq);
			double t = pair(cpu, cpu, f, 1, n, &rtq);
			fx[i] = f;
			ex[i] = t - q;
			printf("%.0f %.1f %.1f %.1f %.0f %.0f\n", f, q, t, t - q, rq, rtq);
		}
		/* refill: the plateau, the mean extra of the last three points; then hot and cold
		 * by least squares on a 1 us grid */
		double refill = (ex[NF - 1] + ex[NF - 2] + ex[NF - 3]) / 3;
		double best = -1, bh = 0, bc = 0;
		for (double h = 0; h < 400e3; h += 1000)
			for (double c = h + 1000; c <= 512e3; c += 1000) {
				double e = 0;
				for (int i = 0; i < NF; i++) {
					double d = ex[i] - ramp(fx[i], refill, h, c);
					e += d * d;
				}
				if (best < 0 || e < best) { best = e; bh = h; bc = c; }
			}
		printf("fit refill_ns %.0f hot_ns %.0f cold_ns %.0f rms_ns %.1f\n", refill, bh, bc,
		       sqrt(best / NF));
		return 0;
	}
	int c0 = atoi(argv[2]), c1 = atoi(argv[3]);
	if (!strcmp(argv[1], "migrate")) {
		long n = 20000;
		double stay = 0, move = 0;
		pin(c0);
		for (int i = 0; i < 100; i++) touch();
		for (long i = 0; i < n; i++) {
			pin(c0); /* already there: no migration */
			stay += touch();
		}
		for (long i = 0; i < n; i++) {
			pin(i & 1 ? c0 : c1);
			move += touch();
		}
		printf("migrate stay_touch_ns %.1f move_touch_ns %.1f migrate_ns %.1f\n", stay / n,
		       move / n, (move - stay) / n);
		return 0;
	}
	if (!strcmp(argv[1], "split")) {
		double rt, rt1;
		double same = pair(c0, c0, 0, 0, 20000, &rt1);
		double t = pair(c0, c1, 0, 0, 20000, &rt);
		printf("split touch_ns %.1f rt_ns %.0f (same CPU: touch_ns %.1f rt_ns %.0f)\n", t, rt,
		       same, rt1);
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", argv[1]);
	return 2;
}
