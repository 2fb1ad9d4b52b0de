// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * dmapool-bench: dmapool against Linux 6.12's own dma_pool and the
 * published designs, side by side in one process.  See usage() and
 * docs/benchmarks.md.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "results.h"

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: dmapool-bench [options]\n"
		"  --workloads LIST   comma list of dmapool_test,random-free,churn,threads,\n"
		"                     memory,icount (default: all but icount)\n"
		"  --subjects LIST    comma list of subject names (default: all this build has)\n"
		"  --reps N           pairs per cell, median reported (default 15, max 64)\n"
		"  --rounds N         dmapool_test rounds (default 100, as the kernel)\n"
		"  --churn-live N     live blocks in churn and its memory row (default 1048576)\n"
		"  --churn-batch N    frees then allocations per churn step (default 32)\n"
		"  --thr-blocks N     blocks per thread (default 1024)\n"
		"  --thr-rounds N     rounds per thread (default 200)\n"
		"  --icount-rounds N  rounds counted under callgrind (default 10)\n"
		"  --out DIR          write DIR/bench.csv, bench.txt, targets.csv, bench.svg,\n"
		"                     bench.png (and the plot's data and gnuplot script)\n"
		"  --no-svg           no plot\n"
		"  --short            CI mode: every workload, tiny sizes, 1 run; icount for\n"
		"                     linux-6.12, linux-embedded, dmapool, dmapool-handle on\n"
		"                     three cases\n"
		"  --quiet            no progress marks\n"
		"subjects:");
	for (i = 0; i < nsubjects; i++)
		fprintf(f, " %s", subjects[i].name);
	fputc('\n', f);
}

static unsigned int parse_workloads(const char *arg)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} wl[] = {
		{ "dmapool_test", WL_DMAPOOL_TEST }, { "random-free", WL_RANDOM_FREE },
		{ "churn", WL_CHURN }, { "threads", WL_THREADS },
		{ "memory", WL_MEMORY }, { "icount", WL_ICOUNT },
		{ "all", WL_ALL },
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int bits = 0, i;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(wl) / sizeof(wl[0]); i++)
			if (!strcmp(tok, wl[i].name))
				break;
		if (i == sizeof(wl) / sizeof(wl[0])) {
			fprintf(stderr, "dmapool-bench: unknown workload %s\n", tok);
			exit(2);
		}
		bits |= wl[i].bit;
	}
	free(copy);
	return bits;
}

static void parse_subjects(struct bench_cfg *cfg, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	struct subject *s;

	memset(cfg->subject_on, 0, sizeof(cfg->subject_on));
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		s = subject_find(tok);
		if (!s) {
			fprintf(stderr, "dmapool-bench: unknown subject %s\n", tok);
			exit(2);
		}
		cfg->subject_on[s - subjects] = true;
	}
	free(copy);
}

static unsigned long num(const char *opt, const char *v)
{
	char *end;
	unsigned long n = strtoul(v ? v : "", &end, 0);

	if (!v || *end || !n) {
		fprintf(stderr, "dmapool-bench: %s needs a positive number\n", opt);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = {
		.reps = 15, .rounds = 100, .churn_live = 1u << 20,
		.churn_batch = 32, .thr_blocks = 1024, .thr_rounds = 200,
		.icount_rounds = 10, .svg = true, .self = argv[0],
		.workloads = WL_ALL & ~WL_ICOUNT,
	};
	unsigned int i;
	int a;

	if (argc == 5 && !strcmp(argv[1], "--icount-child"))
		return bench_icount_child(argv[2], argv[3],
					  (unsigned int)num("rounds", argv[4]));
	for (i = 0; i < nsubjects; i++)
		cfg.subject_on[i] = true;
	for (a = 1; a < argc; a++) {
		const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(o, "--workloads")) {
			cfg.workloads = parse_workloads(v ? v : "");
			a++;
		} else if (!strcmp(o, "--subjects")) {
			parse_subjects(&cfg, v ? v : "");
			a++;
		} else if (!strcmp(o, "--reps")) {
			cfg.reps = (unsigned int)num(o, v);
			a++;
		} else if (!strcmp(o, "--rounds")) {
			cfg.rounds = (unsigned int)num(o, v);
			a++;
		} else if (!strcmp(o, "--churn-live")) {
			cfg.churn_live = num(o, v);
			a++;
		} else if (!strcmp(o, "--churn-batch")) {
			cfg.churn_batch = (unsigned int)num(o, v);
			a++;
		} else if (!strcmp(o, "--thr-blocks")) {
			cfg.thr_blocks = num(o, v);
			a++;
		} else if (!strcmp(o, "--thr-rounds")) {
			cfg.thr_rounds = (unsigned int)num(o, v);
			a++;
		} else if (!strcmp(o, "--icount-rounds")) {
			cfg.icount_rounds = (unsigned int)num(o, v);
			a++;
		} else if (!strcmp(o, "--out")) {
			if (!v) {
				usage(stderr);
				return 2;
			}
			cfg.outdir = v;
			a++;
		} else if (!strcmp(o, "--no-svg")) {
			cfg.svg = false;
		} else if (!strcmp(o, "--quiet")) {
			cfg.quiet = true;
		} else if (!strcmp(o, "--short")) {
			cfg.reps = 1;
			cfg.rounds = 2;
			cfg.churn_live = 4096;
			cfg.thr_blocks = 256;
			cfg.thr_rounds = 4;
			cfg.icount_rounds = 1;
			cfg.workloads = WL_ALL;
			cfg.short_run = true;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (cfg.reps > RES_MAX_REPS || cfg.churn_live > UINT32_MAX ||
	    cfg.churn_live % cfg.churn_batch) {
		fprintf(stderr, "dmapool-bench: reps at most 64; churn-live a multiple of churn-batch\n");
		return 2;
	}
	return bench_run(&cfg, stdout);
}
