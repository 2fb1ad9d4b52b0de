// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The cases of tests/cases/, the same source the Criterion suites run, here
 * on dma_alloc_coherent() memory of a registered device, with kmalloc'd
 * metadata and spinlocks: the kernel build of the core.
 */
#include <linux/slab.h>

#include "ktest.h"
#include "cases/geometry.h"
#include "cases/hostile.h"
#include "cases/misuse.h"
#include "cases/zalloc.h"

static void shared_result(struct tc_env *e, const char *name, bool ok)
{
	/* A failed case returns early, with the capture still installed. */
	dmapool_set_report_handler(NULL, NULL);
	kt_result(name, ok, e->msg);
}

void kt_run_shared(void)
{
	struct tc_env *e = kt_env();
	char name[64];
	size_t i, n = 0;
	bool ok;

	if (!e) {
		kt_fail("shared", "out of memory");
		return;
	}

	ok = tc_geometry_matrix(e, &n);
	pr_info(KT_PFX "INFO geometry matrix: %zu size/align/boundary cases\n",
		n);
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
	kfree(e);
}
