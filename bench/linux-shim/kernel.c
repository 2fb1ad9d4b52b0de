// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The rest of the kernel that Linux 6.12's mm/dmapool.c calls, for
 * userspace: kmalloc, mutexes, printk, sysfs files, managed resources and
 * dma_alloc_coherent on a dmapool backend.  Only pool create, destroy and
 * growth reach this file; the alloc and free fast paths call nothing but
 * the spinlock (spinlock.c).
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "lx_host.h"

#define LX_E2BIG	7
#define LX_ENOENT	2
#define LX_ENOSPC	28

/* ---- memory ------------------------------------------------------------ */

void *kmalloc(size_t size, gfp_t flags)
{
	return flags & __GFP_ZERO ? lx_host_calloc(size) :
	       lx_host_malloc(size);
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

void kfree(const void *p)
{
	lx_host_free((void *)p);
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t i;

	if (!size)
		return -LX_E2BIG;
	for (i = 0; i < size - 1 && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return src[i] ? -LX_E2BIG : (ssize_t)i;
}

/* ---- mutex: create and destroy only, so a yielding test-and-set ------- */

void mutex_lock(struct mutex *m)
{
	while (__atomic_exchange_n(&m->locked, 1, __ATOMIC_ACQUIRE))
		lx_host_yield();
}

void mutex_unlock(struct mutex *m)
{
	__atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
}

/* ---- printk -------------------------------------------------------------- */

void lx_printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lx_host_vprint(fmt, ap);
	va_end(ap);
}

void lx_warn(const char *file, int line)
{
	lx_printk("linux-6.12: WARNING at %s:%d\n", file, line);
}

void dev_err(const struct device *dev, const char *fmt, ...)
{
	va_list ap;

	lx_printk("linux-6.12 %s: ", dev && dev->name ? dev->name : "(no device)");
	va_start(ap, fmt);
	lx_host_vprint(fmt, ap);
	va_end(ap);
}

/* ---- sysfs ------------------------------------------------------------- */

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lx_host_vsnprintf(buf, PAGE_SIZE, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n >= (int)PAGE_SIZE ? (int)PAGE_SIZE - 1 : n;
}

int sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at < 0 || at >= (int)PAGE_SIZE)
		return 0;
	va_start(ap, fmt);
	n = lx_host_vsnprintf(buf + at, PAGE_SIZE - (size_t)at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return n >= (int)PAGE_SIZE - at ? (int)PAGE_SIZE - at - 1 : n;
}

/* ---- devices -------------------------------------------------------------- */

void lx_device_init(struct device *dev, const char *name,
		    struct dmapool_dev *backend)
{
	memset(dev, 0, sizeof(*dev));
	dev->name = name;
	INIT_LIST_HEAD(&dev->dma_pools);
	INIT_LIST_HEAD(&dev->devres);
	dev->backend = backend;
}

int device_create_file(struct device *dev,
		       const struct device_attribute *attr)
{
	unsigned int i;

	if (dev->fail_create_file)
		return -LX_ENOSPC;
	for (i = 0; i < LX_DEV_FILES; i++)
		if (!dev->files[i]) {
			dev->files[i] = (struct device_attribute *)attr;
			return 0;
		}
	return -LX_ENOSPC;
}

void device_remove_file(struct device *dev,
			const struct device_attribute *attr)
{
	unsigned int i;

	for (i = 0; i < LX_DEV_FILES; i++)
		if (dev->files[i] == attr)
			dev->files[i] = NULL;
}

static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

ssize_t lx_device_read_file(struct device *dev, const char *name, char *buf)
{
	unsigned int i;

	for (i = 0; i < LX_DEV_FILES; i++)
		if (dev->files[i] && same_name(dev->files[i]->attr.name, name) &&
		    dev->files[i]->show)
			return dev->files[i]->show(dev, dev->files[i], buf);
	return -1;
}

/* ---- managed resources --------------------------------------------------- */

struct lx_devres {
	struct list_head entry;
	dr_release_t release;
	unsigned long long data[];	/* aligned for any resource */
};

static struct lx_devres *devres_of(void *res)
{
	return container_of(res, struct lx_devres, data);
}

void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp)
{
	struct lx_devres *dr = kzalloc(sizeof(*dr) + size, gfp);

	if (!dr)
		return NULL;
	INIT_LIST_HEAD(&dr->entry);
	dr->release = release;
	return dr->data;
}

void devres_free(void *res)
{
	if (res)
		kfree(devres_of(res));
}

void devres_add(struct device *dev, void *res)
{
	list_add(&devres_of(res)->entry, &dev->devres);
}

int devres_release(struct device *dev, dr_release_t release,
		   dr_match_t match, void *match_data)
{
	struct lx_devres *dr;

	list_for_each_entry(dr, &dev->devres, entry) {
		if (dr->release != release ||
		    (match && !match(dev, dr->data, match_data)))
			continue;
		list_del(&dr->entry);
		dr->release(dev, dr->data);
		kfree(dr);
		return 0;
	}
	return -LX_ENOENT;
}

void lx_devres_release_all(struct device *dev)
{
	struct lx_devres *dr, *tmp;

	list_for_each_entry_safe(dr, tmp, &dev->devres, entry) {
		list_del(&dr->entry);
		dr->release(dev, dr->data);
		kfree(dr);
	}
}

/* ---- coherent DMA memory ------------------------------------------------- */

/* The kernel's allocation: 2^order pages, aligned to its size. */
static size_t coherent_bytes(size_t size)
{
	size_t bytes = PAGE_SIZE;

	while (bytes < size)
		bytes <<= 1;
	return bytes;
}

void *dma_alloc_coherent(struct device *dev, size_t size,
			 dma_addr_t *dma_handle, gfp_t gfp)
{
	size_t bytes = coherent_bytes(size);
	void *vaddr;

	(void)gfp;
	if (!dev || !dev->backend ||
	    lx_host_chunk_alloc(dev->backend, bytes, bytes, &vaddr, dma_handle))
		return NULL;
	dev->coherent_bytes += bytes;
	dev->coherent_allocs++;
	return vaddr;
}

void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr,
		       dma_addr_t dma_handle)
{
	size_t bytes = coherent_bytes(size);

	lx_host_chunk_free(dev->backend, bytes, cpu_addr, dma_handle);
	dev->coherent_bytes -= bytes;
	dev->coherent_allocs--;
}
