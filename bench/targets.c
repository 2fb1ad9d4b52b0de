// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The targets of the data-path issue (14) and the threads issue (15),
 * judged on the tables of this run: each with what was measured and MET,
 * MISSED, "reported" (no target, the figure is shown) or n/a (not measured
 * in this run: a workload not selected, or a subject this build refuses).
 *
 * Instruction targets use the icount table (callgrind: exact and
 * repeatable); time targets use the medians of the paired ratios; an
 * option's cost is its ratio to the default pool, paired back to back; a
 * comparison between two subjects' times (handle against address, owned
 * against shared) is the median over repetitions of the ratio of their
 * runs in the same repetition.  "Each case" means the worst case meets the
 * limit, and a target measured on fewer cases than it names is n/a unless
 * it is already missed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

enum verdict { V_MET, V_MISSED, V_REPORTED, V_NA };

static const char *const verdict_name[] = {
	[V_MET] = "MET", [V_MISSED] = "MISSED", [V_REPORTED] = "reported",
	[V_NA] = "n/a",
};

struct run_tabs {
	const struct table *const *t;
	unsigned int n;
};

static const struct table *tab(const struct run_tabs *rt, const char *wl)
{
	unsigned int i;

	for (i = 0; i < rt->n; i++)
		if (!strcmp(rt->t[i]->workload, wl))
			return rt->t[i];
	return NULL;
}

enum field { F_VALUE, F_RATIO, F_VSDEF };

static double field_of(const struct cell *c, enum field f)
{
	return f == F_VALUE ? c->value : f == F_RATIO ? c->ratio : c->vsdef;
}

/* The worst (largest) of a figure over a set of cases. */
struct worst {
	unsigned int found, wanted;
	double max, min, logsum;
	char where[48];
};

static const char *short_wl(const char *wl)
{
	return !strcmp(wl, "dmapool_test") ? "in order" :
	       !strcmp(wl, "random-free") ? "random" : wl;
}

/* Which cases: every column but @skip, or only those in @only. */
struct cases {
	const char *const *wls;		/* tables, NULL-terminated */
	unsigned int per_table;		/* cases a missing table would have */
	const char *skip;
	const char *const *only;	/* NULL-terminated, or NULL */
};

/* The figure of one case, NAN when there is none. */
typedef double (*case_fn)(const struct table *t, const char *col,
			  const void *arg);

static bool col_wanted(const struct cases *cs, const char *col)
{
	unsigned int k;

	if (cs->skip && !strcmp(col, cs->skip))
		return false;
	if (!cs->only)
		return true;
	for (k = 0; cs->only[k]; k++)
		if (!strcmp(col, cs->only[k]))
			return true;
	return false;
}

static void worst_over(const struct run_tabs *rt, const struct cases *cs,
		       case_fn fn, const void *arg, struct worst *w)
{
	unsigned int k, c;

	memset(w, 0, sizeof(*w));
	w->max = -INFINITY;
	w->min = INFINITY;
	for (k = 0; cs->wls[k]; k++) {
		const struct table *t = tab(rt, cs->wls[k]);

		if (!t) {
			w->wanted += cs->per_table - (cs->skip ? 1 : 0);
			continue;
		}
		for (c = 0; c < t->ncols; c++) {
			double v;

			if (!col_wanted(cs, t->col[c]))
				continue;
			w->wanted++;
			v = fn(t, t->col[c], arg);
			if (!isfinite(v) || v <= 0)
				continue;
			w->found++;
			w->logsum += log(v);
			if (v < w->min)
				w->min = v;
			if (v > w->max) {
				w->max = v;
				snprintf(w->where, sizeof(w->where), "%s%s%s",
					 short_wl(t->workload),
					 t->ncols > 1 ? " " : "",
					 t->ncols > 1 ? t->col[c] : "");
			}
		}
	}
}

struct field_arg {
	const char *subject;
	enum field f;
};

/* A subject's own figure in a case. */
static double field_fn(const struct table *t, const char *col,
		       const void *arg)
{
	const struct field_arg *a = arg;
	const struct cell *x = table_cell(t, a->subject, col);

	return x ? field_of(x, a->f) : NAN;
}

/* Two subjects in a case: the median over repetitions of a's / b's run. */
static double rep_ratio_fn(const struct table *t, const char *col,
			   const void *arg)
{
	const char *const *ab = arg;
	const struct cell *x = table_cell(t, ab[0], col);
	const struct cell *y = table_cell(t, ab[1], col);
	double med, lo, hi;

	if (!x || !y)
		return NAN;
	ratio_stats(x->run, y->run, x->n < y->n ? x->n : y->n, &med, &lo, &hi);
	return med;
}

struct judged {
	const char *id;
	char target[96];
	const char *subject;
	char measured[96];
	double value, limit;
	enum verdict v;
};

struct report {
	FILE *out, *txt, *csv;
	bool in_short;
	unsigned int met, missed, na;
};

static void emit(struct report *rp, const struct judged *j)
{
	FILE *f[2] = { rp->out, rp->txt };
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (f[i])
			fprintf(f[i], "  %-4s %-60s %-38s %s\n", j->id, j->target,
				j->measured, verdict_name[j->v]);
	if (rp->csv) {
		fprintf(rp->csv, "%s,\"%s\",%s,", j->id, j->target, j->subject);
		if (isfinite(j->value))
			fprintf(rp->csv, "%.4f", j->value);
		fputc(',', rp->csv);
		if (isfinite(j->limit))
			fprintf(rp->csv, "%.4f", j->limit);
		fprintf(rp->csv, ",%s,\"%s\"\n", verdict_name[j->v],
			j->measured);
	}
	rp->met += j->v == V_MET;
	rp->missed += j->v == V_MISSED;
	rp->na += j->v == V_NA;
}

/* A verdict from a value and its limit: at most (@upper) or at least. */
static enum verdict judge(double v, double limit, bool upper)
{
	if (!isfinite(v))
		return V_NA;
	return (upper ? v <= limit : v >= limit) ? V_MET : V_MISSED;
}

static void na(struct judged *j, const char *why)
{
	snprintf(j->measured, sizeof(j->measured), "%s", why);
	j->value = NAN;
	j->v = V_NA;
}

static bool subject_ok(const char *name, struct judged *j)
{
	const struct subject *s = subject_find(name);

	if (!s) {
		na(j, "no such subject");
		return false;
	}
	if (!s->available) {
		na(j, "refused by this build");
		return false;
	}
	return true;
}

/* "worst 1.93x (in order 4096/4096/0), best 1.85x" and the verdict. */
static void judge_worst(struct judged *j, const struct worst *w,
			const char *unit, bool report_only)
{
	if (!w->found) {
		na(j, "not measured in this run");
		return;
	}
	j->value = w->max;
	snprintf(j->measured, sizeof(j->measured), "worst %.2f%s (%s), best %.2f%s",
		 w->max, unit, w->where, w->min, unit);
	if (report_only) {
		j->v = V_REPORTED;
		return;
	}
	j->v = judge(w->max, j->limit, true);
	if (j->v == V_MET && w->found < w->wanted) {
		j->v = V_NA;
		snprintf(j->measured + strlen(j->measured),
			 sizeof(j->measured) - strlen(j->measured),
			 "; %u of %u cases", w->found, w->wanted);
	}
}

static const char *const set_icount[] = { "icount", NULL };
static const char *const set_12[] = { "dmapool_test", "random-free", NULL };
static const char *const set_13[] = { "dmapool_test", "random-free", "churn",
				     NULL };
static const char *const set_inorder[] = { "dmapool_test", NULL };
static const char *const set_random[] = { "random-free", NULL };
static const char *const set_churn[] = { "churn", NULL };

/* Cases per table in the sets above (churn: 1). */
static struct cases cases_of(const char *const *wls, const char *skip)
{
	return (struct cases){ wls, wls == set_churn ? 1 : nshapes, skip,
			       NULL };
}

/* A subject's figure over @cs, at most @limit (NAN: reported only). */
static void upto_cases(struct report *rp, const struct run_tabs *rt,
		       const char *id, const char *target, const char *subject,
		       const struct cases *cs, enum field f, double limit,
		       const char *unit)
{
	struct judged j = { .id = id, .subject = subject, .limit = limit };
	struct field_arg fa = { subject, f };
	struct worst w;

	snprintf(j.target, sizeof(j.target), "%s", target);
	if (subject_ok(subject, &j)) {
		worst_over(rt, cs, field_fn, &fa, &w);
		judge_worst(&j, &w, unit, !isfinite(limit));
	}
	emit(rp, &j);
}

static void upto(struct report *rp, const struct run_tabs *rt, const char *id,
		 const char *target, const char *subject, const char *const *wls,
		 enum field f, const char *skip, double limit, const char *unit)
{
	struct cases cs = cases_of(wls, skip);

	upto_cases(rp, rt, id, target, subject, &cs, f, limit, unit);
}

/* a's runs below b's in every case of @cs (median over repetitions). */
static void below(struct report *rp, const struct run_tabs *rt,
		  const char *id, const char *target, const char *a,
		  const char *b, const struct cases *cs, double limit,
		  bool strictly)
{
	struct judged j = { .id = id, .subject = a, .limit = limit };
	const char *ab[2] = { a, b };
	struct worst w;

	snprintf(j.target, sizeof(j.target), "%s", target);
	if (subject_ok(a, &j) && subject_ok(b, &j)) {
		worst_over(rt, cs, rep_ratio_fn, ab, &w);
		judge_worst(&j, &w, "x", false);
		if (strictly && j.v == V_MET && w.max >= limit)
			j.v = V_MISSED;
	}
	emit(rp, &j);
}

static void data_path_targets(struct report *rp, const struct run_tabs *rt)
{
	static const struct {
		const char *id, *subject, *what;
		double limit;
		const char *skip;
	} options[] = {
		{ "O1", "dmapool+quarantine", "+quarantine <= 1.10x the default pool, each timed case", 1.10, NULL },
		{ "O2", "dmapool+redzone16", "+redzone16 <= 1.25x the default pool (4 KiB blocks excepted)", 1.25, "4096/4096/0" },
		{ "O3", "dmapool+random", "+random <= 1.50x the default pool, each timed case", 1.50, NULL },
		{ "O4", "dmapool+poison-sampled", "+poison-sampled <= 1.10x the default pool, each timed case", 1.10, NULL },
		{ "O5", "dmapool+poison", "+poison (full) against the default pool: reported", NAN, NULL },
		{ "O6", "dmapool+scrub", "+scrub against the default pool: reported", NAN, NULL },
	};
	struct judged j;
	struct worst w;
	struct cases cs;
	unsigned int i;

	upto(rp, rt, "A1", "address API instructions <= 1.00x linux-6.12, each case",
	     DEFAULT_SUBJECT, set_icount, F_RATIO, NULL, 1.00, "x");
	upto(rp, rt, "A2", "address API time <= 1.00x linux-6.12, each case in order",
	     DEFAULT_SUBJECT, set_inorder, F_RATIO, NULL, 1.00, "");
	upto(rp, rt, "A3", "address API time <= 1.00x, each case in random order",
	     DEFAULT_SUBJECT, set_random, F_RATIO, NULL, 1.00, "");
	upto(rp, rt, "A4", "address API time <= 1.00x on churn",
	     DEFAULT_SUBJECT, set_churn, F_RATIO, NULL, 1.00, "");

	j = (struct judged){ .id = "A5", .subject = DEFAULT_SUBJECT,
			     .limit = 0.85 };
	snprintf(j.target, sizeof(j.target),
		 "address API time, geometric mean of the 12 cases <= 0.85");
	cs = cases_of(set_12, NULL);
	worst_over(rt, &cs, field_fn, &(struct field_arg){ DEFAULT_SUBJECT,
							    F_RATIO }, &w);
	if (w.found < w.wanted) {
		na(&j, "not all 12 cases measured in this run");
	} else {
		j.value = exp(w.logsum / w.found);
		snprintf(j.measured, sizeof(j.measured), "%.3f", j.value);
		j.v = judge(j.value, j.limit, true);
	}
	emit(rp, &j);

	upto(rp, rt, "H1", "handle API instructions <= 0.90x linux-6.12, each case",
	     "dmapool-handle", set_icount, F_RATIO, NULL, 0.90, "x");
	upto(rp, rt, "H2", "handle API time <= 0.90x linux-6.12, each timed case",
	     "dmapool-handle", set_13, F_RATIO, NULL, 0.90, "");

	/* Below, not equal. */
	cs = cases_of(set_icount, NULL);
	below(rp, rt, "H3", "handle API instructions below the address API's, each case",
	      "dmapool-handle", DEFAULT_SUBJECT, &cs, 1.0, true);
	cs = cases_of(set_13, NULL);
	below(rp, rt, "H4", "handle API time below the address API's, each timed case",
	      "dmapool-handle", DEFAULT_SUBJECT, &cs, 1.0, true);

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		upto(rp, rt, options[i].id, options[i].what, options[i].subject,
		     set_13, F_VSDEF, options[i].skip, options[i].limit, "x");
}

static const char *const set_threads[] = { "threads", NULL };
static const char *const one_thread[] = { "1 thread", NULL };
static const char *const thread_counts[] = { "1 thread", "2 threads",
					     "4 threads", NULL };

static void threads_targets(struct report *rp, const struct run_tabs *rt)
{
	static const struct {
		const char *id, *subject, *what;
		double limit;
	} options[] = {
		{ "P1", "dmapool+quarantine", "threads: +quarantine <= 1.155x the default pool, 1/2/4 thr", 1.10 * 1.05 },
		{ "P2", "dmapool+redzone16", "threads: +redzone16 <= 1.3125x the default pool, 1/2/4 thr", 1.25 * 1.05 },
		{ "P3", "dmapool+random", "threads: +random <= 1.575x the default pool, 1/2/4 thr", 1.50 * 1.05 },
		{ "P4", "dmapool+poison-sampled", "threads: +poison-sampled <= 1.155x the default pool, 1/2/4 thr", 1.10 * 1.05 },
	};
	const struct table *sc = tab(rt, "threads-scaling");
	const struct cell *c, *ctrl;
	struct judged j;
	struct cases cs;
	unsigned int i;

	j = (struct judged){ .id = "T1", .subject = DEFAULT_SUBJECT,
			     .limit = 0.85 };
	snprintf(j.target, sizeof(j.target),
		 "threads: 2-thread scaling >= 0.85x the compute loop's");
	c = sc ? table_cell(sc, DEFAULT_SUBJECT, "2 threads") : NULL;
	ctrl = sc ? table_cell(sc, compute_loop.name, "2 threads") : NULL;
	if (!c || !ctrl || !isfinite(c->ratio)) {
		na(&j, "not measured in this run");
	} else {
		j.value = c->ratio;
		snprintf(j.measured, sizeof(j.measured),
			 "%.2fx of the machine's (medians %.2fx, %.2fx)",
			 c->ratio, c->value, ctrl->value);
		j.v = judge(c->ratio, j.limit, false);
	}
	emit(rp, &j);

	cs = (struct cases){ set_threads, 1, NULL, one_thread };
	below(rp, rt, "T2", "threads: 1 thread <= 1.05x dmapool-shared on 1 thread",
	      DEFAULT_SUBJECT, "dmapool-shared", &cs, 1.05, false);

	j = (struct judged){ .id = "T3", .subject = DEFAULT_SUBJECT,
			     .limit = 0.5 };
	snprintf(j.target, sizeof(j.target),
		 "threads: producer/consumer >= 0.50x one thread doing both");
	c = sc ? table_cell(sc, DEFAULT_SUBJECT, "prod/cons") : NULL;
	if (!c) {
		na(&j, "not measured in this run");
	} else {
		const struct table *th = tab(rt, "threads");
		const struct cell *one = th ? table_cell(th, DEFAULT_SUBJECT,
							 "1 thread") : NULL;
		const struct cell *ring = th ? table_cell(th, compute_loop.name,
							  "prod/cons") : NULL;

		j.value = c->value;
		/*
		 * The ring alone (no pool) bounds any pool's pair here: one
		 * thread's ns per pair over the ring's ns per block.
		 */
		const struct cell *bulk = table_cell(sc, DEFAULT_SUBJECT,
						     "prod/cons bulk");
		size_t len;

		if (one && ring && ring->n && isfinite(ring->value))
			snprintf(j.measured, sizeof(j.measured),
				 "%.2fx (%.2f-%.2f); the ring alone %.1f ns: at most %.2fx",
				 c->value, c->min, c->max, ring->value,
				 one->value / ring->value);
		else
			snprintf(j.measured, sizeof(j.measured),
				 "%.2fx (%.2f-%.2f)", c->value, c->min, c->max);
		/* Reported beside it: the consumer freeing with free_bulk. */
		len = strlen(j.measured);
		if (bulk && bulk->n && isfinite(bulk->value))
			snprintf(j.measured + len, sizeof(j.measured) - len,
				 "; bulk consumer %.2fx", bulk->value);
		j.v = judge(c->value, j.limit, false);
	}
	emit(rp, &j);

	j = (struct judged){ .id = "T4", .subject = DEFAULT_SUBJECT,
			     .limit = NAN };
	snprintf(j.target, sizeof(j.target),
		 "threads: 4 threads on this machine: reported");
	c = sc ? table_cell(sc, DEFAULT_SUBJECT, "4 threads") : NULL;
	if (!c) {
		na(&j, "not measured in this run");
	} else {
		j.value = c->value;
		snprintf(j.measured, sizeof(j.measured),
			 "%.2fx, %.2fx of the machine's", c->value, c->ratio);
		j.v = V_REPORTED;
	}
	emit(rp, &j);

	cs = (struct cases){ set_threads, 3, NULL, thread_counts };
	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		upto_cases(rp, rt, options[i].id, options[i].what,
			   options[i].subject, &cs, F_VSDEF, options[i].limit,
			   "x");
}

void targets_report(const struct table *const *tabs, unsigned int ntabs,
		    const struct bench_cfg *cfg, FILE *out, FILE *txt,
		    FILE *csv)
{
	struct run_tabs rt = { tabs, ntabs };
	struct report rp = { out, txt, csv, cfg->short_run, 0, 0, 0 };
	FILE *f[2] = { out, txt };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!f[i])
			continue;
		fprintf(f[i], "\ntargets (issue 14: data path v2; issue 15: threads), judged on this run\n");
		fprintf(f[i], "  time: medians of paired ratios; instructions: callgrind with the loop; options: against the default pool\n");
		if (rp.in_short)
			fprintf(f[i], "  (a short run: one repetition of tiny workloads, so these verdicts say nothing)\n");
	}
	if (csv)
		fprintf(csv, "id,target,subject,measured,limit,status,detail\n");
	data_path_targets(&rp, &rt);
	threads_targets(&rp, &rt);
	for (i = 0; i < 2; i++)
		if (f[i])
			fprintf(f[i], "  %u met, %u missed, %u not measured\n",
				rp.met, rp.missed, rp.na);
}
