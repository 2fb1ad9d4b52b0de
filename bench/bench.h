/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The benchmark: subjects (the baselines and dmapool configurations),
 * workloads, and the tables, CSV and plot they produce.  dmapool-bench is
 * its command line; the showcase runs a quick subset through bench_quick().
 */
#ifndef DMAPOOL_BENCH_BENCH_H
#define DMAPOOL_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dmapool/dmapool.h>

#include "baseline.h"

/* ---- subjects ---------------------------------------------------------- */

enum subj_kind {
	K_L612,		/* linux-6.12: the kernel's own mm/dmapool.c */
	K_EMB,		/* linux-embedded */
	K_PL,		/* linux-pagelist */
	K_XA,		/* xarray-fix */
	K_DP,		/* dmapool, free by address */
	K_DPH,		/* dmapool, handle API */
	K_CTRL,		/* the threads workload's compute loop: no pool */
	K_KINDS
};

struct subject {
	const char *name;
	enum subj_kind kind;
	enum dmapool_index_kind index;	/* dmapool kinds, with set_index */
	bool set_index;			/* else the library's default index */
	unsigned int flags;		/* DMAPOOL_OPT_* */
	unsigned int redzone;
	unsigned int quarantine_max;
	unsigned int poison_sample;	/* 0: dmapool's default */
	size_t chunk_size;		/* 0: dmapool's default */
	bool option;			/* a hardening option: also measured
					 * against the default pool */
	bool no_churn;			/* O(pages) per operation: churn would
					 * take minutes */
	bool in_plot;
	/* Filled by subjects_probe(). */
	bool available;
	char why[112];			/* why not available */
};

extern struct subject subjects[];
extern const unsigned int nsubjects;
/* What every ratio is against, and what options are against. */
#define BASE_SUBJECT	"linux-6.12"
#define DEFAULT_SUBJECT	"dmapool"
/* The threads workload's control row (not in subjects[]). */
extern struct subject compute_loop;
/* Find out which subjects this build can create; print a note for others. */
void subjects_probe(struct dmapool_dev *dev, FILE *notes);
struct subject *subject_find(const char *name);

/* ---- pools of any subject ---------------------------------------------- */

/* One slot of the driver's array: the layout of struct dmapool_block. */
struct slot {
	void *vaddr;
	dmapool_dma_t dma;
	uint64_t handle;
};
_Static_assert(sizeof(struct slot) == sizeof(struct dmapool_block) &&
	       offsetof(struct slot, handle) ==
	       offsetof(struct dmapool_block, handle),
	       "a slot must have the layout of struct dmapool_block");

struct shape {
	const char *label;		/* "16/16/0" */
	size_t size, align, boundary;
};

extern const struct shape dmapool_test_shapes[];
extern const unsigned int nshapes;
/* The kernel test's block count: clamp(PAGE_SIZE / size * 512, 1024, 8192). */
size_t dmapool_test_blocks(size_t size);

struct spool {
	const struct subject *s;
	void *p;
};

/* 0, or -1 when the subject refuses the shape. */
int spool_create(struct spool *sp, const struct subject *s,
		 struct dmapool_dev *dev, size_t size, size_t align,
		 size_t boundary);
void spool_destroy(struct spool *sp);
void spool_mem(struct spool *sp, struct bl_mem *m);
/* The baselines' interface to a kind (dmapool kinds: bl_dmapool). */
const struct bl_ops *subject_ops(enum subj_kind k);
/* Reports dmapool delivered to the benchmark's sink (must stay 0). */
uint64_t bench_reports(void);

/* ---- workloads (bench/workloads.c) -------------------------------------- */

/*
 * @rounds of "allocate @n into @sl, free them": in allocation order, or in
 * @order when not NULL.  0, or -1 when an allocation failed.
 */
int wl_rounds(struct spool *sp, struct slot *sl, size_t n, unsigned int rounds,
	      const uint32_t *order);
/* Steady state: batches of @batch frees at @idx then as many allocations. */
int wl_churn(struct spool *sp, struct slot *sl, const uint32_t *idx,
	     size_t ops, unsigned int batch);
/*
 * The same with dmapool_alloc_bulk() and dmapool_free_bulk(), @batch
 * blocks per call (@v, @d: @n entries); dmapool kinds only.
 */
int wl_rounds_bulk(struct spool *sp, void **v, dmapool_dma_t *d, size_t n,
		   unsigned int rounds, unsigned int batch);
/* Producer/consumer over a ring of blocks (one producer, one consumer). */
struct pc_ring;
struct pc_ring *pc_ring_new(void);
void pc_ring_free(struct pc_ring *r);
void pc_ring_reset(struct pc_ring *r);
/* Allocate @total blocks into the ring / free @total from it: 0 or -1. */
int wl_produce(struct spool *sp, struct pc_ring *r, size_t total);
int wl_consume(struct spool *sp, struct pc_ring *r, size_t total);
/* The same reaping each batch with dmapool_free_bulk() (dmapool only). */
int wl_consume_bulk(struct spool *sp, struct pc_ring *r, size_t total);
/* The control: as many steps of register-only work as @n * @rounds pairs. */
uint64_t wl_compute(size_t n, unsigned int rounds);
/* One allocation or free, untimed paths only. */
bool wl_alloc_one(struct spool *sp, struct slot *s);
void wl_free_one(struct spool *sp, struct slot *s);
/*
 * Allocate @n and check every block: aligned, inside a chunk, dma matching,
 * boundary kept, no overlap.  Frees them.  NULL, or what is wrong.
 */
const char *wl_validate(struct spool *sp, const struct shape *sh,
			struct slot *sl, size_t n);

/* ---- the run ------------------------------------------------------------- */

struct bench_cfg {
	unsigned int reps;		/* pairs per (case, subject); median */
	unsigned int rounds;		/* dmapool_test rounds (kernel: 100) */
	size_t churn_live;		/* live blocks in churn */
	unsigned int churn_batch;
	size_t thr_blocks;		/* per thread */
	unsigned int thr_rounds;
	unsigned int icount_rounds;
	bool quiet;			/* no progress dots */
	bool short_run;			/* --short: sizes too small to judge */
	const char *outdir;		/* CSV, SVG; NULL: none */
	bool svg;
	const char *self;		/* argv[0], for the callgrind child */
	unsigned int workloads;		/* WL_* bits */
	bool subject_on[64];		/* by index in subjects[] */
};

#define WL_DMAPOOL_TEST	0x01u
#define WL_RANDOM_FREE	0x02u
#define WL_CHURN	0x04u
#define WL_THREADS	0x08u
#define WL_MEMORY	0x10u
#define WL_ICOUNT	0x20u
#define WL_ALL		0x3fu

/* Run what @cfg selects; print tables on @out.  0, or 1 on any failure. */
int bench_run(const struct bench_cfg *cfg, FILE *out);
/* The showcase's table: dmapool_test for a few subjects, a few seconds. */
int bench_quick(FILE *out);
/* Callgrind child: run @rounds rounds of @shape for @subject, collected. */
int bench_icount_child(const char *subject, const char *shape,
		       unsigned int rounds);

#endif /* DMAPOOL_BENCH_BENCH_H */
