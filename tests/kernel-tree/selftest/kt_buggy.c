// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * kt_buggy: a deliberately broken module for tests/kernel-tree/selftest-detectors.
 *
 * Each "bug=" value commits one classic kernel bug that a detector of the
 * debug kernels must report on the console; run-debug's checker must then
 * fail the run. bug=none does nothing wrong and must pass. Never load this
 * outside a throwaway guest. data-race needs KCSAN and irqs-off-spinlock
 * PREEMPT_RT (the rt kernel); uaf needs KASAN (the debug kernel).
 */
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "none, uaf, sleep-in-atomic, might-sleep, lock-order, dma-size, warn, data-race, irqs-off-spinlock");

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

/*
 * Two kthreads on two CPUs update the same variables with plain accesses
 * for a second: KCSAN's "data-race in".  A counter (read, then write) and a
 * 16-byte record (wider than a word, so never assumed atomic).
 */
static struct {
	unsigned long counter;
	u64 rec[2];
} shared;
static struct completion race_done[2];

static int race_fn(void *arg)
{
	unsigned long id = (unsigned long)arg, end = jiffies + HZ;
	u64 mine[2] = { id, ~id }, seen[2];

	while (time_before(jiffies, end)) {
		shared.counter++;
		memcpy(shared.rec, mine, sizeof(mine));
		memcpy(seen, shared.rec, sizeof(seen));
		cpu_relax();
	}
	pr_info("kt_buggy: racer %lu done (%lu, %llx)\n", id, shared.counter,
		seen[0]);
	complete(&race_done[id]);
	return 0;
}

static int bug_data_race(void)
{
	unsigned long i;
	int cpu = cpumask_first(cpu_online_mask);

	if (num_online_cpus() < 2)
		return -ENODEV;
	for (i = 0; i < 2; i++) {
		struct task_struct *t;

		init_completion(&race_done[i]);
		t = kthread_create(race_fn, (void *)i, "kt_buggy/%lu", i);
		if (IS_ERR(t))
			return PTR_ERR(t);
		kthread_bind(t, cpu);
		wake_up_process(t);
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	wait_for_completion(&race_done[0]);
	wait_for_completion(&race_done[1]);
	return 0;
}

/*
 * A spinlock_t taken with interrupts off: fine without PREEMPT_RT, where it
 * spins; with it, spinlock_t sleeps: "sleeping function called from
 * invalid context".
 */
static int bug_irqs_off_spinlock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	spin_lock(&atomic_lock);
	spin_unlock(&atomic_lock);
	local_irq_restore(flags);
	return 0;
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
	if (!strcmp(bug, "data-race"))
		return bug_data_race();
	if (!strcmp(bug, "irqs-off-spinlock"))
		return bug_irqs_off_spinlock();
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
