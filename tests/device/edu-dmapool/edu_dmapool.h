/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * edu_dmapool: QEMU's edu device doing real DMA into and out of dmapool
 * blocks in a real kernel behind intel-iommu, and the attack that hijacks
 * the kernel's own dma_pool (tests/device/edu-attack) played against
 * dmapool.  What the files share.
 *
 *   edu_dmapool_main.c    the PCI driver: set-up, the checks every scenario
 *                         uses (block validity, report capture), verdict
 *   edu_dmapool_native.c  the native API (<dmapool/kernel.h>): round trips,
 *                         the attack with and without DMAPOOL_OPT_POISON,
 *                         a device overrun into a redzone
 *   edu_dmapool_dropin.c  driver code written against <linux/dmapool.h>
 *                         and switched to dmapool by dropin.mk, unchanged:
 *                         round trip, the same attack, a managed pool
 */
#ifndef EDU_DMAPOOL_H
#define EDU_DMAPOOL_H

#include <linux/pci.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <dmapool/kernel.h>

#include "edu.h"

#define EDU_DRV_NAME	"edu_dmapool"

/*
 * The attack's geometry and bytes are edu_attack.c's: 512-byte blocks
 * aligned to 64, and the v6.3+ free-block header { next, dma } pointing at
 * a page the test owns.
 */
#define EDU_ATTACK_SIZE		512
#define EDU_ATTACK_ALIGN	64

struct edu_forged_block {
	u64 next;	/* the kernel vaddr the device wants handed out */
	u64 dma;	/* the dma it wants reported for it */
};

/* One captured report: the fields a check looks at, copied. */
struct edu_report {
	enum dmapool_report_kind kind;
	const void *block;
	dmapool_dma_t block_dma;
	size_t offset;
	u64 count;
	unsigned int found_len;
	u8 found[16];
	char pool_name[32];
};

#define EDU_MAX_REPORTS	16

struct edu_reports {
	spinlock_t lock;		/* reports may come from any context */
	unsigned int n;		/* reports seen; only the first few kept */
	struct edu_report r[EDU_MAX_REPORTS];
};

struct edu_ctx {
	struct pci_dev *pdev;
	edu_bar_t bar;
	/*
	 * The page the device "chooses": the address a hijacked pool would
	 * hand out.  It holds a { next = 0, dma = its own } header (as in
	 * edu_attack.c) and EDU_TARGET_FILL elsewhere; no pool may touch it.
	 */
	u8 *target;
	dma_addr_t target_dma;
	/* Where the device's data comes from: the test's staging page. */
	u8 *stage;
	dma_addr_t stage_dma;
	struct edu_reports reports;	/* pools created with edu_pool_opts */
	int fails;
};

#define EDU_TARGET_FILL	0xba

#define edu_say(fmt, ...) pr_info("EDU-DMAPOOL: " fmt "\n", ##__VA_ARGS__)

/* A failed check prints a FAIL line and counts; evaluates to the condition. */
#define edu_check(ctx, cond, fmt, ...)					\
	({								\
		bool __ok = (cond);					\
		if (!__ok) {						\
			pr_err("EDU-DMAPOOL: FAIL " fmt "\n", ##__VA_ARGS__); \
			(ctx)->fails++;					\
		}							\
		__ok;							\
	})

/* edu_dmapool_main.c */
void edu_fill(void *p, size_t len, u8 seed);
bool edu_is_fill(const void *p, size_t len, u8 seed);
bool edu_all_bytes(const void *p, size_t len, u8 byte);
phys_addr_t edu_cpu_phys(const void *p);
/* Options with the pool's reports captured in ctx->reports. */
void edu_pool_opts(struct edu_ctx *ctx, struct dmapool_opts *o,
		   unsigned int flags);
unsigned int edu_reports_seen(struct edu_ctx *ctx);
bool edu_report_get(struct edu_ctx *ctx, unsigned int i,
		    struct edu_report *out);
void edu_reports_reset(struct edu_ctx *ctx);
/* Reports that reached the global sink (drop-in pools have no own sink). */
unsigned int edu_global_seen(void);
/*
 * Invariant 4 for one block handed out by @pool: inside one of its chunks,
 * at a block start, aligned, vaddr and dma at the same offset, and never
 * the test's target page (in vaddr or dma).  The pools of this module have
 * one-page chunks and no boundary but the page, so block starts are the
 * multiples of the stride.  Prints a FAIL line and returns false otherwise.
 */
bool edu_block_valid(struct edu_ctx *ctx, const struct dmapool *pool,
		     const void *v, dma_addr_t d, size_t align,
		     const char *what);
/* Do [a, a + alen) and [b, b + blen) overlap? */
bool edu_overlap(const void *a, size_t alen, const void *b, size_t blen);
/* The target page holds exactly what the test put there. */
bool edu_target_intact(struct edu_ctx *ctx);
/* Stage @len bytes from @src in the device's buffer at @off. */
int edu_load_device(struct edu_ctx *ctx, const void *src, unsigned int off,
		    unsigned int len);
/* Fill the forged header the attack writes. */
void edu_forge(struct edu_ctx *ctx, struct edu_forged_block *f);

/* edu_dmapool_native.c */
void edu_native_run(struct edu_ctx *ctx);

/* edu_dmapool_dropin.c */
void edu_dropin_run(struct edu_ctx *ctx);

#endif /* EDU_DMAPOOL_H */
