// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The cases of tests/cases/, the same source the Criterion suites run, here
 * on dma_alloc_coherent() memory of a registered device, with kmalloc'd
 * metadata, spinlocks, kernel RCU and per-CPU heaps: the kernel build of
 * the core, under each index and the pool configurations the userspace
 * suites use.
 */
#include <linux/slab.h>

#include "ktest.h"
#include "cases/configs.h"
#include "cases/geometry.h"
#include "cases/hostile.h"
#include "cases/misuse.h"
#include "cases/zalloc.h"

static const struct tc_config *kt_cur;

static void kt_config_opts(struct dmapool_opts *o)
{
	tc_config_apply(kt_cur, o);
}

static void shared_result(struct tc_env *e, const char *name, bool ok)
{
	char full[96];

	/* A failed case returns early, with the capture still installed. */
	dmapool_set_report_handler(NULL, NULL);
	snprintf(full, sizeof(full), "%s/%s", kt_cur->name, name);
	kt_result(full, ok, e->msg);
}

static void kt_run_config(struct tc_env *e)
{
	char name[64];
	size_t i, n = 0;
	bool ok;

	ok = tc_geometry_matrix(e, &n);
	pr_info(KT_PFX "INFO %s: geometry matrix: %zu size/align/boundary cases\n",
		kt_cur->name, n);
	shared_result(e, "geometry-matrix", ok);
	shared_result(e, "geometry-rejects", tc_geometry_rejects(e));
	shared_result(e, "zalloc", tc_zalloc_all(e));

	for (i = 0; i < TC_ARRAY_SIZE(tc_misuse_cases); i++) {
		snprintf(name, sizeof(name), "misuse/%s",
			 tc_misuse_cases[i].name);
		shared_result(e, name, tc_misuse_run(e, &tc_misuse_cases[i]));
	}

	for (i = 0; i < TC_ARRAY_SIZE(tc_hostile_cases); i++) {
		snprintf(name, sizeof(name), "hostile/%s",
			 tc_hostile_cases[i].name);
		shared_result(e, name, tc_hostile_run(e, &tc_hostile_cases[i],
						      kt_hostile_div));
	}
}

void kt_run_shared(void)
{
	struct tc_env *e = kt_env();
	size_t c;

	if (!e) {
		kt_fail("shared", "out of memory");
		return;
	}
	e->opts = kt_config_opts;
	for (c = 0; c < ARRAY_SIZE(tc_configs); c++) {
		kt_cur = &tc_configs[c];
		kt_run_config(e);
	}
	kfree(e);
}
