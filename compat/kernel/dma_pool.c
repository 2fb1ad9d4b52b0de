// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The kernel's dma_pool API on top of dmapool.
 *
 * Same signatures and the same observable rules as mm/dmapool.c: sizes
 * below the kernel's minimum block (16 bytes on 64-bit) are raised to it,
 * size is rounded up to align, boundary 0 means the allocation unit, a bad
 * align or boundary gives NULL, and blocks sit where the kernel would put
 * them (dmapool/geometry.h).  The gfp_t of dma_pool_alloc() goes to the
 * allocators when the pool grows.  init_on_alloc and __GFP_ZERO zero the
 * block at alloc; init_on_free zeroes it at free, once the free is known to
 * be valid.  dmam_pool_create() ties the pool to the device's devres.
 *
 * What differs, on purpose: a misused free (double, foreign, interior,
 * wrong dma) is reported and ignored instead of corrupting the pool, a NULL
 * pool is reported instead of dereferenced, and a device writing into free
 * blocks cannot steer the allocator.  dma_pool_destroy() with blocks still
 * allocated reports it and keeps only the chunks that hold them.
 *
 * Built as a module the functions are exported as dmapool_dma_pool_*()
 * (<dmapool/dma_pool.h> maps the kernel's names onto them); installed into
 * a kernel tree (DMAPOOL_IN_TREE) they are the kernel's dma_pool_*(), with
 * the "pools" file in sysfs that mm/dmapool.c provides.
 */
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <dmapool/kernel.h>

struct dma_pool {
	struct dmapool *dp;
	struct device *dev;
#ifdef DMAPOOL_IN_TREE
	struct list_head pools;		/* on dev->dma_pools */
	char name[32];
#endif
};

/* The kernel keeps a {next, dma} header in each free block: its minimum. */
#define DP_KERNEL_MIN_BLOCK	(sizeof(void *) + sizeof(dma_addr_t))

/* <dmapool/dmapool.h> makes dmapool_dma_t the kernel's dma_addr_t. */
static_assert(__same_type(dma_addr_t, dmapool_dma_t));

struct dmapool *dmapool_of_dma_pool(struct dma_pool *pool)
{
	return pool ? pool->dp : NULL;
}
EXPORT_SYMBOL(dmapool_of_dma_pool);

#ifdef DMAPOOL_IN_TREE
/*
 * /sys/.../pools, as mm/dmapool.c shows it.  dp_pools_reg serializes the
 * creation and removal of the file; dp_pools_list guards the lists and is
 * all the show side takes, so removing the file (which waits for readers)
 * never waits on a lock a reader holds.
 */
static DEFINE_MUTEX(dp_pools_reg);
static DEFINE_MUTEX(dp_pools_list);

static ssize_t pools_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct dmapool_stats st;
	struct dma_pool *pool;
	int n;

	n = sysfs_emit(buf, "poolinfo - 0.1\n");
	mutex_lock(&dp_pools_list);
	list_for_each_entry(pool, &dev->dma_pools, pools) {
		dmapool_get_stats(pool->dp, &st);
		n += sysfs_emit_at(buf, n, "%-16s %4llu %4llu %4llu %2llu\n",
				   pool->name, st.blocks_in_use,
				   st.blocks_total, st.block_size, st.chunks);
	}
	mutex_unlock(&dp_pools_list);
	return n;
}
static DEVICE_ATTR_RO(pools);

static int dp_sysfs_add(struct dma_pool *pool, const char *name)
{
	bool first;
	int err = 0;

	strscpy(pool->name, name ? name : "", sizeof(pool->name));
	mutex_lock(&dp_pools_reg);
	mutex_lock(&dp_pools_list);
	first = list_empty(&pool->dev->dma_pools);
	list_add(&pool->pools, &pool->dev->dma_pools);
	mutex_unlock(&dp_pools_list);
	if (first)
		err = device_create_file(pool->dev, &dev_attr_pools);
	if (err) {
		mutex_lock(&dp_pools_list);
		list_del(&pool->pools);
		mutex_unlock(&dp_pools_list);
	}
	mutex_unlock(&dp_pools_reg);
	return err;
}

static void dp_sysfs_del(struct dma_pool *pool)
{
	bool last;

	mutex_lock(&dp_pools_reg);
	mutex_lock(&dp_pools_list);
	list_del(&pool->pools);
	last = list_empty(&pool->dev->dma_pools);
	mutex_unlock(&dp_pools_list);
	if (last)
		device_remove_file(pool->dev, &dev_attr_pools);
	mutex_unlock(&dp_pools_reg);
}
#else
/* As a module the kernel's own dma_pool owns dev->dma_pools and "pools". */
static int dp_sysfs_add(struct dma_pool *pool, const char *name)
{
	return 0;
}

static void dp_sysfs_del(struct dma_pool *pool)
{
}
#endif

/*
 * @node (NUMA_NO_NODE: any) places what the node argument of the kernel's
 * dma_pool_create_node() places: the pool's own record.  The DMA chunks
 * come from dma_alloc_coherent(), which allocates on the device's node
 * whatever the pool says; the core's per-CPU metadata (chunk records, free
 * maps) is allocated by the CPU that grows its heap, on that CPU's node,
 * which is where it is used.
 */
struct dma_pool *dmapool_dma_pool_create_node(const char *name,
					      struct device *dev, size_t size,
					      size_t align, size_t boundary,
					      int node)
{
	struct dma_pool *pool;

	if (size && size < DP_KERNEL_MIN_BLOCK)
		size = DP_KERNEL_MIN_BLOCK;
	pool = kzalloc_node(sizeof(*pool), GFP_KERNEL, node);
	if (!pool)
		return NULL;
	/* Geometry is checked (and a refusal reported) by the core. */
	pool->dp = dmapool_create(name, dmapool_kdev(dev), size, align,
				  boundary);
	if (!pool->dp)
		goto fail;
	pool->dev = dev;
	if (dp_sysfs_add(pool, name))
		goto fail_destroy;
	return pool;

fail_destroy:
	dmapool_destroy(pool->dp);
fail:
	kfree(pool);
	return NULL;
}
EXPORT_SYMBOL(dmapool_dma_pool_create_node);

/*
 * Newer kernels' <linux/dmapool.h> makes dma_pool_create() a static inline
 * over dma_pool_create_node(); install-into-tree then defines
 * DMAPOOL_CREATE_INLINE and the tree gets no second definition.
 */
#if !defined(DMAPOOL_IN_TREE) || !defined(DMAPOOL_CREATE_INLINE)
struct dma_pool *dmapool_dma_pool_create(const char *name, struct device *dev,
					 size_t size, size_t align,
					 size_t boundary)
{
	return dmapool_dma_pool_create_node(name, dev, size, align, boundary,
					    NUMA_NO_NODE);
}
EXPORT_SYMBOL(dmapool_dma_pool_create);
#endif

void dmapool_dma_pool_destroy(struct dma_pool *pool)
{
	if (unlikely(!pool))
		return;
	dp_sysfs_del(pool);
	dmapool_destroy(pool->dp);
	kfree(pool);
}
EXPORT_SYMBOL(dmapool_dma_pool_destroy);

void *dmapool_dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags,
			     dma_addr_t *handle)
{
	struct dmapool *dp = pool ? pool->dp : NULL;

	might_alloc(mem_flags);
	/* Zeroed when the kernel's pool would zero it. */
	if (want_init_on_alloc(mem_flags))
		mem_flags |= __GFP_ZERO;
	return dmapool_alloc(dp, (__force dmapool_gfp_t)mem_flags, handle);
}
EXPORT_SYMBOL(dmapool_dma_pool_alloc);

void dmapool_dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma)
{
	struct dmapool *dp = pool ? pool->dp : NULL;

	if (want_init_on_free())
		dmapool_free_zero(dp, vaddr, dma);
	else
		dmapool_free(dp, vaddr, dma);
}
EXPORT_SYMBOL(dmapool_dma_pool_free);

/* Managed pools: destroyed with the device's other resources. */
static void dp_devres_release(struct device *dev, void *res)
{
	dmapool_dma_pool_destroy(*(struct dma_pool **)res);
}

static int dp_devres_match(struct device *dev, void *res, void *data)
{
	return *(struct dma_pool **)res == data;
}

struct dma_pool *dmapool_dmam_pool_create(const char *name,
					  struct device *dev, size_t size,
					  size_t align, size_t boundary)
{
	struct dma_pool **slot;

	slot = devres_alloc(dp_devres_release, sizeof(*slot), GFP_KERNEL);
	if (!slot)
		return NULL;
	*slot = dmapool_dma_pool_create_node(name, dev, size, align, boundary,
					     NUMA_NO_NODE);
	if (!*slot) {
		devres_free(slot);
		return NULL;
	}
	devres_add(dev, slot);
	return *slot;
}
EXPORT_SYMBOL(dmapool_dmam_pool_create);

void dmapool_dmam_pool_destroy(struct dma_pool *pool)
{
	/* Not a managed pool of its device: a driver bug, as in the kernel. */
	WARN_ON(devres_release(pool->dev, dp_devres_release, dp_devres_match,
			       pool));
}
EXPORT_SYMBOL(dmapool_dmam_pool_destroy);
