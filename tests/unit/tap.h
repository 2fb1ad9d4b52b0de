/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A small TAP harness for plain C test programs (no Criterion: these run
 * under ThreadSanitizer too, and fork children of their own).
 *
 * Every test runs in a child process with an alarm: a crash, an abort, a
 * hang, a sanitizer report (ASan and UBSan with halt_on_error, TSan with
 * halt_on_error, LSan at the child's exit) or a failed CHECK make the
 * child's status non-zero and the test "not ok".  Tests only use the public
 * header <dmapool/dmapool.h>.
 *
 * Pass test names as arguments to run only those.
 */
#ifndef DMAPOOL_TESTS_TAP_H
#define DMAPOOL_TESTS_TAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef void (*tap_fn)(void *arg);

/* Remember which tests the command line asks for. */
void tap_init(int argc, char **argv);
/* Would tap_run() run @name? */
bool tap_wanted(const char *name);
/*
 * Run fn(arg) in a child process that dies after @timeout_s seconds; print
 * "ok" or "not ok" with the child's fate.  Returns true when it passed.
 */
bool tap_run(const char *name, unsigned int timeout_s, tap_fn fn, void *arg);
/* Print the plan; the program's exit status (0: every test passed). */
int tap_done(void);

/*
 * Run fn(arg) in a child process with an alarm of @timeout_s; the child's
 * wait status (exit 0 when fn returned).  For tests that need a fresh
 * process per case.  The child's stdout is flushed before it exits.
 */
int tap_fork(unsigned int timeout_s, tap_fn fn, void *arg);
/* A wait status in words ("exit 1", "signal 6 (Aborted)", ...). */
const char *tap_status(int status, char *buf, size_t len);

/* The name of the test running now (for messages). */
extern const char *tap_current;

/* A failed check: print it and end the (child) process with status 1. */
void tap_fail(const char *file, int line, const char *cond, const char *fmt,
	      ...) __attribute__((noreturn, format(printf, 4, 5)));

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			tap_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__); \
	} while (0)

#define NOTE(...)							\
	do {								\
		printf("# " __VA_ARGS__);				\
		printf("\n");						\
		fflush(stdout);						\
	} while (0)

/* Deterministic pseudo-random numbers (xorshift64*); *s must not be 0. */
static inline uint64_t tap_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#endif
