// idlelat N GAP_US: how long a wakeup onto an idle CPU takes as a function of how long that CPU
// has been idle. A parent pinned to CPU 0 and a child pinned to CPU 1 pass a byte over two
// pipes N times; before each write the parent spins GAP_US microseconds, so the child's CPU
// has been idle about that long when the write wakes it. Prints the percentiles of the time
// from just before the write to the child's return from read (the write, the IPI, the idle
// exit, the switch and the read's return), in microseconds.
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: idlelat N GAP_US\n");
		return 2;
	}
	int n = atoi(argv[1]);
	uint64_t gap = strtoull(argv[2], 0, 10) * 1000ull;
	if (n < 10) {
		fprintf(stderr, "idlelat: N must be at least 10\n");
		return 2;
	}
	int p2c[2], c2p[2];
	if (pipe(p2c) || pipe(c2p)) {
		perror("pipe");
		return 1;
	}
	uint64_t *at = mmap(0, sizeof(uint64_t) * 2 * n, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (at == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	char c = 'x';
	if (fork() == 0) {
		pin(1);
		for (int i = 0; i < n; i++) {
			if (read(p2c[0], &c, 1) != 1)
				_exit(1);
			at[n + i] = now();
			if (write(c2p[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	pin(0);
	usleep(10000);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = now();
		while (now() - t0 < gap)
			;
		at[i] = now();
		if (write(p2c[1], &c, 1) != 1 || read(c2p[0], &c, 1) != 1)
			return 1;
	}
	wait(0);
	uint64_t *d = malloc(sizeof(uint64_t) * n);
	for (int i = 0; i < n; i++)
		d[i] = at[n + i] - at[i];
	qsort(d, n, sizeof *d, cmp);
	printf("gap %llu us: wake p10 %.1f p50 %.1f p90 %.1f us\n", (unsigned long long)(gap / 1000),
	       d[n / 10] / 1e3, d[n / 2] / 1e3, d[n * 9 / 10] / 1e3);
	return 0;
}
