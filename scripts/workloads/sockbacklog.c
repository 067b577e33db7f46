/* sockbacklog: what a 100-byte message costs to write to and read from unix stream sockets
 * (hackbench's socketpairs) as the backlog they hold grows. S socketpairs; each round writes N
 * messages to each socket in turn (a hackbench sender's order), then reads each socket empty,
 * with no scheduling in between (one thread: pin it, e.g. taskset -c 1). Prints the mean
 * write and read per message for N = 1 .. 270 (a socket holds 278 such messages).
 * Usage: sockbacklog [S] [ROUNDS]   (default 20 sockets, 200 rounds) */
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

int main(int argc, char **argv)
{
	int s = argc > 1 ? atoi(argv[1]) : 20, rounds = argc > 2 ? atoi(argv[2]) : 200;
	static const int backlog[] = {1, 2, 5, 10, 30, 60, 120, 200, 270};
	char buf[100] = {0};
	int (*fd)[2];
	if (s < 1 || s > 1000 || rounds < 1) {
		fprintf(stderr, "usage: sockbacklog [SOCKETS 1..1000] [ROUNDS >= 1]\n");
		return 2;
	}
	fd = calloc(s, sizeof *fd);
	if (!fd)
		return 1;
	for (int i = 0; i < s; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd[i])) {
			perror("socketpair");
			return 1;
		}
	for (unsigned k = 0; k < sizeof backlog / sizeof *backlog; k++) {
		int n = backlog[k];
		double wr = 0, rd = 0;
		for (int r = 0; r < rounds; r++) {
			double a = now_ns(), b, c;
			for (int m = 0; m < n; m++)
				for (int i = 0; i < s; i++)
					if (write(fd[i][1], buf, sizeof buf) != sizeof buf) {
						perror("write");
						return 1;
					}
			b = now_ns();
			for (int i = 0; i < s; i++)
				for (int m = 0; m < n; m++)
					if (read(fd[i][0], buf, sizeof buf) != sizeof buf) {
						perror("read");
						return 1;
					}
			c = now_ns();
			wr += b - a;
			rd += c - b;
		}
		printf("sockets %d backlog %3d: write %.2f us a message, read %.2f us\n", s, n,
		       wr / ((double)n * s * rounds) / 1e3, rd / ((double)n * s * rounds) / 1e3);
	}
	return 0;
}
