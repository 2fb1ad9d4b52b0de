/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * edu.h - register access for QEMU's "edu" PCI device (vendor 1234, device
 * 11e8), a toy device with a real DMA engine. Header-only so that both a
 * kernel module (BAR mapped with pci_iomap) and a userspace program (BAR
 * mmap'd through VFIO) use the same helpers.
 *
 * The DMA engine copies between guest memory (a bus address, i.e. an IOVA
 * when an IOMMU translates) and a 4 KiB buffer inside the device that sits
 * at device address EDU_BUF_ADDR. One transfer at a time; it completes on a
 * ~100 ms virtual-clock timer, so callers poll the command register.
 *
 * Limits of the QEMU 7.2 model (Debian 12), learnt the hard way:
 *  - its range check wants the end of the transfer strictly below the end
 *    of the internal buffer, and a failed check is a hw_error() that kills
 *    QEMU. So a transfer may not touch the buffer's last byte: a 4096-byte
 *    transfer, or 2048 bytes at offset 2048, abort the whole VM. We keep
 *    transfers to EDU_DMA_MAX bytes and check the range here;
 *  - the bus address is masked to 28 bits (the device's DMA mask): a driver
 *    must set a 28-bit DMA mask, VFIO users must pick IOVAs below 256 MiB.
 */
#ifndef DMAPOOL_TESTS_EDU_H
#define DMAPOOL_TESTS_EDU_H

#define EDU_VENDOR_ID		0x1234
#define EDU_DEVICE_ID		0x11e8
#define EDU_BAR			0

#define EDU_REG_ID		0x00	/* 0xMMmm00ed: version major.minor, 0xed */
#define EDU_REG_LIVE		0x04	/* reads back ~(last value written) */
#define EDU_REG_DMA_SRC		0x80	/* 64-bit */
#define EDU_REG_DMA_DST		0x88	/* 64-bit */
#define EDU_REG_DMA_CNT		0x90	/* 64-bit, bytes */
#define EDU_REG_DMA_CMD		0x98	/* 64-bit */

#define EDU_DMA_CMD_RUN		0x1	/* write: start; read: still busy */
#define EDU_DMA_CMD_TO_RAM	0x2	/* direction: device buffer -> RAM */
#define EDU_DMA_CMD_IRQ		0x4	/* raise an interrupt when done */

#define EDU_ID_MAGIC		0xed
#define EDU_BUF_ADDR		0x40000UL
#define EDU_BUF_SIZE		4096
#define EDU_DMA_MAX		2048
#define EDU_DMA_MASK_BITS	28
#define EDU_DMA_TIMEOUT_MS	2000	/* the model's timer is 100 ms */

/* World-specific primitives: MMIO access, barrier, sleep. */
#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <asm/barrier.h>

typedef void __iomem *edu_bar_t;

static inline uint32_t edu_rd32(edu_bar_t bar, unsigned int off)
{
	return ioread32(bar + off);
}

static inline void edu_wr32(edu_bar_t bar, unsigned int off, uint32_t v)
{
	iowrite32(v, bar + off);
}

static inline uint64_t edu_rd64(edu_bar_t bar, unsigned int off)
{
	return readq(bar + off);
}

static inline void edu_wr64(edu_bar_t bar, unsigned int off, uint64_t v)
{
	writeq(v, bar + off);
}

/* CPU stores to DMA memory must be visible before the device starts. */
static inline void edu_wmb(void)
{
	wmb();
}

static inline void edu_sleep_ms(unsigned int ms)
{
	msleep(ms);
}
#else /* userspace */
#include <stdint.h>
#include <errno.h>
#include <time.h>

typedef volatile void *edu_bar_t;

static inline uint32_t edu_rd32(edu_bar_t bar, unsigned int off)
{
	return *(volatile uint32_t *)((volatile char *)bar + off);
}

static inline void edu_wr32(edu_bar_t bar, unsigned int off, uint32_t v)
{
	*(volatile uint32_t *)((volatile char *)bar + off) = v;
}

static inline uint64_t edu_rd64(edu_bar_t bar, unsigned int off)
{
	return *(volatile uint64_t *)((volatile char *)bar + off);
}

static inline void edu_wr64(edu_bar_t bar, unsigned int off, uint64_t v)
{
	*(volatile uint64_t *)((volatile char *)bar + off) = v;
}

static inline void edu_wmb(void)
{
	__sync_synchronize();
}

static inline void edu_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
#endif

/*
 * Is this really an edu device, and is it alive? Returns 0 or -ENODEV.
 * The liveness register returns the complement of what was written.
 */
static inline int edu_probe_regs(edu_bar_t bar)
{
	uint32_t id = edu_rd32(bar, EDU_REG_ID);

	if ((id & 0xff) != EDU_ID_MAGIC)
		return -ENODEV;
	edu_wr32(bar, EDU_REG_LIVE, 0x5a5aa5a5u);
	if (edu_rd32(bar, EDU_REG_LIVE) != ~0x5a5aa5a5u)
		return -ENODEV;
	return 0;
}

static inline int edu_dma_busy(edu_bar_t bar)
{
	return edu_rd64(bar, EDU_REG_DMA_CMD) & EDU_DMA_CMD_RUN;
}

/*
 * Start one transfer between RAM bus address @bus and the device buffer at
 * offset @off. Refuses what would crash the QEMU model (see the top).
 */
static inline int edu_dma_start(edu_bar_t bar, uint64_t bus, unsigned int off,
				unsigned int len, int to_ram)
{
	uint64_t cmd = EDU_DMA_CMD_RUN | (to_ram ? EDU_DMA_CMD_TO_RAM : 0);

	if (len == 0 || len > EDU_DMA_MAX || off + len >= EDU_BUF_SIZE)
		return -EINVAL;
	if (bus >> EDU_DMA_MASK_BITS)
		return -ERANGE;
	if (edu_dma_busy(bar))
		return -EBUSY;
	if (to_ram) {
		edu_wr64(bar, EDU_REG_DMA_SRC, EDU_BUF_ADDR + off);
		edu_wr64(bar, EDU_REG_DMA_DST, bus);
	} else {
		edu_wr64(bar, EDU_REG_DMA_SRC, bus);
		edu_wr64(bar, EDU_REG_DMA_DST, EDU_BUF_ADDR + off);
	}
	edu_wr64(bar, EDU_REG_DMA_CNT, len);
	edu_wmb();
	edu_wr64(bar, EDU_REG_DMA_CMD, cmd);
	return 0;
}

/* Poll for completion: 0, or -ETIMEDOUT after @timeout_ms. */
static inline int edu_dma_wait(edu_bar_t bar, unsigned int timeout_ms)
{
	unsigned int waited = 0;

	while (edu_dma_busy(bar)) {
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		edu_sleep_ms(5);
		waited += 5;
	}
	return 0;
}

/* RAM -> device buffer, waiting for completion. */
static inline int edu_dma_from_ram(edu_bar_t bar, uint64_t bus,
				   unsigned int off, unsigned int len)
{
	int ret = edu_dma_start(bar, bus, off, len, 0);

	return ret ? ret : edu_dma_wait(bar, EDU_DMA_TIMEOUT_MS);
}

/* Device buffer -> RAM, waiting for completion. */
static inline int edu_dma_to_ram(edu_bar_t bar, unsigned int off, uint64_t bus,
				 unsigned int len)
{
	int ret = edu_dma_start(bar, bus, off, len, 1);

	return ret ? ret : edu_dma_wait(bar, EDU_DMA_TIMEOUT_MS);
}

#endif /* DMAPOOL_TESTS_EDU_H */
