/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Results of one benchmark run: a table per workload (rows are subjects,
 * columns are cases), printed, written to the CSV and plotted.
 */
#ifndef DMAPOOL_BENCH_RESULTS_H
#define DMAPOOL_BENCH_RESULTS_H

#include <stdio.h>

#include "bench.h"

#define RES_MAX_COLS	8
#define RES_MAX_ROWS	64

struct cell {
	bool set;
	double value;		/* the metric (median for timings) */
	double min, max;	/* over the repetitions */
	double ratio;		/* value / linux-embedded's, same column */
	double extra;		/* memory: DMA bytes */
};

struct table {
	const char *workload;	/* CSV name: dmapool_test, random-free, ... */
	const char *title;	/* printed above the table */
	const char *metric;	/* CSV metric name of value */
	const char *unit;	/* printed after the title */
	unsigned int ncols;
	const char *col[RES_MAX_COLS];
	unsigned int nrows;
	const struct subject *row[RES_MAX_ROWS];
	struct cell c[RES_MAX_ROWS][RES_MAX_COLS];
	unsigned int reps;
	char note[160];		/* printed under the table */
	bool memory;		/* value = meta bytes, extra = DMA bytes:
				 * printed as a percentage */
};

void table_init(struct table *t, const char *workload, const char *title,
		const char *metric, const char *unit);
unsigned int table_col(struct table *t, const char *label);
unsigned int table_row(struct table *t, const struct subject *s);
/* Fill ratios against the linux-embedded row (when it is there). */
void table_ratios(struct table *t);
void table_print(const struct table *t, FILE *out);
void table_csv(const struct table *t, FILE *csv);

/* Median of @n values (sorted in place). */
double median(double *v, unsigned int n);
/* A cell from n samples (n <= 64): median, min, max; unset when empty. */
void cell_from_samples(struct cell *c, const double *samples, unsigned int n);

/* The icount table: callgrind children for every case and subject. */
int bench_icount(const struct bench_cfg *cfg, struct table *t, FILE *out);

/* Write @dir/bench.gp from the tables and run gnuplot: 0 or -1. */
int plot_svg(const char *dir, const struct table *const *tabs,
	     unsigned int ntabs);

#endif /* DMAPOOL_BENCH_RESULTS_H */
