// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A completion-queue consumer (cq_consumer.h) with a planted bug: cq_poll
 * uses the command id the device wrote as an index without checking it.
 * Built with -DCQ_FIXED the check is there.
 *
 * As a program (without -DCQ_NO_MAIN) it runs against a well-behaved
 * device played in the same thread, which completes commands in a shuffled
 * order: both variants pass that, which is the point of the example.  A
 * device that writes any other id is what cq_consumer_fuzz.c brings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cq_consumer.h"

struct cq_queue *cq_create(struct dmapool_dev *dev,
			   const struct dmapool_opts *opts)
{
	struct cq_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->ring_pool = dmapool_create_opts("cq-ring", dev, CQ_RING_BYTES,
					   CQ_RING_BYTES, 0, opts);
	q->desc_pool = dmapool_create_opts("cq-desc", dev, CQ_DESC_SIZE,
					   CQ_DESC_SIZE, 0, opts);
	if (q->ring_pool && q->desc_pool)
		q->ring = dmapool_zalloc(q->ring_pool, 0, &q->ring_dma);
	if (!q->ring) {
		dmapool_destroy(q->desc_pool);
		dmapool_destroy(q->ring_pool);
		free(q);
		return NULL;
	}
	q->phase = 1;
	return q;
}

void cq_destroy(struct cq_queue *q)
{
	unsigned int i;

	for (i = 0; i < CQ_MAX_CMDS; i++)
		if (q->inflight[i])
			dmapool_free(q->desc_pool, q->inflight[i]->desc,
				     q->inflight[i]->desc_dma);
	dmapool_free(q->ring_pool, q->ring, q->ring_dma);
	dmapool_destroy(q->desc_pool);
	dmapool_destroy(q->ring_pool);
	free(q);
}

int cq_submit(struct cq_queue *q, uint32_t tag)
{
	struct cq_cmd *cmd;
	unsigned int cid;

	for (cid = 0; cid < CQ_MAX_CMDS && q->inflight[cid]; cid++)
		;
	if (cid == CQ_MAX_CMDS)
		return -1;
	cmd = &q->cmds[cid];
	cmd->desc = dmapool_zalloc(q->desc_pool, 0, &cmd->desc_dma);
	if (!cmd->desc)
		return -1;
	cmd->tag = tag;
	cmd->desc->opcode = 1;
	cmd->desc->cid = (uint16_t)cid;
	cmd->desc->tag = tag;
	q->inflight[cid] = cmd;
	q->inflight_n++;
	return (int)cid;
}

/*
 * Read each field of the entry once: the device may change it between two
 * reads (a real driver uses READ_ONCE and a read barrier after the phase).
 */
static uint16_t read16(const volatile uint16_t *p)
{
	return *p;
}

static uint32_t read32(const volatile uint32_t *p)
{
	return *p;
}

unsigned int cq_poll(struct cq_queue *q, cq_done_fn done, void *ctx)
{
	unsigned int n;

	for (n = 0; n < CQ_DEPTH; n++) {
		struct cq_entry *e = &q->ring[q->head];
		uint16_t status = read16(&e->status), cid;
		struct cq_cmd *cmd;

		if ((status & 1) != q->phase)
			break;		/* nothing new */
		cid = read16(&e->cid);
#ifdef CQ_FIXED
		if (cid >= CQ_MAX_CMDS || !q->inflight[cid]) {
			q->ignored++;	/* not a command we have out */
			goto next;
		}
#else
		/* PLANTED BUG: cid comes from the device and is used as an
		 * index unchecked; only a NULL slot is caught. */
		if (!q->inflight[cid]) {
			q->ignored++;
			goto next;
		}
#endif
		cmd = q->inflight[cid];
		q->inflight[cid] = NULL;
		q->inflight_n--;
		q->completed++;
		done(ctx, cmd->tag, status >> 1, read32(&e->result));
		dmapool_free(q->desc_pool, cmd->desc, cmd->desc_dma);
next:
		if (++q->head == CQ_DEPTH) {
			q->head = 0;
			q->phase ^= 1;
		}
	}
	return n;
}

#ifndef CQ_NO_MAIN
/* ---- a well-behaved device, for the demo ------------------------------ */

struct friendly {
	unsigned int tail;	/* next entry it writes */
	uint16_t phase;
};

/* Complete command @cid the way the device should. */
static void complete(struct cq_queue *q, struct friendly *dv, uint16_t cid)
{
	struct cq_entry *e = &q->ring[dv->tail];

	e->result = 0x600d0000u | cid;
	e->sq_head = 0;
	e->sq_id = 1;
	e->cid = cid;
	e->status = dv->phase;		/* status 0, the current phase */
	if (++dv->tail == CQ_DEPTH) {
		dv->tail = 0;
		dv->phase ^= 1;
	}
}

static void on_done(void *ctx, uint32_t tag, uint16_t status, uint32_t result)
{
	uint64_t *sum = ctx;

	if (status || (result & 0xffff0000u) != 0x600d0000u)
		fprintf(stderr, "cq: command %u: status %u result %#x\n", tag,
			status, result);
	*sum += tag;
}

int main(void)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct friendly dv = { 0, 1 };
	uint64_t sum = 0, want = 0;
	uint16_t ids[CQ_MAX_CMDS];
	struct cq_queue *q;
	unsigned int round, i, n;
	uint32_t tag = 1, x = 12345;

	q = dev ? cq_create(dev, NULL) : NULL;
	if (!q) {
		fprintf(stderr, "cq: out of memory\n");
		return 1;
	}
	for (round = 0; round < 100; round++) {
		/* Submit a batch, complete it in a shuffled order, in pieces
		 * no bigger than the ring. */
		n = 1 + round % CQ_DEPTH;
		for (i = 0; i < n; i++) {
			int cid = cq_submit(q, tag);

			if (cid < 0) {
				fprintf(stderr, "cq: no free command id\n");
				return 1;
			}
			ids[i] = (uint16_t)cid;
			want += tag++;
		}
		for (i = n; i > 1; i--) {
			unsigned int j;
			uint16_t t;

			x = x * 1103515245u + 12345u;
			j = (x >> 8) % i;
			t = ids[i - 1];
			ids[i - 1] = ids[j];
			ids[j] = t;
		}
		for (i = 0; i < n; i++)
			complete(q, &dv, ids[i]);
		if (cq_poll(q, on_done, &sum) != n) {
			fprintf(stderr, "cq: round %u: not every entry consumed\n",
				round);
			return 1;
		}
	}
	if (sum != want || q->inflight_n || q->ignored) {
		fprintf(stderr, "cq: completed tags sum to %llu, want %llu; %u in flight, %llu ignored\n",
			(unsigned long long)sum, (unsigned long long)want,
			q->inflight_n, (unsigned long long)q->ignored);
		return 1;
	}
	printf("cq: %llu commands completed through a %u-entry ring, none lost\n",
	       (unsigned long long)q->completed, CQ_DEPTH);
	cq_destroy(q);
	dmapool_dev_put(dev);
	return 0;
}
#endif
