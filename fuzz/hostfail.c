// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Host-memory failure injection.  Every fuzz executable is linked with
 * -Wl,--wrap=malloc -Wl,--wrap=calloc, so the core's host allocations
 * (dp_os_host_alloc/zalloc) come through here; when armed, the k-th one
 * from now returns NULL.  Thread-local: only the thread running the
 * harness is affected, never a fuzzer's helper threads.  Shared libraries
 * (libc itself, Criterion) are not wrapped.
 */
#include <stdbool.h>
#include <stddef.h>

#include "harness.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);

static __thread unsigned long countdown;
static __thread unsigned long failures;

void dpf_host_fail_in(unsigned long k)
{
	countdown = k;
}

unsigned long dpf_host_failures(void)
{
	return failures;
}

static bool fail_now(void)
{
	if (!countdown || --countdown)
		return false;
	failures++;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return fail_now() ? NULL : __real_calloc(n, m);
}
