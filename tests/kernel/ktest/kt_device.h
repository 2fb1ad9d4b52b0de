/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A struct device of a test module's own, for DMA without hardware (the way
 * the kernel's dmapool_test gets one): registered, 64-bit DMA mask, freed by
 * its release when the last reference goes.  Shared by dmapool_ktest
 * (tests/kernel/ktest) and kt_contexts (tests/kernel-tree/contexts).
 */
#ifndef DMAPOOL_KT_DEVICE_H
#define DMAPOOL_KT_DEVICE_H

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

struct kt_device {
	struct device dev;
	u64 dma_mask;
};

static inline void kt_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct kt_device, dev));
}

static inline void kt_dev_del(struct device *dev)
{
	device_del(dev);
	put_device(dev);
}

/* NULL when the device cannot be registered or given a 64-bit mask. */
static inline struct device *kt_dev_new(const char *name)
{
	struct kt_device *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	device_initialize(&k->dev);
	k->dev.release = kt_dev_release;
	k->dev.dma_mask = &k->dma_mask;
	if (dev_set_name(&k->dev, "%s", name) || device_add(&k->dev)) {
		put_device(&k->dev);
		return NULL;
	}
	if (dma_set_mask_and_coherent(&k->dev, DMA_BIT_MASK(64))) {
		kt_dev_del(&k->dev);
		return NULL;
	}
	return &k->dev;
}

#endif /* DMAPOOL_KT_DEVICE_H */
