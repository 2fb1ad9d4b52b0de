// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Result tables: samples, their medians and paired ratios, the terminal
 * form and the CSV rows.
 *
 * The CSV is long-form, one row per measured cell:
 *   workload,case,subject,metric,value,min,max,ratio,ratio_min,ratio_max,
 *   ratio_to,vs_default,vs_default_min,vs_default_max,reps
 * value/min/max are the subject's own figures (median over the runs);
 * ratio* are the median, min and max of the per-pair ratios to ratio_to
 * (linux-6.12, or the compute loop for scaling); vs_default* the same
 * against the default pool, for hardening options.  A script can pick any
 * slice without knowing the table layouts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

struct table *table_new(const char *workload, const char *title,
			const char *metric, const char *unit,
			enum table_style style)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->workload = workload;
	t->title = title;
	t->metric = metric;
	t->unit = unit;
	t->style = style;
	t->base_name = style == TS_SCALING ? compute_loop.name : BASE_SUBJECT;
	return t;
}

void table_free(struct table *t)
{
	free(t);
}

unsigned int table_col(struct table *t, const char *label)
{
	int c = table_find_col(t, label);

	if (c >= 0)
		return (unsigned int)c;
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

int table_find_row(const struct table *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nrows; i++)
		if (!strcmp(t->row[i]->name, name))
			return (int)i;
	return -1;
}

int table_find_col(const struct table *t, const char *label)
{
	unsigned int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->col[i], label))
			return (int)i;
	return -1;
}

const struct cell *table_cell(const struct table *t, const char *subject,
			      const char *col)
{
	int r = table_find_row(t, subject), c = table_find_col(t, col);

	if (r < 0 || c < 0 || !t->c[r][c].set)
		return NULL;
	return &t->c[r][c];
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

void ratio_stats(const double *a, const double *b, unsigned int n,
		 double *med, double *lo, double *hi)
{
	double v[RES_MAX_REPS];
	unsigned int i, k = 0;

	for (i = 0; i < n && i < RES_MAX_REPS; i++) {
		double r = b ? a[i] / b[i] : a[i];

		if (isfinite(r) && r > 0)
			v[k++] = r;
	}
	*med = median(v, k);
	*lo = k ? v[0] : NAN;
	*hi = k ? v[k - 1] : NAN;
}

void cell_summarize(struct cell *c)
{
	ratio_stats(c->run, NULL, c->n, &c->value, &c->min, &c->max);
	ratio_stats(c->run, c->base, c->n, &c->ratio, &c->rmin, &c->rmax);
	ratio_stats(c->run, c->def, c->n, &c->vsdef, &c->dmin, &c->dmax);
	c->set = !isnan(c->value);
}

void table_summarize(struct table *t)
{
	unsigned int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (t->c[r][c].n)
				cell_summarize(&t->c[r][c]);
}

void table_base_from_row(struct table *t)
{
	int b = table_find_row(t, t->base_name);
	unsigned int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			struct cell *x = &t->c[r][c];

			x->base[0] = b >= 0 && t->c[b][c].n ? t->c[b][c].run[0] :
				     NAN;
			x->def[0] = NAN;
		}
	table_summarize(t);
}

/* ---- the terminal form --------------------------------------------------- */

#define NAME_W	24
#define CELL_W	17

/* Three significant digits or so, at most 4 characters up to 9999. */
static const char *num3(char *buf, size_t size, double v)
{
	snprintf(buf, size, v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
	return buf;
}

static void print_paired(FILE *out, double med, double lo, double hi)
{
	char buf[64], a[16], b[16], c[16];

	if (isnan(med))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%s %s-%s", num3(a, sizeof(a), med),
			 num3(b, sizeof(b), lo), num3(c, sizeof(c), hi));
	fprintf(out, "%*s", CELL_W, buf);
}

static void print_cell(FILE *out, const struct table *t, const struct cell *c)
{
	char buf[48];

	if (!c->set) {
		fprintf(out, "%*s", CELL_W, "-");
		return;
	}
	switch (t->style) {
	case TS_PAIRED:
		print_paired(out, c->ratio, c->rmin, c->rmax);
		return;
	case TS_MEMORY:
		snprintf(buf, sizeof(buf), "%.2f%%", c->value / c->extra * 100);
		break;
	case TS_SCALING:
		if (isnan(c->ratio))
			snprintf(buf, sizeof(buf), "%.2fx", c->value);
		else
			snprintf(buf, sizeof(buf), "%.2fx (%.2f)", c->value,
				 c->ratio);
		break;
	case TS_VALUE:
		if (isnan(c->ratio))
			snprintf(buf, sizeof(buf), "%.1f", c->value);
		else
			snprintf(buf, sizeof(buf), "%.1f %5.2fx", c->value,
				 c->ratio);
		break;
	}
	fprintf(out, "%*s", CELL_W, buf);
}

/* A line of the subject's own medians (the base's ns, the control's). */
static void print_values(FILE *out, const struct table *t, unsigned int r,
			 const char *what)
{
	char name[64], buf[32];
	unsigned int c;

	snprintf(name, sizeof(name), "%s %s", t->row[r]->name, what);
	fprintf(out, "%-*s", NAME_W, name);
	for (c = 0; c < t->ncols; c++) {
		if (t->c[r][c].set)
			snprintf(buf, sizeof(buf), "%.1f", t->c[r][c].value);
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(out, "%*s", CELL_W, buf);
	}
	fputc('\n', out);
}

static bool has_options(const struct table *t)
{
	unsigned int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (t->row[r]->option && !isnan(t->c[r][c].vsdef))
				return true;
	return false;
}

void table_print(const struct table *t, FILE *out)
{
	unsigned int r, c;
	int b = table_find_row(t, t->base_name);
	char name[64];

	fprintf(out, "\n%s\n  %s\n", t->title, t->unit);
	fprintf(out, "%-*s", NAME_W, "");
	for (c = 0; c < t->ncols; c++)
		fprintf(out, "%*s", CELL_W, t->col[c]);
	fputc('\n', out);
	if (t->style == TS_PAIRED) {
		for (r = 0; r < t->nrows; r++)
			if (t->row[r]->kind == K_CTRL)
				print_values(out, t, r, "ns");
		if (b >= 0)
			print_values(out, t, (unsigned int)b, "ns");
	}
	for (r = 0; r < t->nrows; r++) {
		const struct subject *s = t->row[r];

		if (t->style == TS_PAIRED &&
		    (s->kind == K_CTRL || ((int)r == b && !t->aa)))
			continue;
		snprintf(name, sizeof(name), "%s%s", s->name,
			 (int)r == b && t->aa ? " (A/A)" : "");
		fprintf(out, "%-*s", NAME_W, name);
		for (c = 0; c < t->ncols; c++)
			print_cell(out, t, &t->c[r][c]);
		fputc('\n', out);
	}
	if (t->style == TS_PAIRED && has_options(t)) {
		fprintf(out, "  options against the default pool (%s), median paired ratio (min-max):\n",
			DEFAULT_SUBJECT);
		for (r = 0; r < t->nrows; r++) {
			if (!t->row[r]->option)
				continue;
			fprintf(out, "%-*s", NAME_W, t->row[r]->name);
			for (c = 0; c < t->ncols; c++)
				print_paired(out, t->c[r][c].vsdef,
					     t->c[r][c].dmin, t->c[r][c].dmax);
			fputc('\n', out);
		}
	}
	if (t->note[0])
		fprintf(out, "  %s\n", t->note);
}

/* ---- CSV ----------------------------------------------------------------- */

void table_csv_header(FILE *csv)
{
	if (csv)
		fprintf(csv, "workload,case,subject,metric,value,min,max,ratio,ratio_min,ratio_max,ratio_to,vs_default,vs_default_min,vs_default_max,reps\n");
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
			csv_num(csv, x->rmin);
			csv_num(csv, x->rmax);
			fprintf(csv, ",%s", isnan(x->ratio) ? "" : t->base_name);
			csv_num(csv, x->vsdef);
			csv_num(csv, x->dmin);
			csv_num(csv, x->dmax);
			fprintf(csv, ",%u\n", x->n);
			if (t->style == TS_MEMORY) {
				fprintf(csv, "%s,%s,%s,dma_bytes,%.0f,,,,,,,,,,%u\n",
					t->workload, t->col[c], t->row[r]->name,
					x->extra, x->n);
				fprintf(csv, "%s,%s,%s,meta_pct,%.4f,,,,,,,,,,%u\n",
					t->workload, t->col[c], t->row[r]->name,
					x->value / x->extra * 100, x->n);
			}
		}
}
