// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The shim's C library side: host memory, printing, yielding, and chunks
 * from a dmapool backend (through the same calls the other baselines use).
 * Compiled without include/linux/ on the path (lx_host.h says why).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "dmapool_os_impl.h"
#include "lx_host.h"

void *lx_host_malloc(size_t n)
{
	return malloc(n);
}

void *lx_host_calloc(size_t n)
{
	return calloc(1, n);
}

void lx_host_free(void *p)
{
	free(p);
}

int lx_host_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

void lx_host_vprint(const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

void lx_host_yield(void)
{
	sched_yield();
}

int lx_host_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
			void **vaddr, uint64_t *dma)
{
	return dp_os_chunk_alloc(dev, size, align, 0, vaddr, dma) ? -1 : 0;
}

void lx_host_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
			uint64_t dma)
{
	dp_os_chunk_free(dev, size, vaddr, dma);
}

void lx_host_dev_get(struct dmapool_dev *dev)
{
	dmapool_dev_get(dev);
}

void lx_host_dev_put(struct dmapool_dev *dev)
{
	dmapool_dev_put(dev);
}
