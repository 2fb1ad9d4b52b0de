// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * iova.c - the VFIO backend's IOVA allocator (see iova.h).
 *
 * Two sorted arrays of inclusive extents: the ranges we were given (to
 * validate frees) and the free ones (to allocate from).  Free extents are
 * kept disjoint and never adjacent, so a fully freed window is one extent
 * again and fragmentation cannot build up from alloc/free cycles alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iova.h"

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Room for @want extents in *@arr (capacity *@cap). 0 or -ENOMEM. */
static int reserve(struct dp_iova_ext **arr, size_t *cap, size_t want)
{
	struct dp_iova_ext *p;
	size_t n;

	if (want <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 8;
	while (n < want)
		n *= 2;
	p = realloc(*arr, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int dp_iova_init(struct dp_iova *a, uint64_t granule)
{
	memset(a, 0, sizeof(*a));
	if (!is_pow2(granule))
		return -EINVAL;
	a->granule = granule;
	return 0;
}

void dp_iova_fini(struct dp_iova *a)
{
	free(a->avail);
	free(a->win);
	memset(a, 0, sizeof(*a));
}

/* Index of the first extent of @arr starting above @x. */
static size_t upper(const struct dp_iova_ext *arr, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (arr[mid].first > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Does [first, last] touch any extent of @arr? */
static int overlaps(const struct dp_iova_ext *arr, size_t n, uint64_t first,
		    uint64_t last)
{
	size_t i = upper(arr, n, last);

	/* arr[i - 1] is the last extent starting at or below @last. */
	return i > 0 && arr[i - 1].last >= first;
}

/* Is [first, last] inside the union of the added ranges? */
static int covered(const struct dp_iova *a, uint64_t first, uint64_t last)
{
	size_t i = upper(a->win, a->nwin, first);
	uint64_t pos = first;

	if (i == 0)
		return 0;
	/* Walk forwards through windows that continue each other. */
	for (i--; i < a->nwin; i++) {
		if (a->win[i].first > pos || a->win[i].last < pos)
			return 0;
		if (a->win[i].last >= last)
			return 1;
		pos = a->win[i].last + 1;
	}
	return 0;
}

/*
 * Put [first, last] into the free list, merging with its neighbours.  The
 * caller has checked it overlaps nothing free.  0 or -ENOMEM (unchanged).
 */
static int free_insert(struct dp_iova *a, uint64_t first, uint64_t last)
{
	size_t i = upper(a->avail, a->navail, first);
	int merge_prev = i > 0 && a->avail[i - 1].last != UINT64_MAX &&
			 a->avail[i - 1].last + 1 == first;
	int merge_next = i < a->navail && last != UINT64_MAX &&
			 last + 1 == a->avail[i].first;

	if (merge_prev && merge_next) {
		a->avail[i - 1].last = a->avail[i].last;
		memmove(&a->avail[i], &a->avail[i + 1],
			(a->navail - i - 1) * sizeof(a->avail[0]));
		a->navail--;
	} else if (merge_prev) {
		a->avail[i - 1].last = last;
	} else if (merge_next) {
		a->avail[i].first = first;
	} else {
		if (reserve(&a->avail, &a->capavail, a->navail + 1))
			return -ENOMEM;
		memmove(&a->avail[i + 1], &a->avail[i],
			(a->navail - i) * sizeof(a->avail[0]));
		a->avail[i].first = first;
		a->avail[i].last = last;
		a->navail++;
	}
	return 0;
}

int dp_iova_add(struct dp_iova *a, uint64_t first, uint64_t last)
{
	uint64_t mask = a->granule - 1, f, l;
	size_t i;
	int ret;

	if (first > last)
		return -EINVAL;
	/* Trim inwards to whole granules; nothing left is not an error. */
	if (first > UINT64_MAX - mask)
		return 0;
	f = (first + mask) & ~mask;
	if ((last & mask) == mask) {
		l = last;
	} else {
		if ((last & ~mask) == 0)
			return 0;
		l = (last & ~mask) - 1;
	}
	if (f > l)
		return 0;
	if (overlaps(a->win, a->nwin, f, l))
		return -EEXIST;
	/* Both arrays may grow by one: reserve first, change after. */
	ret = reserve(&a->win, &a->capwin, a->nwin + 1);
	if (!ret)
		ret = reserve(&a->avail, &a->capavail, a->navail + 1);
	if (ret)
		return ret;
	i = upper(a->win, a->nwin, f);
	memmove(&a->win[i + 1], &a->win[i], (a->nwin - i) * sizeof(a->win[0]));
	a->win[i].first = f;
	a->win[i].last = l;
	a->nwin++;
	ret = free_insert(a, f, l);	/* capacity reserved: cannot fail */
	a->total += l - f + 1;
	return ret;
}

int dp_iova_alloc(struct dp_iova *a, uint64_t size, uint64_t align,
		  uint64_t *iova)
{
	uint64_t mask = a->granule - 1, start, end;
	struct dp_iova_ext *e;
	size_t i;

	if (!size || (size & mask) || !is_pow2(align))
		return -EINVAL;
	if (align < a->granule)
		align = a->granule;
	for (i = 0; i < a->navail; i++) {
		e = &a->avail[i];
		if (e->first > UINT64_MAX - (align - 1))
			continue;
		start = (e->first + align - 1) & ~(align - 1);
		if (start > e->last || size - 1 > e->last - start)
			continue;
		end = start + size - 1;
		if (start > e->first && end < e->last) {
			/* A hole in the middle: the extent splits in two. */
			if (reserve(&a->avail, &a->capavail, a->navail + 1))
				return -ENOMEM;
			memmove(&a->avail[i + 1], &a->avail[i],
				(a->navail - i) * sizeof(a->avail[0]));
			a->navail++;
			a->avail[i].last = start - 1;
			a->avail[i + 1].first = end + 1;
		} else if (start > e->first) {
			e->last = start - 1;
		} else if (end < e->last) {
			e->first = end + 1;
		} else {
			memmove(&a->avail[i], &a->avail[i + 1],
				(a->navail - i - 1) * sizeof(a->avail[0]));
			a->navail--;
		}
		a->in_use += size;
		*iova = start;
		return 0;
	}
	return -ENOSPC;
}

int dp_iova_is_allocated(const struct dp_iova *a, uint64_t iova,
			 uint64_t size)
{
	uint64_t mask = a->granule - 1, last;

	if (!size || (size & mask) || (iova & mask) || iova + (size - 1) < iova)
		return 0;
	last = iova + (size - 1);
	return covered(a, iova, last) &&
	       !overlaps(a->avail, a->navail, iova, last);
}

int dp_iova_free(struct dp_iova *a, uint64_t iova, uint64_t size)
{
	int ret;

	if (!dp_iova_is_allocated(a, iova, size))
		return -EINVAL;
	ret = free_insert(a, iova, iova + (size - 1));
	if (!ret)
		a->in_use -= size;
	return ret;
}
