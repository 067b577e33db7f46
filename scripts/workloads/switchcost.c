/* The CPU cost of a context switch and of a wakeup on this machine (schedlab's
 * switch_cost_ns and wakeup_cost_ns; docs/measurements.md says how they are derived).
 *
 *   switchcost alone N CPU      one task, pinned: N x { write 1 byte to a pipe; read it back }
 *   switchcost pair N CPU       two tasks pinned to one CPU ping-pong N round trips over two
 *                               pipes: each round trip is the alone loop's work twice plus two
 *                               wakeups and two switches
 *   switchcost wake N CPU0 CPU1 as pair, the partner on another CPU; times the waker's write()
 *                               that wakes the blocked partner, against a write() nobody waits on
 *   switchcost busy N CPU0 CPU1 as wake, but CPU1 is busy: a SCHED_FIFO task there spins 900 us
 *                               and sleeps 100 us in turn, so the partner is woken onto a CPU
 *                               whose task it cannot preempt (no IPI: it is enqueued from CPU0)
 *                               and runs in the gaps; the waker waits 150 us after each reply
 *                               so that its write finds the hog running (needs root)
 *   switchcost local N CPU      both on one CPU, the partner SCHED_IDLE so that it cannot preempt
 *                               the waker: the timed write() does the whole local wakeup (the
 *                               enqueue and the preemption check) and returns. Against a write()
 *                               nobody waits on, timed the same way: each timed write follows a
 *                               30 us sleep (in which the partner goes back to its read()).
 *                               Needs no root.
 *   switchcost spread N CPU     the alone loop, each iteration timed on its own: the spread of a
 *                               write + read's time (percentiles, N >= 100; the clock's own cost
 *                               is in every figure, an interrupt in one iteration is in the
 *                               tail), which fixed per-message costs in a model lack
 * Prints ns per iteration (wall, CLOCK_MONOTONIC) and, for wake, busy and local, the mean
 * write() times (local: and their difference). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

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
static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
	if (argc < 4) { fprintf(stderr, "usage: switchcost alone|pair|wake|busy|local|spread N CPU [CPU1]\n"); return 2; }
	long n = atol(argv[2]);
	int cpu = atoi(argv[3]);
	int cpu1 = argc > 4 ? atoi(argv[4]) : cpu;
	char b = 0;
	int a2b[2], b2a[2];
	if (pipe(a2b) || pipe(b2a)) { perror("pipe"); return 1; }
	if (!strcmp(argv[1], "alone")) {
		pin(cpu);
		double t0 = now();
		for (long i = 0; i < n; i++) {
			if (write(a2b[1], &b, 1) != 1 || read(a2b[0], &b, 1) != 1) return 1;
		}
		printf("alone %.1f ns/iter\n", (now() - t0) / n);
		return 0;
	}
	if (!strcmp(argv[1], "spread")) {
		if (n < 100) { fprintf(stderr, "spread: N of at least 100\n"); return 2; }
		double *d = malloc(sizeof *d * n);
		if (!d) { perror("malloc"); return 1; }
		pin(cpu);
		for (long i = 0; i < 1000; i++)
			if (write(a2b[1], &b, 1) != 1 || read(a2b[0], &b, 1) != 1) return 1;
		for (long i = 0; i < n; i++) {
			double t0 = now();
			if (write(a2b[1], &b, 1) != 1 || read(a2b[0], &b, 1) != 1) return 1;
			d[i] = now() - t0;
		}
		qsort(d, n, sizeof *d, cmp_double);
		printf("spread p1 %.0f p10 %.0f p50 %.0f p90 %.0f p99 %.0f ns/iter\n", d[n / 100],
		       d[n / 10], d[n / 2], d[9 * n / 10], d[99 * n / 100]);
		return 0;
	}
	if (!strcmp(argv[1], "local")) {
		int spare[2];
		if (pipe(spare)) { perror("pipe"); return 1; }
		pin(cpu);
		pid_t c = fork();
		if (c == 0) {
			struct sched_param sp = { .sched_priority = 0 };
			if (sched_setscheduler(0, SCHED_IDLE, &sp)) { perror("sched_setscheduler"); _exit(1); }
			for (;;) {
				if (read(a2b[0], &b, 1) != 1 || write(b2a[1], &b, 1) != 1) _exit(1);
			}
		}
		usleep(10000);
		double tw = 0, tn = 0;
		for (long i = 0; i < n; i++) {
			usleep(30);
			double w0 = now();
			if (write(a2b[1], &b, 1) != 1) return 1;
			tw += now() - w0;
			if (read(b2a[0], &b, 1) != 1) return 1;
			usleep(30);
			w0 = now();
			if (write(spare[1], &b, 1) != 1) return 1;
			tn += now() - w0;
			if (read(spare[0], &b, 1) != 1) return 1;
		}
		kill(c, SIGKILL);
		waitpid(c, 0, 0);
		printf("local write waking the partner %.1f ns, write alone %.1f ns, local wakeup %.1f ns\n",
		       tw / n, tn / n, (tw - tn) / n);
		return 0;
	}
	pid_t hog = -1;
	if (!strcmp(argv[1], "busy")) {
		hog = fork();
		if (hog == 0) {
			struct sched_param sp = { .sched_priority = 1 };
			pin(cpu1);
			if (sched_setscheduler(0, SCHED_FIFO, &sp)) { perror("sched_setscheduler"); _exit(1); }
			struct timespec gap = { 0, 100000 };
			for (;;) {
				double t = now();
				while (now() - t < 900000)
					;
				nanosleep(&gap, 0);
			}
		}
	}
	pid_t c = fork();
	if (c == 0) {
		pin(cpu1);
		for (long i = 0; i < n; i++) {
			if (read(a2b[0], &b, 1) != 1 || write(b2a[1], &b, 1) != 1) _exit(1);
		}
		_exit(0);
	}
	pin(cpu);
	usleep(10000);
	double tw = 0, t0 = now();
	for (long i = 0; i < n; i++) {
		if (hog > 0) {
			/* The partner replied in one of the hog's gaps; wait until that gap is over. */
			double t = now();
			while (now() - t < 150000)
				;
		}
		double w0 = now();
		if (write(a2b[1], &b, 1) != 1) return 1;
		tw += now() - w0;
		if (read(b2a[0], &b, 1) != 1) return 1;
	}
	double tot = now() - t0;
	waitpid(c, 0, 0);
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, 0, 0);
	}
	/* the same write with no reader blocked on it */
	double tn = 0;
	for (long i = 0; i < n; i++) {
		double w0 = now();
		if (write(a2b[1], &b, 1) != 1) return 1;
		tn += now() - w0;
		if (read(a2b[0], &b, 1) != 1) return 1;
	}
	printf("%s %.1f ns/round-trip; write waking the partner %.1f ns, write alone %.1f ns\n",
	       argv[1], tot / n, tw / n, tn / n);
	return 0;
}
