// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Replays the fuzz corpus and the regression inputs through the harnesses
 * (built in, with meson's compiler), one Criterion test per input:
 *
 *   fuzz/corpus/<h>/ and fuzz/regress/<h>/, for h = ops, geometry, index:
 *       must run without an invariant violation (a violation aborts the
 *       test's process, which Criterion reports as a crash);
 *   fuzz/regress/ops-linux/: inputs the fuzzer found against the kernel's
 *       embedded-free-list design: each must still break that design, must
 *       not break it with the device switched off (the device did it), and
 *       must leave dmapool's invariants intact.
 *
 * A directory that disappeared or holds nothing fails the suite: the
 * replay never passes by having nothing to replay.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"

struct input {
	char harness[16];
	char path[1024];
};

/* harness, directory under fuzz/, must not be empty */
static const struct {
	const char *harness, *dir;
	bool required;
} sets[] = {
	{ "ops", "corpus/ops", true },
	{ "ops", "regress/ops", true },
	{ "geometry", "corpus/geometry", true },
	{ "geometry", "regress/geometry", false },
	{ "index", "corpus/index", true },
	{ "index", "regress/index", false },
	{ "ops-linux", "regress/ops-linux", true },
};

static int files_in(const char *dir, struct input *out, const char *harness)
{
	struct dirent **names;
	int n, i, k = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (out) {
				snprintf(out[k].harness, sizeof(out[k].harness),
					 "%s", harness);
				snprintf(out[k].path, sizeof(out[k].path),
					 "%s/%s", dir, names[i]->d_name);
			}
			k++;
		}
		free(names[i]);
	}
	free(names);
	return k;
}

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

ParameterizedTestParameters(fuzz, replay)
{
	struct input *in;
	size_t i, total = 0;
	char dir[512];
	int n;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/fuzz/%s", DPF_SOURCE_ROOT,
			 sets[i].dir);
		n = files_in(dir, NULL, NULL);
		if (n > 0)
			total += (size_t)n;
	}
	/* One more slot: the check that every required set is there. */
	in = cr_calloc(total + 1, sizeof(*in));
	snprintf(in[0].harness, sizeof(in[0].harness), "sets");
	total = 1;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/fuzz/%s", DPF_SOURCE_ROOT,
			 sets[i].dir);
		n = files_in(dir, &in[total], sets[i].harness);
		if (n > 0)
			total += (size_t)n;
	}
	return cr_make_param_array(struct input, in, total, free_params);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	cr_assert(buf);
	cr_assert(n <= 0 || fread(buf, 1, (size_t)n, f) == (size_t)n,
		  "cannot read %s", path);
	fclose(f);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

/* Run the ops harness against the linux-embedded design in a child. */
static int baseline_status(const uint8_t *data, size_t len, bool device)
{
	pid_t pid = fork();
	int status;

	cr_assert(pid >= 0);
	if (!pid) {
		/* Quiet: the child is expected to die. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		if (!device)
			setenv("DPF_NO_DEVICE", "1", 1);
		dpf_ops_run(dpf_baseline_adapter("linux-embedded"), data, len);
		_exit(0);
	}
	cr_assert(waitpid(pid, &status, 0) == pid);
	return status;
}

static void check_sets(void)
{
	char dir[512];
	size_t i;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/fuzz/%s", DPF_SOURCE_ROOT,
			 sets[i].dir);
		if (sets[i].required)
			cr_assert(files_in(dir, NULL, NULL) > 0,
				  "%s is missing or empty", dir);
	}
}

ParameterizedTest(struct input *in, fuzz, replay)
{
	uint8_t *data;
	size_t len;
	int st;

	if (!strcmp(in->harness, "sets")) {
		check_sets();
		return;
	}
	cr_log_info("%s: %s", in->harness, in->path);
	data = slurp(in->path, &len);
	if (!strcmp(in->harness, "ops")) {
		dpf_ops_run(&dpf_dmapool_adapter, data, len);
	} else if (!strcmp(in->harness, "geometry")) {
		dpf_geometry_run(data, len);
	} else if (!strcmp(in->harness, "index")) {
		dpf_index_run(data, len);
	} else {
		st = baseline_status(data, len, true);
		cr_assert(WIFSIGNALED(st),
			  "%s no longer breaks linux-embedded (status %#x)",
			  in->path, st);
		st = baseline_status(data, len, false);
		cr_assert(WIFEXITED(st) && !WEXITSTATUS(st),
			  "%s breaks linux-embedded even without device writes",
			  in->path);
		dpf_ops_run(&dpf_dmapool_adapter, data, len);
	}
	free(data);
}
