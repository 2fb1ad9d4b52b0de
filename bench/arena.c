// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The benchmark's DMA backend (see arena.h).  Chunks come from segments of
 * one pre-faulted anonymous mapping each, by bumping an offset; a freed
 * chunk goes on a list for its (size, align) class and is handed out again
 * first, so repeated runs reuse warm memory.  The bus address is the
 * virtual address moved up by a constant, as in the heap backend.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "arena.h"

#define ARENA_DMA_OFFSET	0xd0000000000000ull
#define ARENA_SEG_DEFAULT	(256ul << 20)
#define ARENA_CLASSES		16

struct extent {
	struct extent *next;
	uintptr_t start;
};

struct segment {
	struct segment *next;
	void *start;
	size_t len;
};

struct arena {
	pthread_mutex_t lock;
	struct segment *segs;
	size_t seg_bytes;
	uintptr_t cur, end;		/* the segment being bumped */
	size_t mapped;
	struct {
		size_t size, align;
		struct extent *free;
	} cls[ARENA_CLASSES];
	unsigned int ncls;
};

/*
 * Segments start on a 1 GiB boundary, so where chunks fall relative to
 * any power-of-two boundary (and so the shape of an index over their
 * addresses) is the same in every run: instruction counts repeat exactly.
 */
#define ARENA_SEG_ALIGN	(1ul << 30)

static int new_segment(struct arena *a, size_t need)
{
	size_t len = a->seg_bytes > need ? a->seg_bytes : need;
	struct segment *seg;
	uintptr_t start;
	void *p;

	len = (len + 4095) & ~(size_t)4095;
	p = mmap(NULL, len + ARENA_SEG_ALIGN, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	start = ((uintptr_t)p + ARENA_SEG_ALIGN - 1) & ~(ARENA_SEG_ALIGN - 1);
	if (start > (uintptr_t)p)
		munmap(p, start - (uintptr_t)p);
	munmap((void *)(start + len),
	       (uintptr_t)p + len + ARENA_SEG_ALIGN - (start + len));
	p = mmap((void *)start, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);
	seg = malloc(sizeof(*seg));
	if (p == MAP_FAILED || !seg) {
		munmap((void *)start, len);
		free(seg);
		return -ENOMEM;
	}
	seg->start = p;
	seg->len = len;
	seg->next = a->segs;
	a->segs = seg;
	/* The tail of the old segment is abandoned: chunks are recycled. */
	a->cur = (uintptr_t)p;
	a->end = a->cur + len;
	a->mapped += len;
	return 0;
}

static int class_of(struct arena *a, size_t size, size_t align, bool add)
{
	unsigned int i;

	for (i = 0; i < a->ncls; i++)
		if (a->cls[i].size == size && a->cls[i].align == align)
			return (int)i;
	if (!add || a->ncls == ARENA_CLASSES)
		return -1;
	a->cls[a->ncls].size = size;
	a->cls[a->ncls].align = align;
	a->cls[a->ncls].free = NULL;
	return (int)a->ncls++;
}

static int arena_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		       void **vaddr, dmapool_dma_t *dma)
{
	struct arena *a = dmapool_dev_priv(dev);
	struct extent *e;
	uintptr_t start;
	int c, ret = 0;

	size = (size + 4095) & ~(size_t)4095;
	pthread_mutex_lock(&a->lock);
	/* Known classes let frees be filed where this size will look. */
	c = class_of(a, size, align, true);
	if (c >= 0 && a->cls[c].free) {
		e = a->cls[c].free;
		a->cls[c].free = e->next;
		start = e->start;
		free(e);
	} else {
		start = (a->cur + align - 1) & ~(uintptr_t)(align - 1);
		if (!a->cur || start + size > a->end) {
			ret = new_segment(a, size + align);
			if (ret)
				goto out;
			start = (a->cur + align - 1) & ~(uintptr_t)(align - 1);
		}
		a->cur = start + size;
	}
	*vaddr = (void *)start;
	*dma = (dmapool_dma_t)start + ARENA_DMA_OFFSET;
out:
	pthread_mutex_unlock(&a->lock);
	return ret;
}

static void arena_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		       size_t size)
{
	struct arena *a = dmapool_dev_priv(dev);
	struct extent *e = malloc(sizeof(*e));
	size_t align = 4096;
	int c;

	(void)dma;
	if (!e)
		return;		/* leaked: harmless in a benchmark */
	size = (size + 4095) & ~(size_t)4095;
	/* Remember the largest alignment the start has, up to 1 GiB. */
	while (align < (1ul << 30) && !((uintptr_t)vaddr & (align * 2 - 1)))
		align *= 2;
	pthread_mutex_lock(&a->lock);
	/* File it under any class it can serve: the one of its size with the
	 * largest alignment it meets. */
	for (c = -1; align >= 4096 && c < 0; align /= 2)
		c = class_of(a, size, align, false);
	if (c < 0)
		c = class_of(a, size, 4096, true);
	if (c < 0) {
		pthread_mutex_unlock(&a->lock);
		free(e);
		return;
	}
	e->start = (uintptr_t)vaddr;
	e->next = a->cls[c].free;
	a->cls[c].free = e;
	pthread_mutex_unlock(&a->lock);
}

/* The last reference is gone: every pool using the arena is destroyed. */
static void arena_release(struct dmapool_dev *dev)
{
	struct arena *a = dmapool_dev_priv(dev);
	struct segment *seg, *snext;
	struct extent *e, *enext;
	unsigned int c;

	for (c = 0; c < a->ncls; c++)
		for (e = a->cls[c].free; e; e = enext) {
			enext = e->next;
			free(e);
		}
	for (seg = a->segs; seg; seg = snext) {
		snext = seg->next;
		munmap(seg->start, seg->len);
		free(seg);
	}
	pthread_mutex_destroy(&a->lock);
	free(a);
}

static const struct dmapool_dev_ops arena_ops = {
	.chunk_alloc = arena_alloc,
	.chunk_free = arena_free,
	.release = arena_release,
};

struct dmapool_dev *bench_arena_dev(size_t seg_bytes)
{
	struct arena *a = calloc(1, sizeof(*a));
	struct dmapool_dev *dev;

	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	a->seg_bytes = seg_bytes ? seg_bytes : ARENA_SEG_DEFAULT;
	dev = dmapool_dev_new(&arena_ops, a);
	if (!dev)
		free(a);
	return dev;
}

size_t bench_arena_mapped(const struct dmapool_dev *dev)
{
	struct arena *a = dmapool_dev_priv(dev);

	return a->mapped;
}
