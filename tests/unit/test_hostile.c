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
#include "cases/hostile.h"

/* The single-process device is shared with the in-kernel tests. */
static void run_case(const char *name)
{
	struct tc_env *e = tl_env();
	size_t i;

	for (i = 0; i < TC_ARRAY_SIZE(tc_hostile_cases); i++)
		if (!strcmp(tc_hostile_cases[i].name, name))
			break;
	cr_assert_lt(i, TC_ARRAY_SIZE(tc_hostile_cases), "no case %s", name);
	cr_assert(tc_hostile_run(e, &tc_hostile_cases[i], 1), "%s", e->msg);
	tl_env_put(e);
}

Test(hostile, free_memory_scribbled_16, .timeout = 120)
{
	run_case("free-memory-16");
}

Test(hostile, free_memory_scribbled_68_32_4096, .timeout = 120)
{
	run_case("free-memory-68-32-4096");
}

Test(hostile, free_memory_scribbled_1024, .timeout = 120)
{
	run_case("free-memory-1024");
}

Test(hostile, all_memory_scribbled_64, .timeout = 120)
{
	run_case("all-memory-64");
}

Test(hostile, all_memory_scribbled_200_8_1024, .timeout = 120)
{
	run_case("all-memory-200-8-1024");
}

Test(hostile, all_memory_scribbled_4096, .timeout = 120)
{
	run_case("all-memory-4096");
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
