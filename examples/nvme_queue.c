// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * nvme_queue: an NVMe-style queue pair on dmapool, the way a userspace
 * driver would build one.
 *
 * The memory is one region the "driver" mapped for its "device" (here a
 * 4 MiB anonymous mapping the device thread reaches at bus address
 * REGION_DMA, as through an IOMMU), handed to dmapool_dev_region().  Four
 * pools share it:
 *   sq-cmds    64-byte submission commands (poison checks and a quarantine:
 *              a freed command is not reused before dmapool_quiesce(), and a
 *              late device write into it is reported when it is);
 *   prp-lists  4 KiB PRP-list pages, for commands of more than two pages;
 *   data       4 KiB data pages;
 *   rings      the submission ring (bus addresses of commands) and the
 *              completion ring, one page each.
 * Per round the driver takes QDEPTH commands and their data pages with
 * dmapool_alloc_bulk(), fills each data page, points the command at it with
 * PRP entries, posts it and rings the doorbell.  The device thread fetches
 * each command by its bus address, walks its PRPs, checksums the data and
 * writes a completion (phase bit, command id, checksum).  The driver reaps
 * the completions, checks every checksum, gives everything back with
 * dmapool_free_bulk() and declares the device idle (dmapool_quiesce()).
 *
 * Two things go wrong on purpose, and each must arrive at the pool's own
 * report sink exactly once: in one round the device writes into a command
 * after completing it (a late DMA: "device-write-after-free" when the
 * block is reused), and the driver frees one PRP list twice
 * ("double-free").  At the end the data pool grows until the region is
 * full: dmapool_alloc() must then return NULL, nothing else.
 *
 * Every result is checked; any surprise prints "nvme_queue: FAIL: ..." and
 * the exit status is 1.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <dmapool/dmapool.h>

#define PAGE		4096u
#define REGION_SIZE	(4u << 20)
#define REGION_DMA	0x80000000ull	/* the device's view of the region */
#define QDEPTH		32u		/* commands in flight per round */
#define ROUNDS		48u
#define MAX_PAGES	8u		/* data pages per command */
#define LATE_ROUND	5u		/* the round of the device's late write */
#define OPC_CHECKSUM	0x81u		/* vendor-specific: checksum the data */

/* A 64-byte submission entry (the fields this example uses). */
struct sqe {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;			/* command id */
	uint32_t nsid;
	uint64_t rsvd;
	uint64_t mptr;
	uint64_t prp1;			/* first data page */
	uint64_t prp2;			/* second page, or a PRP list */
	uint32_t cdw10;			/* number of data pages */
	uint32_t cdw11[5];
};

/* A 16-byte completion entry. */
struct cqe {
	uint32_t result;		/* the checksum */
	uint32_t rsvd;
	uint16_t sq_head;
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;		/* bit 0: phase; the rest 0 = success */
};

_Static_assert(sizeof(struct sqe) == 64, "an NVMe command is 64 bytes");
_Static_assert(sizeof(struct cqe) == 16, "an NVMe completion is 16 bytes");

#define CQ_ENTRIES	(PAGE / sizeof(struct cqe))
#define SQ_ENTRIES	(PAGE / sizeof(uint64_t))

static int failures;

#define FAIL(...)							\
	do {								\
		fprintf(stderr, "nvme_queue: FAIL: " __VA_ARGS__);	\
		fputc('\n', stderr);					\
		failures++;						\
	} while (0)

/* ---- the region, and the device's side of it ---------------------- */

static uint8_t *region;

/* What an IOMMU does for the device: bus address -> memory, or NULL. */
static void *dev_map(uint64_t dma, size_t len)
{
	if (dma < REGION_DMA || dma - REGION_DMA > REGION_SIZE - len)
		return NULL;
	return region + (dma - REGION_DMA);
}

static void *host_region(void)
{
	size_t span = REGION_SIZE + (2u << 20);
	uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	/* 2 MiB aligned, like REGION_DMA: chunk alignments carry over. */
	a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
	return (void *)a;
}

static uint32_t checksum(const uint8_t *p, size_t n, uint32_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;	/* FNV-1a */
	return h;
}

/* ---- the queue pair ------------------------------------------------ */

struct queue {
	uint64_t *sq;			/* ring of command bus addresses */
	dmapool_dma_t sq_dma;
	struct cqe *cq;
	dmapool_dma_t cq_dma;
	_Atomic uint32_t sq_tail;	/* the doorbell */
	uint32_t cq_head, phase;	/* the driver's */
	_Atomic int stop;
	/* The late write: the device's part of the scripted failure. */
	_Atomic int late_arm;		/* driver: write into this cid's cmd */
	_Atomic uint64_t late_dma;	/* device: where it wrote */
	_Atomic int late_done;
	uint64_t errors;		/* device: bad bus addresses seen */
};

static struct queue Q;

static void device_complete(uint32_t *cq_tail, uint32_t *phase,
			    const struct sqe *cmd, uint32_t result,
			    uint16_t status)
{
	struct cqe *e = &Q.cq[*cq_tail];

	e->result = result;
	e->cid = cmd->cid;
	e->sq_head = 0;
	e->sq_id = 1;
	/* The phase bit last: the driver owns the entry once it flips. */
	atomic_thread_fence(memory_order_release);
	e->status = (uint16_t)(status << 1 | *phase);
	if (++*cq_tail == CQ_ENTRIES) {
		*cq_tail = 0;
		*phase ^= 1;
	}
}

/* The device: fetch, walk the PRPs, checksum, complete. */
static void *device(void *arg)
{
	uint32_t sq_head = 0, cq_tail = 0, phase = 1, i;

	(void)arg;
	while (!atomic_load(&Q.stop)) {
		uint32_t tail = atomic_load_explicit(&Q.sq_tail,
						     memory_order_acquire);

		if (sq_head == tail)
			sched_yield();	/* an idle device polls its doorbell */

		while (sq_head != tail) {
			const struct sqe *cmd = dev_map(Q.sq[sq_head],
							sizeof(*cmd));
			const uint64_t *list = NULL;
			uint32_t h = 2166136261u, n;
			uint16_t status = 0;

			sq_head = (sq_head + 1) % SQ_ENTRIES;
			if (!cmd) {
				Q.errors++;
				continue;	/* nothing to complete */
			}
			n = cmd->cdw10;
			if (n > 2)
				list = dev_map(cmd->prp2, (n - 1) * 8);
			for (i = 0; i < n && !status; i++) {
				uint64_t prp = i == 0 ? cmd->prp1 :
					       list ? list[i - 1] : cmd->prp2;
				const uint8_t *pg = dev_map(prp, PAGE);

				if (!pg || (n > 2 && !list))
					status = 0x6;	/* internal error */
				else
					h = checksum(pg, PAGE, h);
			}
			if (status)
				Q.errors++;
			device_complete(&cq_tail, &phase, cmd, h, status);
			if (atomic_load(&Q.late_arm) == cmd->cid + 1) {
				/* Remember it; write once the driver freed it. */
				atomic_store(&Q.late_dma, Q.sq[(sq_head +
					SQ_ENTRIES - 1) % SQ_ENTRIES]);
				atomic_store(&Q.late_arm, 0);
			}
		}
		if (atomic_load(&Q.late_dma) && !atomic_load(&Q.late_done) &&
		    atomic_load(&Q.late_arm) < 0) {
			/* The late DMA: the command was freed by now. */
			uint8_t *p = dev_map(atomic_load(&Q.late_dma), 64);

			memset(p + 8, 0xee, 16);
			atomic_store(&Q.late_done, 1);
		}
	}
	return NULL;
}

/* ---- reports ------------------------------------------------------- */

struct sink {
	const char *pool;
	unsigned int n, by_kind[DMAPOOL_R_KINDS_MAX];
	dmapool_dma_t last_block_dma;
};

static void on_report(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	printf("nvme_queue: report from pool \"%s\": %s, block dma %#" PRIx64
	       " +%zu: %s\n", r->pool_name, dmapool_report_kind_name(r->kind),
	       r->block_dma, r->offset, r->detail);
	s->n++;
	if ((unsigned int)r->kind < DMAPOOL_R_KINDS_MAX)
		s->by_kind[r->kind]++;
	s->last_block_dma = r->block_dma;
}

static struct dmapool *pool(const char *name, struct dmapool_dev *dev,
			    size_t size, unsigned int flags, struct sink *s)
{
	struct dmapool_opts o;
	struct dmapool *p;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.report = on_report;
	o.report_ctx = s;
	s->pool = name;
	p = dmapool_create_opts(name, dev, size, size, 0, &o);
	if (!p)
		FAIL("dmapool_create_opts(%s)", name);
	return p;
}

/* Every block is inside the region, its vaddr and dma at one offset. */
static int in_region(const void *v, dmapool_dma_t d, size_t len)
{
	return dev_map(d, len) == v;
}

/* ---- one round ----------------------------------------------------- */

struct io {
	struct sqe *cmd;
	dmapool_dma_t cmd_dma;
	uint32_t npages;
	void *page[MAX_PAGES];
	dmapool_dma_t page_dma[MAX_PAGES];
	uint64_t *list;			/* PRP list, when npages > 2 */
	dmapool_dma_t list_dma;
	uint32_t expect;
	int done;
};

static struct dmapool *cmds, *prps, *data, *rings;
static struct sink cmds_sink, prps_sink, data_sink, rings_sink;
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static int submit_round(struct io *io, unsigned int round)
{
	void *cv[QDEPTH];
	dmapool_dma_t cd[QDEPTH];
	uint32_t i, k, tail = atomic_load(&Q.sq_tail);

	/* All QDEPTH commands or none. */
	if (dmapool_alloc_bulk(cmds, 0, QDEPTH, cv, cd) != QDEPTH) {
		FAIL("round %u: dmapool_alloc_bulk of %u commands", round,
		     QDEPTH);
		return -1;
	}
	for (i = 0; i < QDEPTH; i++) {
		struct io *x = &io[i];

		memset(x, 0, sizeof(*x));
		x->cmd = cv[i];
		x->cmd_dma = cd[i];
		x->npages = 1 + rnd() % MAX_PAGES;
		if (!in_region(x->cmd, x->cmd_dma, 64) || x->cmd_dma % 64)
			FAIL("command %u at %p / %#" PRIx64 " not a region block",
			     i, (void *)x->cmd, x->cmd_dma);
		if (dmapool_alloc_bulk(data, 0, x->npages, x->page,
				       x->page_dma) != x->npages) {
			FAIL("round %u: %u data pages", round, x->npages);
			return -1;
		}
		x->expect = 2166136261u;
		for (k = 0; k < x->npages; k++) {
			memset(x->page[k], (int)(round * 7 + i + k), PAGE);
			((uint32_t *)x->page[k])[0] = round << 16 | i << 8 | k;
			x->expect = checksum(x->page[k], PAGE, x->expect);
		}
		memset(x->cmd, 0, sizeof(*x->cmd));
		x->cmd->opc = OPC_CHECKSUM;
		x->cmd->cid = (uint16_t)i;
		x->cmd->nsid = 1;
		x->cmd->cdw10 = x->npages;
		x->cmd->prp1 = x->page_dma[0];
		if (x->npages == 2) {
			x->cmd->prp2 = x->page_dma[1];
		} else if (x->npages > 2) {
			x->list = dmapool_zalloc(prps, 0, &x->list_dma);
			if (!x->list) {
				FAIL("round %u: PRP list", round);
				return -1;
			}
			for (k = 1; k < x->npages; k++)
				x->list[k - 1] = x->page_dma[k];
			x->cmd->prp2 = x->list_dma;
		}
		Q.sq[(tail + i) % SQ_ENTRIES] = x->cmd_dma;
	}
	if (round == LATE_ROUND)
		atomic_store(&Q.late_arm, 1 + 3);	/* cid 3, once */
	/* The doorbell: everything above is visible to the device first. */
	atomic_store_explicit(&Q.sq_tail, (tail + QDEPTH) % SQ_ENTRIES,
			      memory_order_release);
	return 0;
}

static void reap_round(struct io *io, unsigned int round)
{
	unsigned int got = 0;

	while (got < QDEPTH) {
		struct cqe *e = &Q.cq[Q.cq_head];
		uint16_t st = __atomic_load_n(&e->status, __ATOMIC_ACQUIRE);

		if ((st & 1) != Q.phase) {
			sched_yield();	/* not yet: the device is working */
			continue;
		}
		if (e->cid >= QDEPTH || io[e->cid].done)
			FAIL("round %u: completion for cid %u", round, e->cid);
		else if (st >> 1)
			FAIL("round %u: cid %u failed with status %#x", round,
			     e->cid, st >> 1);
		else if (e->result != io[e->cid].expect)
			FAIL("round %u: cid %u checksum %#x, expected %#x",
			     round, e->cid, e->result, io[e->cid].expect);
		if (e->cid < QDEPTH)
			io[e->cid].done = 1;
		got++;
		if (++Q.cq_head == CQ_ENTRIES) {
			Q.cq_head = 0;
			Q.phase ^= 1;
		}
	}
}

static void release_round(struct io *io)
{
	void *cv[QDEPTH];
	dmapool_dma_t cd[QDEPTH];
	uint32_t i;

	for (i = 0; i < QDEPTH; i++) {
		dmapool_free_bulk(data, io[i].npages, io[i].page,
				  io[i].page_dma);
		if (io[i].list)
			dmapool_free(prps, io[i].list, io[i].list_dma);
		cv[i] = io[i].cmd;
		cd[i] = io[i].cmd_dma;
	}
	dmapool_free_bulk(cmds, QDEPTH, cv, cd);
}

/* ---- main ---------------------------------------------------------- */

static void check_empty(struct dmapool *p, const char *name)
{
	struct dmapool_stats st;

	dmapool_get_stats(p, &st);
	if (st.blocks_in_use)
		FAIL("pool %s: %" PRIu64 " blocks still in use", name,
		     st.blocks_in_use);
}

int main(void)
{
	static struct io io[QDEPTH];
	struct dmapool_dev *dev;
	struct dmapool_stats st;
	pthread_t dev_thread;
	unsigned int round, n;
	uint64_t list_dma = 0;
	void *list = NULL, **all;
	dmapool_dma_t *all_dma, d;

	region = host_region();
	if (!region) {
		FAIL("no memory for the region");
		return 1;
	}
	dev = dmapool_dev_region(region, REGION_DMA, REGION_SIZE);
	if (!dev) {
		FAIL("dmapool_dev_region");
		return 1;
	}
	cmds = pool("sq-cmds", dev, sizeof(struct sqe),
		    DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE, &cmds_sink);
	prps = pool("prp-lists", dev, PAGE, 0, &prps_sink);
	data = pool("data", dev, PAGE, 0, &data_sink);
	rings = pool("rings", dev, PAGE, 0, &rings_sink);
	/* The pools hold their own references on the region now. */
	dmapool_dev_put(dev);
	if (!cmds || !prps || !data || !rings)
		return 1;
	Q.sq = dmapool_zalloc(rings, 0, &Q.sq_dma);
	Q.cq = dmapool_zalloc(rings, 0, &Q.cq_dma);
	if (!Q.sq || !Q.cq) {
		FAIL("rings");
		return 1;
	}
	Q.phase = 1;
	if (pthread_create(&dev_thread, NULL, device, NULL)) {
		FAIL("pthread_create");
		return 1;
	}

	for (round = 0; round < ROUNDS && !failures; round++) {
		if (submit_round(io, round))
			break;
		reap_round(io, round);
		release_round(io);
		if (round == LATE_ROUND) {
			/* Let the device's late write land, then quiesce. */
			atomic_store(&Q.late_arm, -1);
			while (!atomic_load(&Q.late_done))
				sched_yield();
		}
		/* Every freed command is done with: the device is idle. */
		dmapool_quiesce(cmds);
	}
	atomic_store(&Q.stop, 1);
	pthread_join(dev_thread, NULL);
	if (!failures)
		printf("nvme_queue: %u rounds of %u commands (1-%u data pages each, PRP lists above 2) completed by the device thread, every checksum matched\n",
		       round, QDEPTH, MAX_PAGES);
	if (Q.errors)
		FAIL("the device saw %" PRIu64 " bad bus addresses", Q.errors);

	/* Take every free command block: the late write's victim is checked. */
	dmapool_get_stats(cmds, &st);
	n = (unsigned int)(st.blocks_total - st.blocks_in_use);
	all = calloc(n, sizeof(*all));
	all_dma = calloc(n, sizeof(*all_dma));
	if (!all || !all_dma || dmapool_alloc_bulk(cmds, DMAPOOL_GFP_NOGROW, n,
						   all, all_dma) != n)
		FAIL("taking the %u free commands back", n);
	else
		dmapool_free_bulk(cmds, n, all, all_dma);
	if (cmds_sink.n != 1 ||
	    cmds_sink.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE] != 1 ||
	    cmds_sink.last_block_dma != atomic_load(&Q.late_dma))
		FAIL("sq-cmds: want one device-write-after-free for block dma %#" PRIx64 ", got %u reports",
		     (uint64_t)atomic_load(&Q.late_dma), cmds_sink.n);

	/* The driver's bug: a PRP list freed twice. */
	list = dmapool_alloc(prps, 0, &d);
	list_dma = d;
	dmapool_free(prps, list, list_dma);
	dmapool_free(prps, list, list_dma);
	if (prps_sink.n != 1 || prps_sink.by_kind[DMAPOOL_R_DOUBLE_FREE] != 1)
		FAIL("prp-lists: want one double-free, got %u reports",
		     prps_sink.n);

	/* A full region: growth stops with a NULL, nothing else. */
	n = 0;
	free(all);
	free(all_dma);
	all = calloc(REGION_SIZE / PAGE, sizeof(*all));
	all_dma = calloc(REGION_SIZE / PAGE, sizeof(*all_dma));
	while (all && all_dma && n < REGION_SIZE / PAGE &&
	       (all[n] = dmapool_alloc(data, 0, &all_dma[n]))) {
		if (!in_region(all[n], all_dma[n], PAGE))
			FAIL("data page %u outside the region", n);
		n++;
	}
	if (!all || n == 0 || n == REGION_SIZE / PAGE)
		FAIL("the region never ran out (%u pages)", n);
	else
		printf("nvme_queue: the data pool grew by %u pages until the 4 MiB region was full, then dmapool_alloc returned NULL\n",
		       n);
	if (all)
		dmapool_free_bulk(data, n, all, all_dma);
	free(all);
	free(all_dma);

	dmapool_free(rings, Q.sq, Q.sq_dma);
	dmapool_free(rings, Q.cq, Q.cq_dma);
	check_empty(cmds, "sq-cmds");
	check_empty(prps, "prp-lists");
	check_empty(data, "data");
	check_empty(rings, "rings");
	if (data_sink.n || rings_sink.n)
		FAIL("%u unexpected reports", data_sink.n + rings_sink.n);
	dmapool_destroy(cmds);
	dmapool_destroy(prps);
	dmapool_destroy(data);
	dmapool_destroy(rings);
	if (failures) {
		fprintf(stderr, "nvme_queue: %d failure(s)\n", failures);
		return 1;
	}
	printf("nvme_queue: PASS (the late device write and the double free were reported once each, to their pools' sinks)\n");
	return 0;
}
