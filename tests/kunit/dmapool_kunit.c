// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * KUnit suite "dmapool": the shared behavioural cases of dmapool's
 * tests/cases/ (the ones its userspace suites and dmapool_ktest run) on
 * the dma_pool allocator of this kernel.  One case per table (the entries
 * of tc_suite in cases/suite.h), parametrized: one result per row and pool
 * configuration (cases/configs.h: each index, automatic shrink, one
 * shared heap, every hardening option), named "<config>/<row>".
 *
 *   geometry_matrix   every size/align/boundary the kernel accepts, each
 *                     block checked against a reference layout
 *   geometry_rejects  what the kernel refuses is refused and reported
 *   zalloc            dmapool_zalloc() zeroes dirty blocks, per size
 *   misuse            each wrong free or handle is reported, the pool
 *                     left as it was and usable
 *   hostile           a device scribbling over pool memory between every
 *                     operation never gets a block handed out twice, a
 *                     misaligned or a wrong one
 *   workload          one round of dmapool_test's workload, checked
 *
 * Module parameter hostile_div=N runs the hostile rows with 1/N of their
 * steps (default 4: an emulated debug kernel is slow).
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/preempt.h>

#include <dmapool/kernel.h>

#include "cases/suite.h"

static int hostile_div = 4;
module_param(hostile_div, int, 0444);
MODULE_PARM_DESC(hostile_div, "divide the hostile rows' steps by this");

/* The configuration of the running parameter (cases run one at a time). */
static const struct tc_config *dk_config;

static void dk_config_opts(struct dmapool_opts *o)
{
	tc_config_apply(dk_config, o);
}

static bool dk_geometry_matrix(struct kunit *test, struct tc_env *e,
			       size_t row)
{
	size_t n = 0;
	bool ok = tc_geometry_matrix(e, &n);

	kunit_info(test, "%zu size/align/boundary combinations\n", n);
	return ok;
}

static bool dk_geometry_rejects(struct kunit *test, struct tc_env *e,
				size_t row)
{
	return tc_geometry_rejects(e);
}

static bool dk_zalloc(struct kunit *test, struct tc_env *e, size_t row)
{
	return tc_zalloc_one(e, tc_zalloc_sizes[row]);
}

static bool dk_misuse(struct kunit *test, struct tc_env *e, size_t row)
{
	return tc_misuse_run(e, &tc_misuse_cases[row]);
}

static bool dk_hostile(struct kunit *test, struct tc_env *e, size_t row)
{
	return tc_hostile_run(e, &tc_hostile_cases[row], hostile_div);
}

static bool dk_workload(struct kunit *test, struct tc_env *e, size_t row)
{
	return tc_workload_run(e, &tc_workloads[row]);
}

/* What a row of each case runs, and the name of its result. */
static bool (* const dk_row_fn[TC_S_CASES])(struct kunit *, struct tc_env *,
					    size_t) = {
	[TC_S_GEOMETRY_MATRIX] = dk_geometry_matrix,
	[TC_S_GEOMETRY_REJECTS] = dk_geometry_rejects,
	[TC_S_ZALLOC] = dk_zalloc,
	[TC_S_MISUSE] = dk_misuse,
	[TC_S_HOSTILE] = dk_hostile,
	[TC_S_WORKLOAD] = dk_workload,
};

static void dk_row_name(enum tc_suite_case c, size_t row, char *buf,
			size_t len)
{
	buf[0] = '\0';
	switch (c) {
	case TC_S_ZALLOC:
		snprintf(buf, len, "size-%zu", tc_zalloc_sizes[row]);
		break;
	case TC_S_MISUSE:
		snprintf(buf, len, "%s", tc_misuse_cases[row].name);
		break;
	case TC_S_HOSTILE:
		snprintf(buf, len, "%s", tc_hostile_cases[row].name);
		break;
	case TC_S_WORKLOAD:
		snprintf(buf, len, "%zu-%zu-%zu", tc_workloads[row].size,
			 tc_workloads[row].align, tc_workloads[row].boundary);
		break;
	default:
		break;
	}
}

/*
 * Parameter i of case @c (0 <= i < configs x rows) is the pointer value
 * i + 1: the generator needs nothing but the previous value, and the
 * value is never dereferenced.
 */
static const void *dk_gen(enum tc_suite_case c, const void *prev, char *desc)
{
	size_t rows = tc_suite[c].rows;
	uintptr_t i = (uintptr_t)prev;	/* NULL: the first, 0 */
	char row[64];

	if (i >= tc_suite_params(c))
		return NULL;
	dk_row_name(c, i % rows, row, sizeof(row));
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s%s",
		 tc_configs[i / rows].name, row[0] ? "/" : "", row);
	return (const void *)(i + 1);
}

static void dk_run(struct kunit *test, enum tc_suite_case c)
{
	size_t rows = tc_suite[c].rows;
	size_t i = (uintptr_t)test->param_value - 1;
	struct tc_env *e;
	struct device *dev;
	bool ok;

	dev = kunit_device_register(test, "dmapool-kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)), 0);
	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->dev = dmapool_kdev(dev);
	dk_config = &tc_configs[i / rows];
	e->opts = dk_config_opts;

	/*
	 * One CPU for the whole case, as a userspace suite is one thread:
	 * every pool has a heap per CPU, and the cases expect a freed block
	 * to go back to the heap it came from.  The task may still sleep.
	 */
	migrate_disable();
	ok = dk_row_fn[c](test, e, i % rows);
	migrate_enable();
	/* A failed case returns early, with its report capture installed. */
	dmapool_set_report_handler(NULL, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "%s", e->msg);
}

static const void *geometry_matrix_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_GEOMETRY_MATRIX, prev, desc);
}

static void geometry_matrix(struct kunit *test)
{
	dk_run(test, TC_S_GEOMETRY_MATRIX);
}

static const void *geometry_rejects_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_GEOMETRY_REJECTS, prev, desc);
}

static void geometry_rejects(struct kunit *test)
{
	dk_run(test, TC_S_GEOMETRY_REJECTS);
}

static const void *zalloc_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_ZALLOC, prev, desc);
}

static void zalloc(struct kunit *test)
{
	dk_run(test, TC_S_ZALLOC);
}

static const void *misuse_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_MISUSE, prev, desc);
}

static void misuse(struct kunit *test)
{
	dk_run(test, TC_S_MISUSE);
}

static const void *hostile_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_HOSTILE, prev, desc);
}

static void hostile(struct kunit *test)
{
	dk_run(test, TC_S_HOSTILE);
}

static const void *workload_gen_params(const void *prev, char *desc)
{
	return dk_gen(TC_S_WORKLOAD, prev, desc);
}

static void workload(struct kunit *test)
{
	dk_run(test, TC_S_WORKLOAD);
}

/* In the order of tc_suite, named alike (dk_suite_init checks). */
static struct kunit_case dmapool_kunit_cases[] = {
	KUNIT_CASE_PARAM(geometry_matrix, geometry_matrix_gen_params),
	KUNIT_CASE_PARAM(geometry_rejects, geometry_rejects_gen_params),
	KUNIT_CASE_PARAM(zalloc, zalloc_gen_params),
	KUNIT_CASE_PARAM(misuse, misuse_gen_params),
	KUNIT_CASE_PARAM(hostile, hostile_gen_params),
	KUNIT_CASE_PARAM(workload, workload_gen_params),
	{}
};

static int dk_suite_init(struct kunit_suite *suite)
{
	size_t c;

	for (c = 0; c < TC_S_CASES; c++)
		if (!dmapool_kunit_cases[c].run_case ||
		    strcmp(dmapool_kunit_cases[c].name, tc_suite[c].name))
			return -EINVAL;
	return dmapool_kunit_cases[c].run_case ? -EINVAL : 0;
}

static struct kunit_suite dmapool_kunit_suite = {
	.name = "dmapool",
	.suite_init = dk_suite_init,
	.test_cases = dmapool_kunit_cases,
};

kunit_test_suite(dmapool_kunit_suite);

MODULE_DESCRIPTION("KUnit tests for the dmapool dma_pool allocator");
MODULE_LICENSE("Dual MIT/GPL");
