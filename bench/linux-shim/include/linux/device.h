/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * struct device as far as a DMA pool sees it: its list of pools, its sysfs
 * files, its managed resources, and (the shim's own part) the dmapool
 * backend dma_alloc_coherent() takes memory from.  Implemented in
 * bench/linux-shim/kernel.c.
 */
#ifndef LX_SHIM_LINUX_DEVICE_H
#define LX_SHIM_LINUX_DEVICE_H

#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/types.h>

struct dmapool_dev;		/* dmapool/dmapool.h: the DMA backend */
struct device;

struct attribute {
	const char *name;
	umode_t mode;
};

struct device_attribute {
	struct attribute attr;
	ssize_t (*show)(struct device *dev, struct device_attribute *attr,
			char *buf);
	ssize_t (*store)(struct device *dev, struct device_attribute *attr,
			 const char *buf, size_t count);
};

#define __ATTR_RO(_name) {						\
	.attr = { .name = __stringify(_name), .mode = 0444 },		\
	.show = _name##_show,						\
}
#define DEVICE_ATTR_RO(_name) \
	struct device_attribute dev_attr_##_name = __ATTR_RO(_name)

#define LX_DEV_FILES	4

struct device {
	const char *name;
	struct list_head dma_pools;	/* the pools of this device */
	struct list_head devres;	/* managed resources, newest first */
	struct dmapool_dev *backend;	/* what dma_alloc_coherent carves */
	struct device_attribute *files[LX_DEV_FILES];	/* its sysfs files */
	u64 coherent_bytes;		/* held from dma_alloc_coherent now */
	u64 coherent_allocs;
	bool fail_create_file;		/* tests: device_create_file fails */
};

/* The shim's own: a device whose DMA memory comes from @backend. */
void lx_device_init(struct device *dev, const char *name,
		    struct dmapool_dev *backend);
/* Read the sysfs file @name into @buf (PAGE_SIZE bytes): its length, or -1. */
ssize_t lx_device_read_file(struct device *dev, const char *name, char *buf);

int device_create_file(struct device *dev,
		       const struct device_attribute *attr);
void device_remove_file(struct device *dev,
			const struct device_attribute *attr);

__printf(2, 3) void dev_err(const struct device *dev, const char *fmt, ...);
__printf(2, 3) int sysfs_emit(char *buf, const char *fmt, ...);
__printf(3, 4) int sysfs_emit_at(char *buf, int at, const char *fmt, ...);

typedef void (*dr_release_t)(struct device *dev, void *res);
typedef int (*dr_match_t)(struct device *dev, void *res, void *match_data);

void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp);
void devres_free(void *res);
void devres_add(struct device *dev, void *res);
int devres_release(struct device *dev, dr_release_t release,
		   dr_match_t match, void *match_data);
/* Driver detach: release every managed resource, newest first. */
void lx_devres_release_all(struct device *dev);

#endif /* LX_SHIM_LINUX_DEVICE_H */
