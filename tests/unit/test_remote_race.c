// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A remote free held between its claim and its mark (remote.c) while its
 * chunk empties and is released: the interleaving that oopsed in the
 * PREEMPT_RT kernel-tree stress (22ca9c4), forced here against a core built
 * with -DDP_TEST_HOOKS (tests/meson.build), whose freers call
 * dp_test_before_mark() at that point.
 *
 *   owner:  allocates every block of one chunk (blocks X and the rest)
 *   freer A: frees X, which claims it (pending for the owner), and is held
 *            in the hook, before its mark
 *   freer B: frees the rest; its marks cover X's region and queue the chunk
 *   owner:  dmapool_shrink(): collects every block, X included, and
 *            releases the now empty chunk (its record keeps no heap)
 *   freer A: resumes and marks a chunk that has no heap any more
 *
 * A's free must return as if nothing happened: no crash, no report, the
 * pool's counts exact, and the pool (whose record may be reused for the
 * next chunk) works on.  Freer A frees by address, by handle, in a bulk
 * call, and with poison on (byte work before the pending state).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include <dmapool/dmapool.h>

#include "tap.h"

struct dp_chunk;
/* remote.c, -DDP_TEST_HOOKS only. */
extern void (*dp_test_before_mark)(struct dp_chunk *c);

#define BLOCK	64u
#define CHUNK	4096u

enum how { BY_ADDRESS, BY_HANDLE, BY_BULK, BY_ADDRESS_POISON };

static unsigned int reports;
static __thread bool hold_me;
static sem_t held, resume;
static unsigned int holds;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	(void)ctx;
	__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED);
	NOTE("report: %s: %s", dmapool_report_kind_name(r->kind),
	     r->detail ? r->detail : "");
}

/* Freer A's first mark waits here for the owner's shrink. */
static void hook(struct dp_chunk *c)
{
	(void)c;
	if (!hold_me)
		return;
	hold_me = false;
	holds++;
	sem_post(&held);
	while (sem_wait(&resume) && errno == EINTR)
		;
}

struct race {
	struct dmapool *pool;
	enum how how;
	unsigned int n;
	void **v;
	dmapool_dma_t *d;
	uint64_t *h;
};

static void *freer_a(void *arg)
{
	struct race *r = arg;

	hold_me = true;
	switch (r->how) {
	case BY_HANDLE:
		dmapool_free_handle(r->pool, r->v[0], r->d[0], r->h[0]);
		break;
	case BY_BULK:
		dmapool_free_bulk(r->pool, 1, r->v, r->d);
		break;
	default:
		dmapool_free(r->pool, r->v[0], r->d[0]);
		break;
	}
	return NULL;
}

static void *freer_b(void *arg)
{
	struct race *r = arg;
	unsigned int i;

	for (i = 1; i < r->n; i++)
		dmapool_free(r->pool, r->v[i], r->d[i]);
	return NULL;
}

static void check_stats(struct dmapool *pool, unsigned long chunks,
			unsigned long in_use)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	CHECK(st.chunks == chunks && st.blocks_in_use == in_use,
	      "chunks %lu (want %lu), in use %lu (want %lu)",
	      (unsigned long)st.chunks, chunks,
	      (unsigned long)st.blocks_in_use, in_use);
}

static void race(void *arg)
{
	const enum how how = (enum how)(uintptr_t)arg;
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_stats st;
	struct dmapool_opts o;
	struct race r = { .how = how };
	pthread_t a, b;
	unsigned int i;

	CHECK(dev);
	CHECK(!sem_init(&held, 0, 0) && !sem_init(&resume, 0, 0));
	dmapool_opts_init(&o);
	o.chunk_size = CHUNK;
	o.reserve_chunks = 0;
	o.report = sink_fn;
	if (how == BY_ADDRESS_POISON)
		o.flags |= DMAPOOL_OPT_POISON;
	r.pool = dmapool_create_opts("remote-race", dev, BLOCK, BLOCK, 0, &o);
	dmapool_dev_put(dev);
	CHECK(r.pool, "create: errno %d", errno);
	dp_test_before_mark = hook;

	/* The owner (this thread) takes one whole chunk. */
	r.n = CHUNK / BLOCK;
	r.v = calloc(r.n, sizeof(*r.v));
	r.d = calloc(r.n, sizeof(*r.d));
	r.h = calloc(r.n, sizeof(*r.h));
	CHECK(r.v && r.d && r.h);
	for (i = 0; i < r.n; i++) {
		r.v[i] = dmapool_alloc_handle(r.pool, 0, &r.d[i], &r.h[i]);
		CHECK(r.v[i], "alloc %u", i);
	}
	dmapool_get_stats(r.pool, &st);
	CHECK(st.chunks == 1 && st.blocks_total == r.n,
	      "%lu chunks of %lu blocks: the test needs one of %u",
	      (unsigned long)st.chunks, (unsigned long)st.blocks_total, r.n);

	/* A claims X and waits before its mark. */
	CHECK(!pthread_create(&a, NULL, freer_a, &r));
	while (sem_wait(&held) && errno == EINTR)
		;
	CHECK(holds == 1);
	/* B frees the rest: its marks queue the chunk, X's region marked. */
	CHECK(!pthread_create(&b, NULL, freer_b, &r));
	CHECK(!pthread_join(b, NULL));
	/* The owner collects all of them, X too, and releases the chunk. */
	CHECK(dmapool_shrink(r.pool) == 1, "the emptied chunk was not released");
	check_stats(r.pool, 0, 0);

	/* A marks a released chunk. */
	sem_post(&resume);
	CHECK(!pthread_join(a, NULL));
	CHECK(!reports, "%u reports", reports);
	check_stats(r.pool, 0, 0);

	/* X is free once, and the pool works on (a record may be reused). */
	dp_test_before_mark = NULL;
	for (i = 0; i < r.n; i++) {
		r.v[i] = dmapool_alloc_handle(r.pool, 0, &r.d[i], &r.h[i]);
		CHECK(r.v[i], "alloc %u after the race", i);
	}
	check_stats(r.pool, 1, r.n);
	CHECK(!pthread_create(&b, NULL, freer_b, &r));
	CHECK(!pthread_join(b, NULL));
	dmapool_free(r.pool, r.v[0], r.d[0]);
	dmapool_free(r.pool, r.v[0], r.d[0]);
	CHECK(reports == 1, "a double free after the race: %u reports",
	      reports);
	dmapool_shrink(r.pool);
	check_stats(r.pool, 0, 0);
	dmapool_destroy(r.pool);
	free(r.v);
	free(r.d);
	free(r.h);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum how how;
	} cases[] = {
		{ "by-address", BY_ADDRESS },
		{ "by-handle", BY_HANDLE },
		{ "bulk", BY_BULK },
		{ "by-address-poison", BY_ADDRESS_POISON },
	};
	size_t i;

	tap_init(argc, argv);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_run(cases[i].name, 60, race,
			(void *)(uintptr_t)cases[i].how);
	return tap_done();
}
