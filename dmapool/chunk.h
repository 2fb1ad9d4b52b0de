/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A chunk: one backend allocation of DMA memory, and the host-memory record
 * that describes it.
 *
 * Invariant 1 lives here: everything below is host memory.  The DMA memory
 * at [vaddr, vaddr + chunk_size) is never read or written by the allocator
 * on alloc or free (only zalloc and the hardening options touch it, and
 * they only write, or read to compare).
 *
 * A record is also a handle slot: slot id and record are bound for the
 * pool's life, so the generations in the state words (block.h) outlive the
 * chunk that a record describes and continue when the slot gets its next
 * chunk.  Records are never freed while the pool lives (a free that finds a
 * record through the index without RCU protection only ever reads valid
 * memory); the record of a released chunk is reused only after an RCU grace
 * period, so a lock-free reader that still sees the old mapping is gone
 * before the record describes other memory.
 *
 * Who writes what:
 *   vaddr, dma, map, rem                set when the record gets a chunk,
 *                                       read by any free
 *   fast_owner, listed                  the owner, when the chunk joins or
 *                                       leaves its heap's avail list (or
 *                                       the pool lock); read by any free
 *   summary, map[], next/prev, nempty   the owning context (its heap)
 *   owner, heap, hnext/hprev            the owner, or the pool lock when
 *                                       the chunk changes hands
 *   st[pos]                             see block.h
 *   rem                                 other contexts (atomics), collected
 *                                       by the owner
 *   pnext, cookie, live                 the pool lock
 */
#ifndef DMAPOOL_CHUNK_H
#define DMAPOOL_CHUNK_H

#include "geometry.h"

struct dp_heap;

/*
 * Positions per bit of the remote words: one cache line of state words,
 * which the owner looks through for DP_ST_PENDING (block.h, remote.c).
 */
#define DP_REMOTE_REGION	16u

/* Blocks other contexts freed, waiting for the owner (block.h). */
struct dp_remote {
	struct dp_chunk *next;		/* on the owner heap's remote stack */
	u32 queued;			/* on that stack (or being pushed) */
	u32 pad;
	u64 words[];			/* one bit per DP_REMOTE_REGION positions */
};

struct dp_chunk {
	/*
	 * The first line: read by every free, in any context; written only
	 * when the chunk changes hands, fills, or gets its first block back.
	 * A line away from the owner's fields below (records are 64-byte
	 * aligned: dp_os_host_zalloc()): a line the owner writes on every
	 * allocation would bounce to every other context's free.
	 */
	union {
		struct {
			/*
			 * The owner's token when its frees may take the
			 * fast path (a fast pool, and the chunk on its
			 * heap's avail list), else DP_OWNER_NONE.
			 */
			uintptr_t fast_owner;
			uintptr_t vaddr;	/* start of the DMA memory */
			dmapool_dma_t dma;	/* its bus address */
			/*
			 * The free map: nwords words, after the state
			 * words (at an offset that depends on the
			 * geometry, so it is named here, on the line every
			 * free reads, rather than computed).
			 */
			u64 *map;
			struct dp_remote *rem;
			uintptr_t owner;	/* the owning context */
			struct dp_heap *heap;	/* the owning heap */
			u32 id;			/* slot, named by handles */
			u8 live;		/* describes DMA memory now */
			/*
			 * DP_LISTED_*: on the heap's avail or empty list.
			 * The owner's free reads it beside fast_owner
			 * (datapath.h, dp_reuse()), so it shares their
			 * line; the owner writes it only when the chunk
			 * fills or gets its first block back.
			 */
			u8 listed;
		};
		u8 line0[64];
	};
	/* The second line, which no other context's free reads. */
	union {
		struct {
			/*
			 * Written rarely: a chunk joins or leaves a heap or
			 * the pool's lists.
			 */
			struct dp_chunk *hnext, *hprev;	/* the heap's chunks */
			/* The pool's. */
			struct dp_chunk *pnext;	/* retired, spare, pending */
			unsigned long cookie;	/* grace period, retired */
			/*
			 * The owner's, written on allocations and frees (a
			 * map word empties or gets its first block back).
			 */
			u64 summary;		/* bit w: map[w] has a block */
			struct dp_chunk *next, *prev; /* avail or empty list */
		};
		u8 line1[64];
	};
	/*
	 * The state word per position (block.h), then map[] and *rem.  At a
	 * fixed offset in every record: the fast paths address a block's
	 * word from the record pointer alone, with no load of a pointer
	 * first (and a free can fetch its line before it has read the
	 * record's first line).  It starts the third line, so a remote
	 * region (DP_REMOTE_REGION states) is one line: a context freeing
	 * into one region and the owner collecting the next never share one.
	 */
	u32 st[];
};

/* chunk->listed */
#define DP_LISTED_NONE	0	/* full, or leaving its heap */
#define DP_LISTED_AVAIL	1	/* on the avail list: has free blocks */
#define DP_LISTED_EMPTY	2	/* kept empty (automatic shrink) */

/* Owner tokens that match no context. */
#define DP_OWNER_NONE	((uintptr_t)1)	/* fast_owner: take the slow path */
#define DP_OWNER_SHARED	((uintptr_t)3)	/* the pool's shared heap (lock) */
#define DP_OWNER_ORPHAN	((uintptr_t)5)	/* a heap whose thread exited (lock) */

/* The remote words of a chunk of @g: one bit per DP_REMOTE_REGION states. */
static inline u32 dp_remote_nwords(const struct dp_geometry *g)
{
	return (g->nstate + DP_REMOTE_REGION * 64 - 1) / (DP_REMOTE_REGION * 64);
}

/* Bytes of a record for geometry @g, and where its parts start. */
size_t dp_chunk_meta_size(const struct dp_geometry *g);

/*
 * A new record (not live, no slot id yet: the caller gives it one), zeroed
 * state; NULL when OOM.
 */
struct dp_chunk *dp_chunk_record_new(const struct dp_geometry *g,
				     dmapool_gfp_t gfp);
void dp_chunk_record_free(const struct dp_geometry *g, struct dp_chunk *c);
/*
 * Give record @c a chunk of DMA memory from @dev (every block free);
 * 0, or a negative errno.  The record is not yet visible to anyone.
 */
int dp_chunk_fill(const struct dp_geometry *g, struct dmapool_dev *dev,
		  struct dp_chunk *c, const u64 *full_map,
		  dmapool_gfp_t gfp);
/*
 * Blocks of @c allocated now and, added to *@pending unless it is NULL,
 * those another context freed that the owner has not collected yet: one
 * pass over the state words (stats, destroy).
 */
u32 dp_chunk_allocated(const struct dp_geometry *g, const struct dp_chunk *c,
		       u64 *pending);
/* Zero the chunk's DMA memory and give it back (process context). */
void dp_chunk_drain(const struct dp_geometry *g, struct dmapool_dev *dev,
		    uintptr_t vaddr, dmapool_dma_t dma);

/* The free map of an empty chunk (nwords words); NULL when OOM. */
u64 *dp_full_map_new(const struct dp_geometry *g);
void dp_full_map_free(const struct dp_geometry *g, u64 *map);

/*
 * zalloc's memset, out of line: the fast path's only call, a tail call;
 * and the same with any byte, for the byte steps of cold callers, where
 * the compiler would expand an inline memset into a slow rep stosb.
 */
void *dp_zero_block(void *vaddr, size_t size);
void dp_fill_block(void *vaddr, int byte, size_t size);

#endif /* DMAPOOL_CHUNK_H */
