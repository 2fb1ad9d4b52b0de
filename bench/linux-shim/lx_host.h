/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The seam between the shim's kernel side (files compiled against
 * include/linux/, which no C library header may see) and the C library and
 * dmapool backend side (host.c).  Plain C types only.
 */
#ifndef LX_SHIM_HOST_H
#define LX_SHIM_HOST_H

#include <stdarg.h>
#include <stddef.h>

struct dmapool_dev;

void *lx_host_malloc(size_t n);
void *lx_host_calloc(size_t n);
void lx_host_free(void *p);
int lx_host_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
void lx_host_vprint(const char *fmt, va_list ap);	/* to stderr */
void lx_host_yield(void);

/* A chunk of @size bytes aligned to @align from @dev: 0, or -1. */
int lx_host_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
			void **vaddr, __UINT64_TYPE__ *dma);
void lx_host_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
			__UINT64_TYPE__ dma);
void lx_host_dev_get(struct dmapool_dev *dev);
void lx_host_dev_put(struct dmapool_dev *dev);

#endif /* LX_SHIM_HOST_H */
