/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The workload of the kernel's own dma_pool benchmark (mm/dmapool_test.c,
 * Linux 6.3+), restated: for each geometry below, allocate
 * clamp((PAGE_SIZE / size) * 512, 1024, 8192) blocks, then free them all, in
 * order; 100 rounds.  The geometries and the formula are the benchmark's
 * parameters, so numbers compare with what it prints.
 */
#ifndef DMAPOOL_TC_WORKLOAD_H
#define DMAPOOL_TC_WORKLOAD_H

#include "tc.h"

struct tc_workload {
	size_t size, align, boundary;
};

static const struct tc_workload tc_workloads[] = {
	{ 16, 16, 0 },
	{ 64, 64, 0 },
	{ 256, 256, 0 },
	{ 1024, 1024, 0 },
	{ 4096, 4096, 0 },
	{ 68, 32, 4096 },
};

#define TC_WORKLOAD_ROUNDS	100

static inline unsigned int tc_workload_blocks(size_t size)
{
	size_t n = TC_PAGE_SIZE / size * 512;

	if (n < 1024)
		n = 1024;
	if (n > 8192)
		n = 8192;
	return (unsigned int)n;
}

#endif /* DMAPOOL_TC_WORKLOAD_H */
