// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Instruction counts: a figure without noise.
 *
 * Timings on a shared machine wobble; the number of instructions an
 * allocator executes per alloc+free pair does not.  For every case and
 * subject this re-runs the benchmark binary under callgrind in a child mode
 * that carves the pool's pages in an untimed warm-up round and then runs
 * the dmapool_test loop, collecting only inside bench_rounds_* (the loop and
 * everything it calls).  Two figures per case and subject: everything
 * collected (the loop with the allocator, as a driver's loop would run;
 * every subject's loop is the same code around its own alloc and free
 * calls), and the allocator alone, the loop's own instructions (its self
 * cost in the callgrind file) subtracted.  Both include the locks.
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

/* One callgrind child: a case of a subject. */
struct job {
	const struct subject *s;
	const struct shape *sh;
	unsigned int col;
	char out[32];		/* its callgrind file */
	pid_t pid;
};

/* Start @j's child: 0, -1 on failure (*@no_valgrind when not found). */
static int start(const char *self, struct job *j, unsigned int rounds,
		 bool *no_valgrind)
{
	char outarg[64], rnd[16];
	posix_spawn_file_actions_t fa;
	char *argv[12];
	int fd, ret;

	snprintf(j->out, sizeof(j->out), "/tmp/dmapool-bench-cg.XXXXXX");
	fd = mkstemp(j->out);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", j->out);
	snprintf(rnd, sizeof(rnd), "%u", rounds);
	argv[0] = "valgrind";
	argv[1] = "--tool=callgrind";
	argv[2] = outarg;
	argv[3] = "--collect-atstart=no";
	argv[4] = "--toggle-collect=bench_rounds_*";
	argv[5] = (char *)self;
	argv[6] = "--icount-child";
	argv[7] = (char *)j->s->name;
	argv[8] = (char *)j->sh->label;
	argv[9] = rnd;
	argv[10] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ret = posix_spawnp(&j->pid, "valgrind", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		*no_valgrind = ret == ENOENT;
		unlink(j->out);
		return -1;
	}
	return 0;
}

/*
 * A finished child's counts per pair: the allocator's (returned) and the
 * loop's own (*@loop_pp), or NAN.
 */
static double finish(struct job *j, int status, unsigned int rounds,
		     double *loop_pp)
{
	long long total, loop;
	double pairs;
	int bad;

	bad = !WIFEXITED(status) || WEXITSTATUS(status) ||
	      read_counts(j->out, &total, &loop);
	unlink(j->out);
	if (bad)
		return NAN;
	pairs = (double)rounds * (double)dmapool_test_blocks(j->sh->size);
	*loop_pp = (double)loop / pairs;
	return (double)(total - loop) / pairs;
}

static void put(struct table *t, const struct subject *s, unsigned int col,
		double v)
{
	struct cell *c = &t->c[table_row(t, s)][col];

	c->n = 1;
	c->run[0] = v;
}

/* Two children at a time: this machine has two CPUs, shared. */
#define ICOUNT_PARALLEL	2

/* --short counts only these, on three cases: enough to see it works. */
static const char *const short_subjects[] = {
	BASE_SUBJECT, "linux-embedded", DEFAULT_SUBJECT, "dmapool-handle",
};
static const char *const short_shapes[] = {
	"16/16/0", "4096/4096/0", "68/32/4096",
};

static bool shape_counted(const struct bench_cfg *cfg, const char *label)
{
	unsigned int k;

	if (!cfg->short_run)
		return true;
	for (k = 0; k < sizeof(short_shapes) / sizeof(short_shapes[0]); k++)
		if (!strcmp(label, short_shapes[k]))
			return true;
	return false;
}

static bool counted(const struct bench_cfg *cfg, unsigned int i)
{
	const struct subject *s = &subjects[i];
	unsigned int k;

	if (!s->available)
		return false;
	if (cfg->short_run) {
		for (k = 0; k < sizeof(short_subjects) / sizeof(short_subjects[0]); k++)
			if (!strcmp(s->name, short_subjects[k]))
				return true;
		return false;
	}
	return cfg->subject_on[i] || !strcmp(s->name, BASE_SUBJECT);
}

int bench_icount(const struct bench_cfg *cfg, struct table *t,
		 struct table *alloc_only, FILE *out)
{
	struct job *jobs = calloc((size_t)nshapes * nsubjects, sizeof(*jobs));
	unsigned int si, i, njobs = 0, next = 0, running = 0, done = 0;
	double loop, loop_min = 1e9, loop_max = 0;
	bool no_valgrind = false;
	char self[PATH_MAX];
	int failed = 0;
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || !jobs) {
		free(jobs);
		return 1;
	}
	self[len] = '\0';
	t->reps = 1;
	alloc_only->reps = 1;
	for (si = 0; si < nshapes; si++) {
		const struct shape *sh = &dmapool_test_shapes[si];
		unsigned int col;

		if (!shape_counted(cfg, sh->label))
			continue;
		col = table_col(t, sh->label);
		table_col(alloc_only, sh->label);
		for (i = 0; i < nsubjects; i++)
			if (counted(cfg, i))
				jobs[njobs++] = (struct job){
					.s = &subjects[i], .sh = sh, .col = col,
				};
	}
	/* Rows in the subjects' order, whichever child finishes first. */
	for (i = 0; i < njobs; i++) {
		table_row(t, jobs[i].s);
		table_row(alloc_only, jobs[i].s);
	}
	while (done < njobs) {
		struct job *j = NULL;
		int status;
		pid_t pid;
		double v;

		while (running < ICOUNT_PARALLEL && next < njobs) {
			if (start(self, &jobs[next], cfg->icount_rounds,
				  &no_valgrind)) {
				if (no_valgrind) {
					fprintf(stderr, "dmapool-bench: FAILED: valgrind not found (install it: scripts/setup-deps base)\n");
					while (running-- && wait(NULL) > 0)
						;
					free(jobs);
					return 1;
				}
				fprintf(stderr, "\ndmapool-bench: FAILED icount %s %s: cannot start valgrind\n",
					jobs[next].sh->label, jobs[next].s->name);
				failed = 1;
				done++;
				next++;
				continue;
			}
			next++;
			running++;
		}
		if (!running)
			continue;
		pid = wait(&status);
		if (pid < 0)
			break;
		for (i = 0; i < next; i++)
			if (jobs[i].pid == pid)
				j = &jobs[i];
		if (!j)
			continue;
		running--;
		done++;
		v = finish(j, status, cfg->icount_rounds, &loop);
		if (isnan(v)) {
			fprintf(stderr, "\ndmapool-bench: FAILED icount %s %s\n",
				j->sh->label, j->s->name);
			failed = 1;
			continue;
		}
		if (loop < loop_min)
			loop_min = loop;
		if (loop > loop_max)
			loop_max = loop;
		put(t, j->s, j->col, v + loop);
		put(alloc_only, j->s, j->col, v);
		if (!cfg->quiet) {
			fputc('i', stderr);
			fflush(stderr);
		}
	}
	free(jobs);
	if (loop_max > 0)
		snprintf(alloc_only->note, sizeof(alloc_only->note),
			 "not counted: the benchmark loop's own %.1f-%.1f instructions per pair",
			 loop_min, loop_max);
	(void)out;
	table_base_from_row(t);
	table_base_from_row(alloc_only);
	return failed;
}
