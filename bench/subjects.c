// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * What is measured: Linux 6.12's own mm/dmapool.c (every ratio's base), the
 * three re-implemented baselines, and dmapool in every configuration the
 * benchmark knows of.  The dmapool rows are data: every index kind of the
 * public header, the handle API, a larger chunk size, the shared (not
 * per-thread) pool, and each hardening option alone (measured against the
 * default pool as well).  A configuration this build refuses at create (an index or option not built
 * yet) is skipped with a note saying why, so the tables fill in as the
 * features land without touching this file.
 */
#include <string.h>
#include <unistd.h>

#include "bench.h"

struct subject subjects[] = {
	{ .name = "linux-6.12", .kind = K_L612 },
	{ .name = "linux-embedded", .kind = K_EMB, .in_plot = true },
	{ .name = "linux-pagelist", .kind = K_PL, .no_churn = true,
	  .in_plot = true },
	{ .name = "xarray-fix", .kind = K_XA, .in_plot = true },
	{ .name = "dmapool", .kind = K_DP, .in_plot = true },
	{ .name = "dmapool-handle", .kind = K_DPH, .in_plot = true },
	{ .name = "dmapool-radix", .kind = K_DP, .index = DMAPOOL_INDEX_RADIX,
	  .set_index = true },
	{ .name = "dmapool-btree", .kind = K_DP, .index = DMAPOOL_INDEX_BTREE,
	  .set_index = true, .in_plot = true },
	{ .name = "dmapool-chunk64k", .kind = K_DP, .chunk_size = 64 << 10 },
	{ .name = "dmapool-shared", .kind = K_DP, .flags = DMAPOOL_OPT_SHARED,
	  .in_plot = true },
	{ .name = "dmapool+quarantine", .kind = K_DP, .option = true,
	  .flags = DMAPOOL_OPT_QUARANTINE, .quarantine_max = 256 },
	{ .name = "dmapool+redzone16", .kind = K_DP, .option = true,
	  .redzone = 16 },
	{ .name = "dmapool+random", .kind = K_DP, .option = true,
	  .flags = DMAPOOL_OPT_RANDOM },
	{ .name = "dmapool+poison", .kind = K_DP, .option = true,
	  .flags = DMAPOOL_OPT_POISON },
	{ .name = "dmapool+poison-sampled", .kind = K_DP, .option = true,
	  .flags = DMAPOOL_OPT_POISON_SAMPLED },
	{ .name = "dmapool+scrub", .kind = K_DP, .option = true,
	  .flags = DMAPOOL_OPT_SCRUB },
};
const unsigned int nsubjects = sizeof(subjects) / sizeof(subjects[0]);

/* No allocator: register-only work, to show what the machine gives threads. */
struct subject compute_loop = {
	.name = "compute-loop", .kind = K_CTRL, .available = true,
};

/* The kernel's mm/dmapool_test.c cases. */
size_t dmapool_test_blocks(size_t size)
{
	size_t n = (size_t)sysconf(_SC_PAGESIZE) / size * 512;

	return n < 1024 ? 1024 : n > 8192 ? 8192 : n;
}

const struct shape dmapool_test_shapes[] = {
	{ "16/16/0", 16, 16, 0 },
	{ "64/64/0", 64, 64, 0 },
	{ "256/256/0", 256, 256, 0 },
	{ "1024/1024/0", 1024, 1024, 0 },
	{ "4096/4096/0", 4096, 4096, 0 },
	{ "68/32/4096", 68, 32, 4096 },
};
const unsigned int nshapes = sizeof(dmapool_test_shapes) /
			     sizeof(dmapool_test_shapes[0]);

static uint64_t nreports;
static char create_why[112];

/* Pools' sink: a benchmark run must never see a report. */
static void pool_sink(const struct dmapool_report *r, void *ctx)
{
	(void)ctx;
	if (!__atomic_fetch_add(&nreports, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "dmapool-bench: unexpected report %s: %s\n",
			dmapool_report_kind_name(r->kind),
			r->detail ? r->detail : "");
}

/* Global sink while probing: remember why a create was refused. */
static void probe_sink(const struct dmapool_report *r, void *ctx)
{
	(void)ctx;
	snprintf(create_why, sizeof(create_why), "%s",
		 r->detail ? r->detail : dmapool_report_kind_name(r->kind));
}

uint64_t bench_reports(void)
{
	return __atomic_load_n(&nreports, __ATOMIC_RELAXED);
}

static struct dmapool *dp_create(const struct subject *s,
				 struct dmapool_dev *dev, size_t size,
				 size_t align, size_t boundary)
{
	struct dmapool_opts o;

	dmapool_opts_init(&o);
	if (s->set_index)	/* else the library's default */
		o.index = s->index;
	o.flags = s->flags;
	o.redzone = s->redzone;
	o.quarantine_max = s->quarantine_max;
	o.poison_sample = s->poison_sample;
	o.chunk_size = s->chunk_size;
	o.report = pool_sink;
	return dmapool_create_opts(s->name, dev, size, align, boundary, &o);
}

int spool_create(struct spool *sp, const struct subject *s,
		 struct dmapool_dev *dev, size_t size, size_t align,
		 size_t boundary)
{
	sp->s = s;
	switch (s->kind) {
	case K_L612:
		sp->p = bl_l612_create(dev, size, align, boundary);
		break;
	case K_EMB:
		sp->p = bl_emb_create(dev, size, align, boundary);
		break;
	case K_PL:
		sp->p = bl_pl_create(dev, size, align, boundary);
		break;
	case K_XA:
		sp->p = bl_xa_create(dev, size, align, boundary);
		break;
	default:
		sp->p = dp_create(s, dev, size, align, boundary);
		break;
	}
	return sp->p ? 0 : -1;
}

void spool_destroy(struct spool *sp)
{
	switch (sp->s->kind) {
	case K_L612:
		bl_l612_destroy(sp->p);
		break;
	case K_EMB:
		bl_emb_destroy(sp->p);
		break;
	case K_PL:
		bl_pl_destroy(sp->p);
		break;
	case K_XA:
		bl_xa_destroy(sp->p);
		break;
	default:
		dmapool_destroy(sp->p);
		break;
	}
	sp->p = NULL;
}

const struct bl_ops *subject_ops(enum subj_kind k)
{
	switch (k) {
	case K_L612:
		return &bl_linux_612;
	case K_EMB:
		return &bl_linux_embedded;
	case K_PL:
		return &bl_linux_pagelist;
	case K_XA:
		return &bl_xarray_fix;
	default:
		return &bl_dmapool;
	}
}

void spool_mem(struct spool *sp, struct bl_mem *m)
{
	subject_ops(sp->s->kind)->mem(sp->p, m);
}

void subjects_probe(struct dmapool_dev *dev, FILE *notes)
{
	unsigned int i;

	dmapool_set_report_handler(probe_sink, NULL);
	for (i = 0; i < nsubjects; i++) {
		struct subject *s = &subjects[i];
		struct spool sp;

		create_why[0] = '\0';
		s->available = !spool_create(&sp, s, dev, 64, 64, 0);
		if (s->available) {
			spool_destroy(&sp);
			continue;
		}
		snprintf(s->why, sizeof(s->why), "%s",
			 create_why[0] ? create_why : "create failed");
		if (notes)
			fprintf(notes, "note: %s skipped: this build refuses it (%s)\n",
				s->name, s->why);
	}
	dmapool_set_report_handler(NULL, NULL);
}

struct subject *subject_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nsubjects; i++)
		if (!strcmp(subjects[i].name, name))
			return &subjects[i];
	return NULL;
}
