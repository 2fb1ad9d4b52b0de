// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Instruction counts: a figure without noise.
 *
 * Timings on a shared machine wobble; the number of instructions an
 * allocator executes per alloc+free pair does not.  For every case and
 * subject this re-runs the benchmark binary under callgrind in a child mode
 * that carves the pool's pages in an untimed warm-up round and then runs
 * the dmapool_test loop, collecting only inside bench_rounds_* (the loop and
 * everything it calls).  The loop's own instructions (its self cost in the
 * callgrind file) are subtracted: what is left is the allocator's alloc
 * and free, including their locks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "bench.h"
#include "results.h"

extern char **environ;

int bench_icount_child(const char *subject, const char *shape,
		       unsigned int rounds)
{
	const struct shape *sh = NULL;
	struct dmapool_dev *dev;
	struct subject *s;
	struct spool sp;
	struct slot *sl;
	unsigned int i;
	size_t n, k;
	int ret;

	for (i = 0; i < nshapes; i++)
		if (!strcmp(dmapool_test_shapes[i].label, shape))
			sh = &dmapool_test_shapes[i];
	dev = bench_arena_dev(64ul << 20);
	if (!sh || !dev)
		return 2;
	subjects_probe(dev, NULL);
	s = subject_find(subject);
	if (!s || !s->available)
		return 2;
	n = dmapool_test_blocks(sh->size);
	sl = calloc(n, sizeof(*sl));
	if (!sl || spool_create(&sp, s, dev, sh->size, sh->align, sh->boundary))
		return 2;
	/* Warm-up, not collected: the pool carves all its pages. */
	for (k = 0; k < n; k++)
		if (!wl_alloc_one(&sp, &sl[k]))
			return 1;
	for (k = 0; k < n; k++)
		wl_free_one(&sp, &sl[k]);
	ret = wl_rounds(&sp, sl, n, rounds, NULL);
	spool_destroy(&sp);
	free(sl);
	return ret ? 1 : 0;
}

/* The last number on a cost line. */
static long long cost_of(const char *line)
{
	const char *sp = strrchr(line, ' ');

	return atoll(sp ? sp + 1 : line);
}

/*
 * From a callgrind output file: all collected instructions (@total) and
 * those of the benchmark loop itself (@loop: the self cost of
 * bench_rounds_*, i.e. its cost lines except the inclusive cost that
 * follows each calls= line).  Names are compressed: "fn=(id) name" or
 * "cfn=(id) name" where the id first appears, "fn=(id)" after.  0, or -1 when the file is not readable.
 */
static int read_counts(const char *path, long long *total, long long *loop)
{
	char line[1024];
	bool in_loop = false, skip = false;
	static bool is_loop[65536];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	memset(is_loop, 0, sizeof(is_loop));
	*total = -1;
	*loop = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
			*total = atoll(strchr(line, ':') + 1);
		} else if (!strncmp(line, "fn=(", 4) || !strncmp(line, "cfn=(", 5)) {
			bool callee = line[0] == 'c';
			long id = strtol(line + (callee ? 5 : 4), NULL, 10);
			const char *name = strchr(line, ')');

			if (id < 0 || id >= 65536)
				continue;
			/* A name is given where the id first appears. */
			if (name && name[1] == ' ')
				is_loop[id] = !strncmp(name + 2, "bench_rounds_", 13);
			if (!callee) {
				in_loop = is_loop[id];
				skip = false;
			}
		} else if (!strncmp(line, "calls=", 6)) {
			skip = true;
		} else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' ||
			   line[0] == '-' || line[0] == '*') {
			if (in_loop && !skip)
				*loop += cost_of(line);
			skip = false;
		}
	}
	fclose(f);
	return *total > 0 ? 0 : -1;
}

/*
 * Run one child under callgrind: the allocator's instructions per pair
 * (the loop's own excluded; those in *@loop_pp), or NAN.
 */
static double one(const char *self, const struct subject *s,
		  const struct shape *sh, unsigned int rounds, bool *no_valgrind,
		  double *loop_pp)
{
	char out[] = "/tmp/dmapool-bench-cg.XXXXXX", outarg[64], rnd[16];
	posix_spawn_file_actions_t fa;
	char *argv[12];
	long long total, loop;
	double pairs;
	int fd, status;
	pid_t pid;

	fd = mkstemp(out);
	if (fd < 0)
		return NAN;
	close(fd);
	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", out);
	snprintf(rnd, sizeof(rnd), "%u", rounds);
	argv[0] = "valgrind";
	argv[1] = "--tool=callgrind";
	argv[2] = outarg;
	argv[3] = "--collect-atstart=no";
	argv[4] = "--toggle-collect=bench_rounds_*";
	argv[5] = (char *)self;
	argv[6] = "--icount-child";
	argv[7] = (char *)s->name;
	argv[8] = (char *)sh->label;
	argv[9] = rnd;
	argv[10] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "valgrind", &fa, NULL, argv, environ)) {
		*no_valgrind = true;
		posix_spawn_file_actions_destroy(&fa);
		unlink(out);
		return NAN;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		unlink(out);
		return NAN;
	}
	if (read_counts(out, &total, &loop)) {
		unlink(out);
		return NAN;
	}
	unlink(out);
	pairs = (double)rounds * (double)dmapool_test_blocks(sh->size);
	*loop_pp = (double)loop / pairs;
	return (double)(total - loop) / pairs;
}

int bench_icount(const struct bench_cfg *cfg, struct table *t, FILE *out)
{
	char self[PATH_MAX];
	bool no_valgrind = false;
	double loop, loop_min = 1e9, loop_max = 0;
	unsigned int si, i;
	ssize_t len;
	int failed = 0;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	t->reps = 1;
	for (si = 0; si < nshapes; si++) {
		const struct shape *sh = &dmapool_test_shapes[si];
		unsigned int col = table_col(t, sh->label);

		for (i = 0; i < nsubjects; i++) {
			const struct subject *s = &subjects[i];
			struct cell *c;
			double v;

			if (!s->available || !cfg->subject_on[i])
				continue;
			v = one(self, s, sh, cfg->icount_rounds, &no_valgrind,
				&loop);
			if (no_valgrind) {
				fprintf(stderr, "dmapool-bench: FAILED: valgrind not found (install it: scripts/setup-deps base)\n");
				return 1;
			}
			if (isnan(v)) {
				fprintf(stderr, "\ndmapool-bench: FAILED icount %s %s\n",
					sh->label, s->name);
				failed = 1;
				continue;
			}
			if (loop < loop_min)
				loop_min = loop;
			if (loop > loop_max)
				loop_max = loop;
			c = &t->c[table_row(t, s)][col];
			c->set = true;
			c->value = c->min = c->max = v;
		}
		if (!cfg->quiet) {
			fputc('i', stderr);
			fflush(stderr);
		}
	}
	if (loop_max > 0)
		snprintf(t->note, sizeof(t->note),
			 "not counted: the benchmark loop's own %.0f-%.0f instructions per pair",
			 loop_min, loop_max);
	(void)out;
	table_ratios(t);
	return failed;
}
