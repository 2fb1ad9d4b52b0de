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

/**
 * dmapool_of_dma_pool() - The dmapool pool behind a drop-in pool.
 * @pool: a pool made by dmapool_dma_pool_create() or
 *	dmapool_dmam_pool_create(); may be NULL
 *
 * For what the dma_pool API has no call for: dmapool_get_stats(),
 * dmapool_shrink(), dmapool_quiesce().  The pool stays @pool's: do not
 * destroy it.
 *
 * Context: Any context.
 * Return: the pool, or NULL for a NULL @pool.
 */
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

/**
 * dmapool_dma_pool_create_node() - Create a pool of DMA blocks
 *	(dma_pool_create_node()).
 * @name: the pool's name in reports and in the device's "pools" file
 * @dev: the device whose DMA memory the blocks are carved from
 * @size: bytes per block; raised to the kernel's minimum (the size of a
 *	pointer and a dma_addr_t) and rounded up to @align
 * @align: alignment of every block, a power of two; 0 means 1
 * @boundary: no block crosses a multiple of it, a power of two not smaller
 *	than @size; 0 means only the allocation unit's
 * @node: the NUMA node of the pool's own record (NUMA_NO_NODE: any)
 *
 * The geometry and the refusals are mm/dmapool.c's; the blocks' state is
 * not in them (a device writing to a free block cannot steer the
 * allocator), and a bad free is reported and ignored.  No DMA memory is
 * taken until the first allocation.
 *
 * @node places what the node argument of the kernel's
 * dma_pool_create_node() places: the pool's own record.  The DMA chunks
 * come from dma_alloc_coherent(), which allocates on the device's node
 * whatever the pool says; the core's per-CPU metadata (chunk records, free
 * maps) is allocated by the CPU that grows its heap, on that CPU's node,
 * which is where it is used.
 *
 * Context: Process context; may sleep.
 * Return: the pool, or NULL on bad geometry (reported, naming the pool) or
 * when out of memory.
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
/**
 * dmapool_dma_pool_create() - Create a pool of DMA blocks (dma_pool_create()).
 * @name: the pool's name in reports and in the device's "pools" file
 * @dev: the device whose DMA memory the blocks are carved from
 * @size: bytes per block (see dmapool_dma_pool_create_node())
 * @align: alignment of every block, a power of two; 0 means 1
 * @boundary: no block crosses a multiple of it; 0 means only the allocation
 *	unit's
 *
 * dmapool_dma_pool_create_node() on NUMA_NO_NODE.
 *
 * Context: Process context; may sleep.
 * Return: the pool, or NULL on bad geometry (reported, naming the pool) or
 * when out of memory.
 */
struct dma_pool *dmapool_dma_pool_create(const char *name, struct device *dev,
					 size_t size, size_t align,
					 size_t boundary)
{
	return dmapool_dma_pool_create_node(name, dev, size, align, boundary,
					    NUMA_NO_NODE);
}
EXPORT_SYMBOL(dmapool_dma_pool_create);
#endif

/**
 * dmapool_dma_pool_destroy() - Destroy a pool (dma_pool_destroy()).
 * @pool: the pool; NULL is a no-op
 *
 * The pool's DMA memory goes back to the device.  Blocks still allocated
 * are reported and the chunks holding them are kept (a device may still
 * use them), as the kernel's pool does.
 *
 * Context: Process context; may sleep.  No other call on @pool may run.
 */
void dmapool_dma_pool_destroy(struct dma_pool *pool)
{
	if (unlikely(!pool))
		return;
	dp_sysfs_del(pool);
	dmapool_destroy(pool->dp);
	kfree(pool);
}
EXPORT_SYMBOL(dmapool_dma_pool_destroy);

/**
 * dmapool_dma_pool_alloc() - Allocate a block (dma_pool_alloc()).
 * @pool: the pool
 * @mem_flags: how a new chunk is allocated, if one is needed; __GFP_ZERO
 *	(and init_on_alloc) zero the block
 * @handle: where the block's DMA address is stored; untouched on failure
 *
 * Context: Any context @mem_flags allow (GFP_ATOMIC: never sleeps).
 * Return: the block's kernel address, or NULL when the pool cannot grow or
 * @pool is NULL (reported).
 */
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

/**
 * dmapool_dma_pool_free() - Give a block back (dma_pool_free()).
 * @pool: the pool the block came from
 * @vaddr: the block's kernel address
 * @dma: the block's DMA address, as dmapool_dma_pool_alloc() stored it
 *
 * The free is checked first: a block of another pool, an address inside a
 * block, a wrong @dma, a double free or a NULL @pool is reported and
 * ignored; the pool is unchanged.  With init_on_free the block is zeroed.
 * Never allocates.
 *
 * Context: Any context, hard interrupts included.
 */
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

/**
 * dmapool_dmam_pool_create() - Create a managed pool (dmam_pool_create()).
 * @name: as for dmapool_dma_pool_create()
 * @dev: as for dmapool_dma_pool_create(); the pool is destroyed when @dev's
 *	driver is detached
 * @size: as for dmapool_dma_pool_create()
 * @align: as for dmapool_dma_pool_create()
 * @boundary: as for dmapool_dma_pool_create()
 *
 * Context: Process context; may sleep.
 * Return: the pool, or NULL (as dmapool_dma_pool_create()).
 */
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

/**
 * dmapool_dmam_pool_destroy() - Destroy a managed pool early
 *	(dmam_pool_destroy()).
 * @pool: a pool made by dmapool_dmam_pool_create()
 *
 * A pool that is not a managed pool of its device is a driver bug: it
 * warns, as the kernel does.
 *
 * Context: Process context; may sleep.
 */
void dmapool_dmam_pool_destroy(struct dma_pool *pool)
{
	/* Not a managed pool of its device: a driver bug, as in the kernel. */
	WARN_ON(devres_release(pool->dev, dp_devres_release, dp_devres_match,
			       pool));
}
EXPORT_SYMBOL(dmapool_dmam_pool_destroy);
