// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The plot: gnuplot draws one panel per table, as SVG and PNG.
 *
 * Ratio panels show, per case, a bar per subject at its median paired
 * ratio to linux-6.12 with a whisker from the smallest to the largest
 * pair, on a linear scale around 1 (the line): below it is faster than
 * Linux's own code.  The first bar, linux-6.12 against itself, shows the
 * noise of the run.  The scale stops at 3; a bar beyond is cut there and
 * labelled with its value.  The options panels show each hardening option
 * against the default pool the same way; the scaling panel each subject's
 * n-thread factor next to the compute loop's; memory is a share of DMA
 * memory on a log scale.  The caption says where and when it ran.  The
 * data and the script are left next to the images (bench-*.dat, bench.gp,
 * bench-panels.gp) so the plot can be redrawn without rerunning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"

#define PLOT_CAP	3.0	/* linear panels stop here */

/* One colour per subject, the same in every panel. */
static const char *const colours[] = {
	"#000000", "#7f7f7f", "#9467bd", "#2ca02c", "#1f77b4", "#17becf",
	"#ff7f0e", "#8c564b", "#e377c2", "#d62728", "#bcbd22", "#393b79",
	"#637939", "#843c39", "#7b4173", "#3182bd",
};

static const char *colour_of(const struct subject *s)
{
	if (s->kind == K_CTRL)
		return "#555555";
	return colours[(unsigned int)(s - subjects) %
		       (sizeof(colours) / sizeof(colours[0]))];
}

enum panel_kind { PK_RATIO, PK_OPTIONS, PK_SCALING, PK_MEMORY };

struct panel {
	const struct table *t;
	enum panel_kind kind;
	const char *name;	/* data file: bench-<name>.dat */
	const char *title;
};

static bool in_panel(const struct panel *p, unsigned int r)
{
	const struct subject *s = p->t->row[r];

	switch (p->kind) {
	case PK_RATIO:
		/* linux-6.12 against itself: the noise, next to the others. */
		if (s->kind == K_L612)
			return p->t->aa;
		return s->in_plot && s->kind != K_CTRL;
	case PK_OPTIONS:
		return s->option;
	case PK_SCALING:
		return s->in_plot || s->kind == K_CTRL || s->kind == K_L612;
	case PK_MEMORY:
		return s->in_plot || s->kind == K_L612;
	}
	return false;
}

/* The figure a panel shows for a cell, with its whisker. */
static bool figure(const struct panel *p, const struct cell *c, double *v,
		   double *lo, double *hi)
{
	if (!c->set)
		return false;
	switch (p->kind) {
	case PK_RATIO:
		*v = c->ratio;
		*lo = c->rmin;
		*hi = c->rmax;
		break;
	case PK_OPTIONS:
		*v = c->vsdef;
		*lo = c->dmin;
		*hi = c->dmax;
		break;
	case PK_SCALING:
		*v = c->value;
		*lo = c->min;
		*hi = c->max;
		break;
	case PK_MEMORY:
		*v = *lo = *hi = c->value / c->extra * 100;
		break;
	}
	return isfinite(*v) && *v > 0;
}

static unsigned int nshown(const struct panel *p)
{
	unsigned int r, n = 0;

	for (r = 0; r < p->t->nrows; r++)
		n += in_panel(p, r);
	return n;
}

/*
 * The data: a block per shown subject (x, y, ylow, yhigh, half width,
 * label), x = column + the bar's offset in its cluster; linear panels
 * clip at @cap and label what they clipped.  *@hi: the largest figure.
 */
static int write_dat(const char *dir, const struct panel *p, double cap,
		     double *hi)
{
	const unsigned int n = nshown(p);
	const double w = 0.8 / (n ? n : 1);
	char path[4096];
	unsigned int r, c, k = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bench-%s.dat", dir, p->name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# %s: x y ylow yhigh halfwidth label, a block per subject\n",
		p->title);
	for (r = 0; r < p->t->nrows; r++) {
		if (!in_panel(p, r))
			continue;
		fprintf(f, "# %s\n", p->t->row[r]->name);
		for (c = 0; c < p->t->ncols; c++) {
			double v = 0, lo = 0, hi_c = 0, x = c - 0.4 + w * (k + 0.5);
			char label[32] = "";

			if (!figure(p, &p->t->c[r][c], &v, &lo, &hi_c))
				continue;
			if (hi_c > *hi)
				*hi = hi_c;
			if (cap > 0 && v > cap)
				snprintf(label, sizeof(label), "%.1f", v);
			if (cap > 0) {
				v = fmin(v, cap);
				lo = fmin(lo, cap);
				hi_c = fmin(hi_c, cap);
			}
			fprintf(f, "%.4f %.6g %.6g %.6g %.4f \"%s\"\n", x, v, lo,
				hi_c, w / 2, label);
		}
		fputs("\n\n", f);
		k++;
	}
	fclose(f);
	return 0;
}

static const char *ylabel(const struct panel *p)
{
	switch (p->kind) {
	case PK_RATIO:
		return strncmp(p->t->workload, "icount", 6) ?
		       "time / linux-6.12" : "instructions / linux-6.12";
	case PK_OPTIONS:
		return "time / default pool";
	case PK_SCALING:
		return "throughput / 1 thread";
	case PK_MEMORY:
		return "host metadata, % of DMA memory";
	}
	return "";
}

static void write_panel(FILE *gp, const char *dir, const struct panel *p)
{
	const bool logy = p->kind == PK_MEMORY;
	double hi = 1, ymax;
	unsigned int r, c, k = 0;

	if (write_dat(dir, p, logy ? 0 : PLOT_CAP, &hi) || !nshown(p))
		return;
	ymax = logy ? pow(10, ceil(log10(hi)) + 1) :
	       fmin(PLOT_CAP, ceil(hi * 1.15 * 4) / 4);
	if (!logy && ymax < 1.5)
		ymax = 1.5;
	fprintf(gp, "set title \"%s\"\n", p->title);
	fprintf(gp, "set ylabel \"%s\"\n", ylabel(p));
	if (logy)
		fprintf(gp, "set logscale y\nset yrange [0.01:%g]\n", ymax);
	else
		fprintf(gp, "unset logscale y\nset yrange [0:%g]\n", ymax);
	fprintf(gp, "set xrange [-0.6:%g]\nset xtics (", p->t->ncols - 0.4);
	for (c = 0; c < p->t->ncols; c++)
		fprintf(gp, "%s\"%s\" %u", c ? ", " : "", p->t->col[c], c);
	fprintf(gp, ")\nplot ");
	for (r = 0; r < p->t->nrows; r++) {
		if (!in_panel(p, r))
			continue;
		/* Labels of cut bars alternate in height: neighbours differ. */
		fprintf(gp, "%s'bench-%s.dat' index %u using 1:2:3:4:5 with boxerrorbars lc rgb '%s' title '%s%s', "
			"'' index %u using 1:2:6 with labels offset 0,%s font ',7' notitle",
			k ? ", " : "", p->name, k, colour_of(p->t->row[r]),
			p->t->row[r]->name,
			p->kind == PK_RATIO && p->t->row[r]->kind == K_L612 ?
			" (A/A)" : "", k, k % 2 ? "1.2" : "0.5");
		k++;
	}
	if (!logy)
		fprintf(gp, ", 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle");
	fputc('\n', gp);
}

/* Which panels, in which order, from the tables there are. */
static unsigned int panels_of(const struct table *const *tabs,
			      unsigned int ntabs, struct panel *p)
{
	static const struct {
		const char *wl;
		enum panel_kind kind;
		const char *name, *title;
	} order[] = {
		{ "dmapool_test", PK_RATIO, "dmapool_test", "dmapool_test (in order): time vs linux-6.12" },
		{ "random-free", PK_RATIO, "random-free", "random-free: time vs linux-6.12" },
		{ "churn", PK_RATIO, "churn", "churn: time vs linux-6.12" },
		{ "icount", PK_RATIO, "icount", "instructions per pair (with the loop) vs linux-6.12" },
		{ "dmapool_test", PK_OPTIONS, "options-dmapool_test", "hardening options vs the default pool, in order" },
		{ "random-free", PK_OPTIONS, "options-random-free", "hardening options vs the default pool, random order" },
		{ "threads", PK_RATIO, "threads", "threads: wall time per pair vs linux-6.12" },
		{ "threads-scaling", PK_SCALING, "threads-scaling", "threads: scaling (compute loop = the machine)" },
		{ "memory", PK_MEMORY, "memory", "memory: host metadata" },
	};
	unsigned int i, k, n = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		for (k = 0; k < ntabs; k++) {
			if (strcmp(tabs[k]->workload, order[i].wl))
				continue;
			p[n] = (struct panel){ tabs[k], order[i].kind,
					       order[i].name, order[i].title };
			if (nshown(&p[n]))
				n++;
		}
	return n;
}

static bool nonempty(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && st.st_size > 0;
}

int plot_write(const char *dir, const struct table *const *tabs,
	       unsigned int ntabs, const struct run_info *ri)
{
	struct panel p[16];
	unsigned int n = panels_of(tabs, ntabs, p), i, cols, rows;
	char path[4096], cmd[8300];
	FILE *gp;
	int ret;

	snprintf(path, sizeof(path), "%s/bench-panels.gp", dir);
	gp = fopen(path, "w");
	if (!gp)
		return -1;
	cols = n > 1 ? 2 : 1;
	rows = (n + cols - 1) / cols;
	fprintf(gp, "# SPDX-License-Identifier: MIT OR GPL-2.0-only\n"
		"# written by dmapool-bench: the panels, loaded by bench.gp\n"
		"set multiplot layout %u,%u title \"dmapool-bench %s on %s, %ld CPUs, load %.2f %.2f %.2f, %s\\n"
		"bars: medians of paired ratios, whiskers: min-max over the pairs; below the dashed line is faster\" font ',11'\n"
		"set style fill solid 0.8 border -1\n"
		"set grid ytics\n"
		"set key outside right top vertical font ',8' samplen 1\n"
		"set termoption noenhanced\n"
		"set xtics font ',8' rotate by -15\n",
		rows, cols, ri->commit, ri->cpu, ri->ncpu, ri->load[0],
		ri->load[1], ri->load[2], ri->date);
	for (i = 0; i < n; i++)
		write_panel(gp, dir, &p[i]);
	fprintf(gp, "unset multiplot\n");
	fclose(gp);

	snprintf(path, sizeof(path), "%s/bench.gp", dir);
	gp = fopen(path, "w");
	if (!gp)
		return -1;
	fprintf(gp, "# SPDX-License-Identifier: MIT OR GPL-2.0-only\n"
		"# written by dmapool-bench; redraw with: gnuplot bench.gp\n"
		"set terminal svg size %u,%u dynamic font 'sans,11' background '#ffffff'\n"
		"set output 'bench.svg'\n"
		"load 'bench-panels.gp'\n"
		"unset output\n"
		"# pngcairo where gnuplot has it, else libgd's png\n"
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"\tset terminal pngcairo size %u,%u font 'sans,10' background '#ffffff'\n"
		"} else {\n"
		"\tset terminal png size %u,%u background '#ffffff'\n"
		"}\n"
		"set output 'bench.png'\n"
		"load 'bench-panels.gp'\n"
		"unset output\n",
		cols * 820, rows * 400 + 60, cols * 820, rows * 400 + 60,
		cols * 820, rows * 400 + 60);
	fclose(gp);

	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot bench.gp", dir);
	ret = system(cmd);
	if (ret || !nonempty(dir, "bench.svg") || !nonempty(dir, "bench.png")) {
		fprintf(stderr, "dmapool-bench: FAILED: gnuplot did not write %s/bench.svg and bench.png (install gnuplot-nox: scripts/setup-deps base)\n",
			dir);
		return -1;
	}
	return 0;
}
