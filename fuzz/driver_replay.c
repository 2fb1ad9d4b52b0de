// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Replay driver: runs a harness on every file named on the command line
 * (directories are read one level deep), each input once, in the order
 * given.  An invariant violation aborts, as under a fuzzer.  Exits 1 when
 * there was nothing to run, so a missing corpus is never a silent pass.
 * DPF_TRACE=1 prints every step of every input.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static unsigned long ran;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		perror(path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (!buf || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
		fprintf(stderr, "%s: read failed\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	if (getenv("DPF_TRACE"))
		fprintf(stderr, "== %s (%ld bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	ran++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i, rc = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &names, NULL, by_name);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		char full[4096];

		if (names[i]->d_name[0] != '.') {
			snprintf(full, sizeof(full), "%s/%s", path,
				 names[i]->d_name);
			if (!stat(full, &st) && S_ISREG(st.st_mode) &&
			    run_file(full))
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		if (run_path(argv[i]))
			rc = 1;
	printf("replayed %lu inputs, no invariant violated\n", ran);
	if (!ran) {
		fprintf(stderr, "nothing to replay\n");
		return 1;
	}
	return rc;
}
