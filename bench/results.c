// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Result tables: the terminal form, the CSV rows, medians.
 *
 * The CSV is long-form, one row per measured cell:
 *   workload,case,subject,metric,value,min,max,ratio_vs_linux_embedded,reps
 * so a script can pick any slice without knowing the table layouts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

void table_init(struct table *t, const char *workload, const char *title,
		const char *metric, const char *unit)
{
	memset(t, 0, sizeof(*t));
	t->workload = workload;
	t->title = title;
	t->metric = metric;
	t->unit = unit;
}

unsigned int table_col(struct table *t, const char *label)
{
	unsigned int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->col[i], label))
			return i;
	if (t->ncols == RES_MAX_COLS)
		abort();
	t->col[t->ncols] = label;
	return t->ncols++;
}

unsigned int table_row(struct table *t, const struct subject *s)
{
	unsigned int i;

	for (i = 0; i < t->nrows; i++)
		if (t->row[i] == s)
			return i;
	if (t->nrows == RES_MAX_ROWS)
		abort();
	t->row[t->nrows] = s;
	return t->nrows++;
}

void table_ratios(struct table *t)
{
	unsigned int r, c, base = t->nrows;

	for (r = 0; r < t->nrows; r++)
		if (t->row[r]->kind == K_EMB)
			base = r;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const struct cell *b = base < t->nrows ?
					       &t->c[base][c] : NULL;

			t->c[r][c].ratio = b && b->set && b->value > 0 &&
					   t->c[r][c].set ?
					   t->c[r][c].value / b->value : NAN;
		}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median(double *v, unsigned int n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void cell_from_samples(struct cell *c, const double *samples, unsigned int n)
{
	double v[64];
	unsigned int i;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		v[i] = samples[i];
	c->value = median(v, n);	/* sorts v */
	c->min = n ? v[0] : NAN;
	c->max = n ? v[n - 1] : NAN;
	c->set = !isnan(c->value);
}

#define NAME_W	22
#define CELL_W	16

static void print_value(FILE *out, const struct table *t, const struct cell *c)
{
	char buf[40];

	if (!c->set) {
		fprintf(out, "%*s", CELL_W, "-");
		return;
	}
	if (t->memory) {
		/* host metadata as a share of DMA memory */
		snprintf(buf, sizeof(buf), "%.2f%%", c->value / c->extra * 100);
	} else if (isnan(c->ratio)) {
		snprintf(buf, sizeof(buf), "%.1f", c->value);
	} else {
		snprintf(buf, sizeof(buf), "%.1f %5.2fx", c->value, c->ratio);
	}
	fprintf(out, "%*s", CELL_W, buf);
}

void table_print(const struct table *t, FILE *out)
{
	unsigned int r, c;

	fprintf(out, "\n%s\n  %s\n", t->title, t->unit);
	fprintf(out, "%-*s", NAME_W, "");
	for (c = 0; c < t->ncols; c++)
		fprintf(out, "%*s", CELL_W, t->col[c]);
	fputc('\n', out);
	for (r = 0; r < t->nrows; r++) {
		fprintf(out, "%-*s", NAME_W, t->row[r]->name);
		for (c = 0; c < t->ncols; c++)
			print_value(out, t, &t->c[r][c]);
		fputc('\n', out);
	}
	if (t->note[0])
		fprintf(out, "  %s\n", t->note);
}

static void csv_num(FILE *csv, double v)
{
	if (isnan(v))
		fputs(",", csv);
	else
		fprintf(csv, ",%.6g", v);
}

void table_csv(const struct table *t, FILE *csv)
{
	unsigned int r, c;

	if (!csv)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const struct cell *x = &t->c[r][c];

			if (!x->set)
				continue;
			fprintf(csv, "%s,%s,%s,%s", t->workload, t->col[c],
				t->row[r]->name, t->metric);
			csv_num(csv, x->value);
			csv_num(csv, x->min);
			csv_num(csv, x->max);
			csv_num(csv, x->ratio);
			fprintf(csv, ",%u\n", t->reps);
			if (t->memory) {
				fprintf(csv, "%s,%s,%s,dma_bytes,%.0f,,,,%u\n",
					t->workload, t->col[c], t->row[r]->name,
					x->extra, t->reps);
				fprintf(csv, "%s,%s,%s,meta_pct,%.4f,,,,%u\n",
					t->workload, t->col[c], t->row[r]->name,
					x->value / x->extra * 100, t->reps);
			}
		}
}
