// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The fuzzers' DMA memory (see harness.h): a fixed-address reservation
 * carved first-fit into chunks, each recorded with the pool that owns it,
 * and a small one as low as a process may map (64 KiB), for pools whose
 * chunks must sit where addresses are smaller than a chunk's length.
 *
 * Freed chunks are given back to the kernel with MADV_DONTNEED, so memory
 * the arena hands out is always fresh zeros, like a new mapping: nothing
 * from an earlier input can leak into this one, and an input behaves the
 * same whichever inputs ran before it in the same process.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

/* Far from where the kernel, ASan and libFuzzer put their own mappings. */
#define ARENA_HINT	((void *)0x3f0000000000ull)
#define ARENA_ALIGN	(1ull << 30)
/* The lowest address Linux lets a process map by default (mmap_min_addr),
 * below every binary and library. */
#define LOW_HINT	((void *)0x10000ull)
#define LOW_SIZE	(16u << 20)
#define LOW_DMA		0x7e0000000000ull

struct region {
	uint8_t *base;
	size_t size;
	uint64_t dma;		/* bus address of base */
};

static uint8_t *base;
static struct region regions[2];	/* main, low (size 0: none) */
static struct dpf_chunk chunks[DPF_ARENA_CHUNKS];	/* sorted by va */
static size_t nchunks;
static size_t held_bytes;
static unsigned int fail_next;
static bool fail_misalign;
static unsigned long refusals;
static uint64_t serial;
/* Chunks held per owner (the ops harness counts before every allocation). */
#define MAX_OWNERS	4096
static uint32_t held_by[MAX_OWNERS], held_orphans;
static uint32_t taken_by[MAX_OWNERS];	/* allocations asked for */
static dpf_release_hook hook;
static void *hook_ctx;

void dpf_arena_init(void)
{
	void *p;

	if (base)
		return;
	p = mmap(ARENA_HINT, DPF_ARENA_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && p != ARENA_HINT) {
		munmap(p, DPF_ARENA_SIZE);	/* an old kernel's hint */
		p = MAP_FAILED;
	}
	if (p == MAP_FAILED) {
		/* Anywhere, aligned to 1 GiB so every alignment is possible. */
		uintptr_t raw, start;

		p = mmap(NULL, DPF_ARENA_SIZE + ARENA_ALIGN,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("dpf: arena mmap");
			abort();
		}
		raw = (uintptr_t)p;
		start = (raw + ARENA_ALIGN - 1) & ~(uintptr_t)(ARENA_ALIGN - 1);
		if (start > raw)
			munmap(p, start - raw);
		munmap((void *)(start + DPF_ARENA_SIZE),
		       raw + ARENA_ALIGN - start);
		p = (void *)start;
	}
	base = p;
	regions[0] = (struct region){ base, DPF_ARENA_SIZE, DPF_DMA_BASE };
	/* The low one only where the system allows it: else low pools take
	 * their chunks from the main one. */
	p = mmap(LOW_HINT, LOW_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p == LOW_HINT)
		regions[1] = (struct region){ p, LOW_SIZE,
					      LOW_DMA + (uintptr_t)p };
	else if (p != MAP_FAILED)
		munmap(p, LOW_SIZE);
}

bool dpf_arena_has_low(void)
{
	return regions[1].size != 0;
}

static void forget(uint8_t *va, size_t len)
{
	madvise(va, len, MADV_DONTNEED);
}

void dpf_arena_reset(void)
{
	size_t i;

	/* Every harness resets the arena to start an input. */
	dpf_entropy_reset();
	for (i = 0; i < nchunks; i++)
		forget(chunks[i].va, chunks[i].len);
	nchunks = 0;
	memset(held_by, 0, sizeof(held_by));
	memset(taken_by, 0, sizeof(taken_by));
	held_orphans = 0;
	held_bytes = 0;
	fail_next = 0;
	fail_misalign = false;
	dpf_warns_expected = 0;
	refusals = 0;
	serial = 0;
	hook = NULL;
	hook_ctx = NULL;
}

void dpf_arena_set_hook(dpf_release_hook fn, void *ctx)
{
	hook = fn;
	hook_ctx = ctx;
}

void dpf_arena_fail_next(unsigned int n, bool misalign)
{
	fail_next = n;
	fail_misalign = misalign;
}

unsigned long dpf_arena_refusals(void)
{
	return refusals;
}

/*
 * First fit in @r for @size bytes at @align (absolute) plus @skew: the
 * index in chunks[] to insert at and the offset, or false.
 */
static bool carve(const struct region *r, size_t size, size_t align,
		  uint64_t skew, size_t *at, uint64_t *off)
{
	const uintptr_t b = (uintptr_t)r->base;
	uint64_t cursor = 0, cand;
	size_t i;

	for (i = 0; i < nchunks && chunks[i].va < r->base; i++)
		;
	for (;; i++) {
		bool inside = i < nchunks && chunks[i].va < r->base + r->size;
		uint64_t next = inside ? (uint64_t)(chunks[i].va - r->base) :
				r->size;

		cand = dpf_align_up(b + cursor, align) - b + skew;
		if (cand + size <= next) {
			*at = i;
			*off = cand;
			return true;
		}
		if (!inside)
			return false;
		cursor = next + chunks[i].len;
	}
}

int dpf_arena_alloc(int owner, bool low, size_t size, size_t align,
		    void **va, uint64_t *dma)
{
	const struct region *r = regions;
	uint64_t cand, skew = 0;
	size_t i;

	/* A low pool's chunks alternate between the two reservations: low
	 * addresses, and chunks far apart (as dma_alloc_coherent's are). */
	if (owner >= 0 && owner < MAX_OWNERS && low && regions[1].size &&
	    !(taken_by[owner]++ & 1))
		r = &regions[1];
	if (fail_next) {
		fail_next--;
		if (!fail_misalign)
			goto refuse;
		/* A broken backend: the chunk is off the alignment.  The
		 * pool must notice and give it back; count it as a refusal. */
		refusals++;
		skew = 2048;
		align = align < 4096 ? 4096 : align;
	}
	if (owner < 0 || owner >= MAX_OWNERS || !size ||
	    size + skew > DPF_ARENA_BUDGET - held_bytes ||
	    nchunks == DPF_ARENA_CHUNKS || !dpf_is_pow2(align) ||
	    align > ARENA_ALIGN || !carve(r, size, align, skew, &i, &cand))
		goto refuse;
	if (skew)
		dpf_warns_expected++;	/* the core's check of the backend */
	memmove(&chunks[i + 1], &chunks[i], (nchunks - i) * sizeof(chunks[0]));
	chunks[i].va = r->base + cand;
	chunks[i].dma = r->dma + cand;
	chunks[i].len = size;
	chunks[i].owner = owner;
	chunks[i].ctx = dpf_ctx;
	chunks[i].serial = ++serial;
	nchunks++;
	held_by[owner]++;
	held_bytes += size;
	*va = chunks[i].va;
	*dma = chunks[i].dma;
	return 0;
refuse:
	refusals++;
	return -1;
}

static size_t find_index(const void *p)
{
	size_t lo = 0, hi = nchunks;

	/* The first chunk that ends after p. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((const uint8_t *)p >= chunks[mid].va + chunks[mid].len)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nchunks && (const uint8_t *)p >= chunks[lo].va)
		return lo;
	return nchunks;
}

const struct dpf_chunk *dpf_arena_find(const void *p)
{
	size_t i = find_index(p);

	return i < nchunks ? &chunks[i] : NULL;
}

void dpf_arena_free(int owner, void *va, uint64_t dma, size_t size)
{
	size_t i = find_index(va);
	struct dpf_chunk *c = &chunks[i];

	dpf_check(i < nchunks && c->va == va,
		  "backend: chunk_free(%p) of memory the backend never handed out",
		  va);
	dpf_check(c->owner == owner,
		  "backend: chunk %p freed by pool %d, owned by %d", va, owner,
		  c->owner);
	dpf_check(c->dma == dma && c->len == size,
		  "backend: chunk %p freed with dma %#llx len %zu, was %#llx len %zu",
		  va, (unsigned long long)dma, size,
		  (unsigned long long)c->dma, c->len);
	if (hook)
		hook(c, hook_ctx);
	forget(c->va, c->len);
	if (c->owner < 0)
		held_orphans--;
	else
		held_by[c->owner]--;
	held_bytes -= c->len;
	memmove(c, c + 1, (nchunks - i - 1) * sizeof(*c));
	nchunks--;
}

uint64_t dpf_arena_serial(void)
{
	return serial;
}

size_t dpf_arena_count(int owner)
{
	if (owner < 0)
		return held_orphans;
	return owner < MAX_OWNERS ? held_by[owner] : 0;
}

const struct dpf_chunk *dpf_arena_at(size_t i)
{
	return i < nchunks ? &chunks[i] : NULL;
}

void dpf_arena_orphan(int owner)
{
	size_t i;

	if (owner < 0 || owner >= MAX_OWNERS)
		return;
	for (i = 0; i < nchunks; i++)
		if (chunks[i].owner == owner)
			chunks[i].owner = -1;
	held_orphans += held_by[owner];
	held_by[owner] = 0;
}

bool dpf_arena_contains(const void *p)
{
	return (const uint8_t *)p >= base &&
	       (const uint8_t *)p < base + DPF_ARENA_SIZE;
}

void *dpf_arena_end(void)
{
	return base + DPF_ARENA_SIZE;
}

/* The dmapool backend: the owner id (and LOW_DEV) ride in the dev's
 * private pointer. */
#define LOW_DEV		(1 << 30)

static int dev_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		     void **vaddr, dmapool_dma_t *dma)
{
	int priv = (int)(intptr_t)dmapool_dev_priv(dev);

	return dpf_arena_alloc(priv & ~LOW_DEV, priv & LOW_DEV, size, align,
			       vaddr, dma);
}

static void dev_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		     size_t size)
{
	dpf_arena_free((int)(intptr_t)dmapool_dev_priv(dev) & ~LOW_DEV, vaddr,
		       dma, size);
}

static const struct dmapool_dev_ops arena_ops = {
	.chunk_alloc = dev_alloc,
	.chunk_free = dev_free,
};

struct dmapool_dev *dpf_arena_dev(int owner, bool low)
{
	return dmapool_dev_new(&arena_ops,
			       (void *)(intptr_t)(owner | (low ? LOW_DEV : 0)));
}
