/* threads: HOGS CPU-loop threads and one periodic thread (RUN_US of CPU, then SLEEP_US
 * asleep) in one process, for SECONDS (schedlab fixture workload). Every thread has the
 * process's name: a recording tells them apart only by what they do. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static long run_us = 1000, sleep_us = 9000;
static volatile unsigned long sink;
static long long now_ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void *hog(void *a) { (void)a; for (;;) sink++; return 0; }
static void *periodic(void *a) {
	(void)a;
	for (;;) {
		/* run_us of this thread's CPU time, not wall time */
		long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + run_us * 1000LL;
		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end) ;
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
	pthread_t t;
	for (int i = 0; i < hogs; i++) pthread_create(&t, 0, hog, 0);
	pthread_create(&t, 0, periodic, 0);
	struct timespec d = { secs, 0 };
	nanosleep(&d, 0);
	return 0;
}
