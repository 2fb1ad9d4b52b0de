// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * AFL++ driver: persistent mode with the test case in shared memory (about
 * 8x faster than a fork per input).  Built with afl-clang-fast/-lto, which
 * define the __AFL_* macros.  Outside afl-fuzz the same binary reads one
 * input from stdin, or replays the files named on the command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

__AFL_FUZZ_INIT();

static int replay(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	int i, rc = 0;

	/* Set up before the fork server starts: paid once, not per input. */
	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1 && !getenv("__AFL_SHM_ID")) {
		for (i = 1; i < argc; i++)
			rc |= replay(argv[i]);
		return rc;
	}
	__AFL_INIT();
	buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__AFL_LOOP(10000)) {
		int len = __AFL_FUZZ_TESTCASE_LEN;

		LLVMFuzzerTestOneInput(buf, (size_t)len);
	}
	return 0;
}
