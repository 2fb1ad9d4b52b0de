// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * What every harness shares: the failure path, tracing, and the contract's
 * verdict on a create (which pools must be refused, which must work).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef DPF_UBSAN_STACK
/*
 * UBSan in the libFuzzer builds: every check is fatal
 * (-fno-sanitize-recover=all); say where.
 */
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}
#endif

bool dpf_trace;
const char *dpf_where = "";
unsigned long dpf_step;

void dpf_env_init(void)
{
	static bool done;
	const char *t;

	if (done)
		return;
	done = true;
	t = getenv("DPF_TRACE");
	dpf_trace = t && *t && strcmp(t, "0");
}

void dpf_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dpf: INVARIANT VIOLATED in %s, step %lu: ", dpf_where,
		dpf_step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

/*
 * A failed internal check of the core (DP_WARN_ON, which the userspace
 * shim only prints): every fuzz executable is linked with
 * -Wl,--wrap=dp_os_warn, so it is a finding, not a line on stderr; but for
 * the warnings a harness provoked on purpose (a chunk the arena handed out
 * misaligned, which the core must check and refuse: dpf_warns_expected).
 */
void __wrap_dp_os_warn(const char *file, int line, const char *cond);

unsigned int dpf_warns_expected;

void __wrap_dp_os_warn(const char *file, int line, const char *cond)
{
	if (dpf_warns_expected) {
		dpf_warns_expected--;
		dpf_log("    the core warns (expected): %s:%d: %s", file, line,
			cond);
		return;
	}
	dpf_fail("the core's internal check failed at %s:%d: %s", file, line,
		 cond);
}

void dpf_log(const char *fmt, ...)
{
	va_list ap;

	if (!dpf_trace)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The contract on dmapool_create: the kernel's geometry rules (size not 0
 * nor above INT_MAX, align a power of two, boundary 0 or a power of two no
 * smaller than the block) must be refused; options must be refused when
 * the build refuses them alone or in that pair (the probe, struct
 * dpf_features), when a reserved field is set, or when poison_sample comes
 * without DMAPOOL_OPT_POISON_SAMPLED.  Beyond what a chunk can hold (a
 * block, or a block and its redzone, above 1 GiB: dmapool's own limit; the
 * kernel would try and fail to allocate it) and a quarantine_max above
 * 2^20 a pool may be refused or work (issue 13: cleanly either way).
 * Everything else must work.
 */
#define DPF_GIB			((uint64_t)1 << 30)

enum dpf_verdict dpf_judge(const struct dpf_params *p,
			   const struct dpf_features *f, bool opts,
			   size_t page, size_t *esize)
{
	uint64_t size = p->size, align = p->align ? p->align : 1;
	uint64_t base, b, stride;
	enum dpf_verdict v = DPF_MUST_WORK;
	uint32_t want;
	unsigned int i;

	*esize = 0;
	if (!size || size > 0x7fffffff || !dpf_is_pow2(align))
		return DPF_MUST_FAIL;
	if (size < page / 4096)
		size = page / 4096;
	/* size < 2^31 and align <= 2^63: no wrap. */
	size = dpf_align_up(size, align);
	*esize = size;
	if (p->boundary && (p->boundary < size || !dpf_is_pow2(p->boundary)))
		return DPF_MUST_FAIL;
	if (size > DPF_GIB)
		v = DPF_MAY_FAIL;
	if (!opts)
		return v;
	if (p->reserved)
		return DPF_MUST_FAIL;
	if (p->flags & ~f->opt_flags)
		return DPF_MUST_FAIL;
	if (p->index >= 32 || !(f->index_kinds & (1u << p->index)))
		return DPF_MUST_FAIL;
	if (p->redzone && !f->redzone)
		return DPF_MUST_FAIL;
	if (p->poison_sample && !(p->flags & DMAPOOL_OPT_POISON_SAMPLED))
		return DPF_MUST_FAIL;
	/* Options the build refuses together (a pair the probe saw fail). */
	want = p->flags | (p->redzone ? 1u << DPF_FEAT_REDZONE : 0);
	for (i = 0; i < 32; i++)
		if (((want >> i) & 1) && (want & ~f->pair_ok[i]))
			return DPF_MUST_FAIL;
	if (p->redzone && size <= DPF_GIB) {
		/* A block and its redzone must fit the device's boundary. */
		base = dpf_pow2_ceil(size > page ? size : page);
		b = p->boundary && p->boundary < base ? p->boundary : base;
		stride = dpf_align_up(size + p->redzone, align);
		if (stride > DPF_GIB || (p->boundary && stride > b))
			v = DPF_MAY_FAIL;
	}
	if (p->quarantine_max > (1u << 20))
		v = DPF_MAY_FAIL;
	return v;
}
