// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Poison, sampled poison, scrub and redzones: the steps that touch block
 * memory (see harden.h for where they run).
 *
 * - Poison (DMAPOOL_OPT_POISON): a free block is filled with DP_POISON_BYTE
 *   (new chunks entirely), and verified when it is allocated again.  Any
 *   other byte means something wrote to the block while nobody owned it:
 *   "device-write-after-free", with the first changed offset and the bytes.
 * - Sampled poison (DMAPOOL_OPT_POISON_SAMPLED): cheap enough to stay on.
 *   Every freed block gets the pattern in its first DP_POISON_HEAD bytes,
 *   where an embedded free list keeps its links, and one block in
 *   opts.poison_sample gets it whole; the next allocation checks what was
 *   written.  Which blocks are whole is decided at the free, where a device
 *   cannot tell in advance which blocks will be watched: by the owner's
 *   heap, a countdown drawn from its generator (dp_heap_sample_whole()),
 *   and for a free by another context or a new chunk a keyed hash of the
 *   block and its generation (dp_harden_sampled_whole()); the decision is
 *   kept in the block's state word
 *   (DP_ST_WHOLE, host memory), so the next allocation checks it without
 *   deciding again.
 *   A new chunk's blocks are poisoned as a free would poison them (the
 *   head, the whole block for one in N), so a block's first allocation is
 *   checked like any other.
 *   It catches every device write into the head of a free block (a forged
 *   free-list link) and, over many reuses, a 1-in-N share of writes
 *   anywhere else; it misses a write beyond the head of an unsampled block
 *   and a write that restores the pattern before the next allocation.
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
#include "harden.h"

#define POISON_WORD	DP_POISON_WORD

static const u64 poison_pattern[DP_REDZONE_KEY_WORDS] = {
	POISON_WORD, POISON_WORD, POISON_WORD, POISON_WORD,
	POISON_WORD, POISON_WORD, POISON_WORD, POISON_WORD,
};

const char *dp_harden_check_opts(const struct dmapool_opts *o)
{
	if ((o->flags & DMAPOOL_OPT_QUARANTINE) &&
	    o->quarantine_max > DP_QUARANTINE_LIMIT)
		return "quarantine_max is larger than 2^20 blocks";
	if (o->poison_sample && !(o->flags & DMAPOOL_OPT_POISON_SAMPLED))
		return "option clash: poison_sample without DMAPOOL_OPT_POISON_SAMPLED";
	if ((o->flags & DMAPOOL_OPT_POISON) &&
	    (o->flags & DMAPOOL_OPT_POISON_SAMPLED))
		return "option clash: DMAPOOL_OPT_POISON and DMAPOOL_OPT_POISON_SAMPLED";
	return NULL;
}

/*
 * Random key bytes, none 0x00 or 0xff: a device zero-fill or all-ones fill
 * over a redzone changes every byte of it.
 */
static void make_key(u64 *key)
{
	u64 s = dp_os_random_seed();
	u8 *b = (u8 *)key;
	unsigned int i;

	for (i = 0; i < DP_REDZONE_KEY_WORDS; i++)
		key[i] = dp_rand_next(&s);
	for (i = 0; i < DP_REDZONE_KEY_BYTES; i++)
		if (b[i] == 0x00 || b[i] == 0xff)
			b[i] = 0x5a;
}

void dp_harden_init(struct dmapool *pool, const struct dmapool_opts *o)
{
	u32 steps = 0;

	if (o->flags & DMAPOOL_OPT_POISON)
		steps |= DP_STEP_POISON;
	if (o->flags & DMAPOOL_OPT_POISON_SAMPLED)
		steps |= DP_STEP_SAMPLED;
	/* With poison the pattern does scrub's job (no stale data either). */
	if ((o->flags & DMAPOOL_OPT_SCRUB) && !(steps & DP_STEP_POISON))
		steps |= DP_STEP_SCRUB;
	if (o->redzone)
		steps |= DP_STEP_REDZONE;
	if (o->flags & DMAPOOL_OPT_QUARANTINE)
		steps |= DP_STEP_QUARANTINE;
	if (o->flags & DMAPOOL_OPT_RANDOM)
		steps |= DP_STEP_RANDOM;
	pool->steps |= steps;
	pool->redzone = o->redzone;
	pool->quarantine_max = o->quarantine_max ? o->quarantine_max :
			       DP_QUARANTINE_DEFAULT;
	pool->poison_sample = o->poison_sample ? o->poison_sample :
			      DP_POISON_SAMPLE_DEFAULT;
	pool->sample_cut = ((u64)1 << 32) / pool->poison_sample;
	pool->seed = o->seed ? o->seed : dp_os_random_seed();
	if (steps & DP_STEP_REDZONE)
		make_key(pool->key);
}

static u8 pattern_byte(const u64 *pat, size_t i)
{
	return ((const u8 *)pat)[i % DP_REDZONE_KEY_BYTES];
}

/* Write the 64-byte-periodic @pat over @n bytes at @p. */
static void fill_pattern(u8 *p, size_t n, const u64 *pat)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		__builtin_memcpy(p + i, &pat[(i / 8) % DP_REDZONE_KEY_WORDS], 8);
	for (; i < n; i++)
		p[i] = pattern_byte(pat, i);
}

/* The first of @n bytes at @p that differs from @pat, or @n. */
static size_t first_diff(const u8 *p, size_t n, const u64 *pat)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		u64 v;

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
static bool all_poison(const u8 *p, size_t n)
{
	u64 acc = 0, a[4] = { 0, 0, 0, 0 };
	size_t i, j;

	/* Four independent accumulators: no dependency chain through acc. */
	for (i = 0; i + 32 <= n; i += 32) {
		for (j = 0; j < 4; j++) {
			u64 v;

			__builtin_memcpy(&v, p + i + 8 * j, 8);
			a[j] |= v ^ POISON_WORD;
		}
	}
	acc = a[0] | a[1] | a[2] | a[3];
	for (; i + 8 <= n; i += 8) {
		u64 v;

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
			  size_t n, const u64 *pat, size_t first,
			  const char *detail)
{
	const u8 *b = (const u8 *)(c->vaddr + boff);
	const size_t off = start + first;
	size_t i;

	dp_report_fill(pool, p, kind, b + off, c->dma + boff + off, detail);
	p->r.block = b;
	p->r.block_dma = c->dma + boff;
	p->r.offset = off;
	for (i = first; i < n; i++) {
		u8 v = b[start + i];

		if (p->r.found_len < sizeof(p->r.found))
			p->r.found[p->r.found_len++] = v;
		p->r.count += v != pattern_byte(pat, i);
	}
}

static u32 head_bytes(const struct dp_geometry *g)
{
	return g->size < DP_POISON_HEAD ? g->size : DP_POISON_HEAD;
}

/*
 * Sampled poison's write into the free block @pos at @b (state word @st):
 * the head, or the whole block and DP_ST_WHOLE for the next allocation.
 */
static void sampled_poison(struct dmapool *pool, struct dp_chunk *c, u32 pos,
			   bool whole, u8 *b)
{
	const struct dp_geometry *g = &pool->geo;

	if (whole || head_bytes(g) != DP_POISON_HEAD) {
		/* Whole: sampled, or smaller than the head. */
		dp_os_memset(b, DP_POISON_BYTE, g->size);
		dp_state_mark_whole(c, pos);
	} else {
		/* The usual case: two words, no call. */
		dp_poison_head(b);
	}
}

void dp_harden_chunk_init(struct dmapool *pool, struct dp_chunk *c)
{
	const struct dp_geometry *g = &pool->geo;
	u8 *base = (u8 *)c->vaddr;
	u32 pos;

	if (pool->steps & DP_STEP_POISON)
		dp_os_memset(base, DP_POISON_BYTE, g->chunk_size);
	if (!(pool->steps & (DP_STEP_SAMPLED | DP_STEP_REDZONE)))
		return;
	for (pos = 0; pos < g->nbits; pos++) {
		u8 *b = base + dp_geo_offset(g, pos);

		if (!dp_geo_valid_position(g, pos))
			continue;
		/*
		 * Every block of a new chunk is poisoned as a free would
		 * poison it, so its first allocation checks what a free
		 * would have left: the head, and the whole block for one in
		 * poison_sample (all with 1).  (The chunk is in the index
		 * already: only failing claims, atomic on bit 0, can touch
		 * its state words, and they leave them as they are.)
		 */
		if (pool->steps & DP_STEP_SAMPLED) {
			/* A released chunk's last frees may have marked it. */
			dp_state_clear_whole(c, pos);
			sampled_poison(pool, c, pos,
				       dp_harden_sample_now(pool, c, pos), b);
		}
		if (pool->steps & DP_STEP_REDZONE)
			fill_pattern(b + g->size, pool->redzone, pool->key);
	}
}

bool dp_harden_free_bytes(struct dmapool *pool, struct dp_chunk *c,
			  u32 pos, bool whole, bool zero,
			  struct dp_pending *p)
{
	const struct dp_geometry *g = &pool->geo;
	const size_t off = dp_geo_offset(g, pos);
	u8 *b = (u8 *)(c->vaddr + off);
	const u32 steps = pool->steps;
	bool bad = false;

	if (steps & DP_STEP_REDZONE) {
		const size_t n = pool->redzone;
		size_t first = first_diff(b + g->size, n, pool->key);

		if (DP_UNLIKELY(first < n)) {
			device_report(pool, p, DMAPOOL_R_DEVICE_OVERRUN, c, off,
				      g->size, n, pool->key, first,
				      "the redzone after the block changed while it was allocated: its user wrote past its end");
			fill_pattern(b + g->size, n, pool->key);
			bad = true;
		}
	}
	if (steps & DP_STEP_POISON) {
		dp_os_memset(b, DP_POISON_BYTE, g->size);
		return bad;
	}
	if (zero || (steps & DP_STEP_SCRUB))
		dp_os_memset(b, 0, g->size);
	if (steps & DP_STEP_SAMPLED)
		sampled_poison(pool, c, pos, whole, b);
	return bad;
}

bool dp_harden_alloc_check(struct dmapool *pool, struct dp_chunk *c,
			   u32 pos, u32 st, struct dp_pending *p)
{
	const struct dp_geometry *g = &pool->geo;
	const size_t off = dp_geo_offset(g, pos);
	const u8 *b = (const u8 *)(c->vaddr + off);
	size_t n = g->size, first;

	if ((pool->steps & DP_STEP_SAMPLED) && !(st & DP_ST_WHOLE)) {
		n = head_bytes(g);
		/* The usual case: two words. */
		if (DP_LIKELY(n == DP_POISON_HEAD) &&
		    DP_LIKELY(dp_poison_head_intact(b)))
			return false;
	}
	if (DP_LIKELY(all_poison(b, n)))
		return false;
	/* The device may have put the bytes back meanwhile: then no report. */
	first = first_diff(b, n, poison_pattern);
	if (first == n)
		return false;
	device_report(pool, p, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE, c, off, 0,
		      n, poison_pattern, first,
		      "a free block changed while nobody owned it: a device (or a stale user) wrote to it after it was freed");
	return true;
}
