/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Shared helpers for the Criterion suites.
 *
 * Every suite creates its pools through tl_pool(), which applies the pool
 * configuration the test run was started with (environment variables set by
 * meson: DMAPOOL_TEST_INDEX, DMAPOOL_TEST_FLAGS, DMAPOOL_TEST_REDZONE,
 * DMAPOOL_TEST_RESERVE), so one
 * suite runs against every index and option combination without copies.
 * Reports go to a capture buffer the test inspects.
 */
#ifndef DMAPOOL_TESTLIB_H
#define DMAPOOL_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmapool/dmapool.h>

#define TL_MAX_REPORTS 64

struct tl_capture {
	unsigned int n;			/* reports seen (may exceed the array) */
	struct dmapool_report r[TL_MAX_REPORTS];
	char owner[TL_MAX_REPORTS][32];
	char name[TL_MAX_REPORTS][32];
};

/* The capture every tl_pool() pool reports into; reset by tl_reset(). */
extern struct tl_capture tl_cap;
void tl_reset(void);
/* Reports of @kind captured so far. */
unsigned int tl_count(enum dmapool_report_kind kind);
/* The last captured report (there must be one). */
const struct dmapool_report *tl_last(void);

/* The configuration of this run, applied to @o. */
void tl_opts(struct dmapool_opts *o);
/* A pool on @dev configured for this run, reporting into tl_cap. */
struct dmapool *tl_pool(struct dmapool_dev *dev, size_t size, size_t align,
			size_t boundary);
struct dmapool *tl_pool_opts(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary,
			     const struct dmapool_opts *extra);
/* A heap backend that the test owns (put it after destroying pools). */
struct dmapool_dev *tl_heap(void);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t tl_rand(uint64_t *state);

/* Every chunk of a pool, copied out (tests then play the device). */
struct tl_chunk {
	uint8_t *vaddr;
	dmapool_dma_t dma;
	size_t len;
};
size_t tl_chunks(const struct dmapool *pool, struct tl_chunk *out, size_t max);

/* The heap backend's bus address for a vaddr (see dev_heap.c). */
dmapool_dma_t tl_heap_dma(const void *vaddr);

/*
 * An environment for the cases shared with the kernel (tests/cases/): a
 * heap backend, this run's configuration, the heap's bus addresses for
 * foreign memory.  Put it when done.
 */
struct tc_env;
struct tc_env *tl_env(void);
void tl_env_put(struct tc_env *e);

/*
 * What the run's options change about behaviour the suites check (see
 * tl_opts): the few assertions that legitimately depend on options ask
 * these instead of assuming a plain pool.
 */
unsigned int tl_flags(void);		/* DMAPOOL_TEST_FLAGS */
unsigned int tl_redzone(void);		/* DMAPOOL_TEST_REDZONE */
/* Is a freed block the very next one handed out (no quarantine, no
 * randomized placement)? */
bool tl_reuse_is_lifo(void);
/* Freed blocks the pool may hold back from reuse (the quarantine bound). */
unsigned int tl_held_back(void);
/* Do the options make device writes into pool memory reports? */
bool tl_detects_device_writes(void);
/*
 * Allocate until @want comes back (quiescing first, so quarantine lets it
 * go), freeing the other blocks on the way; fails the test if it never
 * does.  For tests about a block that is freed and reused.
 */
void *tl_realloc(struct dmapool *pool, const void *want, dmapool_dma_t *dma);
struct dmapool_block tl_realloc_block(struct dmapool *pool, const void *want);
/*
 * Every report @pool made so far is of a device kind (device-write-after-
 * free, device-overrun), and there are none unless the options detect
 * device writes; also every captured report is one of those.  Returns the
 * number of device reports.
 */
uint64_t tl_assert_only_device_reports(const struct dmapool *pool);

#endif
