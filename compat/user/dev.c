// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Backend objects: reference counted, so a pool keeps its backend alive.
 */
#include <stdlib.h>

#include "dev.h"

struct dmapool_dev *dmapool_dev_new(const struct dmapool_dev_ops *ops,
				    void *priv)
{
	struct dmapool_dev *dev;

	if (!ops || !ops->chunk_alloc || !ops->chunk_free)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->ops = ops;
	dev->priv = priv;
	dev->refs = 1;
	return dev;
}

void *dmapool_dev_priv(const struct dmapool_dev *dev)
{
	return dev ? dev->priv : NULL;
}

void dmapool_dev_get(struct dmapool_dev *dev)
{
	if (dev)
		__atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED);
}

void dmapool_dev_put(struct dmapool_dev *dev)
{
	if (!dev || __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (dev->ops->release)
		dev->ops->release(dev);
	free(dev);
}
