// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Userspace side of the seam: host memory, the DMA backend call-outs, the
 * slow path of the spinlock, the default report sink.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dmapool_os_impl.h"
#include "dev.h"

void dp_os_warn(const char *file, int line, const char *cond)
{
	fprintf(stderr, "dmapool: internal check failed at %s:%d: %s\n", file,
		line, cond);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

void dp_os_lock_slow(struct dp_lock *l)
{
	unsigned int spins = 0;

	do {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			if (++spins < 128)
				cpu_relax();
			else
				sched_yield();
		}
	} while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
}

static struct dp_lock global_lock;

unsigned long dp_global_lock(void)
{
	return dp_lock(&global_lock);
}

void dp_global_unlock(unsigned long f)
{
	dp_unlock(&global_lock, f);
}

size_t dp_os_page_size(void)
{
	static size_t page;

	if (!__atomic_load_n(&page, __ATOMIC_RELAXED)) {
		long p = sysconf(_SC_PAGESIZE);

		__atomic_store_n(&page, p > 0 ? (size_t)p : 4096,
				 __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&page, __ATOMIC_RELAXED);
}

void *dp_os_host_alloc(size_t n, dmapool_gfp_t gfp)
{
	(void)gfp;
	return malloc(n);
}

/*
 * 64-byte aligned (os.h): calloc()'s 16 would let a record's first line,
 * which other threads' frees read, share a line with the owner's fields.
 */
void *dp_os_host_zalloc(size_t n, dmapool_gfp_t gfp)
{
	size_t len = (n + 63) / 64 * 64;
	void *p;

	(void)gfp;
	if (n > SIZE_MAX - 63)
		return NULL;		/* calloc()'s answer; len wrapped */
	p = aligned_alloc(64, len ? len : 64);
	if (p)
		memset(p, 0, len);
	return p;
}

void dp_os_host_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

int dp_os_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		      dmapool_gfp_t gfp, void **vaddr, dmapool_dma_t *dma)
{
	(void)gfp;
	return dev->ops->chunk_alloc(dev, size, align, vaddr, dma);
}

void dp_os_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
		      dmapool_dma_t dma)
{
	dev->ops->chunk_free(dev, vaddr, dma, size);
}

void dp_os_dev_get(struct dmapool_dev *dev)
{
	dmapool_dev_get(dev);
}

void dp_os_dev_put(struct dmapool_dev *dev)
{
	dmapool_dev_put(dev);
}

void dp_os_strscpy(char *d, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i]; i++)
		d[i] = s[i];
	d[i] = '\0';
}

void dp_os_report_default(const struct dmapool_report *r)
{
	char line[512];
	size_t n = 0;
	unsigned int i;

#define ADD(...)							\
	do {								\
		if (n < sizeof(line))					\
			n += (size_t)snprintf(line + n, sizeof(line) - n,	\
					      __VA_ARGS__);		\
	} while (0)
	ADD("dmapool: %s in pool \"%s\":", dmapool_report_kind_name(r->kind),
	    r->pool_name ? r->pool_name : "");
	if (r->addr || r->dma)
		ADD(" addr %p dma %#" PRIx64, r->addr, r->dma);
	if (r->block)
		ADD(" block %p+%zu (dma %#" PRIx64 ")", r->block, r->offset,
		    r->block_dma);
	if (r->handle)
		ADD(" handle %#" PRIx64, r->handle);
	if (r->found_len) {
		ADD(" found");
		for (i = 0; i < r->found_len && i < sizeof(r->found); i++)
			ADD(" %02x", r->found[i]);
	}
	if (r->owner_name)
		ADD(" owner \"%s\"", r->owner_name);
	if (r->count)
		ADD(" count %" PRIu64, r->count);
	if (r->detail)
		ADD(": %s", r->detail);
#undef ADD
	fprintf(stderr, "%s\n", line);
}

void dp_os_violation_abort(const struct dmapool_report *r)
{
	fprintf(stderr, "dmapool: aborting on %s (abort-on-violation)\n",
		dmapool_report_kind_name(r->kind));
	abort();
}

#if defined(__x86_64__) && !defined(__POPCNT__)
bool dp_os_popcnt;

/* dp_os_popcount64()'s choice, once, before any pool exists. */
__attribute__((constructor)) static void popcnt_init(void)
{
	__builtin_cpu_init();
	dp_os_popcnt = __builtin_cpu_supports("popcnt");
}
#endif

uint64_t dp_os_random_seed(void)
{
	uint64_t seed = 0;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
	       (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&seed;
}

void dp_os_set_errno(int e)
{
	errno = e;
}
