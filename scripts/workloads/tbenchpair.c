/* A tbench-like asymmetric pipe pair (schedlab preset tbench-stacked, seed 004):
 *
 *   tbenchpair SECONDS CPU_CLIENT CPU_SERVER [WS_KB]
 *
 * The client works 48 us, writes a request, works 18 us more, then reads the reply; the server
 * reads the request, works 52 us and writes the reply. "Work" is passes over a private
 * working set (WS_KB, default 256 KiB, one read-modify-write per 64-byte line), calibrated
 * alone and warm at the start, so a run that finds its data displaced takes longer, as tbench's
 * would. Both processes pin themselves (same CPU = stacked). After SECONDS each prints its CPU
 * time (getrusage), round trips, and voluntary/involuntary switches; the client's involuntary
 * switches per round trip are the share of requests at which the woken server preempted it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define LINE 64
static volatile unsigned char *ws;
static size_t ws_bytes, pos;
static double lines_per_us;

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
static void lines(long n) {
	while (n-- > 0) {
		ws[pos]++;
		pos += LINE;
		if (pos >= ws_bytes) pos = 0;
	}
}
static void work(double us) { lines((long)(us * lines_per_us)); }
static void report(const char *who, long trips) {
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	double cpu = r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
	printf("%s cpu_s %.4f round_trips %ld nvcsw %ld nivcsw %ld\n", who, cpu, trips, r.ru_nvcsw,
	       r.ru_nivcsw);
	fflush(stdout);
}
int main(int argc, char **argv) {
	if (argc < 4) { fprintf(stderr, "usage: tbenchpair SECONDS CPU_CLIENT CPU_SERVER [WS_KB]\n"); return 2; }
	double secs = atof(argv[1]);
	int cc = atoi(argv[2]), cs = atoi(argv[3]);
	ws_bytes = (size_t)(argc > 4 ? atol(argv[4]) : 256) << 10;
	ws = malloc(ws_bytes);
	memset((void *)ws, 0, ws_bytes);
	pin(cc);
	/* calibrate warm, alone: the best of 20 passes of 1 ms worth of lines */
	long n = 1 << 16;
	double best = 1e18;
	for (int i = 0; i < 20; i++) {
		double t0 = now();
		lines(n);
		double d = now() - t0;
		if (d < best) best = d;
	}
	lines_per_us = n / (best / 1000);
	int a2b[2], b2a[2];
	char b = 0, stop = 0;
	if (pipe(a2b) || pipe(b2a)) { perror("pipe"); return 1; }
	pid_t c = fork();
	if (c == 0) {
		pin(cs);
		long trips = 0;
		for (;;) {
			if (read(a2b[0], &b, 1) != 1) _exit(1);
			if (b) break;
			work(52);
			trips++;
			if (write(b2a[1], &b, 1) != 1) _exit(1);
		}
		report("server", trips);
		_exit(0);
	}
	usleep(10000);
	long trips = 0;
	double end = now() + secs * 1e9;
	while (now() < end) {
		work(48);
		if (write(a2b[1], &b, 1) != 1) return 1;
		work(18);
		if (read(b2a[0], &b, 1) != 1) return 1;
		trips++;
	}
	stop = 1;
	if (write(a2b[1], &stop, 1) != 1) return 1;
	waitpid(c, 0, 0);
	printf("calibration lines_per_us %.1f\n", lines_per_us);
	report("client", trips);
	return 0;
}
