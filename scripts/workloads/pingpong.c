/* pingpong: two processes hand one byte back and forth over two pipes for SECONDS seconds;
 * the parent prints round trips per second. Optional CPU pinning: pingpong SECONDS [CPU_A CPU_B]. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static void pin(int cpu) { if (cpu < 0) return; cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	int a = argc > 3 ? atoi(argv[2]) : -1, b = argc > 3 ? atoi(argv[3]) : -1;
	int p2c[2], c2p[2]; char x = 0;
	if (pipe(p2c) || pipe(c2p)) return 1;
	pid_t child = fork();
	if (child == 0) { pin(b); for (;;) { if (read(p2c[0], &x, 1) != 1) _exit(0); if (write(c2p[1], &x, 1) != 1) _exit(0); } }
	pin(a);
	struct timespec t0, t; clock_gettime(CLOCK_MONOTONIC, &t0);
	long n = 0; double el;
	do {
		for (int i = 0; i < 1000; i++) { if (write(p2c[1], &x, 1) != 1 || read(c2p[0], &x, 1) != 1) return 1; }
		n += 1000; clock_gettime(CLOCK_MONOTONIC, &t);
		el = (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
	} while (el < secs);
	kill(child, SIGKILL);
	printf("round_trips %ld seconds %.3f rate_per_s %.0f\n", n, el, n / el);
	return 0;
}
