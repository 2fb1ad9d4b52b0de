// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Device-aware hardening, option by option: a "device" (a thread, or a
 * child process that maps the shared-memory backend's file and addresses
 * pool memory by bus address) does the bad thing, and the exact report is
 * asserted.  The pools here set their own options; the core suites run
 * under every option combination of the matrix in tests/meson.build.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "testlib.h"

/* ------------------------------------------------------------------ */
/* The device.                                                         */

struct dev_write {
	struct dmapool_dev *dev;
	dmapool_dma_t dma;
	const uint8_t *bytes;
	size_t n;
};

/* Map the shm file and write, as the device does: by bus address. */
static int do_dev_write(const struct dev_write *w)
{
	size_t len = dmapool_dev_shm_size(w->dev);
	uint8_t *m;

	if (w->dma < DMAPOOL_SHM_IOVA_BASE ||
	    w->dma - DMAPOOL_SHM_IOVA_BASE + w->n > len)
		return -1;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dmapool_dev_shm_fd(w->dev), 0);
	if (m == MAP_FAILED)
		return -1;
	memcpy(m + (w->dma - DMAPOOL_SHM_IOVA_BASE), w->bytes, w->n);
	munmap(m, len);
	return 0;
}

static void *dev_thread(void *arg)
{
	return (void *)(intptr_t)do_dev_write(arg);
}

enum dev_kind { DEV_THREAD, DEV_PROCESS };

/* The device writes @n bytes at @dma, from a thread or another process. */
static void device_write(struct dmapool_dev *dev, enum dev_kind kind,
			 dmapool_dma_t dma, const void *bytes, size_t n)
{
	struct dev_write w = { dev, dma, bytes, n };

	if (kind == DEV_THREAD) {
		pthread_t t;
		void *ret;

		cr_assert_eq(pthread_create(&t, NULL, dev_thread, &w), 0);
		cr_assert_eq(pthread_join(t, &ret), 0);
		cr_assert_null(ret, "device thread could not write");
	} else {
		pid_t pid = fork();
		int status;

		cr_assert_geq(pid, 0);
		if (pid == 0)
			_exit(do_dev_write(&w) ? 1 : 0);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "device process could not write");
	}
}

/* What the device sees at @dma (read through its own mapping). */
static void device_read(struct dmapool_dev *dev, dmapool_dma_t dma, void *out,
			size_t n)
{
	size_t len = dmapool_dev_shm_size(dev);
	uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED,
			  dmapool_dev_shm_fd(dev), 0);

	cr_assert_neq(m, MAP_FAILED);
	cr_assert_leq(dma - DMAPOOL_SHM_IOVA_BASE + n, len);
	memcpy(out, m + (dma - DMAPOOL_SHM_IOVA_BASE), n);
	munmap(m, len);
}

static struct dmapool_dev *shm(void)
{
	struct dmapool_dev *dev = dmapool_dev_shm();

	cr_assert_not_null(dev, "memfd_create failed: the shm backend is required");
	return dev;
}

/* A pool with exactly these options (not the run's), reporting to tl_cap. */
static struct dmapool *hpool(struct dmapool_dev *dev, size_t size,
			     size_t align, unsigned int flags,
			     unsigned int redzone, unsigned int qmax)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.redzone = redzone;
	o.quarantine_max = qmax;
	o.seed = 12345;
	/* One page per chunk, as the kernel allocates: the counts below. */
	o.chunk_size = 4096;
	pool = dmapool_create_opts("hard", dev, size, align, 0, &o);
	cr_assert_not_null(pool);
	return pool;
}

static void setup(void)
{
	tl_reset();
}

TestSuite(harden, .init = setup);

static uint64_t kind_count(struct dmapool *pool, enum dmapool_report_kind k)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	return st.by_kind[k];
}

/* ------------------------------------------------------------------ */
/* Poison.                                                             */

/*
 * found[] holds up to 16 bytes from the first bad one; count is the number
 * of changed bytes.
 */
static void poison_found_bytes(void)
{
	static const uint8_t evil[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	const struct dmapool_report *r = tl_last();
	unsigned int i;

	cr_assert_eq(r->found_len, 16);
	for (i = 0; i < 16; i++)
		cr_assert_eq(r->found[i],
			     i < sizeof(evil) ? evil[i] : DMAPOOL_POISON_BYTE,
			     "found[%u] = %#x", i, r->found[i]);
}

static void run_poison(enum dev_kind kind, bool zero)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = hpool(dev, 64, 64, DMAPOOL_OPT_POISON, 0, 0);
	static const uint8_t evil[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	const struct dmapool_report *r;
	dmapool_dma_t d, d2;
	uint8_t *v, *v2;
	size_t i;

	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	memset(v, 0x11, 64);
	dmapool_free(pool, v, d);
	for (i = 0; i < 64; i++)
		cr_assert_eq(v[i], DMAPOOL_POISON_BYTE, "freed block poisoned");
	/* The device writes into the freed block (a late DMA). */
	device_write(dev, kind, d + 21, evil, sizeof(evil));
	cr_assert_eq(tl_cap.n, 0, "nothing noticed before the alloc");
	v2 = zero ? dmapool_zalloc(pool, DMAPOOL_GFP_NOGROW, &d2) :
		    dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d2);
	cr_assert_eq(v2, v, "first fit: the same block again");
	cr_assert_eq(tl_cap.n, 1);
	r = tl_last();
	cr_assert_eq(r->kind, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE);
	cr_assert_str_eq(dmapool_report_kind_name(r->kind),
			 "device-write-after-free");
	cr_assert_eq(r->pool, pool);
	cr_assert_str_eq(r->pool_name, "hard");
	cr_assert_eq(r->block, v);
	cr_assert_eq(r->block_dma, d);
	cr_assert_eq(r->offset, 21);
	cr_assert_eq(r->addr, v + 21);
	cr_assert_eq(r->dma, d + 21);
	cr_assert_eq(r->count, sizeof(evil));
	poison_found_bytes();
	cr_assert_eq(kind_count(pool, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE), 1);
	/* zalloc zeroes after the check; alloc hands out what is there. */
	for (i = 0; i < 64; i++)
		cr_assert_eq(v2[i],
			     zero ? 0 :
			     i >= 21 && i < 26 ? evil[i - 21] :
			     DMAPOOL_POISON_BYTE,
			     "byte %zu is %#x", i, v2[i]);
	/* The pool goes on: a clean cycle reports nothing more. */
	dmapool_free(pool, v2, d2);
	v2 = dmapool_alloc(pool, 0, &d2);
	cr_assert_eq(tl_cap.n, 1);
	dmapool_free(pool, v2, d2);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, poison_device_thread_then_alloc)
{
	run_poison(DEV_THREAD, false);
}

Test(harden, poison_device_process_then_zalloc)
{
	run_poison(DEV_PROCESS, true);
}

/*
 * Sampled poison: every freed block's first 16 bytes (where an embedded
 * free list keeps its links) are poisoned and checked at the next alloc;
 * 1 block in N is poisoned and checked whole.  One block cycles through
 * alloc and free: its generation changes each time, so does the sample.
 */
static struct dmapool *sampled_pool(struct dmapool_dev *dev, unsigned int n)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_POISON_SAMPLED;
	o.poison_sample = n;
	o.seed = 12345;
	o.chunk_size = 4096;
	pool = dmapool_create_opts("hard", dev, 64, 64, 0, &o);
	cr_assert_not_null(pool);
	return pool;
}

/* Free @v (filled with 0x11 first): was it poisoned whole? */
static bool sampled_free(struct dmapool *pool, uint8_t *v, dmapool_dma_t d)
{
	size_t i, poisoned = 0;

	memset(v, 0x11, 64);
	dmapool_free(pool, v, d);
	for (i = 0; i < 16; i++)
		cr_assert_eq(v[i], DMAPOOL_POISON_BYTE, "head byte %zu", i);
	for (i = 16; i < 64; i++)
		poisoned += v[i] == DMAPOOL_POISON_BYTE;
	cr_assert(poisoned == 0 || poisoned == 48,
		  "the rest of the block is either untouched or poisoned whole (%zu)",
		  poisoned);
	return poisoned == 48;
}

Test(harden, sampled_poison_head_always_whole_one_in_n)
{
	static const uint8_t link[8] = { 0x00, 0x10, 0xad, 0xde, 0x01, 0x02, 0x03, 0x04 };
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = sampled_pool(dev, 4);
	unsigned int i, whole = 0, caught_whole = 0, missed = 0;
	unsigned int last = 0, gap_seen[8] = { 0 }, gaps = 0, g;
	const struct dmapool_report *r;
	dmapool_dma_t d, d2;
	uint8_t *v, *v2;

	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	for (i = 0; i < 2000; i++) {
		const unsigned int before = 0;
		bool w;

		tl_reset();	/* the capture holds 64 reports */
		w = sampled_free(pool, v, d);

		whole += w;
		if (w) {
			/*
			 * The owner's countdown: 1 to 2N - 1 frees from one
			 * whole block to the next (N = 4), drawn anew.
			 */
			cr_assert(i + 1 - last <= 7, "gap %u at round %u",
				  i + 1 - last, i);
			gap_seen[i + 1 - last] = 1;
			last = i + 1;
		}
		/* Every 4th round the device forges a link in the head. */
		if (i % 4 == 0)
			device_write(dev, DEV_THREAD, d, link, sizeof(link));
		/* Every 4th round, shifted, it writes past the head. */
		else if (i % 4 == 1)
			device_write(dev, DEV_THREAD, d + 40, link, 3);
		v2 = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d2);
		cr_assert_eq(v2, v, "the same block again");
		cr_assert_eq(d2, d);
		if (i % 4 == 0) {
			/* The head: caught every time. */
			cr_assert_eq(tl_cap.n, before + 1, "round %u", i);
			r = tl_last();
			cr_assert_eq(r->kind, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE);
			cr_assert_eq(r->block, v);
			cr_assert_eq(r->offset, 0);
			cr_assert_eq(r->count, sizeof(link));
		} else if (i % 4 == 1) {
			/* Past the head: caught when sampled whole, else not. */
			if (w) {
				cr_assert_eq(tl_cap.n, before + 1, "round %u", i);
				r = tl_last();
				cr_assert_eq(r->kind, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE);
				cr_assert_eq(r->offset, 40);
				caught_whole++;
			} else {
				cr_assert_eq(tl_cap.n, before, "round %u", i);
				missed++;
			}
		} else {
			cr_assert_eq(tl_cap.n, before, "no false alarm, round %u", i);
		}
	}
	/* 1 in 4 of 2000, binomial: 500 +- 19; the bounds are 7 sigma. */
	cr_assert(whole >= 360 && whole <= 640, "%u of 2000 whole", whole);
	/* Not periodic: a device cannot count its way to the next one. */
	for (g = 1; g < 8; g++)
		gaps += gap_seen[g];
	cr_assert_geq(gaps, 5, "only %u distinct gaps between whole blocks",
		      gaps);
	cr_assert_gt(caught_whole, 0);
	cr_assert_gt(missed, 0);
	cr_assert_eq(kind_count(pool, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE),
		     500 + caught_whole);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, sampled_poison_one_in_one_is_whole_poison)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = sampled_pool(dev, 1);
	dmapool_dma_t d;
	unsigned int i;
	uint8_t *v;

	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	for (i = 0; i < 64; i++) {
		cr_assert(sampled_free(pool, v, d), "N = 1: every block whole");
		cr_assert_eq(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d), v);
	}
	cr_assert_eq(tl_cap.n, 0);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, poison_fresh_chunk_untouched_block)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = hpool(dev, 128, 0, DMAPOOL_OPT_POISON, 0, 0);
	struct dmapool_stats st;
	const uint8_t one = 0;
	dmapool_dma_t d[64];
	uint8_t *v[64];
	unsigned int i;

	v[0] = dmapool_alloc(pool, 0, &d[0]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_per_chunk, 32);
	/* The device writes a zero into block 9, never allocated yet, at
	 * its last byte. */
	device_write(dev, DEV_PROCESS, d[0] + 9 * 128 + 127, &one, 1);
	for (i = 1; i < 32; i++) {
		v[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d[i]);
		cr_assert_not_null(v[i]);
		cr_assert_eq(tl_cap.n, i >= 9 ? 1u : 0u, "block %u", i);
	}
	cr_assert_eq(tl_last()->block, v[9]);
	cr_assert_eq(tl_last()->block_dma, d[9]);
	cr_assert_eq(tl_last()->offset, 127);
	cr_assert_eq(tl_last()->found_len, 1);
	cr_assert_eq(tl_last()->found[0], 0);
	cr_assert_eq(tl_last()->count, 1);
	for (i = 0; i < 32; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, poison_handle_api_and_odd_sizes)
{
	/* 24-byte blocks, align 8: unaligned 8-byte compares and a tail. */
	static const size_t sizes[] = { 1, 7, 24, 100, 4096 };
	unsigned int s;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct dmapool_dev *dev = shm();
		struct dmapool *pool = hpool(dev, sizes[s], 1,
					     DMAPOOL_OPT_POISON, 0, 0);
		struct dmapool_stats st;
		struct dmapool_block b, b2;
		const uint8_t x = 0x42;
		size_t last;

		tl_reset();
		dmapool_get_stats(pool, &st);
		last = st.block_size - 1;
		b = dmapool_alloc_block(pool, 0);
		cr_assert_not_null(b.vaddr);
		dmapool_free_block(pool, b);
		device_write(dev, DEV_THREAD, b.dma + last, &x, 1);
		b2 = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);
		cr_assert_eq(b2.vaddr, b.vaddr);
		cr_assert_eq(tl_cap.n, 1, "size %zu", sizes[s]);
		cr_assert_eq(tl_last()->kind, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE);
		cr_assert_eq(tl_last()->block, b.vaddr);
		cr_assert_eq(tl_last()->offset, last, "size %zu", sizes[s]);
		cr_assert_eq(tl_last()->found[0], 0x42);
		dmapool_free_block(pool, b2);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
	}
}

/* ------------------------------------------------------------------ */
/* Redzones.                                                           */

/*
 * @qmax: with quarantine too (the owner's free then takes the general
 * steps, not the redzone alone's, owner.c).
 */
static void run_overrun(enum dev_kind kind, bool by_handle, unsigned int qmax)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = hpool(dev, 64, 64,
				     qmax ? DMAPOOL_OPT_QUARANTINE : 0, 16,
				     qmax);
	struct dmapool_stats st;
	struct dmapool_block b;
	const struct dmapool_report *r;
	uint8_t cur[3], flip[3];
	unsigned int i;

	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.block_size, 64);
	cr_assert_eq(st.stride, 128, "64 + 16 rounded up to the alignment");
	b = dmapool_alloc_block(pool, 0);
	cr_assert_not_null(b.vaddr);
	memset(b.vaddr, 0x33, 64);	/* the whole block is the user's */
	/* The device overruns the buffer by 3 bytes at offset 64 + 5. */
	device_read(dev, b.dma + 69, cur, 3);
	for (i = 0; i < 3; i++)
		flip[i] = (uint8_t)~cur[i];
	device_write(dev, kind, b.dma + 69, flip, 3);
	if (by_handle)
		dmapool_free_block(pool, b);
	else
		dmapool_free(pool, b.vaddr, b.dma);
	cr_assert_eq(tl_cap.n, 1);
	r = tl_last();
	cr_assert_eq(r->kind, DMAPOOL_R_DEVICE_OVERRUN);
	cr_assert_str_eq(dmapool_report_kind_name(r->kind), "device-overrun");
	cr_assert_eq(r->pool, pool);
	cr_assert_eq(r->block, b.vaddr);
	cr_assert_eq(r->block_dma, b.dma);
	cr_assert_eq(r->offset, 69);
	cr_assert_eq(r->addr, (uint8_t *)b.vaddr + 69);
	cr_assert_eq(r->dma, b.dma + 69);
	cr_assert_eq(r->count, 3);
	cr_assert_geq(r->found_len, 3);
	for (i = 0; i < 3; i++)
		cr_assert_eq(r->found[i], flip[i]);
	/* The free itself went through, and the redzone was restored. */
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(st.by_kind[DMAPOOL_R_DEVICE_OVERRUN], 1);
	b = dmapool_alloc_block(pool, 0);
	dmapool_free_block(pool, b);
	cr_assert_eq(tl_cap.n, 1, "one overrun, one report");
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, redzone_device_process_overrun)
{
	run_overrun(DEV_PROCESS, false, 0);
}

Test(harden, redzone_device_thread_overrun_handle_free)
{
	run_overrun(DEV_THREAD, true, 0);
}

Test(harden, redzone_quarantine_device_overrun)
{
	run_overrun(DEV_THREAD, false, 4);
}

Test(harden, redzone_quarantine_device_overrun_handle_free)
{
	run_overrun(DEV_PROCESS, true, 4);
}

Test(harden, redzone_layout_and_no_false_alarm)
{
	static const struct { size_t size, align, boundary; unsigned int rz; }
	cases[] = {
		{ 64, 64, 4096, 16 }, { 68, 32, 4096, 1 }, { 100, 4, 0, 100 },
		{ 4096, 4096, 0, 8 }, { 3, 1, 0, 5 }, { 1000, 8, 2048, 24 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct dmapool_dev *dev = tl_heap();
		struct dmapool_opts o;
		struct dmapool *pool;
		struct dmapool_stats st;
		uint8_t *v[300];
		dmapool_dma_t d[300];
		int i, j;

		dmapool_opts_init(&o);
		o.redzone = cases[k].rz;
		tl_reset();
		pool = dmapool_create_opts("rz", dev, cases[k].size,
					   cases[k].align, cases[k].boundary, &o);
		cr_assert_not_null(pool);
		dmapool_get_stats(pool, &st);
		cr_assert_geq(st.stride, st.block_size + cases[k].rz);
		for (i = 0; i < 300; i++) {
			v[i] = dmapool_alloc(pool, 0, &d[i]);
			cr_assert_not_null(v[i]);
			cr_assert_eq(d[i] % (cases[k].align), 0);
			if (cases[k].boundary)
				cr_assert_eq(d[i] / cases[k].boundary,
					     (d[i] + st.block_size - 1) /
					     cases[k].boundary);
			memset(v[i], 0xff, st.block_size);
			for (j = 0; j < i; j++)
				cr_assert(v[j] + st.block_size + cases[k].rz <= v[i] ||
					  v[i] + st.block_size + cases[k].rz <= v[j],
					  "block and redzone overlap another");
		}
		for (i = 0; i < 300; i++)
			dmapool_free(pool, v[i], d[i]);
		cr_assert_eq(tl_cap.n, 0, "case %u: writing the whole block is no overrun", k);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
	}
}

/* ------------------------------------------------------------------ */
/* Quarantine.                                                         */

static bool in(void *const *set, int n, const void *p)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == p)
			return true;
	return false;
}

Test(harden, quarantine_no_reuse_before_quiesce_reuse_after)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = hpool(dev, 64, 64, DMAPOOL_OPT_QUARANTINE, 0,
				     1000);
	struct dmapool_stats st;
	void *freed[10], *v[64];
	dmapool_dma_t fd[10], d[64];
	int i;

	for (i = 0; i < 10; i++)
		freed[i] = dmapool_alloc(pool, 0, &fd[i]);
	for (i = 0; i < 10; i++)
		dmapool_free(pool, freed[i], fd[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 10);
	cr_assert_eq(st.blocks_in_use, 0, "quarantined blocks are not in use");
	/* Every other block of the pool, and more, before any of those. */
	for (i = 0; i < 64; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i]);
		cr_assert(!in(freed, 10, v[i]), "reused before quiesce");
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 2, "the pool grew instead of reusing");
	for (i = 0; i < 64; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 74);
	dmapool_quiesce(pool);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 0);
	cr_assert_eq(st.quarantine_forced, 0);
	/*
	 * Every block of the two chunks can be had again without growing (in
	 * whatever order the pool prefers), the first ten among them.
	 */
	{
		void *all[128];
		dmapool_dma_t ad[128];
		int seen = 0;

		for (i = 0; i < 128; i++) {
			all[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &ad[i]);
			cr_assert_not_null(all[i], "reused after quiesce");
			seen += in(freed, 10, all[i]);
		}
		cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d[0]),
			       "two chunks hold 128 blocks");
		cr_assert_eq(seen, 10, "the first ten are reused too");
		dmapool_get_stats(pool, &st);
		cr_assert_eq(st.chunks, 2);
		for (i = 0; i < 128; i++)
			dmapool_free(pool, all[i], ad[i]);
	}
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, quarantine_bound_forces_the_oldest_out)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = hpool(dev, 512, 0, DMAPOOL_OPT_QUARANTINE, 0, 3);
	struct dmapool_stats st;
	void *v[8], *w[8];
	dmapool_dma_t d[8], e[8];
	int i;

	for (i = 0; i < 8; i++)
		v[i] = dmapool_alloc(pool, 0, &d[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 1);
	cr_assert_eq(st.blocks_per_chunk, 8);
	for (i = 0; i < 8; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 3);
	cr_assert_eq(st.quarantine_forced, 5);
	/* Exactly the five oldest are free again; the newest three wait. */
	for (i = 0; i < 5; i++) {
		w[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &e[i]);
		cr_assert(in(v, 5, w[i]), "one of the oldest");
	}
	cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &e[5]));
	dmapool_quiesce(pool);
	for (i = 5; i < 8; i++) {
		w[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &e[i]);
		cr_assert(in(v + 5, 3, w[i]), "the newest, after quiesce");
	}
	for (i = 0; i < 8; i++)
		dmapool_free(pool, w[i], e[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, quarantine_double_free_is_detected)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = hpool(dev, 64, 0, DMAPOOL_OPT_QUARANTINE, 0, 2);
	struct dmapool_stats st;
	struct dmapool_block b;
	dmapool_dma_t d, d2, d3;
	void *v, *v2, *v3;

	v = dmapool_alloc(pool, 0, &d);
	dmapool_free(pool, v, d);
	dmapool_free(pool, v, d);	/* inside the quarantine */
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->block, v);
	cr_assert_eq(tl_last()->block_dma, d);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 1, "the quarantine is unchanged");
	cr_assert_eq(st.blocks_in_use, 0);
	/* By handle too. */
	b = dmapool_alloc_block(pool, 0);
	dmapool_free_block(pool, b);
	dmapool_free_block(pool, b);
	cr_assert_eq(tl_cap.n, 2);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->handle, b.handle);
	/* Pushed out by the bound: a double free of a free block. */
	v2 = dmapool_alloc(pool, 0, &d2);
	v3 = dmapool_alloc(pool, 0, &d3);
	dmapool_free(pool, v2, d2);
	dmapool_free(pool, v3, d3);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantine_forced, 2);
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_cap.n, 3);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.by_kind[DMAPOOL_R_DOUBLE_FREE], 3);
	cr_assert_eq(st.violations, 3);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, quarantine_catches_late_device_write_after_quiesce)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = hpool(dev, 256, 0, DMAPOOL_OPT_QUARANTINE |
				     DMAPOOL_OPT_POISON, 0, 0);
	static const uint8_t late[2] = { 0x00, 0x00 };
	dmapool_dma_t d, d2;
	uint8_t *v, *v2;

	v = dmapool_alloc(pool, 0, &d);
	dmapool_free(pool, v, d);
	/* The lazy-IOMMU window: the device still writes to the block... */
	device_write(dev, DEV_THREAD, d + 200, late, 2);
	/* ...which nobody is using: the next alloc gets another block. */
	v2 = dmapool_alloc(pool, 0, &d2);
	cr_assert_neq(v2, v);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_free(pool, v2, d2);
	dmapool_quiesce(pool);
	v2 = tl_realloc(pool, v, &d2);
	cr_assert_eq(tl_count(DMAPOOL_R_DEVICE_WRITE_AFTER_FREE), 1);
	cr_assert_eq(tl_last()->block, v);
	cr_assert_eq(tl_last()->offset, 200);
	cr_assert_eq(tl_last()->count, 2);
	dmapool_free(pool, v2, d2);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, quiesce_null_and_plain_pool)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = hpool(dev, 64, 0, 0, 0, 0);
	uint64_t g = dmapool_global_violations();
	struct dmapool_stats st;
	dmapool_dma_t d;
	void *v;

	dmapool_quiesce(NULL);
	cr_assert_eq(tl_count(DMAPOOL_R_NULL_POOL), 1);
	cr_assert_eq(dmapool_global_violations(), g + 1);
	v = dmapool_alloc(pool, 0, &d);
	dmapool_free(pool, v, d);
	dmapool_quiesce(pool);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 0);
	cr_assert_eq(st.violations, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, quarantine_max_is_validated)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_QUARANTINE;
	o.quarantine_max = (1u << 20) + 1;
	cr_assert_null(dmapool_create_opts("q", dev, 64, 0, 0, &o));
	cr_assert_eq(tl_count(DMAPOOL_R_BAD_GEOMETRY), 1);
	o.quarantine_max = 1u << 20;
	dmapool_destroy(dmapool_create_opts("q", dev, 64, 0, 0, &o));
	cr_assert_eq(tl_count(DMAPOOL_R_BAD_GEOMETRY), 1);
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* A backend that checks what it gets back.                            */

struct checker {
	int allocs, frees, dirty_frees;
	size_t size;
};

static int check_alloc(struct dmapool_dev *dv, size_t size, size_t align,
		       void **vaddr, dmapool_dma_t *dma)
{
	struct checker *t = dmapool_dev_priv(dv);

	if (posix_memalign(vaddr, align, size))
		return -12;
	memset(*vaddr, 0x99, size);	/* stale data from a previous owner */
	t->allocs++;
	t->size = size;
	*dma = (dmapool_dma_t)(uintptr_t)*vaddr + 0x1000000000000ull;
	return 0;
}

static void check_free(struct dmapool_dev *dv, void *vaddr, dmapool_dma_t dma,
		       size_t size)
{
	struct checker *t = dmapool_dev_priv(dv);
	const uint8_t *p = vaddr;
	size_t i;

	for (i = 0; i < size; i++)
		if (p[i])
			break;
	t->dirty_frees += i < size;
	t->frees++;
	free(vaddr);
}

static const struct dmapool_dev_ops check_ops = {
	.chunk_alloc = check_alloc,
	.chunk_free = check_free,
};

Test(harden, chunks_go_back_to_the_backend_zeroed)
{
	static const unsigned int flags[] = {
		0, DMAPOOL_OPT_POISON, DMAPOOL_OPT_SCRUB,
		DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_RANDOM,
	};
	unsigned int f;

	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct checker t = { 0 };
		struct dmapool_dev *dev = dmapool_dev_new(&check_ops, &t);
		struct dmapool *pool = hpool(dev, 200, 8, flags[f],
					     f == 1 ? 16 : 0, 0);
		uint8_t *v[100];
		dmapool_dma_t d[100];
		int i;

		tl_reset();
		for (i = 0; i < 100; i++) {
			v[i] = dmapool_alloc(pool, 0, &d[i]);
			memset(v[i], 0xab, 200);	/* the driver's data */
		}
		for (i = 0; i < 100; i++)
			dmapool_free(pool, v[i], d[i]);
		dmapool_destroy(pool);
		cr_assert_gt(t.allocs, 1);
		cr_assert_eq(t.frees, t.allocs,
			     "flags %#x: destroyed with a quarantine, every chunk goes back",
			     flags[f]);
		cr_assert_eq(t.dirty_frees, 0, "flags %#x: a chunk went back dirty",
			     flags[f]);
		cr_assert_eq(tl_count(DMAPOOL_R_DESTROY_BUSY), 0);
		dmapool_dev_put(dev);
	}
}

Test(harden, destroy_with_nonempty_quarantine)
{
	struct checker t = { 0 };
	struct dmapool_dev *dev = dmapool_dev_new(&check_ops, &t);
	struct dmapool *pool = hpool(dev, 1024, 0, DMAPOOL_OPT_QUARANTINE |
				     DMAPOOL_OPT_POISON, 0, 100);
	struct dmapool_stats st;
	void *v[12];
	dmapool_dma_t d[12];
	int i;

	for (i = 0; i < 12; i++)
		v[i] = dmapool_alloc(pool, 0, &d[i]);
	for (i = 0; i < 12; i++)
		if (i != 5)
			dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 11);
	cr_assert_eq(st.blocks_in_use, 1);
	memset(v[5], 0x77, 1024);
	dmapool_destroy(pool);
	/* One block really in use: its chunk is kept, untouched; the two
	 * chunks holding only quarantined blocks go back, zeroed. */
	cr_assert_eq(tl_count(DMAPOOL_R_DESTROY_BUSY), 1);
	cr_assert_eq(tl_last()->count, 1);
	cr_assert_eq(t.allocs, 3);
	cr_assert_eq(t.frees, 2);
	cr_assert_eq(t.dirty_frees, 0);
	cr_assert_eq(((uint8_t *)v[5])[0], 0x77, "the kept chunk is not zeroed");
	cr_assert_eq(((uint8_t *)v[5])[1023], 0x77);
	free((uint8_t *)v[5] - ((uintptr_t)v[5] % 4096)); /* the driver's leak */
	dmapool_dev_put(dev);
}

Test(harden, quarantine_keeps_chunks_from_shrink_until_quiesce)
{
	struct checker t = { 0 };
	struct dmapool_dev *dev = dmapool_dev_new(&check_ops, &t);
	struct dmapool_opts o;
	struct dmapool *pool;
	struct dmapool_stats st;
	void *v[8];
	dmapool_dma_t d[8];
	int i;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_POISON |
		  DMAPOOL_OPT_AUTO_SHRINK;
	o.reserve_chunks = 0;
	o.chunk_size = 4096;	/* a page per chunk: the counts below */
	pool = dmapool_create_opts("qs", dev, 1024, 0, 0, &o);
	cr_assert_not_null(pool);
	for (i = 0; i < 8; i++)
		v[i] = dmapool_alloc(pool, 0, &d[i]);
	cr_assert_eq(t.allocs, 2, "4 blocks of 1024 per chunk");
	for (i = 0; i < 8; i++)
		dmapool_free(pool, v[i], d[i]);
	/* Quarantined blocks keep their chunks: a device may still write. */
	cr_assert_eq(dmapool_shrink(pool), 0);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 2);
	cr_assert_eq(st.quarantined, 8);
	cr_assert_eq(t.frees, 0);
	/* Quiesce lets them go, and auto shrink gives the chunks back. */
	dmapool_quiesce(pool);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.quarantined, 0);
	cr_assert_eq(st.chunks, 0);
	cr_assert_eq(st.chunks_released, 2);
	cr_assert_eq(t.frees, 2);
	cr_assert_eq(t.dirty_frees, 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/*
 * Every option combines with every ownership mode: the per-thread heaps
 * (the default; THREAD_CACHE is accepted and means the same) and the
 * shared heap.  A device write into a freed block is caught in each.
 */
Test(harden, hardening_combines_with_every_ownership_mode)
{
	static const unsigned int modes[] = {
		0, DMAPOOL_OPT_THREAD_CACHE, DMAPOOL_OPT_SHARED,
	};
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;
	unsigned int m;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct dmapool *pool;
		dmapool_dma_t d;
		uint8_t *v;

		tl_reset();
		dmapool_opts_init(&o);
		o.flags = modes[m] | DMAPOOL_OPT_POISON |
			  DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_RANDOM;
		o.redzone = 8;
		pool = dmapool_create_opts("own", dev, 64, 0, 0, &o);
		cr_assert_not_null(pool, "mode %#x", modes[m]);
		v = dmapool_alloc(pool, 0, &d);
		cr_assert_not_null(v);
		dmapool_free(pool, v, d);
		v[3] = 0x42;		/* a device writes the freed block */
		dmapool_quiesce(pool);
		/* Take blocks until the written one comes back. */
		while (dmapool_alloc(pool, 0, &d) != v)
			;
		cr_assert_eq(tl_count(DMAPOOL_R_DEVICE_WRITE_AFTER_FREE), 1,
			     "mode %#x", modes[m]);
		cr_assert_eq(tl_cap.n, 1);
		dmapool_destroy(pool);
	}
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* Scrub.                                                              */

Test(harden, scrub_device_sees_zeroes_after_free)
{
	struct dmapool_dev *dev = shm();
	struct dmapool *pool = hpool(dev, 300, 4, DMAPOOL_OPT_SCRUB, 0, 0);
	struct dmapool_block b = dmapool_alloc_block(pool, 0);
	uint8_t seen[300];
	dmapool_dma_t d;
	uint8_t *v;
	size_t i;

	memset(b.vaddr, 0xc4, 300);	/* a secret the next user must not see */
	dmapool_free_block(pool, b);
	device_read(dev, b.dma, seen, sizeof(seen));
	for (i = 0; i < sizeof(seen); i++)
		cr_assert_eq(seen[i], 0, "device sees byte %zu = %#x", i, seen[i]);
	v = dmapool_alloc(pool, 0, &d);	/* no zalloc: still zero */
	cr_assert_eq(v, b.vaddr);
	for (i = 0; i < 300; i++)
		cr_assert_eq(v[i], 0);
	memset(v, 0xc5, 300);
	dmapool_free(pool, v, d);
	device_read(dev, d, seen, sizeof(seen));
	for (i = 0; i < sizeof(seen); i++)
		cr_assert_eq(seen[i], 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* Randomized placement.                                               */

/*
 * 4 chunks of 64 blocks, all free; one block at a time is allocated and
 * freed 256 * 200 times.  Uniform placement gives each block 200 hits
 * (each chunk 12800).  The seeds are fixed, so the outcome is too: the
 * bounds are loose (chi-square 255 degrees of freedom: mean 255, sd 23)
 * only so that they do not depend on the generator's details.
 */
Test(harden, random_placement_is_uniform, .timeout = 60)
{
	static const uint64_t seeds[] = { 1, 0xdeadbeef, 987654321 };
	unsigned int s;

	for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		struct dmapool_dev *dev = tl_heap();
		struct dmapool_opts o;
		struct dmapool *pool;
		struct tl_chunk ch[4];
		unsigned int hits[256] = { 0 }, chunk_hits[4] = { 0 };
		void *v[256];
		dmapool_dma_t d[256];
		double chi = 0;
		unsigned int i, c, min = ~0u, max = 0;

		dmapool_opts_init(&o);
		o.flags = DMAPOOL_OPT_RANDOM;
		o.seed = seeds[s];
		o.chunk_size = 4096;
		pool = dmapool_create_opts("rnd", dev, 64, 64, 0, &o);
		for (i = 0; i < 256; i++)
			v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_eq(tl_chunks(pool, ch, 4), 4);
		for (i = 0; i < 256; i++)
			dmapool_free(pool, v[i], d[i]);
		for (i = 0; i < 256 * 200; i++) {
			dmapool_dma_t dd;
			uint8_t *p = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &dd);

			for (c = 0; c < 4; c++)
				if (p >= ch[c].vaddr && p < ch[c].vaddr + 4096)
					break;
			cr_assert_lt(c, 4);
			hits[c * 64 + (p - ch[c].vaddr) / 64]++;
			chunk_hits[c]++;
			dmapool_free(pool, p, dd);
		}
		for (i = 0; i < 256; i++) {
			chi += (hits[i] - 200.0) * (hits[i] - 200.0) / 200.0;
			min = hits[i] < min ? hits[i] : min;
			max = hits[i] > max ? hits[i] : max;
		}
		cr_assert_lt(chi, 400, "seed %llu: chi-square %.1f",
			     (unsigned long long)seeds[s], chi);
		cr_assert_gt(min, 120, "seed %llu: a block got %u hits",
			     (unsigned long long)seeds[s], min);
		cr_assert_lt(max, 280);
		for (c = 0; c < 4; c++)
			cr_assert(chunk_hits[c] > 11500 && chunk_hits[c] < 14100,
				  "chunk %u got %u", c, chunk_hits[c]);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
	}
	cr_assert_eq(tl_cap.n, 0);
}

/* Offsets (within their chunk) of the first @n blocks a fresh pool hands out. */
static void first_offsets(uint64_t seed, size_t *off, unsigned int n)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;
	struct dmapool *pool;
	struct tl_chunk ch[1];
	void *v[64];
	dmapool_dma_t d[64];
	unsigned int i;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_RANDOM;
	o.seed = seed;
	/* One page: the 64 allocations drain it. */
	o.chunk_size = 4096;
	pool = dmapool_create_opts("rnd", dev, 64, 64, 0, &o);
	for (i = 0; i < n; i++)
		v[i] = dmapool_alloc(pool, 0, &d[i]);
	tl_chunks(pool, ch, 1);
	for (i = 0; i < n; i++) {
		off[i] = (size_t)((uint8_t *)v[i] - ch[0].vaddr);
		cr_assert_eq(d[i], ch[0].dma + off[i]);
	}
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(harden, random_placement_follows_its_seed, .timeout = 60)
{
	size_t a[64], b[64], c[64];
	unsigned int i, same = 0, in_order = 0, seen[64] = { 0 };

	first_offsets(77, a, 64);
	first_offsets(77, b, 64);
	first_offsets(78, c, 64);
	for (i = 0; i < 64; i++) {
		cr_assert_eq(a[i], b[i], "same seed, same placement");
		same += a[i] == c[i];
		in_order += a[i] == i * 64;
		seen[a[i] / 64]++;
	}
	cr_assert_lt(same, 16, "another seed, another placement");
	cr_assert_lt(in_order, 16, "not first fit");
	for (i = 0; i < 64; i++)
		cr_assert_eq(seen[i], 1, "every block once");
}

/* Multi-word bitmaps: a chunk of 256 and of 4096 blocks, drained at random. */
Test(harden, random_placement_hands_out_every_block_once, .timeout = 60)
{
	static const size_t sizes[] = { 16, 1 };
	unsigned int s;

	for (s = 0; s < 2; s++) {
		struct dmapool_dev *dev = tl_heap();
		struct dmapool_opts o;
		struct dmapool *pool;
		struct dmapool_stats st;
		struct tl_chunk ch[1];
		static uint8_t *v[4096];
		static dmapool_dma_t d[4096];
		static unsigned char seen[4096];
		unsigned int i, in_order = 0;

		dmapool_opts_init(&o);
		o.flags = DMAPOOL_OPT_RANDOM;
		o.seed = 5 + s;
		o.chunk_size = 4096;
		pool = dmapool_create_opts("rnd", dev, sizes[s], 1, 0, &o);
		v[0] = dmapool_alloc(pool, 0, &d[0]);
		dmapool_get_stats(pool, &st);
		cr_assert_eq(st.blocks_per_chunk, 4096 / st.stride);
		tl_chunks(pool, ch, 1);
		memset(seen, 0, sizeof(seen));
		for (i = 1; i < st.blocks_per_chunk; i++) {
			v[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d[i]);
			cr_assert_not_null(v[i], "size %zu: block %u", sizes[s], i);
		}
		cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, NULL),
			       "the chunk is drained");
		for (i = 0; i < st.blocks_per_chunk; i++) {
			size_t pos = (size_t)(v[i] - ch[0].vaddr) / st.stride;

			cr_assert_lt(pos, st.blocks_per_chunk);
			cr_assert_eq(seen[pos]++, 0, "block %zu twice", pos);
			in_order += pos == i;
		}
		cr_assert_lt(in_order, st.blocks_per_chunk / 8);
		for (i = 0; i < st.blocks_per_chunk; i++)
			dmapool_free(pool, v[i], d[i]);
		cr_assert_eq(tl_cap.n, 0);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
	}
}

/*
 * Runs (placement.c): a heap takes at most DP_RANDOM_RUN (10) allocations
 * from one drawn word, and never more than half its free blocks, so 64
 * allocations from a fresh 4096-block chunk take at least seven runs and
 * land in several words, and no word gives more than two runs' worth in a
 * row (two draws can pick the same word).
 */
Test(harden, random_placement_runs_are_short, .timeout = 60)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;
	struct dmapool *pool;
	struct tl_chunk ch[1];
	uint8_t *v[64];
	dmapool_dma_t d[64];
	unsigned int i, row = 1, longest = 1, words = 0;
	unsigned char seen[64] = { 0 };

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_RANDOM;
	o.seed = 11;
	pool = dmapool_create_opts("rnd", dev, 1, 1, 0, &o);
	for (i = 0; i < 64; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	cr_assert_eq(tl_chunks(pool, ch, 1), 1);
	for (i = 0; i < 64; i++) {
		size_t w = (size_t)(v[i] - ch[0].vaddr) / 64;

		cr_assert_lt(w, 64);
		words += !seen[w]++;
		if (i && w == (size_t)(v[i - 1] - ch[0].vaddr) / 64)
			longest = ++row > longest ? row : longest;
		else
			row = 1;
	}
	cr_assert_leq(longest, 20, "%u allocations in a row from one word",
		     longest);
	cr_assert_geq(words, 5, "64 allocations in %u words", words);
	for (i = 0; i < 64; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* Everything at once, from several threads, with no device: no report,  */
/* no block given twice, every block intact while owned.                 */

struct worker {
	struct dmapool *pool;
	unsigned int id;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct dmapool_block b[32];
	uint64_t rng = 1 + w->id;
	int live = 0, step;

	for (step = 0; step < 20000; step++) {
		uint64_t r = tl_rand(&rng);

		if (live < 32 && (live == 0 || r % 2)) {
			b[live] = r & 4 ? dmapool_alloc_block(w->pool, 0) :
				  (struct dmapool_block){ NULL, 0, 0 };
			if (!b[live].vaddr)
				b[live].vaddr = dmapool_zalloc(w->pool, 0,
							       &b[live].dma);
			if (!b[live].vaddr) {
				w->bad++;
				break;
			}
			memset(b[live].vaddr, (int)(w->id * 32 + live), 96);
			live++;
		} else {
			int k = (int)((r >> 8) % (uint64_t)live);
			const uint8_t *p = b[k].vaddr;
			int i;

			for (i = 0; i < 96; i++)
				w->bad += p[i] != (uint8_t)(w->id * 32 + k);
			if (b[k].handle)
				dmapool_free_block(w->pool, b[k]);
			else
				dmapool_free(w->pool, b[k].vaddr, b[k].dma);
			b[k] = b[--live];
			/* The moved block keeps its tag under its new index. */
			if (k < live)
				memset(b[k].vaddr, (int)(w->id * 32 + k), 96);
		}
		if (w->id == 0 && step % 1000 == 0)
			dmapool_quiesce(w->pool);
	}
	while (live--) {
		if (b[live].handle)
			dmapool_free_block(w->pool, b[live]);
		else
			dmapool_free(w->pool, b[live].vaddr, b[live].dma);
	}
	return NULL;
}

Test(harden, all_options_threads_no_false_reports, .timeout = 120)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = hpool(dev, 96, 32, DMAPOOL_OPT_POISON |
				     DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_SCRUB |
				     DMAPOOL_OPT_RANDOM, 24, 64);
	struct worker w[3];
	pthread_t t[3];
	struct dmapool_stats st;
	int i;

	for (i = 0; i < 3; i++) {
		w[i] = (struct worker){ pool, (unsigned int)i, 0 };
		cr_assert_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(w[i].bad, 0, "thread %d saw its blocks change", i);
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(st.violations, 0);
	cr_assert_eq(tl_cap.n, 0);
	cr_assert_gt(st.quarantine_forced, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}
