// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * dmapool_ktest: dmapool's behavioural tests inside a real kernel.
 *
 * Loading the module runs everything once and prints a verdict per test and
 * a summary line (see ktest.h); it stays loaded until rmmod, which does
 * nothing more.  Parameters:
 *   hostile_div=N  run the hostile-device cases with 1/N of their userspace
 *                  steps (default 4: a TCG guest is slow)
 *   bench_reps=N   timed repetitions per benchmark cell, median taken
 *                  (default 3; 0 skips the benchmark)
 *   shared=0       skip the shared cases of tests/cases/ (default 1): the
 *                  kernel-tree suite runs them as the KUnit suite "dmapool"
 *                  (tests/kunit/) in its own kernel; Debian's kernels, which
 *                  tests/kernel/run boots, have no KUnit
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "ktest.h"
#include "cases/tc.h"

int kt_hostile_div = 4;
module_param_named(hostile_div, kt_hostile_div, int, 0444);
MODULE_PARM_DESC(hostile_div, "divide the hostile cases' steps by this");
int kt_bench_reps = 3;
module_param_named(bench_reps, kt_bench_reps, int, 0444);
MODULE_PARM_DESC(bench_reps, "benchmark repetitions (median); 0 = no benchmark");
static bool kt_shared = true;
module_param_named(shared, kt_shared, bool, 0444);
MODULE_PARM_DESC(shared, "run the shared cases of tests/cases/ (0: KUnit runs them)");

struct device *kt_dev;
static unsigned int kt_passed, kt_failed;

void kt_result(const char *name, bool ok, const char *why)
{
	if (ok) {
		kt_passed++;
		pr_info(KT_PFX "PASS %s\n", name);
	} else {
		kt_failed++;
		pr_err(KT_PFX "FAIL %s: %s\n", name, why && *why ? why : "?");
	}
}

void kt_fail(const char *name, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	kt_result(name, false, why);
}

struct tc_env *kt_env(void)
{
	struct tc_env *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e)
		e->dev = dmapool_kdev(kt_dev);
	return e;
}

static int __init kt_init(void)
{
	pr_info(KT_PFX "INFO start: hostile_div=%d bench_reps=%d shared=%d init_on_alloc=%d init_on_free=%d\n",
		kt_hostile_div, kt_bench_reps, kt_shared, want_init_on_alloc(0),
		want_init_on_free());
	kt_dev = kt_dev_new("dmapool-ktest");
	if (!kt_dev) {
		kt_fail("setup", "cannot register the test device");
	} else {
		/*
		 * One CPU for the whole run, as a userspace suite is one
		 * thread: every pool has a heap per CPU, and the cases expect
		 * a block freed to go back to the heap it came from (the
		 * kernel-tree suite's kt_contexts and kt_stress move blocks
		 * between CPUs on purpose).  The task may still sleep.
		 */
		migrate_disable();
		if (kt_shared)
			kt_run_shared();
		else
			pr_info(KT_PFX "INFO no shared cases (shared=0): the KUnit suite dmapool runs them\n");
		kt_run_dropin();
		if (KT_IN_TREE)
			pr_info(KT_PFX "INFO no benchmark: in this kernel dma_pool is dmapool\n");
		else if (kt_bench_reps > 0)
			kt_run_bench();
		migrate_enable();
		kt_dev_del(kt_dev);
	}
	pr_info(KT_PFX "INFO %u passed, %u failed\n", kt_passed, kt_failed);
	pr_info("DMAPOOL-KTEST SUMMARY: %s\n",
		kt_failed || !kt_passed ? "FAIL" : "PASS");
	return 0;
}

static void __exit kt_exit(void)
{
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("dmapool tests in a real kernel");
MODULE_LICENSE("Dual MIT/GPL");
