/* hogsleeper: a task that works RUN_US, sleeps SLEEP_US (nanosleep, 1 ns of timer slack) and
 * again, for SECONDS. "loop" (the default) works through a loop calibrated for its first
 * ~0.5 s (run it alone then); "cputime" spins until its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) has advanced RUN_US, and so calls into the scheduler
 * (task_sched_runtime -> update_curr) all the time it works. Prints the rounds it made.
 * Usage: hogsleeper RUN_US SLEEP_US SECONDS [loop|cputime] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static double now_us(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static volatile unsigned long sink;

static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	double run, sleep_us, secs;
	int cputime;
	if (argc < 4 || argc > 5 || (run = atof(argv[1])) <= 0 || run > 1e6 ||
	    (sleep_us = atof(argv[2])) <= 0 || sleep_us >= 1e6 || (secs = atof(argv[3])) <= 0 ||
	    (argc == 5 && strcmp(argv[4], "loop") && strcmp(argv[4], "cputime"))) {
		fprintf(stderr, "usage: hogsleeper RUN_US SLEEP_US SECONDS [loop|cputime]\n");
		return 2;
	}
	cputime = argc == 5 && !strcmp(argv[4], "cputime");
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	struct timespec d = {0, (long)(sleep_us * 1000)};
	unsigned long iters = 0;
	if (!cputime) {
		double a = now_us(CLOCK_MONOTONIC), per_us;
		work(1000000);
		a = now_us(CLOCK_MONOTONIC);
		work(20000000);
		per_us = 20000000 / (now_us(CLOCK_MONOTONIC) - a);
		iters = (unsigned long)(per_us * run);
	}
	double t0 = now_us(CLOCK_MONOTONIC);
	long rounds = 0;
	while (now_us(CLOCK_MONOTONIC) - t0 < secs * 1e6) {
		if (cputime) {
			double c = now_us(CLOCK_THREAD_CPUTIME_ID);
			while (now_us(CLOCK_THREAD_CPUTIME_ID) - c < run)
				;
		} else {
			work(iters);
		}
		nanosleep(&d, NULL);
		rounds++;
	}
	printf("rounds %ld\n", rounds);
	return 0;
}
