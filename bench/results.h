/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Results of one benchmark run: a table per workload (rows are subjects,
 * columns are cases), printed, written to the CSV, judged against the
 * targets and plotted.
 *
 * A cell keeps every run's sample by repetition, with the runs of its
 * partners: the base (linux-6.12) run paired with it, for hardening
 * options the default pool's run paired with it, and in the threads
 * workload the compute loop's run next to it.  Ratios are medians of
 * the per-pair ratios, with their min and max: on a shared machine the
 * speed drifts between runs, and a pair run back to back sees the same
 * machine.
 */
#ifndef DMAPOOL_BENCH_RESULTS_H
#define DMAPOOL_BENCH_RESULTS_H

#include <stdio.h>

#include "bench.h"

#define RES_MAX_COLS	8
#define RES_MAX_ROWS	24
#define RES_MAX_REPS	64

struct cell {
	bool set;
	unsigned int n;			/* samples (repetitions) */
	double run[RES_MAX_REPS];	/* the subject's; NAN = failed */
	double base[RES_MAX_REPS];	/* its base partner's; NAN = none */
	double def[RES_MAX_REPS];	/* the default pool's (options) */
	double ctrl[RES_MAX_REPS];	/* threads: the compute loop's, run
					 * next to it at its thread count */
	/* Summaries (cell_summarize). */
	double value, min, max;		/* median, min, max of run[] */
	double ratio, rmin, rmax;	/* of run[i] / base[i] */
	double vsdef, dmin, dmax;	/* of run[i] / def[i] */
	double extra;			/* memory: DMA bytes; icount: the
					 * allocator-only count */
};

enum table_style {
	TS_PAIRED,	/* timings: ratio (min-max) per cell, base ns above */
	TS_VALUE,	/* a count and its ratio to the base row */
	TS_MEMORY,	/* host metadata as a share of DMA memory */
	TS_SCALING,	/* a factor and its ratio to the control row */
};

struct table {
	const char *workload;	/* CSV name: dmapool_test, random-free, ... */
	const char *title;	/* printed above the table */
	const char *metric;	/* CSV metric name of value */
	const char *unit;	/* printed after the title */
	const char *base_name;	/* what ratio is against */
	enum table_style style;
	bool aa;		/* the base row is paired with itself */
	unsigned int ncols;
	const char *col[RES_MAX_COLS];
	unsigned int nrows;
	const struct subject *row[RES_MAX_ROWS];
	struct cell c[RES_MAX_ROWS][RES_MAX_COLS];
	unsigned int reps;
	char note[200];		/* printed under the table */
};

/* Tables are big (every sample): allocate them. */
struct table *table_new(const char *workload, const char *title,
			const char *metric, const char *unit,
			enum table_style style);
void table_free(struct table *t);
unsigned int table_col(struct table *t, const char *label);
unsigned int table_row(struct table *t, const struct subject *s);
/* The row of @name, or -1. */
int table_find_row(const struct table *t, const char *name);
int table_find_col(const struct table *t, const char *label);
const struct cell *table_cell(const struct table *t, const char *subject,
			      const char *col);
/* Summarize every cell (value, ratio, vsdef from the samples). */
void table_summarize(struct table *t);
/* One-sample tables: base[0] = the base row's run[0] in the column. */
void table_base_from_row(struct table *t);
void table_print(const struct table *t, FILE *out);
void table_csv(const struct table *t, FILE *csv);
void table_csv_header(FILE *csv);

/* Median of @n values (sorted in place); NAN when n is 0. */
double median(double *v, unsigned int n);
/* Median, min and max of a[i] / b[i] (b NULL: of a[i]) over the pairs
 * where both are numbers; NANs when there are none. */
void ratio_stats(const double *a, const double *b, unsigned int n,
		 double *med, double *lo, double *hi);
void cell_summarize(struct cell *c);

/* The icount tables: callgrind children for every case and subject. */
int bench_icount(const struct bench_cfg *cfg, struct table *with_loop,
		 struct table *alloc_only, FILE *out);

/* The targets of issues 14 and 15, judged on this run's tables. */
void targets_report(const struct table *const *tabs, unsigned int ntabs,
		    const struct bench_cfg *cfg, FILE *out, FILE *txt,
		    FILE *csv);

/* Host, commit and load, for headers and the plot's caption. */
struct run_info {
	char cpu[128];
	long ncpu;
	double load[3];
	char commit[64];
	char date[32];
};
void run_info_get(struct run_info *ri);

/* Write @dir/bench.gp from the tables and run gnuplot (SVG and PNG). */
int plot_write(const char *dir, const struct table *const *tabs,
	       unsigned int ntabs, const struct run_info *ri);

#endif /* DMAPOOL_BENCH_RESULTS_H */
