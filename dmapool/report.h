/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Reports: every detected problem becomes a struct dmapool_report, counted
 * in its pool and handed to a sink.  A report never changes the pool.
 *
 * A report is built where the problem is seen (often pinned, or under the
 * pool lock) and delivered after unpinning and unlocking, so a sink may
 * call back into the pool.  Counting is atomic: delivery takes no lock.
 */
#ifndef DMAPOOL_REPORT_H
#define DMAPOOL_REPORT_H

#include "pool.h"

struct dp_pending {
	struct dmapool_report r;
	char owner[32];			/* free-wrong-pool: the owner's name */
};

/* Start a report about @pool (NULL: no pool). */
void dp_report_fill(struct dmapool *pool, struct dp_pending *p,
		    enum dmapool_report_kind kind, const void *addr,
		    dmapool_dma_t dma, const char *detail);
/*
 * Count it in @pool and hand it to the pool's sink or the global one.
 * Not pinned, no lock held.
 */
void dp_report_deliver(struct dmapool *pool, struct dp_pending *p);
/* A report with no pool to count it in. */
void dp_report_global(enum dmapool_report_kind kind, const void *addr,
		      dmapool_dma_t dma, const char *detail);
/*
 * A refused create: to @sink if the caller gave one, else the global sink,
 * with the name the pool would have had.
 */
void dp_report_create(const char *name, dmapool_report_fn sink, void *ctx,
		      bool abort_after, const char *detail);
/*
 * After a free found no chunk for @addr in @pool: is it in another pool?
 * Fills @p as free-wrong-pool or free-outside-pool.  Not pinned, no lock.
 */
void dp_report_unknown_address(struct dmapool *pool, struct dp_pending *p,
			       const void *addr, dmapool_dma_t dma);
/*
 * Why a free by address of @vaddr, @dma failed the free's checks: reports
 * exactly what is wrong (the pool is unchanged).  Not pinned, no lock held.
 */
void dp_report_bad_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma);

/* registry.c */
void dp_registry_add(struct dmapool *pool);
void dp_registry_del(struct dmapool *pool);
/*
 * Is @addr in a live chunk of a pool other than @self?  Copies that pool's
 * name to @name.  No lock held.
 */
bool dp_registry_owner(const struct dmapool *self, const void *addr,
		       char name[32]);

#endif /* DMAPOOL_REPORT_H */
