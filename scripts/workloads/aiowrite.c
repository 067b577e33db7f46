/* aiowrite: one fio-like libaio job, as `fio --ioengine libaio --direct 1 --bs 4k
 * --rw randwrite|randread --iodepth D` runs it: fill the queue, then reap one completion at a
 * time (io_getevents min_nr 1) and submit the next. Raw syscalls (no libaio).
 *
 *   aiowrite FILE SIZE_MB IODEPTH SECONDS write|read
 *
 * Prints the I/Os done, the thread's CPU time per I/O and the mean time from submission to
 * reaping. The file is created with fallocate (unwritten extents, as fio's default
 * fallocate=native leaves it), so a write completion converts an extent in the dio kworker. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long io_setup(unsigned n, aio_context_t *c) { return syscall(SYS_io_setup, n, c); }
static long io_submit(aio_context_t c, long n, struct iocb **b) { return syscall(SYS_io_submit, c, n, b); }
static long io_getevents(aio_context_t c, long mn, long mx, struct io_event *e, struct timespec *t) {
	return syscall(SYS_io_getevents, c, mn, mx, e, t);
}
static uint64_t ns(clockid_t id) {
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}
static uint64_t rnd = 88172645463325252ull;
static uint64_t xs(void) { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd; }

int main(int argc, char **argv) {
	if (argc != 6) {
		fprintf(stderr, "usage: aiowrite FILE SIZE_MB IODEPTH SECONDS write|read\n");
		return 2;
	}
	uint64_t blocks = strtoull(argv[2], 0, 10) * 256;
	int depth = atoi(argv[3]);
	double secs = atof(argv[4]);
	int wr = strcmp(argv[5], "write") == 0;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0 || fallocate(fd, 0, 0, blocks * 4096) != 0) { perror("open/fallocate"); return 1; }
	aio_context_t ctx = 0;
	if (io_setup(depth, &ctx)) { perror("io_setup"); return 1; }
	char *buf;
	if (posix_memalign((void **)&buf, 4096, 4096 * (size_t)depth)) return 1;
	memset(buf, 0x5a, 4096 * (size_t)depth);
	struct iocb *cbs = calloc(depth, sizeof *cbs);
	uint64_t *sub = calloc(depth, sizeof *sub);
	struct io_event *ev = calloc(depth, sizeof *ev);
	uint64_t done = 0, lat = 0, t0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t end = t0 + (uint64_t)(secs * 1e9);
	for (int i = 0; i < depth; i++) {
		struct iocb *cb = &cbs[i];
		memset(cb, 0, sizeof *cb);
		cb->aio_fildes = fd;
		cb->aio_lio_opcode = wr ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
		cb->aio_buf = (uint64_t)(buf + 4096 * (size_t)i);
		cb->aio_nbytes = 4096;
		cb->aio_offset = (xs() % blocks) * 4096;
		cb->aio_data = i;
		sub[i] = ns(CLOCK_MONOTONIC);
		if (io_submit(ctx, 1, &cb) != 1) { perror("io_submit"); return 1; }
	}
	int inflight = depth;
	while (inflight > 0) {
		long n = io_getevents(ctx, 1, depth, ev, 0);
		if (n < 0) { perror("io_getevents"); return 1; }
		uint64_t now = ns(CLOCK_MONOTONIC);
		for (long k = 0; k < n; k++) {
			int i = (int)ev[k].data;
			lat += now - sub[i];
			done++;
			inflight--;
			if (now < end) {
				struct iocb *cb = &cbs[i];
				cb->aio_offset = (xs() % blocks) * 4096;
				sub[i] = ns(CLOCK_MONOTONIC);
				if (io_submit(ctx, 1, &cb) != 1) { perror("io_submit"); return 1; }
				inflight++;
			}
		}
	}
	uint64_t t1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID);
	printf("ios %llu  iops %.0f  cpu_per_io_ns %llu  mean_submit_to_reap_us %.1f\n",
	       (unsigned long long)done, done / ((t1 - t0) / 1e9),
	       (unsigned long long)((c1 - c0) / (done ? done : 1)), lat / 1e3 / (done ? done : 1));
	return 0;
}
