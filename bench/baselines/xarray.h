/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * An xarray-like radix tree, for the xarray-fix baseline.
 *
 * The shape of the kernel's xarray, written from its documented design:
 * 64-slot nodes of the kernel's size (576 bytes: shift, offset, count,
 * parent, array, a list head, 64 slots, three mark words), a head that is
 * either empty or a tagged pointer to the top node, a top node just high
 * enough for the largest index stored (no path compression: a 47-bit user
 * address needs 8 levels, a kernel direct-map address 11), internal entries
 * tagged in their low two bits, sibling and retry entries recognised on
 * lookup.  Lookups take no lock (the kernel's run under RCU; here nodes are
 * published with release stores and freed only by destroy); stores take the
 * array's own lock, as xa_store takes xa_lock.
 */
#ifndef DMAPOOL_BENCH_XARRAY_H
#define DMAPOOL_BENCH_XARRAY_H

#include <stddef.h>

#include "dmapool_os_impl.h"

#define BXA_SHIFT	6u
#define BXA_SLOTS	(1u << BXA_SHIFT)
#define BXA_MASK	(BXA_SLOTS - 1)

struct bxa_node {
	unsigned char shift;		/* index bits below this level */
	unsigned char offset;		/* slot in the parent */
	unsigned char count;		/* slots in use */
	unsigned char nr_values;
	struct bxa_node *parent;
	struct bxa *array;
	void *list[2];			/* the kernel's private list / rcu head */
	void *slots[BXA_SLOTS];
	unsigned long marks[3];
};

struct bxa {
	struct dp_lock lock;
	void *head;
	size_t nodes;
};

void bxa_init(struct bxa *xa);
/* Map @index to @entry (4-byte aligned, not NULL); 0 or -ENOMEM. */
int bxa_store(struct bxa *xa, unsigned long index, void *entry);
/* Every node freed; the array is empty again. */
void bxa_destroy(struct bxa *xa);

/* Internal entries: low bits 10.  Nodes are internal entries above 4096. */
static inline int bxa_is_internal(const void *e)
{
	return ((uintptr_t)e & 3) == 2;
}

static inline int bxa_is_node(const void *e)
{
	return bxa_is_internal(e) && (uintptr_t)e > 4096;
}

static inline struct bxa_node *bxa_to_node(const void *e)
{
	return (struct bxa_node *)((uintptr_t)e - 2);
}

static inline int bxa_is_sibling(const void *e)
{
	return bxa_is_internal(e) && (uintptr_t)e < (((BXA_SLOTS - 1) << 2) | 2);
}

static inline int bxa_is_retry(const void *e)
{
	return (uintptr_t)e == ((256u << 2) | 2);
}

/* The entry at @index, or NULL.  Lock-free, like xa_load(). */
static inline void *bxa_load(const struct bxa *xa, unsigned long index)
{
	const struct bxa_node *node;
	unsigned int off;
	void *entry;

	do {
		entry = __atomic_load_n(&xa->head, __ATOMIC_ACQUIRE);
		if (!bxa_is_node(entry)) {
			if (index)
				entry = NULL;
			continue;
		}
		node = bxa_to_node(entry);
		if ((index >> node->shift) > BXA_MASK) {
			entry = NULL;
			continue;
		}
		for (;;) {
			off = (index >> node->shift) & BXA_MASK;
			entry = __atomic_load_n(&node->slots[off],
						__ATOMIC_ACQUIRE);
			while (bxa_is_sibling(entry)) {
				off = (unsigned int)((uintptr_t)entry >> 2);
				entry = __atomic_load_n(&node->slots[off],
							__ATOMIC_ACQUIRE);
			}
			if (!bxa_is_node(entry) || !node->shift)
				break;
			node = bxa_to_node(entry);
		}
	} while (bxa_is_retry(entry));
	return entry;
}

#endif /* DMAPOOL_BENCH_XARRAY_H */
