// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A hostile device: between every pool operation it overwrites pool memory
 * with random bytes, first every byte that is not allocated (where the
 * kernel's dma_pool keeps its free list), then every byte of every chunk.
 * The allocator must keep every invariant of DESIGN.md regardless, and must
 * never write into a block it handed out.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "testlib.h"

#define LIVE_MAX	600
#define MAX_CHUNKS	512

struct live {
	uint8_t *v;
	dmapool_dma_t d;
	struct dmapool_block b;	/* handle, when allocated by handle */
	bool by_handle;
	uint8_t tag;		/* what the driver wrote into it */
};

struct world {
	struct dmapool *pool;
	struct dmapool_stats st;
	struct live live[LIVE_MAX];
	int nlive;
	struct tl_chunk ch[MAX_CHUNKS];
	size_t nch;
	uint64_t rng;
};

/*
 * The device: random bytes over free memory, or over everything.  "Free
 * memory only" is done as everything followed by rewriting what the driver
 * had put in its live blocks: the allocator runs only after both.
 */
static void scribble(struct world *w, bool everything)
{
	size_t c, off;
	int i;

	w->nch = tl_chunks(w->pool, w->ch, MAX_CHUNKS);
	for (c = 0; c < w->nch; c++) {
		uint8_t *base = w->ch[c].vaddr;

		for (off = 0; off + 8 <= w->ch[c].len; off += 8) {
			uint64_t r = tl_rand(&w->rng);

			memcpy(base + off, &r, 8);
		}
	}
	if (!everything)
		for (i = 0; i < w->nlive; i++)
			memset(w->live[i].v, w->live[i].tag, w->st.block_size);
}

/* Every invariant a fresh block must satisfy. */
static void check_new_block(struct world *w, uint8_t *v, dmapool_dma_t d)
{
	size_t c, a = w->st.block_size & -w->st.block_size;
	int i;

	for (c = 0; c < w->nch; c++)
		if (v >= w->ch[c].vaddr && v < w->ch[c].vaddr + w->ch[c].len)
			break;
	if (c == w->nch) /* a chunk that appeared with this very alloc */
		w->nch = tl_chunks(w->pool, w->ch, MAX_CHUNKS);
	for (c = 0; c < w->nch; c++)
		if (v >= w->ch[c].vaddr && v < w->ch[c].vaddr + w->ch[c].len)
			break;
	cr_assert_lt(c, w->nch, "block %p outside every chunk", (void *)v);
	cr_assert_leq(v + w->st.block_size, w->ch[c].vaddr + w->ch[c].len);
	cr_assert_eq(d, w->ch[c].dma + (size_t)(v - w->ch[c].vaddr),
		     "vaddr/dma mismatch");
	if (a > 64)
		a = 64;	/* the pools below align to at least their size's pow2 */
	cr_assert_eq((uintptr_t)v % a, 0);
	cr_assert_eq(d % a, 0);
	for (i = 0; i < w->nlive; i++)
		cr_assert(v + w->st.block_size <= w->live[i].v ||
			  v >= w->live[i].v + w->st.block_size,
			  "overlaps a live block");
}

static void check_live_intact(const struct world *w)
{
	int i;
	size_t k;

	for (i = 0; i < w->nlive; i++)
		for (k = 0; k < w->st.block_size; k++)
			cr_assert_eq(w->live[i].v[k], w->live[i].tag,
				     "the allocator wrote into a live block");
}

/*
 * No report but the device kinds; and when the options detect device
 * writes, they did (this device writes everywhere).
 */
static void device_writes_seen(const struct dmapool *pool)
{
	struct dmapool_stats st;
	uint64_t n = tl_assert_only_device_reports(pool);

	dmapool_get_stats(pool, &st);
	cr_assert_eq(tl_cap.n, n);
	if (tl_flags() & DMAPOOL_OPT_POISON)
		cr_assert_gt(st.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE], 0);
	if (tl_redzone())
		cr_assert_gt(st.by_kind[DMAPOOL_R_DEVICE_OVERRUN], 0);
}

static void run(size_t size, size_t align, size_t boundary, bool everything,
		int steps)
{
	struct dmapool_dev *dev = tl_heap();
	struct world *w = calloc(1, sizeof(*w));
	int step, i;

	tl_reset();
	w->rng = 0x1234567 + size;
	w->pool = tl_pool(dev, size, align, boundary);
	cr_assert_not_null(w->pool);
	dmapool_get_stats(w->pool, &w->st);
	for (step = 0; step < steps; step++) {
		uint64_t r = tl_rand(&w->rng);

		scribble(w, everything);
		if (w->nlive < LIVE_MAX && (w->nlive < 10 || r % 100 < 55)) {
			struct live *l = &w->live[w->nlive];

			l->by_handle = r & 0x100;
			if (l->by_handle) {
				l->b = dmapool_alloc_block(w->pool, 0);
				l->v = l->b.vaddr;
				l->d = l->b.dma;
			} else {
				l->v = (r & 0x200) ?
				       dmapool_zalloc(w->pool, 0, &l->d) :
				       dmapool_alloc(w->pool, 0, &l->d);
			}
			cr_assert_not_null(l->v);
			check_new_block(w, l->v, l->d);
			l->tag = (uint8_t)(r >> 16);
			memset(l->v, l->tag, w->st.block_size);
			w->nlive++;
		} else {
			int k = (int)((r >> 8) % (uint64_t)w->nlive);
			struct live *l = &w->live[k];

			if (l->by_handle)
				dmapool_free_block(w->pool, l->b);
			else
				dmapool_free(w->pool, l->v, l->d);
			*l = w->live[--w->nlive];
		}
		if (!everything)
			check_live_intact(w);
	}
	dmapool_get_stats(w->pool, &w->st);
	cr_assert_eq(w->st.blocks_in_use, (uint64_t)w->nlive);
	/* The device's writes misled nobody: at most they were noticed. */
	device_writes_seen(w->pool);
	for (i = 0; i < w->nlive; i++)
		dmapool_free(w->pool, w->live[i].v, w->live[i].d);
	dmapool_get_stats(w->pool, &w->st);
	cr_assert_eq(w->st.blocks_in_use, 0);
	device_writes_seen(w->pool);
	dmapool_destroy(w->pool);
	dmapool_dev_put(dev);
	free(w);
}

Test(hostile, free_memory_scribbled_16, .timeout = 120)
{
	run(16, 16, 0, false, 4000);
}

Test(hostile, free_memory_scribbled_68_32_4096, .timeout = 120)
{
	run(68, 32, 4096, false, 4000);
}

Test(hostile, free_memory_scribbled_1024, .timeout = 120)
{
	run(1024, 1024, 0, false, 3000);
}

Test(hostile, all_memory_scribbled_64, .timeout = 120)
{
	run(64, 64, 0, true, 4000);
}

Test(hostile, all_memory_scribbled_200_8_1024, .timeout = 120)
{
	run(200, 8, 1024, true, 4000);
}

Test(hostile, all_memory_scribbled_4096, .timeout = 120)
{
	run(4096, 4096, 0, true, 2000);
}

/*
 * The device as another process, writing all the time: it maps the shared
 * memory backend's file and overwrites every byte in a loop while this
 * process allocates and frees.
 */
Test(hostile, concurrent_device_process, .timeout = 120)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct dmapool *pool;
	struct dmapool_stats st;
	struct dmapool_block b[512];
	uint64_t rng = 99;
	size_t len;
	pid_t pid;
	int i, step, status;

	cr_assert_not_null(dev);
	tl_reset();
	pool = tl_pool(dev, 64, 64, 0);
	/* Grow to 512 blocks first so the device's mapping covers them. */
	for (i = 0; i < 512; i++)
		b[i] = dmapool_alloc_block(pool, 0);
	len = dmapool_dev_shm_size(dev);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				  dmapool_dev_shm_fd(dev), 0);
		uint64_t r = 7;

		/* Die with the test, even if it fails or times out. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			_exit(3);
		if (m == MAP_FAILED)
			_exit(2);
		for (;;) {
			size_t off;

			for (off = 0; off + 8 <= len; off += 8) {
				r = r * 6364136223846793005ull + 1;
				memcpy(m + off, &r, 8);
			}
		}
	}
	for (step = 0; step < 50000; step++) {
		int k = (int)(tl_rand(&rng) % 512);

		dmapool_free_block(pool, b[k]);
		/* The pool is full: a quarantined block must come back now. */
		if (tl_held_back())
			dmapool_quiesce(pool);
		b[k] = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);
		cr_assert_not_null(b[k].vaddr);
		cr_assert_geq(b[k].dma, DMAPOOL_SHM_IOVA_BASE);
		cr_assert_lt(b[k].dma, DMAPOOL_SHM_IOVA_BASE + len);
		cr_assert_eq(b[k].dma % 64, 0);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status), "the device ran until killed");
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 512);
	tl_assert_only_device_reports(pool);
	for (i = 0; i < 512; i++)
		for (step = i + 1; step < 512; step++)
			cr_assert_neq(b[i].vaddr, b[step].vaddr);
	for (i = 0; i < 512; i++)
		dmapool_free_block(pool, b[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(tl_cap.n, tl_assert_only_device_reports(pool));
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}
