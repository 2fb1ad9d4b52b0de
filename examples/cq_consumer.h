/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A completion-queue consumer, the driver side of a device that reports
 * finished commands by writing 16-byte entries into a ring in DMA memory
 * (the shape of an NVMe completion queue).  The driver hands out command
 * ids, puts each command's descriptor in a dmapool block, and polls the
 * ring: an entry whose phase bit matches the driver's current phase is
 * new, and names the finished command by its id.
 *
 * Everything in the ring was written by the device.  cq_consumer.c as
 * shipped believes the command id it finds there (a planted bug: see
 * cq_poll); built with -DCQ_FIXED it checks it.  cq_consumer_fuzz.c is the
 * fuzz harness that lets the hostile device of <dmapool/fuzz.h> find out.
 */
#ifndef CQ_CONSUMER_H
#define CQ_CONSUMER_H

#include <stdint.h>

#include <dmapool/dmapool.h>

#define CQ_DEPTH	16	/* entries in the ring */
#define CQ_MAX_CMDS	32	/* command ids: 0 .. CQ_MAX_CMDS - 1 */
#define CQ_DESC_SIZE	64	/* one command descriptor */

/* What the device writes (little-endian, as on the bus). */
struct cq_entry {
	uint32_t result;	/* command-specific */
	uint32_t reserved;
	uint16_t sq_head;	/* how far the device has read submissions */
	uint16_t sq_id;
	uint16_t cid;		/* the command this completes */
	uint16_t status;	/* bit 0: phase; bits 1-15: status code */
};

#define CQ_RING_BYTES	(CQ_DEPTH * sizeof(struct cq_entry))

/* What the driver writes into a descriptor block for the device. */
struct cq_desc {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint32_t tag;
	uint64_t data_dma;
	uint8_t pad[CQ_DESC_SIZE - 16];
};

struct cq_cmd {
	struct cq_desc *desc;	/* in the descriptor pool */
	dmapool_dma_t desc_dma;
	uint32_t tag;		/* the caller's */
};

struct cq_queue {
	struct dmapool *ring_pool, *desc_pool;
	struct cq_entry *ring;	/* written by the device */
	dmapool_dma_t ring_dma;
	unsigned int head;	/* next entry to look at */
	uint16_t phase;		/* what a new entry's phase bit says */
	unsigned int inflight_n;
	uint64_t completed, ignored;
	struct cq_cmd cmds[CQ_MAX_CMDS];
	struct cq_cmd *inflight[CQ_MAX_CMDS];	/* by command id */
};

typedef void (*cq_done_fn)(void *ctx, uint32_t tag, uint16_t status,
			   uint32_t result);

/* A queue whose pools take memory from @dev, with @opts (NULL: the
 * defaults); NULL when out of memory. */
struct cq_queue *cq_create(struct dmapool_dev *dev,
			   const struct dmapool_opts *opts);
/* Free every outstanding descriptor, the ring, the pools. */
void cq_destroy(struct cq_queue *q);
/* Submit a command carrying @tag: its id, or -1 when none is free. */
int cq_submit(struct cq_queue *q, uint32_t tag);
/* Consume new entries (at most CQ_DEPTH), calling @done for each command
 * they complete; returns how many entries were consumed. */
unsigned int cq_poll(struct cq_queue *q, cq_done_fn done, void *ctx);

#endif /* CQ_CONSUMER_H */
