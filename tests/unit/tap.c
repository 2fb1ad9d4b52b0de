// SPDX-License-Identifier: MIT OR GPL-2.0-only
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

const char *tap_current = "";

static int tests_run, tests_failed;
static char **only;
static int nonly;

void tap_init(int argc, char **argv)
{
	only = argv + 1;
	nonly = argc - 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

bool tap_wanted(const char *name)
{
	int i;

	if (!nonly)
		return true;
	for (i = 0; i < nonly; i++)
		if (!strcmp(only[i], name))
			return true;
	return false;
}

void tap_fail(const char *file, int line, const char *cond, const char *fmt,
	      ...)
{
	va_list ap;

	printf("# %s: %s:%d: check failed: %s\n# ", tap_current, file, line,
	       cond);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

const char *tap_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d (%s)%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? ": timed out" : "");
	else
		snprintf(buf, len, "status %#x", status);
	return buf;
}

int tap_fork(unsigned int timeout_s, tap_fn fn, void *arg)
{
	pid_t pid, w;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		alarm(timeout_s);
		fn(arg);
		fflush(stdout);
		/* exit(), not _exit(): LeakSanitizer checks the child. */
		exit(0);
	}
	do {
		w = waitpid(pid, &status, 0);
	} while (w < 0);
	return status;
}

bool tap_run(const char *name, unsigned int timeout_s, tap_fn fn, void *arg)
{
	struct timespec t0, t1;
	char why[96];
	int status;

	if (!tap_wanted(name))
		return true;
	tap_current = name;
	tests_run++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = tap_fork(timeout_s, fn, arg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("TAP_TIMES"))
		printf("# %s: %.2f s\n", name, (double)(t1.tv_sec - t0.tv_sec) +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok %d - %s\n", tests_run, name);
		return true;
	}
	tests_failed++;
	printf("not ok %d - %s # %s\n", tests_run, name,
	       tap_status(status, why, sizeof(why)));
	return false;
}

int tap_done(void)
{
	printf("1..%d\n", tests_run);
	if (!tests_run) {
		printf("# no test ran\n");
		return 1;
	}
	if (tests_failed)
		printf("# %d of %d failed\n", tests_failed, tests_run);
	return tests_failed ? 1 : 0;
}
