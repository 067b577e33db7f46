/* ipiwake: how long a write() that wakes a partner on the other CPU takes, and when the partner
 * runs. The writer is pinned to CPU 0, the partner to CPU 1, blocked in a pipe read; with a
 * nice level, a CPU loop at that nice shares CPU 1, so the partner's wakeup preempts a busy CPU
 * (the reschedule IPI); with "idle" CPU 1 is idle. Each of N rounds sleeps 500 µs, writes, and
 * waits for the partner's answer, which carries the time the partner ran.
 * Prints p10/p50/p90 of the write() and of the time from the write's start to the partner's run.
 * Usage: ipiwake idle|NICE [N]   (e.g. ipiwake 19 2000; ipiwake idle 2000). The children die
 * with the parent (PR_SET_PDEATHSIG). Needs CPUs 0 and 1. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
static pid_t kids[2] = {-1, -1};
static void reap(void) { for (int i = 0; i < 2; i++) if (kids[i] > 0) kill(kids[i], SIGKILL); }
static void die(const char *what) { perror(what); reap(); exit(1); }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); if (sched_setaffinity(0, sizeof s, &s)) die("sched_setaffinity"); }
static void child(void) { if (prctl(PR_SET_PDEATHSIG, SIGKILL)) _exit(1); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
	if (argc < 2) { fprintf(stderr, "usage: ipiwake idle|NICE [N]\n"); return 2; }
	int idle = strcmp(argv[1], "idle") == 0;
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 10 || n > 100000) { fprintf(stderr, "ipiwake: N from 10 to 100000\n"); return 2; }
	if (!idle) {
		int nice = atoi(argv[1]);
		kids[0] = fork();
		if (kids[0] < 0) die("fork");
		if (kids[0] == 0) { child(); pin(1); setpriority(PRIO_PROCESS, 0, nice); for (;;) ; }
	}
	int a[2], b[2];
	if (pipe(a) || pipe(b)) die("pipe");
	kids[1] = fork();
	if (kids[1] < 0) die("fork");
	if (kids[1] == 0) { child(); pin(1); double t; for (;;) { if (read(a[0], &t, 8) != 8) _exit(0); t = now(); if (write(b[1], &t, 8) != 8) _exit(0); } }
	pin(0);
	usleep(100000);
	double *run = calloc(n, 8), *wr = calloc(n, 8);
	if (!run || !wr) die("calloc");
	for (int i = 0; i < n; i++) {
		usleep(500);
		double t0 = now(), tb;
		if (write(a[1], &t0, 8) != 8) die("write");
		double t1 = now();
		if (read(b[0], &tb, 8) != 8) die("read");
		run[i] = tb - t0;
		wr[i] = t1 - t0;
	}
	qsort(run, n, 8, cmp);
	qsort(wr, n, 8, cmp);
	printf("%s: write() p10 %.1f p50 %.1f p90 %.1f us; partner runs after the write began p10 %.1f p50 %.1f p90 %.1f us\n",
	       idle ? "idle CPU" : "busy CPU", wr[n / 10], wr[n / 2], wr[n * 9 / 10], run[n / 10], run[n / 2], run[n * 9 / 10]);
	reap();
	return 0;
}
