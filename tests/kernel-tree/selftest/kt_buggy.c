// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * kt_buggy: a deliberately broken module for tests/kernel-tree/selftest-detectors.
 *
 * Each "bug=" value commits one classic kernel bug that a detector of the
 * debug kernel must report on the console; run-debug's checker must then
 * fail the run. bug=none does nothing wrong and must pass. Never load this
 * outside a throwaway guest.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "none, uaf, sleep-in-atomic, might-sleep, lock-order, dma-size, warn");

/* Heap use-after-free: KASAN's "slab-use-after-free". */
static int bug_uaf(void)
{
	char *volatile p = kmalloc(64, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	kfree(p);
	c = READ_ONCE(p[8]);
	pr_info("kt_buggy: read %d from freed memory\n", c);
	return 0;
}

/* msleep() under a spinlock: the scheduler's "scheduling while atomic". */
static DEFINE_SPINLOCK(atomic_lock);

static int bug_sleep_in_atomic(void)
{
	spin_lock(&atomic_lock);
	msleep(1);
	spin_unlock(&atomic_lock);
	return 0;
}

/* mutex_lock() under a spinlock: it does not sleep here (uncontended), but
 * its might_sleep() says "sleeping function called from invalid context". */
static DEFINE_MUTEX(inner_mutex);

static int bug_might_sleep(void)
{
	spin_lock(&atomic_lock);
	mutex_lock(&inner_mutex);
	mutex_unlock(&inner_mutex);
	spin_unlock(&atomic_lock);
	return 0;
}

/* A then B, later B then A: lockdep's "possible circular locking
 * dependency", found without an actual deadlock. */
static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);

static int bug_lock_order(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
	return 0;
}

/* A coherent buffer freed with the wrong size: DMA-API debug's "frees DMA
 * memory with different size". Needs a device that can do DMA. */
static u64 buggy_dma_mask = DMA_BIT_MASK(64);

static void buggy_dev_release(struct device *dev)
{
}

static struct device buggy_dev = {
	.release = buggy_dev_release,
	.dma_mask = &buggy_dma_mask,
	.coherent_dma_mask = DMA_BIT_MASK(64),
};

static int bug_dma_size(void)
{
	dma_addr_t dma;
	void *cpu;
	int ret;

	dev_set_name(&buggy_dev, "kt-buggy");
	ret = device_register(&buggy_dev);
	if (ret) {
		put_device(&buggy_dev);
		return ret;
	}
	ret = dma_set_mask_and_coherent(&buggy_dev, DMA_BIT_MASK(64));
	if (ret)
		goto out;
	cpu = dma_alloc_coherent(&buggy_dev, PAGE_SIZE, &dma, GFP_KERNEL);
	if (!cpu) {
		ret = -ENOMEM;
		goto out;
	}
	dma_free_coherent(&buggy_dev, PAGE_SIZE / 2, cpu, dma);
out:
	device_del(&buggy_dev);
	put_device(&buggy_dev);
	return ret;
}

/* A plain WARN_ON(): "WARNING:" and a stack trace. */
static int bug_warn(void)
{
	WARN_ON(strcmp(bug, "warn") == 0);
	return 0;
}

static int __init kt_buggy_init(void)
{
	pr_info("kt_buggy: bug=%s\n", bug);
	if (!strcmp(bug, "none"))
		return 0;
	if (!strcmp(bug, "uaf"))
		return bug_uaf();
	if (!strcmp(bug, "sleep-in-atomic"))
		return bug_sleep_in_atomic();
	if (!strcmp(bug, "might-sleep"))
		return bug_might_sleep();
	if (!strcmp(bug, "lock-order"))
		return bug_lock_order();
	if (!strcmp(bug, "dma-size"))
		return bug_dma_size();
	if (!strcmp(bug, "warn"))
		return bug_warn();
	pr_err("kt_buggy: unknown bug=%s\n", bug);
	return -EINVAL;
}

static void __exit kt_buggy_exit(void)
{
}

module_init(kt_buggy_init);
module_exit(kt_buggy_exit);
MODULE_DESCRIPTION("Deliberately buggy module: proves the debug kernel's detectors fire");
MODULE_LICENSE("Dual MIT/GPL");
