// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Poison, scrub and redzones: the hardening options that touch block memory
 * (see harden.h for how they hook into the data path).
 *
 * - Poison (DMAPOOL_OPT_POISON): a free block is filled with DP_POISON_BYTE
 *   (new chunks entirely), and verified when it is allocated again.  Any
 *   other byte means something wrote to the block while nobody owned it:
 *   "device-write-after-free", with the first changed offset and the bytes.
 * - Scrub (DMAPOOL_OPT_SCRUB): a freed block is zeroed, so the next user and
 *   the device see no stale data.  With poison too, the poison pattern does
 *   that job (one write, no stale data either way).
 * - Redzones (opts.redzone): the first opts.redzone bytes after each block
 *   hold per-pool random bytes whose expected values live in host memory
 *   (geometry reserves them, rounded up to the alignment; the rounding is
 *   not checked: with a large alignment it can be kilobytes, and checking
 *   costs per byte).  Checked when the block is freed: a changed byte means
 *   the block's user wrote past its end, "device-overrun".  The redzone is
 *   then restored, so one overrun is reported once.
 *
 * These only read DMA memory to compare it and report; a byte never decides
 * anything but the content of a report (invariant 2).
 */
#include "pool.h"

#define POISON_WORD	(0x0101010101010101ull * DP_POISON_BYTE)

static const uint64_t poison_pattern[DP_REDZONE_KEY_WORDS] = {
	POISON_WORD, POISON_WORD, POISON_WORD, POISON_WORD,
	POISON_WORD, POISON_WORD, POISON_WORD, POISON_WORD,
};

const char *dp_harden_check_opts(const struct dmapool_opts *o)
{
	/*
	 * A thread cache allocates and frees without the pool lock and gives
	 * held bits another meaning (tcache.c): the hooks are not wired into
	 * it yet.
	 */
	if ((o->flags & DMAPOOL_OPT_THREAD_CACHE) &&
	    ((o->flags & DP_HOOK_FLAGS) || o->redzone))
		return "thread caches cannot be combined with hardening options in this build";
	if ((o->flags & DMAPOOL_OPT_QUARANTINE) &&
	    o->quarantine_max > DP_QUARANTINE_LIMIT)
		return "quarantine_max is larger than 2^20 blocks";
	return NULL;
}

/* Random key bytes, none 0x00 or 0xff: a device zero-fill or all-ones fill
 * over a redzone changes every byte of it. */
static void make_key(uint64_t *key)
{
	uint64_t s = dp_os_random_seed();
	uint8_t *b = (uint8_t *)key;
	unsigned int i;

	for (i = 0; i < DP_REDZONE_KEY_WORDS; i++)
		key[i] = dp_rand_next(&s);
	for (i = 0; i < DP_REDZONE_KEY_BYTES; i++)
		if (b[i] == 0x00 || b[i] == 0xff)
			b[i] = 0x5a;
}

int dp_harden_init(struct dmapool *pool, const struct dmapool_opts *o)
{
	struct dp_geometry *g = &pool->geo;

	pool->hooks = o->flags & DP_HOOK_FLAGS;
	if (o->redzone) {
		pool->hooks |= DP_HOOK_REDZONE;
		pool->hard.redzone = o->redzone;
	}
	if (!pool->hooks)
		return 0;
	pool->hooked = true;
	/* Blocks being scrubbed or in quarantine are held (chunk.h). */
	if (pool->hooks & DP_HOOK_FREE)
		g->held_words = g->nwords;
	pool->hard.rng = o->seed ? o->seed : dp_os_random_seed();
	if (pool->hooks & DP_HOOK_REDZONE)
		make_key(pool->hard.key);
	if (pool->hooks & DMAPOOL_OPT_QUARANTINE)
		return dp_quarantine_init(&pool->hard.q, o->quarantine_max);
	return 0;
}

void dp_harden_fini(struct dmapool *pool)
{
	dp_quarantine_fini(&pool->hard.q);
}

size_t dp_harden_meta_bytes(const struct dmapool *pool)
{
	return pool->hard.q.ring ? pool->hard.q.max * sizeof(uint64_t) : 0;
}

static uint8_t pattern_byte(const uint64_t *pat, size_t i)
{
	return ((const uint8_t *)pat)[i % DP_REDZONE_KEY_BYTES];
}

/* Write the 64-byte-periodic @pat over @n bytes at @p. */
static void fill_pattern(uint8_t *p, size_t n, const uint64_t *pat)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		__builtin_memcpy(p + i, &pat[(i / 8) % DP_REDZONE_KEY_WORDS], 8);
	for (; i < n; i++)
		p[i] = pattern_byte(pat, i);
}

/* The first of @n bytes at @p that differs from @pat, or @n. */
static size_t first_diff(const uint8_t *p, size_t n, const uint64_t *pat)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v;

		__builtin_memcpy(&v, p + i, 8);
		if (v != pat[(i / 8) % DP_REDZONE_KEY_WORDS])
			break;
	}
	for (; i < n; i++)
		if (p[i] != pattern_byte(pat, i))
			return i;
	return n;
}

/*
 * Is every one of the @n bytes at @p the poison byte?  The common case
 * (yes) reads the block once, 8 bytes at a time, with no early exit and no
 * pattern index; first_diff() then finds where, in the rare other case.
 */
static bool all_poison(const uint8_t *p, size_t n)
{
	uint64_t acc = 0, a[4] = { 0, 0, 0, 0 };
	size_t i, j;

	/* Four independent accumulators: no dependency chain through acc. */
	for (i = 0; i + 32 <= n; i += 32) {
		for (j = 0; j < 4; j++) {
			uint64_t v;

			__builtin_memcpy(&v, p + i + 8 * j, 8);
			a[j] |= v ^ POISON_WORD;
		}
	}
	acc = a[0] | a[1] | a[2] | a[3];
	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		__builtin_memcpy(&v, p + i, 8);
		acc |= v ^ POISON_WORD;
	}
	for (; i < n; i++)
		acc |= p[i] ^ DP_POISON_BYTE;
	return !acc;
}

/*
 * Describe what a device left in the @n bytes at @start (from the block at
 * @boff in @c), the first bad one at @first: where, up to 16 bytes from
 * there, and how many differ.  The device may still be writing; the report
 * says what was read.
 */
static void device_report(struct dmapool *pool, struct dp_pending *p,
			  enum dmapool_report_kind kind,
			  const struct dp_chunk *c, size_t boff, size_t start,
			  size_t n, const uint64_t *pat, size_t first,
			  const char *detail)
{
	const uint8_t *b = (const uint8_t *)(c->vaddr + boff);
	const size_t off = start + first;
	size_t i;

	dp_report_fill(pool, p, kind, b + off, c->dma + boff + off, detail);
	p->r.block = b;
	p->r.block_dma = c->dma + boff;
	p->r.offset = off;
	for (i = first; i < n; i++) {
		uint8_t v = b[start + i];

		if (p->r.found_len < sizeof(p->r.found))
			p->r.found[p->r.found_len++] = v;
		p->r.count += v != pattern_byte(pat, i);
	}
}

void dp_harden_chunk_init(struct dmapool *pool, struct dp_chunk *c)
{
	const struct dp_geometry *g = &pool->geo;
	uint8_t *base = (uint8_t *)c->vaddr;
	uint32_t pos;

	if (pool->hooks & DMAPOOL_OPT_POISON)
		dp_os_memset(base, DP_POISON_BYTE, g->chunk_size);
	if (!(pool->hooks & DP_HOOK_REDZONE))
		return;
	for (pos = 0; pos < g->nbits; pos++)
		if (dp_geo_valid_position(g, pos))
			fill_pattern(base + dp_geo_offset(g, pos) + g->size,
				     pool->hard.redzone, pool->hard.key);
}

/*
 * The byte work of a free, lock dropped, block held.  True when a report
 * was filled in @p.
 */
static bool free_bytes(struct dmapool *pool, struct dp_chunk *c, uint32_t pos,
		       struct dp_pending *p)
{
	const struct dp_geometry *g = &pool->geo;
	const size_t off = dp_geo_offset(g, pos);
	uint8_t *b = (uint8_t *)(c->vaddr + off);
	bool bad = false;

	if (pool->hooks & DP_HOOK_REDZONE) {
		const size_t n = pool->hard.redzone;
		size_t first = first_diff(b + g->size, n, pool->hard.key);

		if (DP_UNLIKELY(first < n)) {
			device_report(pool, p, DMAPOOL_R_DEVICE_OVERRUN, c, off,
				      g->size, n, pool->hard.key, first,
				      "the redzone after the block changed while it was allocated: its user wrote past its end");
			fill_pattern(b + g->size, n, pool->hard.key);
			bad = true;
		}
	}
	if (pool->hooks & DMAPOOL_OPT_POISON)
		dp_os_memset(b, DP_POISON_BYTE, g->size);
	else if (pool->hooks & DMAPOOL_OPT_SCRUB)
		dp_os_memset(b, 0, g->size);
	return bad;
}

/*
 * The last step of every hardened free: quarantine or reuse; lock held.
 * Returns a chunk that this left empty in an auto-shrink pool, or NULL.
 */
static const struct dp_chunk *free_finish(struct dmapool *pool,
					  struct dp_chunk *c, uint32_t pos)
{
	if (pool->hooks & DMAPOOL_OPT_QUARANTINE)
		return dp_quarantine_add(pool, c, pos);
	dp_block_to_free(pool, c, pos);
	return pool->auto_shrink && dp_chunk_emptied(pool, c, pos) ? c : NULL;
}

/* A free with byte work (its report, if any, needs a large frame). */
static __attribute__((__noinline__)) void free_held(struct dmapool *pool,
						struct dp_chunk *c,
						uint32_t pos,
						dp_irqflags_t flags)
{
	const struct dp_geometry *g = &pool->geo;
	const struct dp_chunk *shrink;
	struct dp_pending p;
	bool bad;

	/* Nobody can take, free or release a held block. */
	dp_chunk_hold(c, g, pos);
	dp_unlock(&pool->lock, flags);
	bad = free_bytes(pool, c, pos, &p);
	flags = dp_lock(&pool->lock);
	dp_chunk_unhold(c, g, pos);
	shrink = free_finish(pool, c, pos);
	dp_unlock(&pool->lock, flags);
	if (bad)
		dp_report_deliver(pool, &p);
	if (shrink)
		dp_auto_shrink(pool, shrink);
}

void dp_harden_free(struct dmapool *pool, struct dp_chunk *c, uint32_t pos,
		    dp_irqflags_t flags)
{
	const struct dp_chunk *shrink;

	dp_gen_bump(pool, c, pos);
	pool->in_use--;
	if (pool->hooks & DP_HOOK_BYTES) {
		free_held(pool, c, pos, flags);
		return;
	}
	shrink = free_finish(pool, c, pos);
	dp_unlock(&pool->lock, flags);
	if (shrink)
		dp_auto_shrink(pool, shrink);
}

void dp_harden_alloc_check(struct dmapool *pool, struct dp_chunk *c,
			   uint32_t pos)
{
	const struct dp_geometry *g = &pool->geo;
	const size_t off = dp_geo_offset(g, pos);
	const uint8_t *b = (const uint8_t *)(c->vaddr + off);
	struct dp_pending p;
	size_t first;

	if (DP_LIKELY(all_poison(b, g->size)))
		return;
	/* The device may have put the bytes back meanwhile: then no report. */
	first = first_diff(b, g->size, poison_pattern);
	if (first == g->size)
		return;
	device_report(pool, &p, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE, c, off, 0,
		      g->size, poison_pattern, first,
		      "a free block changed while nobody owned it: a device (or a stale user) wrote to it after it was freed");
	dp_report_deliver(pool, &p);
}
