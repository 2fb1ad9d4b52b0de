// SPDX-License-Identifier: MIT OR GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "xdev.h"

#define MISALIGN_BY	64

static pthread_mutex_t xdev_lock = PTHREAD_MUTEX_INITIALIZER;

static struct xdev_chunk *find_slot(struct xdev *x, size_t size)
{
	struct xdev_chunk *free_slot = NULL;
	int i;

	/* Newest first: the most recently freed chunk of this size. */
	for (i = XDEV_MAX_CHUNKS - 1; i >= 0; i--) {
		struct xdev_chunk *c = &x->c[i];

		if (c->live)
			continue;
		if (x->mode == XDEV_REUSE && c->map && c->size == size)
			return c;
		if (!c->map && !free_slot)
			free_slot = c;
	}
	return free_slot;
}

static int map_chunk(struct xdev *x, struct xdev_chunk *c, size_t size,
		     size_t align)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = size + align + page;
	uintptr_t start;
	void *p;

	if (len < size || len < align)
		return -ENOMEM;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	c->map = p;
	c->map_len = len;
	c->size = size;
	c->vaddr = (void *)start;
	c->dma = (dmapool_dma_t)start + XDEV_DMA_OFFSET;
	if (x->mode == XDEV_MISALIGN) {
		c->vaddr = (void *)(start + MISALIGN_BY);
		c->dma += MISALIGN_BY;
	} else if (x->mode == XDEV_MISALIGN_DMA) {
		c->dma += MISALIGN_BY;
	}
	return 0;
}

static int xdev_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		      void **vaddr, dmapool_dma_t *dma)
{
	struct xdev *x = dmapool_dev_priv(dev);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct xdev_chunk *c;
	int ret = 0;

	pthread_mutex_lock(&xdev_lock);
	if (!align || (align & (align - 1)) || align < page) {
		x->bad_align_requests++;
		align = page;	/* still hand out something sane */
	}
	if (!size)
		x->zero_requests++;
	if (x->fail_after && x->allocs >= x->fail_after) {
		ret = -ENOMEM;
		goto out;
	}
	if (!size && x->mode != XDEV_ZERO_OK) {
		ret = -EINVAL;	/* what mmap of 0 bytes says */
		goto out;
	}
	c = find_slot(x, size);
	if (!c) {
		ret = -ENOMEM;
		goto out;
	}
	if (c->map)
		x->reused++;
	else
		ret = map_chunk(x, c, size, align);
	if (ret)
		goto out;
	c->live = true;
	x->allocs++;
	*vaddr = c->vaddr;
	*dma = c->dma;
out:
	pthread_mutex_unlock(&xdev_lock);
	return ret;
}

static void xdev_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		      size_t size)
{
	struct xdev *x = dmapool_dev_priv(dev);
	int i;

	pthread_mutex_lock(&xdev_lock);
	for (i = 0; i < XDEV_MAX_CHUNKS; i++) {
		struct xdev_chunk *c = &x->c[i];

		if (!c->live || c->vaddr != vaddr || c->dma != dma ||
		    c->size != size)
			continue;
		c->live = false;
		x->frees++;
		if (x->mode != XDEV_REUSE) {
			munmap(c->map, c->map_len);
			c->map = NULL;
		}
		pthread_mutex_unlock(&xdev_lock);
		return;
	}
	x->bad_frees++;
	pthread_mutex_unlock(&xdev_lock);
}

static const struct dmapool_dev_ops xdev_ops = {
	.chunk_alloc = xdev_alloc,
	.chunk_free = xdev_free,
};

struct xdev *xdev_new(enum xdev_mode mode)
{
	struct xdev *x = calloc(1, sizeof(*x));

	CHECK(x);
	x->mode = mode;
	x->dev = dmapool_dev_new(&xdev_ops, x);
	CHECK(x->dev);
	return x;
}

void xdev_put(struct xdev *x)
{
	int i;

	dmapool_dev_put(x->dev);
	for (i = 0; i < XDEV_MAX_CHUNKS; i++)
		if (x->c[i].map)
			munmap(x->c[i].map, x->c[i].map_len);
	free(x);
}

bool xdev_holds(const struct xdev *x, const void *v, size_t len,
		dmapool_dma_t dma)
{
	uintptr_t a = (uintptr_t)v;
	int i;

	pthread_mutex_lock(&xdev_lock);
	for (i = 0; i < XDEV_MAX_CHUNKS; i++) {
		const struct xdev_chunk *c = &x->c[i];
		uintptr_t s = (uintptr_t)c->vaddr;

		if (!c->live || a < s || a - s > c->size ||
		    len > c->size - (a - s))
			continue;
		pthread_mutex_unlock(&xdev_lock);
		return dma - c->dma == a - s;
	}
	pthread_mutex_unlock(&xdev_lock);
	return false;
}

unsigned int xdev_live(const struct xdev *x)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&xdev_lock);
	for (i = 0; i < XDEV_MAX_CHUNKS; i++)
		n += x->c[i].live;
	pthread_mutex_unlock(&xdev_lock);
	return n;
}
