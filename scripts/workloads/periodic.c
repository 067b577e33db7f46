/* periodic: run RUN_US of CPU, then sleep SLEEP_US, forever (schedlab fixture workload). */
#include <stdlib.h>
#include <time.h>
static long long now_ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
	long run_us = argc > 1 ? atol(argv[1]) : 1000, sleep_us = argc > 2 ? atol(argv[2]) : 9000;
	for (;;) {
		/* run_us of this thread's CPU time, not wall time */
		long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + run_us * 1000LL;
		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end) ;
		struct timespec s = { sleep_us / 1000000, (sleep_us % 1000000) * 1000 };
		nanosleep(&s, 0);
	}
}
