// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The user shim's host allocation (compat/user/os.c, os.h): zeroed and
 * 64-byte aligned at every size, so that a chunk record's and a heap's
 * lines are the lines chunk.h and heap.h lay out; and a size whose rounding
 * to whole lines would wrap is refused, never a short buffer.  And its
 * popcount, the instruction or the bit-slicing count, agrees with a count
 * done bit by bit.
 */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "dmapool_os_impl.h"

Test(os_user, zalloc_aligned_and_zeroed)
{
	static const size_t sizes[] = { 0, 1, 63, 64, 65, 127, 128, 1000, 4096 };
	size_t i, k;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* Dirty the allocator's free memory first. */
		unsigned char *d = malloc(sizes[i] + 64);
		unsigned char *p;

		cr_assert(d);
		memset(d, 0xa5, sizes[i] + 64);
		free(d);
		p = dp_os_host_zalloc(sizes[i], 0);
		cr_assert(p, "size %zu", sizes[i]);
		cr_expect_eq((uintptr_t)p % 64, 0, "size %zu: %p", sizes[i], (void *)p);
		/* Every byte of the rounded length is zero and writable. */
		for (k = 0; k < (sizes[i] + 63) / 64 * 64; k++)
			cr_expect_eq(p[k], 0, "size %zu, byte %zu", sizes[i], k);
		memset(p, 0xff, (sizes[i] + 63) / 64 * 64);
		dp_os_host_free(p, sizes[i]);
	}
}

Test(os_user, zalloc_refuses_a_wrapping_size)
{
	cr_expect_null(dp_os_host_zalloc(SIZE_MAX, 0));
	cr_expect_null(dp_os_host_zalloc(SIZE_MAX - 62, 0));
}

/* One bit at a time: the reference. */
static unsigned int bits_of(uint64_t x)
{
	unsigned int n = 0;

	for (; x; x >>= 1)
		n += (unsigned int)(x & 1);
	return n;
}

static void popcount_agrees(void)
{
	uint64_t x = 0x243f6a8885a308d3ull;
	unsigned int i, b;

	cr_assert_eq(dp_os_popcount64(0), 0);
	cr_assert_eq(dp_os_popcount64(~0ull), 64);
	for (b = 0; b < 64; b++) {
		cr_assert_eq(dp_os_popcount64(1ull << b), 1);
		cr_assert_eq(dp_os_popcount64(~(1ull << b)), 63);
	}
	for (i = 0; i < 100000; i++) {
		/* xorshift64: every kind of word, dense and sparse. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		cr_assert_eq(dp_os_popcount64(x), bits_of(x), "%#llx",
			     (unsigned long long)x);
		cr_assert_eq(dp_os_popcount64(x & (x >> 3) & (x >> 7)),
			     bits_of(x & (x >> 3) & (x >> 7)));
	}
}

Test(os_user, popcount_agrees_with_a_bit_by_bit_count)
{
	popcount_agrees();
#if defined(__x86_64__) && !defined(__POPCNT__)
	/* The bit-slicing count too, where the CPU chose the instruction. */
	if (dp_os_popcnt) {
		dp_os_popcnt = false;
		popcount_agrees();
		dp_os_popcnt = true;
	}
#endif
}
