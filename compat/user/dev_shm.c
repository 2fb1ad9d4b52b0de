// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The shared-memory backend: every chunk is a stretch of one memfd, mapped
 * shared.  Whoever maps the same file (another thread, or another process
 * given the fd) sees the chunks the way a device does, and reaches each at
 * file offset dma - DMAPOOL_SHM_IOVA_BASE.  Tests use it to play a device
 * that writes into pool memory behind the allocator's back.
 *
 * Offsets only grow: a freed chunk's pages are punched out of the file (so
 * they read as zeroes and cost nothing) but its range is not reused, so a
 * device mapping never changes meaning.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"

struct shm_dev {
	pthread_mutex_t lock;
	int fd;
	size_t end;		/* file length */
};

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Map @size bytes of the file at @off to an address aligned to @align. */
static void *map_aligned(int fd, size_t off, size_t size, size_t align)
{
	size_t span = size + align;
	uintptr_t base, start;
	void *p;

	p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	base = (uintptr_t)p;
	start = align_up(base, align);
	if (mmap((void *)start, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED) {
		munmap(p, span);
		return NULL;
	}
	if (start > base)
		munmap(p, start - base);
	if (base + span > start + size)
		munmap((void *)(start + size), base + span - (start + size));
	return (void *)start;
}

static int shm_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		     void **vaddr, dmapool_dma_t *dma)
{
	struct shm_dev *s = dmapool_dev_priv(dev);
	size_t off;
	void *p;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	off = align_up(s->end, align);
	if (ftruncate(s->fd, (off_t)(off + size))) {
		err = -errno;
		goto out;
	}
	s->end = off + size;
	p = map_aligned(s->fd, off, size, align);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	*vaddr = p;
	*dma = DMAPOOL_SHM_IOVA_BASE + off;
out:
	pthread_mutex_unlock(&s->lock);
	return err;
}

static void shm_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		     size_t size)
{
	struct shm_dev *s = dmapool_dev_priv(dev);

	munmap(vaddr, size);
	fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)(dma - DMAPOOL_SHM_IOVA_BASE), (off_t)size);
}

static void shm_release(struct dmapool_dev *dev)
{
	struct shm_dev *s = dmapool_dev_priv(dev);

	close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct dmapool_dev_ops shm_ops = {
	.chunk_alloc = shm_alloc,
	.chunk_free = shm_free,
	.release = shm_release,
};

struct dmapool_dev *dmapool_dev_shm(void)
{
	struct shm_dev *s = calloc(1, sizeof(*s));
	struct dmapool_dev *dev;

	if (!s)
		return NULL;
	s->fd = memfd_create("dmapool-shm", MFD_CLOEXEC);
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	dev = dmapool_dev_new(&shm_ops, s);
	if (!dev) {
		close(s->fd);
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
	return dev;
}

int dmapool_dev_shm_fd(const struct dmapool_dev *dev)
{
	const struct shm_dev *s = dev && dev->ops == &shm_ops ?
				  dev->priv : NULL;

	return s ? s->fd : -1;
}

size_t dmapool_dev_shm_size(const struct dmapool_dev *dev)
{
	struct shm_dev *s = dev && dev->ops == &shm_ops ? dev->priv : NULL;
	size_t end;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	end = s->end;
	pthread_mutex_unlock(&s->lock);
	return end;
}
