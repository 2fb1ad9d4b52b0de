// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The SVG plot: gnuplot draws, per workload, the ratio of every plotted
 * subject to linux-embedded (log scale, 1 = as fast as the kernel's design),
 * and the host-metadata share for the memory table.  The data and the
 * script are left next to the SVG (bench-*.dat, bench.gp) so the plot can
 * be redrawn or restyled without rerunning the benchmark.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"

/* One colour per subject, the same in every panel. */
static const char *const colours[] = {
	"#7f7f7f", "#9467bd", "#2ca02c", "#1f77b4", "#17becf", "#ff7f0e",
	"#d62728", "#8c564b", "#e377c2", "#bcbd22", "#393b79", "#637939",
	"#843c39", "#7b4173", "#3182bd", "#e6550d",
};

static const char *colour_of(const struct subject *s)
{
	return colours[(unsigned int)(s - subjects) %
		       (sizeof(colours) / sizeof(colours[0]))];
}

static bool plotted(const struct table *t, unsigned int r)
{
	return t->row[r]->in_plot && (t->memory || t->row[r]->kind != K_EMB);
}

/*
 * One data file per table: a row per case, a column per plotted subject.
 * *@lo and *@hi: the smallest and largest value written.
 */
static int write_dat(const char *dir, const struct table *t, double *lo,
		     double *hi)
{
	char path[4096];
	unsigned int r, c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bench-%s.dat", dir, t->workload);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("case", f);
	for (r = 0; r < t->nrows; r++)
		if (plotted(t, r))
			fprintf(f, "\t\"%s\"", t->row[r]->name);
	fputc('\n', f);
	for (c = 0; c < t->ncols; c++) {
		fprintf(f, "\"%s\"", t->col[c]);
		for (r = 0; r < t->nrows; r++) {
			const struct cell *x = &t->c[r][c];
			double v = t->memory ? x->value / x->extra * 100 :
				   x->ratio;

			if (!plotted(t, r))
				continue;
			if (x->set && !isnan(v) && v > 0) {
				fprintf(f, "\t%.6g", v);
				if (v < *lo)
					*lo = v;
				if (v > *hi)
					*hi = v;
			} else
				fputs("\tNaN", f);
		}
		fputc('\n', f);
	}
	fclose(f);
	return 0;
}

static unsigned int nplotted(const struct table *t)
{
	unsigned int r, n = 0;

	for (r = 0; r < t->nrows; r++)
		n += plotted(t, r);
	return n;
}

int plot_svg(const char *dir, const struct table *const *tabs,
	     unsigned int ntabs)
{
	unsigned int i, k, n, r, cols, rows;
	char path[4096], cmd[8300];
	double lo, hi;
	struct stat st;
	FILE *gp;
	int ret;

	snprintf(path, sizeof(path), "%s/bench.gp", dir);
	gp = fopen(path, "w");
	if (!gp)
		return -1;
	cols = ntabs > 1 ? 2 : 1;
	rows = (ntabs + cols - 1) / cols;
	fprintf(gp, "# SPDX-License-Identifier: MIT OR GPL-2.0-only\n"
		"# written by dmapool-bench; redraw with: gnuplot bench.gp\n"
		"set terminal svg size %u,%u dynamic enhanced font 'sans,11' background '#ffffff'\n"
		"set output 'bench.svg'\n"
		"set multiplot layout %u,%u\n"
		"set style data histogram\n"
		"set style histogram cluster gap 1\n"
		"set style fill solid 0.85 border -1\n"
		"set boxwidth 0.9\n"
		"set grid ytics\n"
		"set key top left font ',9' samplen 1.5\n"
		"set termoption noenhanced\n"
		"set xtics font ',8' rotate by -20\n",
		cols * 640, rows * 380, rows, cols);
	for (i = 0; i < ntabs; i++) {
		const struct table *t = tabs[i];

		/* Ratio panels always show the 1 line. */
		lo = t->memory ? 1e9 : 1;
		hi = t->memory ? 0 : 1;
		if (write_dat(dir, t, &lo, &hi)) {
			fclose(gp);
			return -1;
		}
		n = nplotted(t);
		if (!n)
			continue;
		/* A decade of headroom above the bars, for the key. */
		fprintf(gp, "set yrange [%g:%g]\n",
			pow(10, floor(log10(lo * 0.8))),
			pow(10, ceil(log10(hi * 1.25)) + 1));
		fprintf(gp, "set title \"%s\" font ',11'\n", t->workload);
		if (t->memory) {
			fprintf(gp, "set logscale y\nset ylabel 'host metadata, %% of DMA memory'\n");
		} else {
			fprintf(gp, "set logscale y\nset ylabel '%s / linux-embedded (lower is better)'\n",
				strcmp(t->workload, "icount") ? "time" :
				"instructions");
		}
		fprintf(gp, "plot 'bench-%s.dat'", t->workload);
		for (r = 0, k = 0; r < t->nrows; r++) {
			if (!plotted(t, r))
				continue;
			fprintf(gp, "%s using %u%s title columnheader(%u) lc rgb '%s'",
				k ? ", ''" : "", k + 2, k ? "" : ":xtic(1)",
				k + 2, colour_of(t->row[r]));
			k++;
		}
		if (!t->memory)
			fprintf(gp, ", 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'");
		fputc('\n', gp);
		fprintf(gp, "unset logscale y\n");
	}
	fprintf(gp, "unset multiplot\n");
	fclose(gp);

	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot bench.gp", dir);
	ret = system(cmd);
	snprintf(path, sizeof(path), "%s/bench.svg", dir);
	if (ret || stat(path, &st) || !st.st_size) {
		fprintf(stderr, "dmapool-bench: FAILED: gnuplot did not write %s (install gnuplot-nox: scripts/setup-deps base)\n",
			path);
		return -1;
	}
	return 0;
}
