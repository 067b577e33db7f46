/* niprobe RUN_US SLEEP_US SECS: does a newly idle CPU pull? CPU 1 runs a blinker (RUN_US of
 * CPU, then a sleep of SLEEP_US); three floaters, allowed on both CPUs, share CPU 0, and one
 * that finds itself on CPU 1 pins itself to CPU 0 and widens again, so a pulled floater goes
 * back after 100 us of CPU. The floaters change their affinity only then: on this kernel a
 * running task whose affinity changes is switched out, which would keep every waiting floater
 * cache hot. Runs SECS seconds (schedlab fixture workload, docs/measurements.md). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static long long cpu_ns(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void spin_us(long us) { long long end = cpu_ns() + us * 1000LL; while (cpu_ns() < end) ; }
static void pin(int lo, int hi) { cpu_set_t s; CPU_ZERO(&s); for (int c = lo; c <= hi; c++) CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }
static long run_us, sleep_us;
static void *floater(void *a) { (void)a; pin(0, 1); for (;;) { if (sched_getcpu() == 1) { pin(0, 0); pin(0, 1); } spin_us(100); } return 0; }
static void *blinker(void *a) { (void)a; pin(1, 1); struct timespec s = { sleep_us / 1000000, (sleep_us % 1000000) * 1000 }; for (;;) { spin_us(run_us); nanosleep(&s, 0); } return 0; }
int main(int argc, char **argv) {
	run_us = argc > 1 ? atol(argv[1]) : 200; sleep_us = argc > 2 ? atol(argv[2]) : 1000;
	int secs = argc > 3 ? atoi(argv[3]) : 3;
	pthread_t t;
	pin(0, 0);
	for (int i = 0; i < 3; i++) pthread_create(&t, 0, floater, 0);
	pthread_create(&t, 0, blinker, 0);
	sleep(secs);
	return 0;
}
