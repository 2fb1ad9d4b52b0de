// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Threads against a pool with every hardening option, for ThreadSanitizer
 * (Criterion itself does not run under TSan: Snaipe/Criterion#274).
 *
 * The free path drops the pool lock to check redzones and poison or scrub
 * a block it holds; the alloc path checks poison unlocked.  Workers
 * allocate and free (by address and by handle) while another thread keeps
 * calling dmapool_quiesce() and dmapool_get_stats().  No device writes
 * here: any report is a false alarm, and a block that changes while its
 * owner holds it means two owners.  Exit status 0 on success.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmapool/dmapool.h>

#define WORKERS	3
#define STEPS	30000
#define LIVE	24
#define SIZE	72

static unsigned long reports;
static int stop;

static void on_report(const struct dmapool_report *r, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "unexpected report: %s\n",
		dmapool_report_kind_name(r->kind));
	__atomic_add_fetch(&reports, 1, __ATOMIC_RELAXED);
}

struct worker {
	struct dmapool *pool;
	unsigned int id;
	unsigned long bad;
};

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint8_t tag(const struct worker *w, int slot)
{
	return (uint8_t)(w->id * LIVE + (unsigned int)slot + 1);
}

static void give_back(struct worker *w, struct dmapool_block *b, int slot)
{
	const uint8_t *p = b->vaddr;
	int i;

	for (i = 0; i < SIZE; i++)
		w->bad += p[i] != tag(w, slot);
	if (b->handle & 1)
		dmapool_free_block(w->pool, *b);
	else
		dmapool_free(w->pool, b->vaddr, b->dma);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct dmapool_block b[LIVE];
	uint64_t rng = 0x9e3779b97f4a7c15ull * (w->id + 1);
	int live = 0, step;

	for (step = 0; step < STEPS; step++) {
		uint64_t r = next(&rng);

		if (live < LIVE && (live == 0 || r % 2)) {
			struct dmapool_block nb;

			if (r & 4) {
				nb = dmapool_alloc_block(w->pool, 0);
			} else {
				nb.vaddr = dmapool_alloc(w->pool, 0, &nb.dma);
				nb.handle = 0;	/* even: freed by address */
			}
			if (!nb.vaddr) {
				w->bad++;
				break;
			}
			/* An odd handle is freed by handle, an even one
			 * by address: both paths get exercised. */
			memset(nb.vaddr, tag(w, live), SIZE);
			b[live++] = nb;
		} else {
			int k = (int)((r >> 8) % (uint64_t)live);

			give_back(w, &b[k], k);
			b[k] = b[--live];
			if (k < live)
				memset(b[k].vaddr, tag(w, k), SIZE);
		}
	}
	while (live--)
		give_back(w, &b[live], live);
	return NULL;
}

static void *quiescer(void *arg)
{
	struct dmapool *pool = arg;
	struct dmapool_stats st;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		dmapool_quiesce(pool);
		dmapool_get_stats(pool, &st);
	}
	return NULL;
}

int main(void)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_opts o;
	struct dmapool *pool;
	struct dmapool_stats st;
	struct worker w[WORKERS];
	pthread_t t[WORKERS], q;
	unsigned long bad = 0;
	int i;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
		  DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM;
	o.redzone = 20;
	o.quarantine_max = 32;
	o.seed = 7;
	o.report = on_report;
	pool = dmapool_create_opts("threads", dev, SIZE, 8, 0, &o);
	if (!pool) {
		fprintf(stderr, "create failed\n");
		return 1;
	}
	pthread_create(&q, NULL, quiescer, pool);
	for (i = 0; i < WORKERS; i++) {
		w[i] = (struct worker){ pool, (unsigned int)i, 0 };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < WORKERS; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].bad;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(q, NULL);
	dmapool_get_stats(pool, &st);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
	printf("harden_threads: %d workers x %d steps, %lu reports, %lu bad bytes, in use %llu, forced %llu\n",
	       WORKERS, STEPS, reports, bad,
	       (unsigned long long)st.blocks_in_use,
	       (unsigned long long)st.quarantine_forced);
	return reports || bad || st.blocks_in_use ? 1 : 0;
}
