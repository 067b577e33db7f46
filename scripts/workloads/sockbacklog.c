/* sockbacklog: what a 100-byte message costs to write to and read from unix stream sockets
 * (hackbench's socketpairs) as the backlog they hold grows. S socketpairs; each round writes
 * one message to each socket in turn, N times over (a hackbench sender's order), then reads
 * each socket empty, with no scheduling in between (one thread: pin it, e.g. taskset -c 1).
 * Prints the mean write and read per message for N = 1 .. 270 (a socket of the default
 * net.core.wmem_default holds 278 such messages; a write that would block is reported, not
 * waited for).
 * Usage: sockbacklog [SOCKETS] [ROUNDS]   (default 20 sockets, 200 rounds) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A whole number in [lo, hi], or -1. */
static long number(const char *s, long lo, long hi)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	long s = argc > 1 ? number(argv[1], 1, 1000) : 20;
	long rounds = argc > 2 ? number(argv[2], 1, 1000000) : 200;
	static const int backlog[] = {1, 2, 5, 10, 30, 60, 120, 200, 270};
	char buf[100] = {0};
	int (*fd)[2];
	if (s < 0 || rounds < 0 || argc > 3) {
		fprintf(stderr, "usage: sockbacklog [SOCKETS 1..1000] [ROUNDS 1..1000000]\n");
		return 2;
	}
	fd = calloc(s, sizeof *fd);
	if (!fd) {
		perror("calloc");
		return 1;
	}
	for (long i = 0; i < s; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd[i])) {
			perror("socketpair");
			return 1;
		}
	for (unsigned k = 0; k < sizeof backlog / sizeof *backlog; k++) {
		int n = backlog[k];
		double wr = 0, rd = 0;
		for (long r = 0; r < rounds; r++) {
			double a = now_ns(), b, c;
			for (int m = 0; m < n; m++)
				for (long i = 0; i < s; i++)
					if (send(fd[i][1], buf, sizeof buf, MSG_DONTWAIT) != sizeof buf) {
						fprintf(stderr, "write of message %d to socket %ld: %s (the "
							"socket holds fewer than %d messages here)\n",
							m + 1, i, errno == EAGAIN ? "would block" : "failed", n);
						return 1;
					}
			b = now_ns();
			for (long i = 0; i < s; i++)
				for (int m = 0; m < n; m++)
					if (read(fd[i][0], buf, sizeof buf) != sizeof buf) {
						perror("read");
						return 1;
					}
			c = now_ns();
			wr += b - a;
			rd += c - b;
		}
		printf("sockets %ld backlog %3d: write %.2f us a message, read %.2f us\n", s, n,
		       wr / ((double)n * s * rounds) / 1e3, rd / ((double)n * s * rounds) / 1e3);
	}
	return 0;
}
