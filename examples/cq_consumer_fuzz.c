// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A libFuzzer harness (AFL++ runs it too, through its libFuzzer driver)
 * for the completion-queue consumer: the fuzzer's bytes decide the pools'
 * options, then interleave the driver's steps (submit a command, poll the
 * ring) with a hostile device (<dmapool/fuzz.h>) that owns the ring and
 * reaches both pools' DMA memory.
 *
 * Built with clang -fsanitize=fuzzer,address against cq_consumer.c as
 * shipped, it crashes within seconds: the device writes an entry with a
 * valid phase and a command id past the driver's table, and cq_poll reads
 * outside it (AddressSanitizer).  Against cq_consumer.c -DCQ_FIXED the same
 * harness finds nothing.  Host misuse the device provokes (a double free,
 * a free of a forged address) would abort through dmapool_fuzz_report.
 */
#include <stdlib.h>
#include <string.h>

#include <dmapool/fuzz.h>

#include "cq_consumer.h"

#define MAX_STEPS	512

static struct dmapool_fuzz_dev *dev;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_done(void *ctx, uint32_t tag, uint16_t status, uint32_t result)
{
	(void)ctx;
	(void)tag;
	(void)status;
	(void)result;
}

/* The pools' options, from one input byte: the device must not care. */
static void pick_opts(struct dmapool_opts *o, uint8_t b)
{
	dmapool_opts_init(o);
	if (b & 1)
		o->flags |= DMAPOOL_OPT_POISON;
	if (b & 2)
		o->flags |= DMAPOOL_OPT_QUARANTINE;
	if (b & 4)
		o->flags |= DMAPOOL_OPT_RANDOM;
	if (b & 8)
		o->redzone = 16;
	if (b & 16)
		o->index = DMAPOOL_INDEX_BTREE;
	o->seed = 1;
	/* Reports go to the fuzzing sink: the device's are counted, the
	 * host's abort. */
	o->report = dmapool_fuzz_report;
	o->report_ctx = dev;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dmapool_fuzz_in in;
	struct dmapool_dev *mem;
	struct dmapool_opts o;
	struct cq_queue *q;
	uint32_t tag = 1;
	unsigned int step;

	if (!dev) {
		dev = dmapool_fuzz_dev_new(NULL);
		if (!dev)
			abort();
	}
	dmapool_fuzz_in_init(&in, data, size);
	dmapool_fuzz_dev_reset(dev);
	pick_opts(&o, dmapool_fuzz_u8(&in));
	mem = dmapool_dev_heap();
	q = mem ? cq_create(mem, &o) : NULL;
	if (!q) {
		/* Options this build refuses together: a bad-geometry report
		 * already aborted; anything else is out of memory. */
		if (mem)
			dmapool_dev_put(mem);
		return 0;
	}
	dmapool_fuzz_dev_add_pool(dev, q->ring_pool);
	dmapool_fuzz_dev_add_pool(dev, q->desc_pool);
	dmapool_fuzz_dev_own(dev, q->ring, q->ring_dma, CQ_RING_BYTES);

	for (step = 0; step < MAX_STEPS && dmapool_fuzz_more(&in); step++) {
		switch (dmapool_fuzz_u8(&in) % 4) {
		case 0:
			cq_submit(q, tag++);
			break;
		case 1:
			cq_poll(q, on_done, NULL);
			break;
		default:
			dmapool_fuzz_dev_act(dev, &in);
			break;
		}
	}

	dmapool_fuzz_dev_remove(dev, q->ring_pool);
	dmapool_fuzz_dev_remove(dev, q->desc_pool);
	cq_destroy(q);
	dmapool_dev_put(mem);
	return 0;
}
