/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dmapool_ktest: shared between its files.
 *
 * Console protocol (the runner greps it): one line per test,
 *   "DMAPOOL-KTEST: PASS <name>" or "DMAPOOL-KTEST: FAIL <name>: <why>",
 * informational lines "DMAPOOL-KTEST: INFO ...", the benchmark table
 * "DMAPOOL-KTEST BENCH: ...", and last "DMAPOOL-KTEST SUMMARY: PASS|FAIL".
 */
#ifndef DMAPOOL_KTEST_H
#define DMAPOOL_KTEST_H

#include <linux/device.h>
#include <linux/printk.h>

#include <dmapool/kernel.h>

#define KT_PFX "DMAPOOL-KTEST: "

/*
 * Built against a tree where dmapool replaced mm/dmapool.c: the kernel's
 * dma_pool_* are dmapool's, so there is no other pool to compare with.
 */
#ifdef DMAPOOL_IN_TREE
#define KT_IN_TREE	true
#else
#define KT_IN_TREE	false
#endif

struct tc_env;

/* The device every pool of the test is made on. */
extern struct device *kt_dev;
extern int kt_hostile_div;
extern int kt_bench_reps;

/* Record a result: prints the PASS/FAIL line and counts it. */
void kt_result(const char *name, bool ok, const char *why);
__printf(2, 3) void kt_fail(const char *name, const char *fmt, ...);

/* A fresh environment for the shared cases (kfree it). */
struct tc_env *kt_env(void);

/* A second device, registered, for tests that tear one down. */
struct device *kt_dev_new(const char *name);
void kt_dev_del(struct device *dev);

void kt_run_shared(void);
void kt_run_dropin(void);
void kt_run_bench(void);

#endif
