/* threads: HOGS CPU-loop threads and one periodic thread (RUN_US of CPU, then SLEEP_US
 * asleep) in one process, for SECONDS (schedlab fixture workload). Every thread has the
 * process's name: a recording tells them apart only by what they do. The periodic thread
 * runs a loop calibrated before the hogs start, not reads of its CPU clock: each such read
 * calls update_curr, and so emits a sched_stat_runtime event. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static long run_us = 1000, sleep_us = 9000;
static volatile unsigned long sink;
static unsigned long iters_per_ms;
static long long now_ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink++; }
static void *hog(void *a) { (void)a; for (;;) sink++; return 0; }
static void *periodic(void *a) {
	(void)a;
	unsigned long n = iters_per_ms * run_us / 1000;
	for (;;) {
		spin(n);
		struct timespec s = { sleep_us / 1000000, (sleep_us % 1000000) * 1000 };
		nanosleep(&s, 0);
	}
	return 0;
}
int main(int argc, char **argv) {
	int hogs = argc > 1 ? atoi(argv[1]) : 2;
	if (argc > 2) run_us = atol(argv[2]);
	if (argc > 3) sleep_us = atol(argv[3]);
	int secs = argc > 4 ? atoi(argv[4]) : 3;
	/* 100 ms of this thread's CPU time, alone: the loop's rate. */
	long long t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(10000000);
	long long dt = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	unsigned long n = 10000000;
	while (dt < 100000000LL) {
		n *= 2;
		t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		spin(n);
		dt = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	}
	iters_per_ms = (unsigned long)((double)n * 1e6 / (double)dt);
	pthread_t t;
	for (int i = 0; i < hogs; i++) pthread_create(&t, 0, hog, 0);
	pthread_create(&t, 0, periodic, 0);
	struct timespec d = { secs, 0 };
	nanosleep(&d, 0);
	return 0;
}
