// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The fuzzers' DMA memory (see harness.h): a fixed-address reservation
 * carved first-fit into chunks, each recorded with the pool that owns it.
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

static uint8_t *base;
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

int dpf_arena_alloc(int owner, size_t size, size_t align, void **va,
		    uint64_t *dma)
{
	uint64_t cursor = 0, cand, skew = 0;
	size_t i;

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
	if (skew)
		dpf_warns_expected++;	/* the core's check of the backend */
	if (owner < 0 || owner >= MAX_OWNERS || !size ||
	    size + skew > DPF_ARENA_BUDGET - held_bytes ||
	    nchunks == DPF_ARENA_CHUNKS || !dpf_is_pow2(align) ||
	    align > ARENA_ALIGN)
		goto refuse;
	for (i = 0; i <= nchunks; i++) {
		uint64_t next = i < nchunks ? (uint64_t)(chunks[i].va - base) :
				DPF_ARENA_SIZE;

		cand = dpf_align_up(cursor, align) + skew;
		if (cand + size <= next)
			break;
		if (i < nchunks)
			cursor = next + chunks[i].len;
	}
	if (i > nchunks)
		goto refuse;
	memmove(&chunks[i + 1], &chunks[i], (nchunks - i) * sizeof(chunks[0]));
	chunks[i].va = base + cand;
	chunks[i].dma = DPF_DMA_BASE + cand;
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

/* The dmapool backend: the owner id rides in the dev's private pointer. */
static int dev_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		     void **vaddr, dmapool_dma_t *dma)
{
	int owner = (int)(intptr_t)dmapool_dev_priv(dev);

	return dpf_arena_alloc(owner, size, align, vaddr, dma);
}

static void dev_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		     size_t size)
{
	dpf_arena_free((int)(intptr_t)dmapool_dev_priv(dev), vaddr, dma, size);
}

static const struct dmapool_dev_ops arena_ops = {
	.chunk_alloc = dev_alloc,
	.chunk_free = dev_free,
};

struct dmapool_dev *dpf_arena_dev(int owner)
{
	return dmapool_dev_new(&arena_ops, (void *)(intptr_t)owner);
}
