// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The host allocator, interposed: see hostalloc.h.
 *
 * Until the real functions are resolved (dlsym may itself allocate), calls
 * are served from a small static arena that free() recognises and ignores.
 * Everything here must not allocate: counters are atomics, the forbidden
 * window is thread-local state of the executable (static TLS, no
 * allocation), and the backtrace of a forbidden allocation is taken with
 * libgcc's unwinder directly (glibc's backtrace() dlopens libgcc_s on its
 * first call, which allocates, and LeakSanitizer then blames the loader).
 */
#define _GNU_SOURCE
/* Define mmap and mmap64 as themselves (meson builds with 64-bit off_t,
 * which would make the header rename mmap to mmap64). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <unwind.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hostalloc.h"

/*
 * Not instrumented: these run inside the sanitizers' own start-up (ASan
 * resolves its interceptors with dlsym, which allocates) before their
 * shadow memory exists.
 */
#define NOSAN __attribute__((no_sanitize_address, no_sanitize_thread, \
			     no_sanitize_undefined))

static void *(*r_malloc)(size_t);
static void *(*r_calloc)(size_t, size_t);
static void *(*r_realloc)(void *, size_t);
static void (*r_free)(void *);
static int (*r_posix_memalign)(void **, size_t, size_t);
static void *(*r_aligned_alloc)(size_t, size_t);
static void *(*r_memalign)(size_t, size_t);
static void *(*r_valloc)(size_t);
static void *(*r_pvalloc)(size_t);
static void *(*r_mmap)(void *, size_t, int, int, int, off_t);
static void *(*r_mmap64)(void *, size_t, int, int, int, off64_t);
static void *(*r_mremap)(void *, size_t, size_t, int, ...);

/* ---- bootstrap ---------------------------------------------------------- */

static _Alignas(64) char boot[64 << 10];
static size_t boot_used;
static int resolving;

NOSAN
static void *boot_alloc(size_t n, size_t align)
{
	size_t at = (boot_used + align - 1) & ~(align - 1);

	if (n > sizeof(boot) || at > sizeof(boot) - n)
		return NULL;
	boot_used = at + n;
	return boot + at;	/* zero: boot is never reused */
}

NOSAN
static bool in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

#define RESOLVE(name) \
	(r_##name = (__typeof__(r_##name))dlsym(RTLD_NEXT, #name))

NOSAN
static void resolve(void)
{
	if (r_free)
		return;
	resolving = 1;
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(mmap);
	RESOLVE(mmap64);
	RESOLVE(mremap);
	RESOLVE(free);
	resolving = 0;
	if (!r_malloc || !r_calloc || !r_realloc || !r_free || !r_mmap ||
	    !r_mremap) {
		static const char msg[] = "hostalloc: cannot resolve the allocator\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(3);
		_exit(3);
	}
}

/* Not resolved yet: true when the caller must use the boot arena. */
NOSAN
static bool early(void)
{
	if (r_free)
		return false;
	if (resolving)
		return true;
	resolve();
	return false;
}

/* ---- counting, injection, forbidden windows ------------------------------ */

static unsigned long n_allocs, n_failed, n_maps;
static long n_live;
static unsigned long fail_base, fail_k;
static bool fail_persist;

#define HA_KEEP	16	/* backtraces kept per window */
#define HA_DEPTH	24

struct hit {
	const char *kind;
	size_t size;
	void *bt[HA_DEPTH];
	int n;
};

static __thread int forbid_depth;
static __thread unsigned long forbid_hits;
static __thread const char *forbid_what;
static __thread struct hit hits[HA_KEEP];

struct unwind {
	void **buf;
	int n, max;
};

NOSAN
static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *ctx, void *arg)
{
	struct unwind *u = arg;

	if (u->n >= u->max)
		return _URC_END_OF_STACK;
	u->buf[u->n++] = (void *)_Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

NOSAN
static void forbidden(const char *kind, size_t size)
{
	struct hit *h;
	struct unwind u;

	if (!forbid_depth)
		return;
	if (forbid_hits < HA_KEEP) {
		h = &hits[forbid_hits];
		h->kind = kind;
		h->size = size;
		u.buf = h->bt;
		u.n = 0;
		u.max = HA_DEPTH;
		_Unwind_Backtrace(unwind_one, &u);
		h->n = u.n;
	}
	forbid_hits++;
}

/* Count one host allocation; true when it must fail. */
NOSAN
static bool host_alloc(const char *kind, size_t size)
{
	unsigned long n = __atomic_add_fetch(&n_allocs, 1, __ATOMIC_RELAXED);
	unsigned long k = __atomic_load_n(&fail_k, __ATOMIC_ACQUIRE);

	forbidden(kind, size);
	if (!k)
		return false;
	n -= __atomic_load_n(&fail_base, __ATOMIC_RELAXED);
	if (n == k || (n > k && __atomic_load_n(&fail_persist,
						 __ATOMIC_RELAXED))) {
		__atomic_add_fetch(&n_failed, 1, __ATOMIC_RELAXED);
		errno = ENOMEM;
		return true;
	}
	return false;
}

NOSAN
static void *live(void *p)
{
	if (p)
		__atomic_add_fetch(&n_live, 1, __ATOMIC_RELAXED);
	return p;
}

NOSAN
unsigned long ha_allocs(void)
{
	return __atomic_load_n(&n_allocs, __ATOMIC_RELAXED);
}

NOSAN
unsigned long ha_failed(void)
{
	return __atomic_load_n(&n_failed, __ATOMIC_RELAXED);
}

NOSAN
long ha_live(void)
{
	return __atomic_load_n(&n_live, __ATOMIC_RELAXED);
}

NOSAN
unsigned long ha_maps(void)
{
	return __atomic_load_n(&n_maps, __ATOMIC_RELAXED);
}

NOSAN
void ha_fail_at(unsigned long k, bool persistent)
{
	__atomic_store_n(&fail_k, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fail_persist, persistent, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_base, ha_allocs(), __ATOMIC_RELAXED);
	__atomic_store_n(&fail_k, k, __ATOMIC_RELEASE);
}

NOSAN
void ha_forbid_begin(const char *what)
{
	if (!forbid_depth++) {
		forbid_hits = 0;
		forbid_what = what;
	}
}

NOSAN
/*
 * Made inside a UBSan report handler?  (The sanitizer's own allocations
 * while it reports, e.g. on liburcu-bp's misaligned inline read side, see
 * tests/ubsan.supp: not the library's.)
 */
NOSAN
static bool in_ubsan_handler(const struct hit *h)
{
	Dl_info info;
	int i;

	for (i = 0; i < h->n; i++)
		if (dladdr(h->bt[i], &info) && info.dli_sname &&
		    !strncmp(info.dli_sname, "__ubsan_handle", 14))
			return true;
	return false;
}

NOSAN
unsigned long ha_forbid_end(void)
{
	unsigned long n, real, k;
	char **sym;
	int i;

	if (--forbid_depth)
		return 0;
	n = forbid_hits;
	real = n;
	for (k = 0; k < n && k < HA_KEEP; k++) {
		const struct hit *h = &hits[k];

		if (in_ubsan_handler(h)) {
			real--;
			continue;
		}
		printf("# %s: %s of %zu bytes (allocation %lu of %lu in it), from:\n",
		       forbid_what, h->kind, h->size, k + 1, n);
		sym = backtrace_symbols(h->bt, h->n);
		for (i = 0; i < h->n; i++)
			printf("#   %s\n", sym ? sym[i] : "?");
		free(sym);
	}
	fflush(stdout);
	return real;
}

NOSAN
void ha_init(void)
{
	resolve();
}

/* ---- the interposed functions ------------------------------------------- */

NOSAN
void *malloc(size_t n)
{
	if (early())
		return boot_alloc(n, 16);
	if (host_alloc("malloc", n))
		return NULL;
	return live(r_malloc(n));
}

NOSAN
void *calloc(size_t n, size_t size)
{
	if (early())
		return size && n > SIZE_MAX / size ? NULL :
						     boot_alloc(n * size, 16);
	if (host_alloc("calloc", n * size))
		return NULL;
	return live(r_calloc(n, size));
}

NOSAN
void *realloc(void *p, size_t n)
{
	void *q;

	if (early() || in_boot(p)) {
		/* Rare: copy what there may be (the arena never shrinks). */
		q = malloc(n);
		if (q && p)
			memcpy(q, p, n < (size_t)(boot + sizeof(boot) - (char *)p) ?
				     n : (size_t)(boot + sizeof(boot) - (char *)p));
		return q;
	}
	if (!n && p) {
		__atomic_sub_fetch(&n_live, 1, __ATOMIC_RELAXED);
		return r_realloc(p, 0);
	}
	if (host_alloc("realloc", n))
		return NULL;
	q = r_realloc(p, n);
	if (!p)
		live(q);
	return q;
}

NOSAN
void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (early())
		return;
	__atomic_sub_fetch(&n_live, 1, __ATOMIC_RELAXED);
	r_free(p);
}

NOSAN
int posix_memalign(void **out, size_t align, size_t n)
{
	int ret;

	if (early()) {
		*out = boot_alloc(n, align < 16 ? 16 : align);
		return *out ? 0 : ENOMEM;
	}
	if (host_alloc("posix_memalign", n))
		return ENOMEM;
	ret = r_posix_memalign(out, align, n);
	if (!ret)
		live(*out);
	return ret;
}

NOSAN
void *aligned_alloc(size_t align, size_t n)
{
	if (early())
		return boot_alloc(n, align < 16 ? 16 : align);
	if (host_alloc("aligned_alloc", n))
		return NULL;
	return live(r_aligned_alloc(align, n));
}

NOSAN
void *memalign(size_t align, size_t n)
{
	if (early())
		return boot_alloc(n, align < 16 ? 16 : align);
	if (host_alloc("memalign", n))
		return NULL;
	return live(r_memalign(align, n));
}

NOSAN
void *valloc(size_t n)
{
	if (early())
		return boot_alloc(n, 4096);
	if (host_alloc("valloc", n))
		return NULL;
	return live(r_valloc(n));
}

NOSAN
void *pvalloc(size_t n)
{
	if (early())
		return boot_alloc(n, 4096);
	if (host_alloc("pvalloc", n))
		return NULL;
	return live(r_pvalloc(n));
}

NOSAN
static void note_map(const char *kind, size_t len)
{
	__atomic_add_fetch(&n_maps, 1, __ATOMIC_RELAXED);
	forbidden(kind, len);
}

NOSAN
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (early())
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd,
				       off);
	note_map("mmap", len);
	return r_mmap(addr, len, prot, flags, fd, off);
}

NOSAN
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (early())
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd,
				       off);
	note_map("mmap64", len);
	return (r_mmap64 ? r_mmap64 : (__typeof__(r_mmap64))r_mmap)(addr, len,
								     prot,
								     flags,
								     fd, off);
}

NOSAN
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (early())
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags,
				       new_addr);
	if (new_len > old_len)
		note_map("mremap", new_len);
	return r_mremap(old, old_len, new_len, flags, new_addr);
}
