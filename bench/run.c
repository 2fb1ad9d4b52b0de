// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Running the workloads side by side.
 *
 * Every ratio is a median of paired ratios.  For each repetition and
 * subject, the timed workloads (dmapool_test, random-free, churn) run the
 * subject and linux-6.12 back to back, in alternating order, and keep the
 * ratio of the two runs; a hardening option runs between linux-6.12 and
 * the default pool, so both of its pairs are back to back.  linux-6.12 is
 * paired with itself too (its "A/A" row): that ratio's spread is the noise
 * of this run on this machine.  The threads workload does the same at each
 * thread count, with the compute-loop control run next to every subject as
 * well, so a scaling factor is compared with what the machine gave threads
 * at that moment.  On a shared machine the speed drifts between runs; a
 * pair sees the same machine, so its ratio moves much less than the times
 * themselves.
 *
 * Single-threaded runs count the thread's CPU time, threaded runs wall
 * time (see cpu_ns()).  Before a subject is timed on a case, one untimed
 * pass checks what it hands out (wl_validate): a benchmark of an allocator
 * that returns wrong blocks would be meaningless.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
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
	int failed;
	const struct subject *base;	/* linux-6.12 */
	const struct subject *def;	/* the default pool */
};

static void progress(const struct ctx *x, char c)
{
	if (!x->cfg->quiet) {
		fputc(c, stderr);
		fflush(stderr);
	}
}

static unsigned int reps_of(const struct ctx *x)
{
	return x->cfg->reps < RES_MAX_REPS ? x->cfg->reps : RES_MAX_REPS;
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

/*
 * The rows of a workload: linux-6.12 and the default pool always (every
 * ratio needs them), then the selected subjects.  ok[row] says which of
 * them handed out correct blocks for @sh: only those are timed on it.
 */
static void add_rows(struct ctx *x, struct table *t, const struct shape *sh,
		     struct slot *sl, size_t n, bool churn, bool *ok)
{
	unsigned int i;

	memset(ok, 0, RES_MAX_ROWS * sizeof(*ok));
	for (i = 0; i < nsubjects; i++) {
		const struct subject *s = &subjects[i];
		bool partner = s == x->base || s == x->def;

		if (!s->available || (!partner && !x->cfg->subject_on[i]))
			continue;
		if (churn && s->no_churn) {
			fprintf(x->out, "note: %s left out of churn: it walks its page list on every operation (minutes at this size)\n",
				s->name);
			continue;
		}
		if (validate(x, s, sh, t->workload, sl, n))
			ok[table_row(t, s)] = true;
	}
}

/* @s is a row of @t that may be timed now. */
static bool row_ok(const struct table *t, const bool *ok,
		   const struct subject *s)
{
	int r = s ? table_find_row(t, s->name) : -1;

	return r >= 0 && ok[r];
}

/* ---- pairs ------------------------------------------------------------- */

typedef double (*run_fn)(struct ctx *x, const struct subject *s, void *arg);

/* One run of a repetition: whom, with what, and where its figure goes. */
struct step {
	const struct subject *s;
	void *arg;
	double *dst;
};

/*
 * One repetition of the cell (@r, @col): the base (linux-6.12; for the
 * base row itself, a second run of it: A/A), the subject, for an option the
 * default pool, and in the threads workload the compute loop (@ctrl_arg);
 * in this order or the reverse, by repetition, so the subject always runs
 * next to its base and to its default pool.  @base_arg is what the base
 * runs with (the threads workload compares bulk calls with its single
 * calls), @s_arg what the subject and the default pool run with.
 */
static void rep_cell(struct ctx *x, struct table *t, unsigned int r,
		     unsigned int col, unsigned int rep, bool def_ok,
		     run_fn run, void *s_arg, void *base_arg, void *ctrl_arg)
{
	const struct subject *s = t->row[r];
	struct cell *c = &t->c[r][col];
	bool flip = (rep + r) & 1;
	struct step st[4];
	unsigned int n = 0, k;

	c->run[rep] = c->base[rep] = c->def[rep] = c->ctrl[rep] = NAN;
	st[n++] = (struct step){ x->base, base_arg, &c->base[rep] };
	st[n++] = (struct step){ s, s_arg, &c->run[rep] };
	if (s->option && def_ok)
		st[n++] = (struct step){ x->def, s_arg, &c->def[rep] };
	if (ctrl_arg)
		st[n++] = (struct step){ &compute_loop, ctrl_arg,
					 &c->ctrl[rep] };
	for (k = 0; k < n; k++) {
		const struct step *p = &st[flip ? n - 1 - k : k];

		*p->dst = run(x, p->s, p->arg);
		if (isnan(*p->dst))
			fail(x, p->s, t->workload, t->col[col],
			     "allocation failed");
	}
	c->n = rep + 1;
}

static void paired_column(struct ctx *x, struct table *t, unsigned int col,
			  const bool *ok, run_fn run, void *arg)
{
	bool def_ok = row_ok(t, ok, x->def);
	unsigned int rep, r;

	if (!row_ok(t, ok, x->base))
		return;		/* failed already: no pairs without it */
	for (rep = 0; rep < reps_of(x); rep++) {
		for (r = 0; r < t->nrows; r++)
			if (ok[r])
				rep_cell(x, t, r, col, rep, def_ok, run, arg,
					 arg, NULL);
		progress(x, '.');
	}
}

/* ---- dmapool_test and random-free ---------------------------------------- */

struct rounds_arg {
	const struct shape *sh;
	struct slot *sl;
	size_t n;
	const uint32_t *order;
};

/* One timed run: ns per pair, or NAN. */
static double run_rounds(struct ctx *x, const struct subject *s, void *arg)
{
	const struct rounds_arg *a = arg;
	struct spool sp;
	uint64_t t0, t1;
	int ret;

	if (spool_create(&sp, s, x->dev, a->sh->size, a->sh->align,
			 a->sh->boundary))
		return NAN;
	/* As the kernel's test: timed from an empty pool, growth included. */
	t0 = cpu_ns();
	ret = wl_rounds(&sp, a->sl, a->n, x->cfg->rounds, a->order);
	t1 = cpu_ns();
	spool_destroy(&sp);
	if (ret)
		return NAN;
	return (double)(t1 - t0) / ((double)a->n * x->cfg->rounds);
}

static void shape_workload(struct ctx *x, struct table *t, bool shuffled)
{
	unsigned int si, col;

	t->reps = reps_of(x);
	t->aa = true;
	for (si = 0; si < nshapes; si++) {
		const struct shape *sh = &dmapool_test_shapes[si];
		size_t n = dmapool_test_blocks(sh->size);
		struct rounds_arg a = { sh, calloc(n, sizeof(*a.sl)), n,
					shuffled ? permutation(n) : NULL };
		bool ok[RES_MAX_ROWS];

		col = table_col(t, sh->label);
		add_rows(x, t, sh, a.sl, n, false, ok);
		paired_column(x, t, col, ok, run_rounds, &a);
		free((void *)a.order);
		free(a.sl);
	}
	table_summarize(t);
}

/* ---- churn ------------------------------------------------------------- */

static const struct shape churn_shape = { "64/64/0", 64, 64, 0 };

struct churn_arg {
	struct slot *sl;
	const uint32_t *idx;
};

static double run_churn(struct ctx *x, const struct subject *s, void *arg)
{
	const struct churn_arg *a = arg;
	const size_t live = x->cfg->churn_live;
	struct spool sp;
	uint64_t t0 = 0, t1 = 0;
	size_t i;
	int ret;

	if (spool_create(&sp, s, x->dev, churn_shape.size, churn_shape.align,
			 churn_shape.boundary))
		return NAN;
	for (i = 0; i < live; i++)
		if (!wl_alloc_one(&sp, &a->sl[i]))
			break;
	ret = i < live ? -1 : 0;
	if (!ret) {
		t0 = cpu_ns();
		ret = wl_churn(&sp, a->sl, a->idx, live, x->cfg->churn_batch);
		t1 = cpu_ns();
	}
	while (i--)
		wl_free_one(&sp, &a->sl[i]);
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
	const size_t live = x->cfg->churn_live;
	struct churn_arg a = { calloc(live, sizeof(*a.sl)), permutation(live) };
	static char label[48];
	bool ok[RES_MAX_ROWS];
	char n[24];

	count_label(n, sizeof(n), live);
	snprintf(label, sizeof(label), "%sx64B/b%u", n, x->cfg->churn_batch);
	t->reps = reps_of(x);
	t->aa = true;
	add_rows(x, t, &churn_shape, a.sl, live < 65536 ? live : 65536, true,
		 ok);
	paired_column(x, t, table_col(t, label), ok, run_churn, &a);
	table_summarize(t);
	free((void *)a.idx);
	free(a.sl);
}

/* ---- threads ------------------------------------------------------------ */

#define THR_MAX		4
#define BULK_BATCH	32

enum thr_mode {
	TM_ROUNDS, TM_BULK, TM_COMPUTE, TM_PRODUCE, TM_CONSUME, TM_CONSUME_BULK
};

struct thr {
	enum thr_mode mode;
	struct spool *sp;
	struct slot *sl;
	void **v;
	dmapool_dma_t *d;
	struct pc_ring *ring;
	size_t n;
	unsigned int rounds;
	pthread_barrier_t *go;
	uint64_t t0, t1, sink;
	int ret;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	pthread_barrier_wait(t->go);
	t->t0 = wall_ns();
	switch (t->mode) {
	case TM_ROUNDS:
		t->ret = wl_rounds(t->sp, t->sl, t->n, t->rounds, NULL);
		break;
	case TM_BULK:
		t->ret = wl_rounds_bulk(t->sp, t->v, t->d, t->n, t->rounds,
					BULK_BATCH);
		break;
	case TM_COMPUTE:
		t->sink = wl_compute(t->n, t->rounds);
		break;
	case TM_PRODUCE:
		t->ret = wl_produce(t->sp, t->ring, t->n * t->rounds);
		break;
	case TM_CONSUME:
		t->ret = wl_consume(t->sp, t->ring, t->n * t->rounds);
		break;
	case TM_CONSUME_BULK:
		t->ret = wl_consume_bulk(t->sp, t->ring, t->n * t->rounds);
		break;
	}
	t->t1 = wall_ns();
	return NULL;
}

struct thr_bufs {
	struct slot *sl;		/* THR_MAX * blocks */
	void **v;			/* 2 * blocks, bulk */
	dmapool_dma_t *d;
	struct pc_ring *ring;
};

/* The threads table's columns, in order. */
enum { TC_1, TC_2, TC_4, TC_PC, TC_BULK1, TC_BULK2, TC_PCB, TC_N };
static const char *const thr_cols[TC_N] = {
	"1 thread", "2 threads", "4 threads", "prod/cons", "1 thr bulk32",
	"2 thr bulk32", "prod/cons bulk",
};

/* Threads at each column; the compute loop and linux-6.12 stand in. */
static const unsigned int nthr_of[TC_N] = { 1, 2, 4, 2, 1, 2, 2 };

struct thr_arg {
	struct thr_bufs *b;
	unsigned int tc;
};

/*
 * Aggregate wall ns per pair (first start to last end / all pairs of all
 * threads), or NAN.
 */
static double run_threads(struct ctx *x, const struct subject *s, void *arg)
{
	const struct thr_arg *a = arg;
	const size_t n = x->cfg->thr_blocks;
	unsigned int nthr = nthr_of[a->tc], tc = a->tc, i;
	struct thr_bufs *b = a->b;
	pthread_barrier_t go;
	struct thr t[THR_MAX];
	pthread_t th[THR_MAX];
	struct spool sp = { s, NULL };
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int ret = 0;

	if (s->kind != K_CTRL &&
	    spool_create(&sp, s, x->dev, 64, 64, 0))
		return NAN;
	pc_ring_reset(b->ring);
	pthread_barrier_init(&go, NULL, nthr);
	for (i = 0; i < nthr; i++) {
		pthread_attr_t attr;
		cpu_set_t cpus;
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		t[i] = (struct thr){
			.mode = tc == TC_PC ? (i ? TM_CONSUME : TM_PRODUCE) :
				tc == TC_PCB ? (i ? TM_CONSUME_BULK :
						    TM_PRODUCE) :
				s->kind == K_CTRL ? TM_COMPUTE :
				tc >= TC_BULK1 ? TM_BULK : TM_ROUNDS,
			.sp = &sp, .sl = b->sl + i * n, .v = b->v + i * n,
			.d = b->d + i * n, .ring = b->ring, .n = n,
			.rounds = x->cfg->thr_rounds, .go = &go,
		};
		/*
		 * Thread i on CPU i mod n: a run of a few milliseconds ends
		 * before the scheduler moves a new thread off its parent's CPU,
		 * so unpinned, two threads often shared one CPU (the compute
		 * loop measured 0.99x at 2 threads and 1.94x at 4, idle).
		 */
		pthread_attr_init(&attr);
		CPU_ZERO(&cpus);
		CPU_SET((int)(i % (unsigned long)(ncpu > 0 ? ncpu : 1)), &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		if (pthread_create(&th[i], &attr, thread_main, &t[i]))
			abort();
		pthread_attr_destroy(&attr);
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
	if (s->kind != K_CTRL)
		spool_destroy(&sp);
	if (ret)
		return NAN;
	/* The producer/consumer pair moves n * rounds blocks in all. */
	return (double)(t1 - t0) /
	       ((double)n * x->cfg->thr_rounds *
		(tc == TC_PC || tc == TC_PCB ? 1 : nthr));
}

/*
 * What @s can run: the control no pool work (the compute loop on 1, 2 and
 * 4 threads, the ring alone as producer/consumer), only dmapool bulk calls.
 */
static bool runs_column(const struct subject *s, unsigned int tc)
{
	if (s->kind == K_CTRL)
		return tc == TC_1 || tc == TC_2 || tc == TC_4 || tc == TC_PC;
	return tc < TC_BULK1 || s->kind == K_DP;
}

/*
 * Per repetition and row, each column: linux-6.12 (bulk: its single calls
 * on as many threads), the subject, the default pool for an option, and
 * the compute loop on as many threads, back to back.  The control's own
 * row runs alone.
 */
static void threads_rep(struct ctx *x, struct table *t, struct thr_bufs *b,
			const bool *ok, unsigned int rep)
{
	bool def_ok = row_ok(t, ok, x->def);
	unsigned int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < TC_N && ok[r]; c++) {
			const struct subject *s = t->row[r];
			struct cell *cl = &t->c[r][c];
			struct thr_arg sa = { b, c };
			struct thr_arg ba = { b, c == TC_BULK1 ? TC_1 :
						 c == TC_BULK2 ? TC_2 :
						 c == TC_PCB ? TC_PC : c };
			struct thr_arg ca = { b, nthr_of[c] == 1 ? TC_1 :
						 nthr_of[c] == 2 ? TC_2 : TC_4 };

			if (!runs_column(s, c))
				continue;
			if (s->kind != K_CTRL) {
				rep_cell(x, t, r, c, rep, def_ok, run_threads,
					 &sa, &ba, &ca);
				continue;
			}
			cl->run[rep] = run_threads(x, s, &sa);
			cl->base[rep] = cl->def[rep] = NAN;
			cl->ctrl[rep] = cl->run[rep];
			cl->n = rep + 1;
			if (isnan(cl->run[rep]))
				fail(x, s, t->workload, thr_cols[c],
				     "allocation failed");
		}
}

static void threads_workload(struct ctx *x, struct table *t)
{
	const size_t n = x->cfg->thr_blocks;
	struct thr_bufs b = {
		calloc(THR_MAX * n, sizeof(*b.sl)), calloc(2 * n, sizeof(void *)),
		calloc(2 * n, sizeof(dmapool_dma_t)), pc_ring_new(),
	};
	static const struct shape sh = { "64/64/0", 64, 64, 0 };
	unsigned int rep, c;
	bool ok[RES_MAX_ROWS];

	if (!b.sl || !b.v || !b.d || !b.ring)
		abort();
	for (c = 0; c < TC_N; c++)
		table_col(t, thr_cols[c]);
	t->reps = reps_of(x);
	t->aa = true;
	add_rows(x, t, &sh, b.sl, THR_MAX * n, false, ok);
	ok[table_row(t, &compute_loop)] = true;
	if (row_ok(t, ok, x->base))
		for (rep = 0; rep < reps_of(x); rep++) {
			threads_rep(x, t, &b, ok, rep);
			progress(x, '.');
		}
	table_summarize(t);
	pc_ring_free(b.ring);
	free(b.d);
	free(b.v);
	free(b.sl);
}

/*
 * Scaling, per repetition: n-thread throughput over 1-thread throughput
 * (the producer/consumer pair over one thread doing both), and that over
 * the compute loop's factor from the runs next to these (what the machine
 * gave threads just then).
 */
static void scaling_table(const struct table *thr, struct table *t)
{
	static const struct {
		const char *label;
		unsigned int one, many;
		bool vs_machine;
	} cols[] = {
		{ "2 threads", TC_1, TC_2, true },
		{ "4 threads", TC_1, TC_4, true },
		{ "prod/cons", TC_1, TC_PC, false },
		{ "2 thr bulk32", TC_BULK1, TC_BULK2, true },
		{ "prod/cons bulk", TC_1, TC_PCB, false },
	};
	unsigned int r, k, i;

	t->reps = thr->reps;
	for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
		table_col(t, cols[k].label);
	for (r = 0; r < thr->nrows; r++) {
		unsigned int row = table_row(t, thr->row[r]);

		for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			const struct cell *a = &thr->c[r][cols[k].one];
			const struct cell *b = &thr->c[r][cols[k].many];
			struct cell *c = &t->c[row][k];

			c->n = a->n < b->n ? a->n : b->n;
			/* The control's prod/cons is the ring alone: no factor. */
			if (thr->row[r]->kind == K_CTRL && cols[k].many == TC_PC)
				c->n = 0;
			for (i = 0; i < c->n; i++) {
				c->run[i] = a->run[i] / b->run[i];
				c->base[i] = cols[k].vs_machine ?
					     a->ctrl[i] / b->ctrl[i] : NAN;
				c->def[i] = NAN;
			}
		}
	}
	table_summarize(t);
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

		if (!s->available ||
		    (s != x->base && !x->cfg->subject_on[i]))
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
		c->n = m.dma_bytes > 0;
		c->run[0] = (double)m.meta_bytes;
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
	table_base_from_row(t);
}

/* ---- the run ------------------------------------------------------------- */

static void header(FILE *out, const struct bench_cfg *cfg,
		   const struct run_info *ri)
{
	fprintf(out, "dmapool-bench %s: %s, %ld CPUs, load %.2f %.2f %.2f, %s\n",
		ri->commit, ri->cpu, ri->ncpu, ri->load[0], ri->load[1],
		ri->load[2], ri->date);
	fprintf(out, "  %u paired runs per cell, dmapool_test rounds %u, churn %zu live x batch %u, threads %zu blocks x %u rounds\n",
		cfg->reps, cfg->rounds, cfg->churn_live, cfg->churn_batch,
		cfg->thr_blocks, cfg->thr_rounds);
	fprintf(out, "  ratio = subject / %s (its own mm/dmapool.c, compiled unmodified on a userspace shim); lower is better\n",
		BASE_SUBJECT);
	fprintf(out, "  no side zeroes blocks: dmapool_alloc does not zero, and %s runs with init_on_alloc and init_on_free off\n",
		BASE_SUBJECT);
}

static struct table *workload_table(struct table **tabs, unsigned int *ntabs,
				    const char *wl, const char *title,
				    const char *metric, const char *unit,
				    enum table_style style)
{
	struct table *t = table_new(wl, title, metric, unit, style);

	tabs[(*ntabs)++] = t;
	return t;
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "dmapool-bench: cannot write %s\n", path);
	return f;
}

static const char paired_unit[] =
	"median of the paired ratios subject/" BASE_SUBJECT
	" (min-max over the pairs); " BASE_SUBJECT
	"'s ns per alloc+free pair above";

static void run_workloads(struct ctx *x, struct table **tabs,
			  unsigned int *ntabs)
{
	const struct bench_cfg *cfg = x->cfg;
	struct table *t, *t2;

	if (cfg->workloads & WL_DMAPOOL_TEST) {
		t = workload_table(tabs, ntabs, "dmapool_test",
				   "dmapool_test: allocate all, free all in order (the kernel's mm/dmapool_test.c)",
				   "ns_per_pair", paired_unit, TS_PAIRED);
		shape_workload(x, t, false);
		snprintf(t->note, sizeof(t->note),
			 "%s (A/A): %s paired with itself, the noise of this run",
			 BASE_SUBJECT, BASE_SUBJECT);
	}
	if (cfg->workloads & WL_RANDOM_FREE) {
		t = workload_table(tabs, ntabs, "random-free",
				   "random-free: allocate all, free all in a shuffled order",
				   "ns_per_pair", paired_unit, TS_PAIRED);
		shape_workload(x, t, true);
	}
	if (cfg->workloads & WL_CHURN) {
		t = workload_table(tabs, ntabs, "churn",
				   "churn: a large live set, then batches of random frees and as many allocations",
				   "ns_per_pair", paired_unit, TS_PAIRED);
		churn_workload(x, t);
	}
	if (cfg->workloads & WL_THREADS) {
		t = workload_table(tabs, ntabs, "threads",
				   "threads: each thread allocates and frees its own blocks on one shared pool (64/64/0)",
				   "ns_per_pair",
				   "wall ns per pair over all threads; cells: median of the paired ratios subject/" BASE_SUBJECT " at as many threads (min-max); bulk against its single calls",
				   TS_PAIRED);
		threads_workload(x, t);
		snprintf(t->note, sizeof(t->note),
			 "prod/cons: one thread allocates, another frees every block (all frees remote); bulk32: dmapool_alloc_bulk/free_bulk, 32 a call; prod/cons bulk: its consumer frees each batch with free_bulk");
		t2 = workload_table(tabs, ntabs, "threads-scaling",
				    "threads-scaling: throughput with n threads / with 1 thread, per repetition",
				    "scaling",
				    "median factor; (in brackets) that over the compute loop's factor from the runs next to it: the share of what the machine gave",
				    TS_SCALING);
		scaling_table(t, t2);
		snprintf(t2->note, sizeof(t2->note),
			 "prod/cons (bulk): the pair's throughput / one thread doing both with single calls (1 thread column)");
	}
	if (cfg->workloads & WL_MEMORY) {
		t = workload_table(tabs, ntabs, "memory",
				   "memory: host metadata as a share of DMA memory, all blocks of the case allocated",
				   "meta_bytes", "meta bytes / DMA bytes (the CSV has both)",
				   TS_MEMORY);
		memory_workload(x, t);
	}
	if (cfg->workloads & WL_ICOUNT) {
		t = workload_table(tabs, ntabs, "icount",
				   "icount: instructions per alloc+free pair with the benchmark loop (callgrind, steady state; same loop for every subject)",
				   "instr_per_pair",
				   "instructions, locks and loop included; x = ratio to " BASE_SUBJECT,
				   TS_VALUE);
		t2 = workload_table(tabs, ntabs, "icount-alloc",
				    "icount-alloc: the same, the allocator alone (the loop's own instructions subtracted)",
				    "instr_alloc_per_pair",
				    "instructions in alloc and free, locks included; x = ratio to " BASE_SUBJECT,
				    TS_VALUE);
		if (bench_icount(cfg, t, t2, x->out))
			x->failed = 1;
	}
}

int bench_run(const struct bench_cfg *cfg, FILE *out)
{
	struct table *tabs[12];
	unsigned int ntabs = 0, i;
	struct ctx x = { cfg, NULL, out, 0, NULL, NULL };
	FILE *csv = NULL, *txt = NULL, *tcsv = NULL;
	struct run_info ri;

	x.dev = bench_arena_dev(0);
	if (!x.dev)
		return 1;
	subjects_probe(x.dev, out);
	x.base = subject_find(BASE_SUBJECT);
	x.def = subject_find(DEFAULT_SUBJECT);
	if (!x.base || !x.base->available) {
		fprintf(stderr, "dmapool-bench: FAILED: %s cannot create a pool: no ratios without it\n",
			BASE_SUBJECT);
		return 1;
	}
	if (x.def && !x.def->available)
		x.def = NULL;
	if (cfg->outdir) {
		mkdir(cfg->outdir, 0755);
		csv = open_out(cfg->outdir, "bench.csv");
		txt = open_out(cfg->outdir, "bench.txt");
		tcsv = open_out(cfg->outdir, "targets.csv");
		if (!csv || !txt || !tcsv)
			return 1;
		table_csv_header(csv);
	}
	run_info_get(&ri);
	header(out, cfg, &ri);
	if (txt)
		header(txt, cfg, &ri);

	run_workloads(&x, tabs, &ntabs);
	if (!cfg->quiet)
		fputc('\n', stderr);

	for (i = 0; i < ntabs; i++) {
		table_print(tabs[i], out);
		if (txt)
			table_print(tabs[i], txt);
		table_csv(tabs[i], csv);
	}
	targets_report((const struct table *const *)tabs, ntabs, cfg, out,
		       txt, tcsv);
	if (bench_reports()) {
		fprintf(stderr, "dmapool-bench: FAILED: dmapool reported %llu problems during the runs\n",
			(unsigned long long)bench_reports());
		x.failed = 1;
	}
	if (csv)
		fclose(csv);
	if (txt)
		fclose(txt);
	if (tcsv)
		fclose(tcsv);
	if (cfg->outdir && cfg->svg && ntabs) {
		if (plot_write(cfg->outdir, (const struct table *const *)tabs,
			       ntabs, &ri))
			x.failed = 1;
		else
			fprintf(out, "\nwrote %s/bench.csv, bench.txt, targets.csv, bench.svg, bench.png\n",
				cfg->outdir);
	} else if (cfg->outdir) {
		fprintf(out, "\nwrote %s/bench.csv, bench.txt, targets.csv\n",
			cfg->outdir);
	}
	for (i = 0; i < ntabs; i++)
		table_free(tabs[i]);
	dmapool_dev_put(x.dev);
	return x.failed;
}

/* The showcase's table: the kernel's workload, five subjects, seconds. */
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
	struct ctx x = { &cfg, NULL, out, 0, NULL, NULL };
	struct table *t;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct subject *s = subject_find(names[i]);

		if (s)
			cfg.subject_on[s - subjects] = true;
	}
	x.dev = bench_arena_dev(64ul << 20);
	if (!x.dev)
		return 1;
	subjects_probe(x.dev, NULL);
	x.base = subject_find(BASE_SUBJECT);
	x.def = subject_find(DEFAULT_SUBJECT);
	if (!x.base->available) {
		dmapool_dev_put(x.dev);
		return 1;
	}
	t = table_new("dmapool_test", "The kernel's dma_pool benchmark (mm/dmapool_test.c: 100 rounds of allocate all, free all)",
		      "ns_per_pair", "time / linux-6.12 (Linux's own mm/dmapool.c), median of 5 runs paired with it (min-max); lower is better; no side zeroes blocks",
		      TS_PAIRED);
	shape_workload(&x, t, false);
	table_print(t, out);
	ret = x.failed;
	table_free(t);
	dmapool_dev_put(x.dev);
	return ret;
}
