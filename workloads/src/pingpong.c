// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pingpong: N pairs of processes pass a one-byte token through pipes, with
 * optional busy work per token (the linux-pm "6 pair fast ping-pong" test).
 * With no work every CPU idles for very short periods, which is where a
 * governor that picks too deep a state costs latency. Prints usec per loop.
 *
 * -c CPU[,CPU...] pins the processes round-robin in creation order (pair 0's
 * two sides on the first two CPUs, ...). Unpinned, the scheduler decides per
 * run whether a pair shares a CPU (no idle at all: a token pass is a context
 * switch) or not (every pass wakes an idle CPU), so on a small machine the
 * sample is bimodal and its idle counts are noise; pinning the sides apart
 * makes every pass the cross-CPU wakeup the governor is judged on.
 *
 * -t SECONDS runs for that long instead of -n loops: a sample's validity
 * (min_sample_s, the idle-time checks) depends on its duration, and a loop
 * count lasts 10 ms on one machine and a second on another. The first side
 * of each pair watches the clock and ends the pair with a 'q' token; loops
 * is then the mean count per pair.
 */
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wl.h"

static const char *const usage = "[-p PAIRS] [-n LOOPS | -t SECONDS] [-w WORK_US] [-c CPU[,CPU...]]";

/* Parse "-c" into cpus[] (at most max); "" means no pinning. Exits 2 on a bad list. */
static int cpu_list(const char *prog, const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s) {
		char num[16];
		size_t len = strcspn(s, ",");

		if (!len || len >= sizeof(num) || n == max) {
			fprintf(stderr, "%s: -c: expected CPU numbers separated by commas (at most %d), got '%s'\n",
				prog, max, s);
			exit(2);
		}
		memcpy(num, s, len);
		num[len] = 0;
		cpus[n++] = (int)wl_long(prog, "-c", num, 0, CPU_SETSIZE - 1);
		s += len + (s[len] == ',');
	}
	return n;
}

static void spin_us(double us)
{
	uint64_t end = wl_now_ns() + (uint64_t)(us * 1e3);

	while (us > 0 && wl_now_ns() < end)
		;
}

/*
 * One side of a pair: loops passes, or until end_ns (when not 0). The first
 * side writes the pair's count of passes to resfd. 0 on success.
 */
static int xfer(int rfd, int wfd, long loops, double work_us, int first, uint64_t end_ns, int resfd)
{
	char tok = 't';
	long i;

	for (i = 0; end_ns || i < loops; i++) {
		/* the clock is read every 64 passes: a read costs about as much as a pass */
		if (first && end_ns && i && !(i & 63) && wl_now_ns() >= end_ns)
			tok = 'q';
		if (first && write(wfd, &tok, 1) != 1)
			return 1;
		if (read(rfd, &tok, 1) != 1)
			return 1;
		if (tok == 'q') {
			if (!first && write(wfd, &tok, 1) != 1)
				return 1;
			break;
		}
		spin_us(work_us);
		if (!first && write(wfd, &tok, 1) != 1)
			return 1;
	}
	if (first && write(resfd, &i, sizeof(i)) != (ssize_t)sizeof(i))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long pairs = 6, loops = 100000, total = 0, n;
	double work_us = 0, secs = 0;
	pid_t *pids;
	int c, status, fail = 0;
	int start[2], res[2], cpus[64], ncpus = 0;

	while ((c = getopt(argc, argv, "p:n:t:w:c:")) != -1) {
		switch (c) {
		case 'p': pairs = wl_long(argv[0], "-p", optarg, 1, 4096); break;
		case 'n': loops = wl_long(argv[0], "-n", optarg, 1, 1000000000L); break;
		case 't': secs = wl_double(argv[0], "-t", optarg, 0, 86400); break;
		case 'w': work_us = wl_double(argv[0], "-w", optarg, 0, 1e6); break;
		case 'c': ncpus = cpu_list(argv[0], optarg, cpus, 64); break;
		default: wl_usage_exit(argv[0], usage);
		}
	}
	if (optind != argc)
		wl_usage_exit(argv[0], usage);
	pids = calloc((size_t)pairs * 2, sizeof(*pids));
	/* res: each pair's count, 8 bytes a pair (atomic below PIPE_BUF; 4096 pairs fit a pipe) */
	if (!pids || pipe(start) || pipe(res)) {
		fprintf(stderr, "pingpong: cannot set up: %s\n", strerror(errno));
		return 1;
	}
	/* one start pipe for everybody: the clock starts when all pairs exist */
	for (long p = 0; p < pairs; p++) {
		int ab[2], ba[2];

		if (pipe(ab) || pipe(ba)) {
			fprintf(stderr, "pingpong: pipe: %s\n", strerror(errno));
			return 1;
		}
		for (int side = 0; side < 2; side++) {
			pid_t pid = fork();

			if (pid < 0) {
				fprintf(stderr, "pingpong: fork: %s\n", strerror(errno));
				kill(0, SIGKILL);
				return 1;
			}
			if (!pid) {
				char b;

				close(start[1]);
				close(res[0]);
				/*
				 * only this side's ends stay open, so a partner that
				 * exits (a failed pin, a crash) is an EOF here, not a hang
				 */
				close(side ? ab[1] : ab[0]);
				close(side ? ba[0] : ba[1]);
				if (ncpus) {
					cpu_set_t set;

					CPU_ZERO(&set);
					CPU_SET(cpus[(p * 2 + side) % ncpus], &set);
					if (sched_setaffinity(0, sizeof(set), &set)) {
						fprintf(stderr, "pingpong: -c: cannot pin to CPU %d: %s\n",
							cpus[(p * 2 + side) % ncpus], strerror(errno));
						_exit(1);
					}
				}
				if (read(start[0], &b, 1) != 0)
					_exit(1);
				uint64_t end = secs > 0 ? wl_now_ns() + (uint64_t)(secs * 1e9) : 0;

				_exit(side ? xfer(ab[0], ba[1], loops, work_us, 0, end, res[1]) :
					     xfer(ba[0], ab[1], loops, work_us, 1, end, res[1]));
			}
			pids[p * 2 + side] = pid;
		}
		close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
	}
	close(start[0]);
	close(res[1]);
	uint64_t t0 = wl_now_ns();
	close(start[1]); /* EOF on the start pipe: go */
	for (long i = 0; i < pairs * 2; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			fail = 1;
	}
	double us = (double)(wl_now_ns() - t0) / 1e3;
	free(pids);
	for (long p = 0; !fail && p < pairs; p++) {
		if (read(res[0], &n, sizeof(n)) != (ssize_t)sizeof(n) || n < 1)
			fail = 1;
		total += n;
	}
	loops = fail ? 0 : total / pairs;
	if (fail) {
		fprintf(stderr, "pingpong: a worker failed\n");
		return 1;
	}
	printf("pairs: %ld\n", pairs);
	printf("pinned_cpus: %d\n", ncpus);
	printf("loops: %ld\n", loops);
	printf("elapsed_s: %.6f\n", us / 1e6);
	printf("usec_per_loop: %.4f\n", us * (double)pairs / (double)total);
	return 0;
}
