// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Driver code written for the kernel's dma_pool, switched to dmapool
 * without a change: Kbuild compiles this one file through
 * compat/kernel/dropin.mk (DMAPOOL_DROPIN_OBJECTS), which forces
 * <dmapool/dma_pool.h> in, so every dma_pool_*() and dmam_pool_*() call
 * below reaches dmapool.ko.  The pool code is what a driver writes for
 * mm/dmapool.c; only the checks (edu_block_valid, through
 * dmapool_of_dma_pool) know about dmapool.
 *
 * The attack is edu_attack.c's, byte for byte: a 512-byte block freed, the
 * device writes { next, dma } pointing at the test's page into it, the
 * driver allocates twice.  The kernel's pool returns the device's address
 * there (scenario "attack"); here both allocations must be ordinary blocks,
 * and the pool must free and destroy cleanly afterwards.
 */
#include <linux/dmapool.h>
#include <linux/gfp.h>
#include <linux/string.h>

#include "edu_dmapool.h"

#ifndef DMAPOOL_DMA_POOL_H
#error "build this file through dropin.mk, else it tests the kernel's dma_pool"
#endif

#define DROPIN	"drop-in dma_pool"

static bool edu_dropin_valid(struct edu_ctx *ctx, struct dma_pool *pool,
			     void *v, dma_addr_t d)
{
	return edu_block_valid(ctx, dmapool_of_dma_pool(pool), v, d,
			       EDU_ATTACK_ALIGN, DROPIN);
}

/* Block @a -> device -> a zalloc'd block @b. */
static bool edu_dropin_roundtrip(struct edu_ctx *ctx, u8 *a, dma_addr_t da,
				 u8 *b, dma_addr_t db)
{
	int ret;

	if (!edu_check(ctx, edu_all_bytes(b, EDU_ATTACK_SIZE, 0),
		       DROPIN ": dma_pool_zalloc'd block %px not zeroed", b))
		return false;
	edu_fill(a, EDU_ATTACK_SIZE, 0x3c);
	ret = edu_dma_from_ram(ctx->bar, da, 0, EDU_ATTACK_SIZE);
	if (!ret)
		ret = edu_dma_to_ram(ctx->bar, 0, db, EDU_ATTACK_SIZE);
	if (!edu_check(ctx, !ret, DROPIN ": edu DMA round trip: %d", ret) ||
	    !edu_check(ctx, !memcmp(a, b, EDU_ATTACK_SIZE),
		       DROPIN ": round trip data differ (%*ph vs %*ph)",
		       8, a, 8, b))
		return false;
	edu_say(DROPIN ": round trip of %d bytes through edu DMA, block %px/%pad -> device -> block %px/%pad: data OK",
		EDU_ATTACK_SIZE, a, &da, b, &db);
	return true;
}

/*
 * The attack: returns true when every check held.  @a and @b stay live
 * through it.
 */
static bool edu_dropin_attack(struct edu_ctx *ctx, struct dma_pool *pool,
			      const u8 *a, const u8 *b, void **got,
			      dma_addr_t *got_dma)
{
	struct edu_forged_block forged;
	dma_addr_t victim_dma;
	void *victim;
	unsigned int i;
	int ret;

	victim = dma_pool_alloc(pool, GFP_KERNEL, &victim_dma);
	if (!edu_dropin_valid(ctx, pool, victim, victim_dma))
		return false;
	dma_pool_free(pool, victim, victim_dma);

	edu_forge(ctx, &forged);
	ret = edu_load_device(ctx, &forged, 0, sizeof(forged));
	if (!ret)
		ret = edu_dma_to_ram(ctx->bar, 0, victim_dma, sizeof(forged));
	if (!edu_check(ctx, !ret, DROPIN ": edu DMA into the freed block: %d",
		       ret) ||
	    !edu_check(ctx, !memcmp(victim, &forged, sizeof(forged)),
		       DROPIN ": the device's write did not land"))
		return false;
	edu_say(DROPIN ": edu DMA wrote { next=%#llx, dma=%#llx } into freed block %px/%pad (read back: landed), as in the attack on the kernel's dma_pool",
		forged.next, forged.dma, victim, &victim_dma);

	for (i = 0; i < 2; i++) {
		got[i] = dma_pool_alloc(pool, GFP_KERNEL, &got_dma[i]);
		if (!edu_dropin_valid(ctx, pool, got[i], got_dma[i]))
			return false;
	}
	edu_say(DROPIN ": alloc 1 -> %px/%pad, alloc 2 -> %px/%pad",
		got[0], &got_dma[0], got[1], &got_dma[1]);
	if (!edu_check(ctx, got[0] != got[1] &&
		       !edu_overlap(got[0], EDU_ATTACK_SIZE, a, EDU_ATTACK_SIZE) &&
		       !edu_overlap(got[0], EDU_ATTACK_SIZE, b, EDU_ATTACK_SIZE) &&
		       !edu_overlap(got[1], EDU_ATTACK_SIZE, a, EDU_ATTACK_SIZE) &&
		       !edu_overlap(got[1], EDU_ATTACK_SIZE, b, EDU_ATTACK_SIZE),
		       DROPIN ": allocations overlap each other or live blocks") ||
	    !edu_check(ctx, edu_is_fill(a, EDU_ATTACK_SIZE, 0x3c) &&
		       !memcmp(a, b, EDU_ATTACK_SIZE),
		       DROPIN ": a live block changed"))
		return false;
	edu_say(DROPIN ": after the device write dma_pool_alloc returned valid pool blocks with their own dma (block %px came back as %pad), never the device-chosen %px/%pad, no overlap with live blocks (INTACT)",
		victim, &victim_dma, ctx->target, &ctx->target_dma);
	return true;
}

/* A managed pool on the PCI device: its devres destroys it at unbind. */
static void edu_dropin_managed(struct edu_ctx *ctx)
{
	struct edu_forged_block forged;
	struct dma_pool *pool;
	dma_addr_t d;
	void *v;
	int ret;

	pool = dmam_pool_create("edu-dropin-managed", &ctx->pdev->dev, 64, 64,
				0);
	if (!edu_check(ctx, pool && dmapool_of_dma_pool(pool),
		       DROPIN ": dmam_pool_create"))
		return;
	v = dma_pool_zalloc(pool, GFP_KERNEL, &d);
	if (!edu_block_valid(ctx, dmapool_of_dma_pool(pool), v, d, 64,
			     DROPIN " (managed)"))
		return;
	/* The device still holds the forged bytes: DMA them in. */
	edu_forge(ctx, &forged);
	ret = edu_dma_to_ram(ctx->bar, 0, d, sizeof(forged));
	if (edu_check(ctx, !ret && !memcmp(v, &forged, sizeof(forged)),
		      DROPIN ": edu DMA into a managed pool's block: %d", ret))
		edu_say(DROPIN ": dmam_pool_create pool, edu DMA into block %px/%pad: data OK (the pool goes with the device's devres at unbind)",
			v, &d);
	dma_pool_free(pool, v, d);
}

void edu_dropin_run(struct edu_ctx *ctx)
{
	void *got[2] = { NULL, NULL };
	dma_addr_t got_dma[2], da, db;
	struct dma_pool *pool;
	unsigned int reports = edu_global_seen();
	u8 *a, *b;
	bool ok;

	pool = dma_pool_create("edu-dropin", &ctx->pdev->dev, EDU_ATTACK_SIZE,
			       EDU_ATTACK_ALIGN, 0);
	if (!edu_check(ctx, pool && dmapool_of_dma_pool(pool),
		       DROPIN ": dma_pool_create did not give a dmapool pool"))
		return;
	a = dma_pool_alloc(pool, GFP_KERNEL, &da);
	b = dma_pool_zalloc(pool, GFP_KERNEL, &db);
	ok = edu_dropin_valid(ctx, pool, a, da) &&
	     edu_dropin_valid(ctx, pool, b, db) &&
	     edu_dropin_roundtrip(ctx, a, da, b, db) &&
	     edu_dropin_attack(ctx, pool, a, b, got, got_dma);

	/* Unlike the kernel's pool after the same write, this one can go. */
	if (got[1])
		dma_pool_free(pool, got[1], got_dma[1]);
	if (got[0])
		dma_pool_free(pool, got[0], got_dma[0]);
	if (b)
		dma_pool_free(pool, b, db);
	if (a)
		dma_pool_free(pool, a, da);
	dma_pool_destroy(pool);
	if (ok && edu_check(ctx, edu_global_seen() == reports,
			    DROPIN ": %u reports", edu_global_seen() - reports))
		edu_say(DROPIN ": every block freed and the pool destroyed, without a report");
	edu_dropin_managed(ctx);
}
