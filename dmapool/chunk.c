// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Chunk records and their DMA memory (see chunk.h).
 *
 * A record is one host allocation: the header, the free map, the state
 * words, then (a cache line further on, so other contexts' frees do not
 * share a line with the owner's hot words) the remote-free words.
 */
#include "block.h"
#include "index.h"

#define DP_LINE	64

/* The record's three parts each start a line (chunk.h). */
static_assert(offsetof(struct dp_chunk, hnext) == DP_LINE,
	      "the owner's line is the record's second");
static_assert(offsetof(struct dp_chunk, st) == 2 * DP_LINE,
	      "the state words start the third line");

static size_t map_bytes(const struct dp_geometry *g)
{
	return g->nwords * sizeof(u64);
}

static size_t map_offset(const struct dp_geometry *g)
{
	size_t end = sizeof(struct dp_chunk) + g->nstate * sizeof(u32);

	return (end + sizeof(u64) - 1) / sizeof(u64) * sizeof(u64);
}

static size_t rem_offset(const struct dp_geometry *g)
{
	size_t end = map_offset(g) + map_bytes(g);

	return (end + 2 * DP_LINE - 1) / DP_LINE * DP_LINE;
}

/* Whole lines: the last is the remote words' alone (and what it costs). */
size_t dp_chunk_meta_size(const struct dp_geometry *g)
{
	size_t end = rem_offset(g) + sizeof(struct dp_remote) +
		     dp_remote_nwords(g) * sizeof(u64);

	return (end + DP_LINE - 1) / DP_LINE * DP_LINE;
}

struct dp_chunk *dp_chunk_record_new(const struct dp_geometry *g,
				     dmapool_gfp_t gfp)
{
	struct dp_chunk *c = dp_os_host_zalloc(dp_chunk_meta_size(g), gfp);

	if (!c)
		return NULL;
	c->map = (u64 *)((char *)c + map_offset(g));
	c->rem = (struct dp_remote *)((char *)c + rem_offset(g));
	c->fast_owner = DP_OWNER_NONE;
	return c;
}

void dp_chunk_record_free(const struct dp_geometry *g, struct dp_chunk *c)
{
	dp_os_host_free(c, dp_chunk_meta_size(g));
}

int dp_chunk_fill(const struct dp_geometry *g, struct dmapool_dev *dev,
		  struct dp_chunk *c, const u64 *full_map,
		  dmapool_gfp_t gfp)
{
	void *vaddr = NULL;
	dmapool_dma_t dma = 0;
	uintptr_t va;
	u32 w;
	int err;

	err = dp_os_chunk_alloc(dev, g->chunk_size, g->chunk_align, gfp,
				&vaddr, &dma);
	if (err)
		return err;
	/*
	 * Invariant 4 rests on the backend's alignment promise and on neither
	 * range wrapping, and the
	 * hash index on no chunk near DP_NO_MEMORY (index.h): check them rather than trust them.
	 */
	va = (uintptr_t)vaddr;
	if (DP_WARN_ON(!vaddr || (va & (g->chunk_align - 1)) ||
		       (dma & (g->chunk_align - 1)) ||
		       va > UINTPTR_MAX - g->chunk_size ||
		       dma > (dmapool_dma_t)~(dmapool_dma_t)0 - g->chunk_size ||
		       (DP_NO_MEMORY_HOLE && va < DP_NO_MEMORY + g->chunk_size &&
			va + g->chunk_size > DP_NO_MEMORY))) {
		if (vaddr)
			dp_os_chunk_free(dev, g->chunk_size, vaddr, dma);
		return -DP_EINVAL;
	}
	/* Lock-free frees may be reading the old values: untorn stores. */
	DP_WRITE_ONCE(c->vaddr, va);
	DP_WRITE_ONCE(c->dma, dma);
	c->summary = 0;
	for (w = 0; w < g->nwords; w++) {
		c->map[w] = full_map[w];
		if (full_map[w])
			c->summary |= (u64)1 << w;
	}
	for (w = 0; w < dp_remote_nwords(g); w++)
		c->rem->words[w] = 0;
	c->rem->queued = 0;
	c->rem->next = NULL;
	return 0;
}

void dp_chunk_drain(const struct dp_geometry *g, struct dmapool_dev *dev,
		    uintptr_t vaddr, dmapool_dma_t dma)
{
	/*
	 * Zeroed first: the next owner of that memory (another pool, another
	 * driver, a device) must not find what our callers left in it.
	 */
	dp_os_memset((void *)vaddr, 0, g->chunk_size);
	dp_os_chunk_free(dev, g->chunk_size, (void *)vaddr, dma);
}

u64 *dp_full_map_new(const struct dp_geometry *g)
{
	u64 *map = dp_os_host_zalloc(map_bytes(g) ? map_bytes(g) : 8, 0);
	u32 pos;

	if (!map)
		return NULL;
	for (pos = 0; pos < g->nbits; pos++)
		if (dp_geo_valid_position(g, pos))
			map[pos / 64] |= (u64)1 << (pos % 64);
	return map;
}

void dp_full_map_free(const struct dp_geometry *g, u64 *map)
{
	dp_os_host_free(map, map_bytes(g) ? map_bytes(g) : 8);
}

/* Byte work on blocks, out of line (chunk.h says why). */
void *dp_zero_block(void *vaddr, size_t size)
{
	dp_os_memset(vaddr, 0, size);
	return vaddr;
}

void dp_fill_block(void *vaddr, int byte, size_t size)
{
	dp_os_memset(vaddr, byte, size);
}

u32 dp_chunk_allocated(const struct dp_geometry *g, const struct dp_chunk *c,
		       u64 *pending)
{
	u32 pos, n = 0, p = 0;

	for (pos = 0; pos < g->nstate; pos++) {
		const u32 s = DP_READ_ONCE(c->st[pos]);

		n += s & DP_ST_ALLOC;
		p += !!(s & DP_ST_PENDING);
	}
	if (pending)
		*pending += p;
	return n;
}
