// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Running the workloads side by side.
 *
 * Every case runs each subject in turn, then again, reps times (A, B, C,
 * A, B, C, ...), so slow drift of a shared machine lands on all subjects
 * alike; the median of each subject's runs is reported with its ratio to
 * linux-embedded's median from the same process run.  Absolute times are
 * only comparable within one run.  Single-threaded runs count the thread's
 * CPU time, threaded runs wall time (see cpu_ns()).  Before a subject is timed on a case, one
 * untimed pass checks what it hands out (wl_validate): a benchmark of an
 * allocator that returns wrong blocks would be meaningless.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "bench.h"
#include "results.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Single-threaded runs are timed in the thread's CPU time: on a machine
 * shared with other work, wall time also counts the time the benchmark was
 * not running at all.  (Cache and TLB pollution by the others still shows.)
 */
static uint64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Threads are timed in wall time: their overlap is what is measured. */
static uint64_t wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t *permutation(size_t n)
{
	uint32_t *p = malloc(n * sizeof(*p)), t;
	size_t i, j;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		j = rnd() % (i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return p;
}

struct ctx {
	const struct bench_cfg *cfg;
	struct dmapool_dev *dev;
	FILE *out;
	FILE *csv;
	int failed;
};

static void progress(const struct ctx *x, char c)
{
	if (!x->cfg->quiet) {
		fputc(c, stderr);
		fflush(stderr);
	}
}

static bool selected(const struct bench_cfg *cfg, const struct subject *s)
{
	return s->available && cfg->subject_on[s - subjects];
}

static void fail(struct ctx *x, const struct subject *s, const char *wl,
		 const char *label, const char *why)
{
	fprintf(stderr, "\ndmapool-bench: FAILED %s %s %s: %s\n", wl, label,
		s->name, why);
	x->failed = 1;
}

/* Validate once, untimed. */
static bool validate(struct ctx *x, const struct subject *s,
		     const struct shape *sh, const char *wl, struct slot *sl,
		     size_t n)
{
	struct spool sp;
	const char *why;

	if (spool_create(&sp, s, x->dev, sh->size, sh->align, sh->boundary)) {
		fail(x, s, wl, sh->label, "create refused the shape");
		return false;
	}
	why = wl_validate(&sp, sh, sl, n);
	spool_destroy(&sp);
	if (why)
		fail(x, s, wl, sh->label, why);
	return !why;
}

/* ---- dmapool_test and random-free ---------------------------------------- */

/* One timed run: ns per pair, or NAN. */
static double run_rounds(struct ctx *x, const struct subject *s,
			 const struct shape *sh, struct slot *sl, size_t n,
			 const uint32_t *order)
{
	struct spool sp;
	uint64_t t0, t1;
	int ret;

	if (spool_create(&sp, s, x->dev, sh->size, sh->align, sh->boundary))
		return NAN;
	/* As the kernel's test: timed from an empty pool, growth included. */
	t0 = cpu_ns();
	ret = wl_rounds(&sp, sl, n, x->cfg->rounds, order);
	t1 = cpu_ns();
	spool_destroy(&sp);
	if (ret)
		return NAN;
	return (double)(t1 - t0) / ((double)n * x->cfg->rounds);
}

static void shape_workload(struct ctx *x, struct table *t, bool shuffled)
{
	const struct bench_cfg *cfg = x->cfg;
	double samples[RES_MAX_ROWS][64];
	unsigned int si, i, rep, r, col;

	t->reps = cfg->reps;
	for (si = 0; si < nshapes; si++) {
		const struct shape *sh = &dmapool_test_shapes[si];
		size_t n = dmapool_test_blocks(sh->size);
		struct slot *sl = calloc(n, sizeof(*sl));
		uint32_t *order = shuffled ? permutation(n) : NULL;

		col = table_col(t, sh->label);
		for (i = 0; i < nsubjects; i++)
			if (selected(cfg, &subjects[i]) &&
			    validate(x, &subjects[i], sh, t->workload, sl, n))
				table_row(t, &subjects[i]);
		for (rep = 0; rep < cfg->reps && rep < 64; rep++) {
			for (r = 0; r < t->nrows; r++) {
				samples[r][rep] = run_rounds(x, t->row[r], sh,
							     sl, n, order);
				if (isnan(samples[r][rep]))
					fail(x, t->row[r], t->workload,
					     sh->label, "allocation failed");
			}
			progress(x, '.');
		}
		for (r = 0; r < t->nrows; r++)
			cell_from_samples(&t->c[r][col], samples[r], rep);
		free(order);
		free(sl);
	}
	table_ratios(t);
}

/* ---- churn ------------------------------------------------------------- */

static const struct shape churn_shape = { "64/64/0", 64, 64, 0 };

static double run_churn(struct ctx *x, const struct subject *s,
			struct slot *sl, const uint32_t *idx)
{
	const size_t live = x->cfg->churn_live;
	struct spool sp;
	uint64_t t0, t1;
	size_t i;
	int ret;

	if (spool_create(&sp, s, x->dev, churn_shape.size, churn_shape.align,
			 churn_shape.boundary))
		return NAN;
	for (i = 0; i < live; i++)
		if (!wl_alloc_one(&sp, &sl[i]))
			break;
	ret = i < live ? -1 : 0;
	if (!ret) {
		t0 = cpu_ns();
		ret = wl_churn(&sp, sl, idx, live, x->cfg->churn_batch);
		t1 = cpu_ns();
	}
	while (i--)
		wl_free_one(&sp, &sl[i]);
	spool_destroy(&sp);
	return ret ? NAN : (double)(t1 - t0) / (double)live;
}

/* "1M", "64K" or the number: short enough for a table column. */
static void count_label(char *buf, size_t size, size_t n)
{
	if (n >= (1u << 20) && !(n % (1u << 20)))
		snprintf(buf, size, "%zuM", n >> 20);
	else if (n >= 1024 && !(n % 1024))
		snprintf(buf, size, "%zuK", n >> 10);
	else
		snprintf(buf, size, "%zu", n);
}

static void churn_workload(struct ctx *x, struct table *t)
{
	const struct bench_cfg *cfg = x->cfg;
	const size_t live = cfg->churn_live;
	double samples[RES_MAX_ROWS][64];
	struct slot *sl = calloc(live, sizeof(*sl));
	uint32_t *idx = permutation(live);
	unsigned int i, r, rep, col;
	static char label[48];
	char n[24];

	count_label(n, sizeof(n), live);
	snprintf(label, sizeof(label), "%sx64B/b%u", n, cfg->churn_batch);
	col = table_col(t, label);
	t->reps = cfg->reps;
	for (i = 0; i < nsubjects; i++) {
		const struct subject *s = &subjects[i];

		if (!selected(cfg, s))
			continue;
		if (s->no_churn) {
			fprintf(x->out, "note: %s left out of churn: it walks its page list on every operation (minutes at this size)\n",
				s->name);
			continue;
		}
		if (validate(x, s, &churn_shape, t->workload, sl,
			     live < 65536 ? live : 65536))
			table_row(t, s);
	}
	for (rep = 0; rep < cfg->reps && rep < 64; rep++) {
		for (r = 0; r < t->nrows; r++) {
			samples[r][rep] = run_churn(x, t->row[r], sl, idx);
			if (isnan(samples[r][rep]))
				fail(x, t->row[r], t->workload, label,
				     "allocation failed");
		}
		progress(x, '.');
	}
	for (r = 0; r < t->nrows; r++)
		cell_from_samples(&t->c[r][col], samples[r], rep);
	table_ratios(t);
	free(idx);
	free(sl);
}

/* ---- threads ------------------------------------------------------------ */

struct thr {
	struct spool *sp;
	struct slot *sl;
	size_t n;
	unsigned int rounds;
	pthread_barrier_t *go;
	uint64_t t0, t1;
	int ret;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	pthread_barrier_wait(t->go);
	t->t0 = wall_ns();
	t->ret = wl_rounds(t->sp, t->sl, t->n, t->rounds, NULL);
	t->t1 = wall_ns();
	return NULL;
}

/* Aggregate ns per pair (wall time / all pairs of all threads), or NAN. */
static double run_threads(struct ctx *x, const struct subject *s,
			  unsigned int nthr, struct slot *sl)
{
	const size_t n = x->cfg->thr_blocks;
	pthread_barrier_t go;
	struct thr t[2];
	pthread_t th[2];
	struct spool sp;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	unsigned int i;
	int ret = 0;

	if (spool_create(&sp, s, x->dev, 64, 64, 0))
		return NAN;
	pthread_barrier_init(&go, NULL, nthr);
	for (i = 0; i < nthr; i++) {
		t[i] = (struct thr){ &sp, sl + i * n, n, x->cfg->thr_rounds,
				     &go, 0, 0, 0 };
		if (pthread_create(&th[i], NULL, thread_main, &t[i]))
			abort();
	}
	for (i = 0; i < nthr; i++) {
		pthread_join(th[i], NULL);
		ret |= t[i].ret;
		if (t[i].t0 < t0)
			t0 = t[i].t0;
		if (t[i].t1 > t1)
			t1 = t[i].t1;
	}
	pthread_barrier_destroy(&go);
	spool_destroy(&sp);
	if (ret)
		return NAN;
	return (double)(t1 - t0) / ((double)n * x->cfg->thr_rounds * nthr);
}

static void threads_workload(struct ctx *x, struct table *t)
{
	const struct bench_cfg *cfg = x->cfg;
	double samples[RES_MAX_ROWS][2][64];
	struct slot *sl = calloc(2 * cfg->thr_blocks, sizeof(*sl));
	static const struct shape sh = { "64/64/0", 64, 64, 0 };
	unsigned int i, r, rep, k, col[2];

	col[0] = table_col(t, "1 thread");
	col[1] = table_col(t, "2 threads");
	t->reps = cfg->reps;
	for (i = 0; i < nsubjects; i++)
		if (selected(cfg, &subjects[i]) &&
		    validate(x, &subjects[i], &sh, t->workload, sl,
			     2 * cfg->thr_blocks))
			table_row(t, &subjects[i]);
	for (rep = 0; rep < cfg->reps && rep < 64; rep++) {
		for (r = 0; r < t->nrows; r++)
			for (k = 0; k < 2; k++) {
				samples[r][k][rep] = run_threads(x, t->row[r],
								 k + 1, sl);
				if (isnan(samples[r][k][rep]))
					fail(x, t->row[r], t->workload,
					     t->col[col[k]], "allocation failed");
			}
		progress(x, '.');
	}
	for (r = 0; r < t->nrows; r++)
		for (k = 0; k < 2; k++)
			cell_from_samples(&t->c[r][col[k]], samples[r][k], rep);
	table_ratios(t);
	free(sl);
}

/* 2-thread throughput over 1-thread throughput, per subject. */
static void print_scaling(const struct table *t, FILE *out, FILE *csv)
{
	unsigned int r;

	fprintf(out, "  scaling (2-thread throughput / 1-thread):");
	for (r = 0; r < t->nrows; r++) {
		const struct cell *a = &t->c[r][0], *b = &t->c[r][1];

		if (!a->set || !b->set)
			continue;
		fprintf(out, "%s %s %.2fx", r ? "," : "", t->row[r]->name,
			a->value / b->value);
		if (csv)
			fprintf(csv, "threads,2 threads,%s,scaling,%.4f,,,,%u\n",
				t->row[r]->name, a->value / b->value, t->reps);
	}
	fputc('\n', out);
}

/* ---- memory ------------------------------------------------------------- */

static void memory_one(struct ctx *x, struct table *t, const struct shape *sh,
		       const char *label, size_t n, struct slot *sl)
{
	unsigned int i, col = table_col(t, label);

	for (i = 0; i < nsubjects; i++) {
		const struct subject *s = &subjects[i];
		struct bl_mem m;
		struct spool sp;
		size_t k;
		struct cell *c;

		if (!selected(x->cfg, s))
			continue;
		if (spool_create(&sp, s, x->dev, sh->size, sh->align,
				 sh->boundary))
			continue;
		for (k = 0; k < n; k++)
			if (!wl_alloc_one(&sp, &sl[k]))
				break;
		spool_mem(&sp, &m);
		if (k < n)
			fail(x, s, "memory", label, "allocation failed");
		while (k--)
			wl_free_one(&sp, &sl[k]);
		spool_destroy(&sp);
		c = &t->c[table_row(t, s)][col];
		c->set = m.dma_bytes > 0;
		c->value = (double)m.meta_bytes;
		c->min = c->max = c->value;
		c->extra = (double)m.dma_bytes;
	}
}

static void memory_workload(struct ctx *x, struct table *t)
{
	size_t n = x->cfg->churn_live, max = n;
	unsigned int si;
	static char label[48];
	struct slot *sl;
	char cnt[24];

	for (si = 0; si < nshapes; si++)
		if (dmapool_test_blocks(dmapool_test_shapes[si].size) > max)
			max = dmapool_test_blocks(dmapool_test_shapes[si].size);
	sl = calloc(max, sizeof(*sl));
	t->memory = true;
	t->reps = 1;
	for (si = 0; si < nshapes; si++) {
		const struct shape *sh = &dmapool_test_shapes[si];

		memory_one(x, t, sh, sh->label, dmapool_test_blocks(sh->size),
			   sl);
		progress(x, '.');
	}
	count_label(cnt, sizeof(cnt), n);
	snprintf(label, sizeof(label), "churn %sx64B", cnt);
	memory_one(x, t, &churn_shape, label, n, sl);
	free(sl);
	table_ratios(t);
}

/* ---- the run ------------------------------------------------------------- */

static void header(FILE *out, const struct bench_cfg *cfg)
{
	char cpu[128] = "unknown", line[256];
	double load[3] = { 0, 0, 0 };
	FILE *f = fopen("/proc/cpuinfo", "r");
	time_t now = time(NULL);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			char *p = strchr(line, ':');

			if (p) {
				snprintf(cpu, sizeof(cpu), "%s", p + 2);
				cpu[strcspn(cpu, "\n")] = '\0';
			}
			break;
		}
	if (f)
		fclose(f);
	getloadavg(load, 3);
	fprintf(out, "dmapool-bench: %s, %ld CPUs, load %.2f %.2f %.2f, %s",
		cpu, sysconf(_SC_NPROCESSORS_ONLN), load[0], load[1], load[2],
		ctime(&now));
	fprintf(out, "  %u runs per cell (median), dmapool_test rounds %u, churn %zu live x batch %u, threads %zu blocks x %u rounds\n",
		cfg->reps, cfg->rounds, cfg->churn_live, cfg->churn_batch,
		cfg->thr_blocks, cfg->thr_rounds);
	fprintf(out, "  ratio = subject / linux-embedded, both measured in this run (lower is better)\n");
}

int bench_run(const struct bench_cfg *cfg, FILE *out)
{
	static struct table tabs[6];
	const struct table *plotted[6];
	unsigned int ntabs = 0;
	struct ctx x = { cfg, NULL, out, NULL, 0 };
	char path[4096];
	FILE *txt = NULL;

	x.dev = bench_arena_dev(0);
	if (!x.dev)
		return 1;
	subjects_probe(x.dev, out);
	if (cfg->outdir) {
		mkdir(cfg->outdir, 0755);
		snprintf(path, sizeof(path), "%s/bench.csv", cfg->outdir);
		x.csv = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/bench.txt", cfg->outdir);
		txt = fopen(path, "w");
		if (!x.csv || !txt) {
			fprintf(stderr, "dmapool-bench: cannot write to %s\n",
				cfg->outdir);
			return 1;
		}
		fprintf(x.csv, "workload,case,subject,metric,value,min,max,ratio_vs_linux_embedded,reps\n");
	}
	header(out, cfg);
	if (txt)
		header(txt, cfg);

	if (cfg->workloads & WL_DMAPOOL_TEST) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "dmapool_test", "dmapool_test: allocate all, free all in order (the kernel's mm/dmapool_test.c)",
			   "ns_per_pair", "ns per alloc+free pair, median; x = ratio to linux-embedded");
		shape_workload(&x, t, false);
	}
	if (cfg->workloads & WL_RANDOM_FREE) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "random-free", "random-free: allocate all, free all in a shuffled order",
			   "ns_per_pair", "ns per alloc+free pair, median; x = ratio to linux-embedded");
		shape_workload(&x, t, true);
	}
	if (cfg->workloads & WL_CHURN) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "churn", "churn: a large live set, then batches of random frees and as many allocations",
			   "ns_per_pair", "ns per alloc+free pair, median; x = ratio to linux-embedded");
		churn_workload(&x, t);
	}
	if (cfg->workloads & WL_THREADS) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "threads", "threads: each thread allocates and frees its own blocks on one shared pool (64/64/0)",
			   "ns_per_pair", "wall ns per alloc+free pair over all threads, median; x = ratio to linux-embedded");
		threads_workload(&x, t);
	}
	if (cfg->workloads & WL_MEMORY) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "memory", "memory: host metadata as a share of DMA memory, all blocks of the case allocated",
			   "meta_bytes", "meta bytes / DMA bytes (the CSV has both)");
		memory_workload(&x, t);
	}
	if (cfg->workloads & WL_ICOUNT) {
		struct table *t = &tabs[ntabs++];

		table_init(t, "icount", "icount: instructions per alloc+free pair in the allocator (callgrind; pages already carved)",
			   "instr_per_pair", "instructions, locks included; x = ratio to linux-embedded");
		if (bench_icount(cfg, t, out))
			x.failed = 1;
	}
	if (!cfg->quiet)
		fputc('\n', stderr);

	for (unsigned int i = 0; i < ntabs; i++) {
		table_print(&tabs[i], out);
		if (txt)
			table_print(&tabs[i], txt);
		table_csv(&tabs[i], x.csv);
		if (!strcmp(tabs[i].workload, "threads")) {
			print_scaling(&tabs[i], out, x.csv);
			if (txt)
				print_scaling(&tabs[i], txt, NULL);
		}
		plotted[i] = &tabs[i];
	}
	if (bench_reports()) {
		fprintf(stderr, "dmapool-bench: FAILED: dmapool reported %llu problems during the runs\n",
			(unsigned long long)bench_reports());
		x.failed = 1;
	}
	if (x.csv)
		fclose(x.csv);
	if (txt)
		fclose(txt);
	if (cfg->outdir && cfg->svg && ntabs) {
		if (plot_svg(cfg->outdir, plotted, ntabs))
			x.failed = 1;
		else
			fprintf(out, "\nwrote %s/bench.csv, bench.txt, bench.svg\n",
				cfg->outdir);
	} else if (cfg->outdir) {
		fprintf(out, "\nwrote %s/bench.csv, bench.txt\n", cfg->outdir);
	}
	dmapool_dev_put(x.dev);
	return x.failed;
}

/* The showcase's table: the kernel's workload, four subjects, a few seconds. */
int bench_quick(FILE *out)
{
	static const char *const names[] = {
		"linux-embedded", "xarray-fix", "dmapool", "dmapool-handle",
	};
	struct bench_cfg cfg = {
		.reps = 5, .rounds = 100, .churn_live = 1 << 16,
		.churn_batch = 32, .thr_blocks = 1024, .thr_rounds = 50,
		.quiet = true, .workloads = WL_DMAPOOL_TEST,
	};
	struct table t;
	struct ctx x = { &cfg, NULL, out, NULL, 0 };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct subject *s = subject_find(names[i]);

		if (s)
			cfg.subject_on[s - subjects] = true;
	}
	x.dev = bench_arena_dev(64ul << 20);
	if (!x.dev)
		return 1;
	subjects_probe(x.dev, NULL);
	table_init(&t, "dmapool_test", "The kernel's own dma_pool benchmark (mm/dmapool_test.c: 100 rounds of allocate all, free all; median of 5)",
		   "ns_per_pair", "ns per alloc+free pair; x = time relative to linux-embedded, measured side by side (lower is better)");
	shape_workload(&x, &t, false);
	table_print(&t, out);
	dmapool_dev_put(x.dev);
	return x.failed;
}
