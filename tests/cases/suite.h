/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The shared cases as one suite: each table below is one test case, each
 * of its rows run under every configuration of configs.h.  The KUnit suite
 * (tests/kunit/dmapool_kunit.c) has one case per entry of tc_suite, named
 * alike and in this order (it checks that before running), and generates
 * its parameters from the row counts; its host-side checker
 * (tests/kunit/expect.c) prints from the same table the results the suite
 * must show, so no count is written down anywhere.
 */
#ifndef DMAPOOL_TC_SUITE_H
#define DMAPOOL_TC_SUITE_H

#include "configs.h"
#include "geometry.h"
#include "hostile.h"
#include "misuse.h"
#include "workload.h"
#include "zalloc.h"

/* The cases, in the order they run. */
enum tc_suite_case {
	TC_S_GEOMETRY_MATRIX,
	TC_S_GEOMETRY_REJECTS,
	TC_S_ZALLOC,
	TC_S_MISUSE,
	TC_S_HOSTILE,
	TC_S_WORKLOAD,
	TC_S_CASES
};

struct tc_suite_entry {
	const char *name;
	size_t rows;		/* of its table; 1: the table is one case */
};

static const struct tc_suite_entry tc_suite[TC_S_CASES] = {
	[TC_S_GEOMETRY_MATRIX] = { "geometry_matrix", 1 },
	[TC_S_GEOMETRY_REJECTS] = { "geometry_rejects", 1 },
	[TC_S_ZALLOC] = { "zalloc", TC_ARRAY_SIZE(tc_zalloc_sizes) },
	[TC_S_MISUSE] = { "misuse", TC_ARRAY_SIZE(tc_misuse_cases) },
	[TC_S_HOSTILE] = { "hostile", TC_ARRAY_SIZE(tc_hostile_cases) },
	[TC_S_WORKLOAD] = { "workload", TC_ARRAY_SIZE(tc_workloads) },
};

/* Results of a case: every row under every configuration. */
static inline size_t tc_suite_params(enum tc_suite_case c)
{
	return tc_suite[c].rows * TC_ARRAY_SIZE(tc_configs);
}

#endif /* DMAPOOL_TC_SUITE_H */
