// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A program written against the public contract only, built the way a user
 * builds it: the installed header and pkg-config, or a meson subproject.
 */
#include <stdio.h>
#include <string.h>

#include <dmapool/dmapool.h>

int main(void)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool *pool = dmapool_create("consumer", dev, 64, 64, 4096);
	struct dmapool_stats st;
	dmapool_dma_t dma[100];
	void *v[100];
	int i;

	if (!pool)
		return 1;
	for (i = 0; i < 100; i++) {
		v[i] = i % 2 ? dmapool_zalloc(pool, 0, &dma[i]) :
			       dmapool_alloc(pool, 0, &dma[i]);
		if (!v[i] || (uintptr_t)v[i] % 64 || dma[i] % 64)
			return 2;
		memset(v[i], i, 64);
	}
	dmapool_get_stats(pool, &st);
	if (st.blocks_in_use != 100 || st.violations)
		return 3;
	for (i = 0; i < 100; i++)
		dmapool_free(pool, v[i], dma[i]);
	dmapool_free(pool, v[0], dma[0]);	/* a double free: reported */
	dmapool_get_stats(pool, &st);
	if (st.blocks_in_use != 0 || st.violations != 1)
		return 4;
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
	printf("consumer: OK\n");
	return 0;
}
