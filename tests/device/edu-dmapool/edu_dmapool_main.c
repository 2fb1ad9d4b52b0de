// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * edu_dmapool: dmapool in a real kernel with a real DMA device.
 *
 * A PCI driver for QEMU's edu device (tests/device/edu.h) behind an IOMMU
 * (q35 + intel-iommu, intel_iommu=on), with dmapool.ko loaded first.  On
 * probe it runs every scenario once and prints its verdict:
 *  - edu DMAs into and out of dmapool blocks (native API, handle API,
 *    zalloc, several geometries, two chunks each) and the data is checked;
 *  - the attack of tests/device/edu-attack, played by the device against
 *    dmapool: after the driver frees a block, edu's DMA engine writes the
 *    very bytes that hijack the kernel's own dma_pool into it ({ next, dma }
 *    pointing at a page this test owns).  Every block handed out afterwards
 *    must be a valid block of the pool with its own dma, never the device's
 *    choice, overlapping nothing live; with DMAPOOL_OPT_POISON the write
 *    must be reported as device-write-after-free with its block and offset;
 *  - edu overruns a block of a pool with redzones: device-overrun;
 *  - driver code written for the kernel's dma_pool, switched to dmapool by
 *    the drop-in (dropin.mk), does the round trip and meets the attack.
 * Reports are captured with a report callback (per pool) and a global sink
 * (drop-in pools, and anything unexpected).
 *
 * Markers (grepped by tests/device/run): "EDU-DMAPOOL: ... (INTACT)",
 * "(REPORTED)", and "EDU-DMAPOOL SUMMARY: PASS" when every check held; a
 * failed check prints a line with FAIL and the summary says FAIL.
 * Addresses are printed with %px on purpose: which address a pool hands out
 * is the result.  Test kernels only.
 */
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "edu_dmapool.h"

/* ---- small helpers --------------------------------------------------- */

void edu_fill(void *p, size_t len, u8 seed)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (u8)(seed + i * 13);
}

bool edu_is_fill(const void *p, size_t len, u8 seed)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (u8)(seed + i * 13))
			return false;
	return true;
}

bool edu_all_bytes(const void *p, size_t len, u8 byte)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte)
			return false;
	return true;
}

/* CPU physical address of coherent memory (dma-iommu may vmap it). */
phys_addr_t edu_cpu_phys(const void *p)
{
	if (is_vmalloc_addr(p))
		return page_to_phys(vmalloc_to_page(p)) + offset_in_page(p);
	return virt_to_phys((void *)p);
}

bool edu_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
	const u8 *x = a, *y = b;

	return x < y + blen && y < x + alen;
}

/* ---- reports ------------------------------------------------------- */

static void edu_capture(struct edu_reports *rs, const struct dmapool_report *r)
{
	struct edu_report *e;
	unsigned long flags;

	spin_lock_irqsave(&rs->lock, flags);
	if (rs->n < EDU_MAX_REPORTS) {
		e = &rs->r[rs->n];
		e->kind = r->kind;
		e->block = r->block;
		e->block_dma = r->block_dma;
		e->offset = r->offset;
		e->count = r->count;
		e->found_len = min_t(unsigned int, r->found_len,
				     sizeof(e->found));
		memcpy(e->found, r->found, e->found_len);
		strscpy(e->pool_name, r->pool_name ? r->pool_name : "",
			sizeof(e->pool_name));
	}
	rs->n++;
	spin_unlock_irqrestore(&rs->lock, flags);
}

/* The sink of this module's own pools. */
static void edu_pool_report(const struct dmapool_report *r, void *arg)
{
	struct edu_ctx *ctx = arg;

	edu_capture(&ctx->reports, r);
}

void edu_pool_opts(struct edu_ctx *ctx, struct dmapool_opts *o,
		   unsigned int flags)
{
	dmapool_opts_init(o);
	o->flags = flags;
	o->report = edu_pool_report;
	o->report_ctx = ctx;
}

unsigned int edu_reports_seen(struct edu_ctx *ctx)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&ctx->reports.lock, flags);
	n = ctx->reports.n;
	spin_unlock_irqrestore(&ctx->reports.lock, flags);
	return n;
}

bool edu_report_get(struct edu_ctx *ctx, unsigned int i,
		    struct edu_report *out)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&ctx->reports.lock, flags);
	ok = i < ctx->reports.n && i < EDU_MAX_REPORTS;
	if (ok)
		*out = ctx->reports.r[i];
	spin_unlock_irqrestore(&ctx->reports.lock, flags);
	return ok;
}

void edu_reports_reset(struct edu_ctx *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->reports.lock, flags);
	ctx->reports.n = 0;
	spin_unlock_irqrestore(&ctx->reports.lock, flags);
}

/*
 * The global sink: reports of pools without their own sink (the drop-in's)
 * and reports without a pool.  None is expected in this module; each one is
 * printed, and counted against the verdict by probe.
 */
static struct edu_reports edu_global_reports;

static void edu_global_report(const struct dmapool_report *r, void *arg)
{
	pr_err("EDU-DMAPOOL: unexpected report %s: pool \"%s\" block %px offset %zu\n",
	       dmapool_report_kind_name(r->kind),
	       r->pool_name ? r->pool_name : "", r->block, r->offset);
	edu_capture(&edu_global_reports, r);
}

unsigned int edu_global_seen(void)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&edu_global_reports.lock, flags);
	n = edu_global_reports.n;
	spin_unlock_irqrestore(&edu_global_reports.lock, flags);
	return n;
}

/* ---- checks -------------------------------------------------------- */

struct edu_chunks {
	unsigned int n;
	bool found;
	const u8 *v;		/* the block looked for */
	dma_addr_t d;
	size_t off;		/* its offset in the chunk that holds it */
	dma_addr_t chunk_dma;
	size_t chunk_len;
};

/* Called under the pool lock: only look. */
static void edu_find_chunk(void *vaddr, dmapool_dma_t dma, size_t len,
			   void *arg)
{
	struct edu_chunks *c = arg;
	const u8 *base = vaddr;

	c->n++;
	if (c->found || c->v < base || c->v >= base + len)
		return;
	c->found = true;
	c->off = c->v - base;
	c->chunk_dma = dma;
	c->chunk_len = len;
}

bool edu_block_valid(struct edu_ctx *ctx, const struct dmapool *pool,
		     const void *v, dma_addr_t d, size_t align,
		     const char *what)
{
	struct edu_chunks c = { .v = v, .d = d };
	struct dmapool_stats st;

	if (!edu_check(ctx, v, "%s: allocation failed", what))
		return false;
	if (!edu_check(ctx, !edu_overlap(v, 1, ctx->target, PAGE_SIZE) &&
		       !(d >= ctx->target_dma &&
			 d < ctx->target_dma + PAGE_SIZE),
		       "%s: %px/%pad is the device-chosen page %px/%pad",
		       what, v, &d, ctx->target, &ctx->target_dma))
		return false;
	if (!edu_check(ctx, !(((unsigned long)v | d) & (align - 1)),
		       "%s: %px/%pad not aligned to %zu", what, v, &d, align))
		return false;
	dmapool_get_stats(pool, &st);
	dmapool_walk_chunks(pool, edu_find_chunk, &c);
	if (!edu_check(ctx, c.found, "%s: %px/%pad is in none of the pool's %u chunks",
		       what, v, &d, c.n))
		return false;
	if (!edu_check(ctx, d == c.chunk_dma + c.off,
		       "%s: %px is chunk+%zu but its dma %pad is not (chunk dma %pad)",
		       what, v, c.off, &d, &c.chunk_dma))
		return false;
	return edu_check(ctx, c.off % st.stride == 0 &&
			 c.off + st.block_size <= c.chunk_len,
			 "%s: %px is not a block start (chunk+%zu, stride %llu)",
			 what, v, c.off, st.stride);
}

bool edu_target_intact(struct edu_ctx *ctx)
{
	const struct edu_forged_block *h = (const void *)ctx->target;

	return h->next == 0 && h->dma == ctx->target_dma &&
	       edu_all_bytes(ctx->target + sizeof(*h),
			     PAGE_SIZE - sizeof(*h), EDU_TARGET_FILL);
}

int edu_load_device(struct edu_ctx *ctx, const void *src, unsigned int off,
		    unsigned int len)
{
	if (len > PAGE_SIZE)
		return -EINVAL;
	memcpy(ctx->stage, src, len);
	return edu_dma_from_ram(ctx->bar, ctx->stage_dma, off, len);
}

void edu_forge(struct edu_ctx *ctx, struct edu_forged_block *f)
{
	f->next = (u64)(unsigned long)ctx->target;
	f->dma = ctx->target_dma;
}

/* ---- the driver ---------------------------------------------------- */

static void edu_report_iommu(struct edu_ctx *ctx)
{
	struct device *dev = &ctx->pdev->dev;
	struct iommu_group *grp = iommu_group_get(dev);
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	bool paging = dom && (dom->type & __IOMMU_DOMAIN_PAGING);

	edu_say("iommu group %d, domain type %#x (%s)",
		grp ? iommu_group_id(grp) : -1, dom ? dom->type : 0,
		paging ? "translated" : "NOT translated");
	edu_check(ctx, grp && paging,
		  "edu is not behind a translating IOMMU (need q35 + intel-iommu + intel_iommu=on)");
	if (grp)
		iommu_group_put(grp);
}

static int edu_buffers(struct edu_ctx *ctx)
{
	struct device *dev = &ctx->pdev->dev;
	struct edu_forged_block *h;

	ctx->target = dma_alloc_coherent(dev, PAGE_SIZE, &ctx->target_dma,
					 GFP_KERNEL);
	ctx->stage = dma_alloc_coherent(dev, PAGE_SIZE, &ctx->stage_dma,
					GFP_KERNEL);
	if (!edu_check(ctx, ctx->target && ctx->stage,
		       "dma_alloc_coherent for the test's pages"))
		return -ENOMEM;
	memset(ctx->target, EDU_TARGET_FILL, PAGE_SIZE);
	h = (void *)ctx->target;
	h->next = 0;
	h->dma = ctx->target_dma;
	edu_say("test-owned target page %px/%pad (the address the device will ask for)",
		ctx->target, &ctx->target_dma);
	return 0;
}

static void edu_free_buffers(struct edu_ctx *ctx)
{
	struct device *dev = &ctx->pdev->dev;

	if (ctx->target)
		dma_free_coherent(dev, PAGE_SIZE, ctx->target, ctx->target_dma);
	if (ctx->stage)
		dma_free_coherent(dev, PAGE_SIZE, ctx->stage, ctx->stage_dma);
}

static void edu_run(struct edu_ctx *ctx)
{
	unsigned int unexpected;

	edu_report_iommu(ctx);
	if (edu_buffers(ctx))
		return;
	/*
	 * On one CPU: a pool has a heap per CPU, and the attack scenarios
	 * expect the blocks they free to be the next ones handed out (a
	 * block freed on another CPU goes back to its own CPU's heap).  The
	 * task may still sleep (edu's DMA is waited for).
	 */
	migrate_disable();
	edu_native_run(ctx);
	edu_dropin_run(ctx);
	migrate_enable();
	if (!edu_check(ctx, edu_target_intact(ctx),
		       "the test's target page was written"))
		return;
	edu_say("target page %px untouched by every pool", ctx->target);
	unexpected = edu_global_seen();
	edu_check(ctx, unexpected == 0,
		  "%u reports through the global sink, none expected",
		  unexpected);
}

static int edu_dmapool_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	struct edu_ctx *ctx;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->pdev = pdev;
	spin_lock_init(&ctx->reports.lock);
	pci_set_drvdata(pdev, ctx);

	ret = pci_enable_device(pdev);
	if (!edu_check(ctx, !ret, "pci_enable_device: %d", ret))
		goto err_free;
	ret = pci_request_region(pdev, EDU_BAR, EDU_DRV_NAME);
	if (!edu_check(ctx, !ret, "pci_request_region: %d", ret))
		goto err_disable;
	ctx->bar = pci_iomap(pdev, EDU_BAR, 0);
	if (!edu_check(ctx, ctx->bar, "pci_iomap BAR0")) {
		ret = -ENOMEM;
		goto err_release;
	}
	ret = edu_probe_regs(ctx->bar);
	if (!edu_check(ctx, !ret, "edu id/liveness registers (id %#x)",
		       edu_rd32(ctx->bar, EDU_REG_ID)))
		goto err_unmap;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_MASK_BITS));
	if (!edu_check(ctx, !ret, "dma_set_mask_and_coherent(%d bits): %d",
		       EDU_DMA_MASK_BITS, ret))
		goto err_master;
	edu_say("edu %s id %#x, bus master on, dma mask %d bits",
		pci_name(pdev), edu_rd32(ctx->bar, EDU_REG_ID),
		EDU_DMA_MASK_BITS);

	edu_run(ctx);

	pr_info("EDU-DMAPOOL SUMMARY: %s\n", ctx->fails ? "FAIL" : "PASS");
	/* Stay bound even on failure: the summary line is the verdict. */
	return 0;

err_master:
	pci_clear_master(pdev);
err_unmap:
	pci_iounmap(pdev, ctx->bar);
err_release:
	pci_release_region(pdev, EDU_BAR);
err_disable:
	pci_disable_device(pdev);
err_free:
	pr_info("EDU-DMAPOOL SUMMARY: FAIL\n");
	kfree(ctx);
	return ret;
}

static void edu_dmapool_remove(struct pci_dev *pdev)
{
	struct edu_ctx *ctx = pci_get_drvdata(pdev);

	/*
	 * The device stops first; every native pool is gone already, the
	 * drop-in's managed pool goes with the device's devres after this.
	 */
	pci_clear_master(pdev);
	edu_free_buffers(ctx);
	pci_iounmap(pdev, ctx->bar);
	pci_release_region(pdev, EDU_BAR);
	pci_disable_device(pdev);
	kfree(ctx);
}

static const struct pci_device_id edu_dmapool_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_dmapool_ids);

static struct pci_driver edu_dmapool_driver = {
	.name = EDU_DRV_NAME,
	.id_table = edu_dmapool_ids,
	.probe = edu_dmapool_probe,
	.remove = edu_dmapool_remove,
};

static int __init edu_dmapool_init(void)
{
	int ret;

	spin_lock_init(&edu_global_reports.lock);
	dmapool_set_report_handler(edu_global_report, NULL);
	ret = pci_register_driver(&edu_dmapool_driver);
	if (ret)
		dmapool_set_report_handler(NULL, NULL);
	return ret;
}

static void __exit edu_dmapool_exit(void)
{
	pci_unregister_driver(&edu_dmapool_driver);
	dmapool_set_report_handler(NULL, NULL);
	if (edu_global_reports.n)
		pr_err("EDU-DMAPOOL: FAIL %u unexpected reports through the global sink\n",
		       edu_global_reports.n);
	else
		pr_info("EDU-DMAPOOL: unloaded, no report through the global sink\n");
}

module_init(edu_dmapool_init);
module_exit(edu_dmapool_exit);

MODULE_DESCRIPTION("edu DMA into dmapool blocks; the dma_pool attack against dmapool");
MODULE_LICENSE("Dual MIT/GPL");
