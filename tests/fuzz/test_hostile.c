// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The hostile device of <dmapool/fuzz.h>, through its public API and
 * dmapool's only: every action writes where its encoding says and nowhere
 * else, stops at the end of its chunk or region, never reaches memory a
 * pool gave back, reads its input the same with the device switched off,
 * and works against pools with any option.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <dmapool/fuzz.h>

struct chunks {
	uint8_t *va[16];
	dmapool_dma_t dma[16];
	size_t len[16];
	unsigned int n;
};

static void collect(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct chunks *c = ctx;

	cr_assert_lt(c->n, 16);
	c->va[c->n] = vaddr;
	c->dma[c->n] = dma;
	c->len[c->n] = len;
	c->n++;
}

static struct chunks chunks_of(struct dmapool *pool)
{
	struct chunks c = { 0 };

	dmapool_walk_chunks(pool, collect, &c);
	return c;
}

/* Run @action with the argument bytes @b; returns what was left unread. */
static size_t run(struct dmapool_fuzz_dev *dev, enum dmapool_fuzz_action a,
		  const uint8_t *b, size_t n)
{
	struct dmapool_fuzz_in in;

	dmapool_fuzz_in_init(&in, b, n);
	dmapool_fuzz_dev_do(dev, a, &in);
	return in.n;
}

#define RUN(dev, a, ...)						\
	run(dev, a, (const uint8_t[]){ __VA_ARGS__ },			\
	    sizeof((const uint8_t[]){ __VA_ARGS__ }))

static struct dmapool *pool_new(struct dmapool_dev **mem,
				const struct dmapool_opts *o)
{
	struct dmapool *pool;

	*mem = dmapool_dev_heap();
	cr_assert(*mem);
	pool = dmapool_create_opts("hostile", *mem, 64, 64, 0, o);
	cr_assert(pool);
	return pool;
}

static void pool_put(struct dmapool *pool, struct dmapool_dev *mem)
{
	dmapool_destroy(pool);
	dmapool_dev_put(mem);
}

static size_t count_nonzero(const uint8_t *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] != 0;
	return k;
}

/* WRITE: offset modulo the reachable memory, stops at its chunk's end. */
Test(hostile_dev, write_stops_at_chunk_end)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	struct dmapool_stats ps;
	static void *blocks[4097];
	static dmapool_dma_t dma[4097];
	struct chunks c;
	uint32_t off;
	unsigned int i, n;

	cr_assert(dev);
	/* Two chunks: one more block than the first holds. */
	dmapool_get_stats(pool, &ps);
	n = (unsigned int)ps.blocks_per_chunk + 1;
	cr_assert_leq(n, 4097);
	for (i = 0; i < n; i++)
		cr_assert(blocks[i] = dmapool_zalloc(pool, 0, &dma[i]));
	c = chunks_of(pool);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(dmapool_fuzz_dev_add_pool(dev, pool), 0);
	/* Two bytes before the end of the first chunk, plus once around. */
	off = (uint32_t)(c.len[0] + c.len[1] + c.len[0] - 2);
	cr_assert_eq(RUN(dev, DMAPOOL_FUZZ_WRITE, off, off >> 8, off >> 16,
			 off >> 24, 6, 1, 2, 3, 4, 5, 6, 0xee), 5,
		     "reads the 2 bytes of 6 that fit, then stops");
	cr_assert_eq(c.va[0][c.len[0] - 2], 1);
	cr_assert_eq(c.va[0][c.len[0] - 1], 2);
	cr_assert_eq(count_nonzero(c.va[1], c.len[1]), 0,
		     "the next chunk was written");
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.writes, 1);
	cr_assert_eq(st.bytes, 2);
	cr_assert_eq(st.actions[DMAPOOL_FUZZ_WRITE], 1);
	for (i = 0; i < n; i++)
		dmapool_free(pool, blocks[i], dma[i]);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* Off: the same bytes are read, nothing is written. */
Test(hostile_dev, off_reads_the_same_writes_nothing)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	static const uint8_t prog[] = { 0, 0, 0, 0, 20, 1, 2, 3, 4, 5, 6, 7, 8,
					9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
					19, 20, 7 };
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	void *b = dmapool_zalloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);
	size_t left_on, left_off;

	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_enable(dev, false);
	left_off = run(dev, DMAPOOL_FUZZ_WRITE, prog, sizeof(prog));
	cr_assert_eq(count_nonzero(c.va[0], c.len[0]), 0);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.skipped, 1);
	dmapool_fuzz_dev_enable(dev, true);
	left_on = run(dev, DMAPOOL_FUZZ_WRITE, prog, sizeof(prog));
	cr_assert_eq(left_on, left_off);
	cr_assert_eq(left_on, 1);
	cr_assert_eq(memcmp(c.va[0], prog + 5, 20), 0);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

static unsigned int hook_calls;
static void *hook_addr;

static bool veto(void *ctx, void *addr, size_t len)
{
	(void)len;
	cr_assert_eq(ctx, &hook_calls);
	hook_calls++;
	hook_addr = addr;
	return false;
}

/* The before_write hook sees every write and may refuse it. */
Test(hostile_dev, hook_sees_and_refuses)
{
	struct dmapool_fuzz_cfg cfg;
	struct dmapool_fuzz_dev *dev;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	void *b = dmapool_zalloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);

	dmapool_fuzz_cfg_init(&cfg);
	cfg.before_write = veto;
	cfg.ctx = &hook_calls;
	dev = dmapool_fuzz_dev_new(&cfg);
	dmapool_fuzz_dev_add_pool(dev, pool);
	RUN(dev, DMAPOOL_FUZZ_FILL, 16, 0, 0, 0, 8, 0, 0xaa);
	cr_assert_eq(hook_calls, 1);
	cr_assert_eq(hook_addr, c.va[0] + 16);
	cr_assert_eq(count_nonzero(c.va[0], c.len[0]), 0);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* SMASH mode 0: free memory only; held blocks and owned regions stay. */
Test(hostile_dev, smash_spares_held_memory)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d[3];
	uint8_t *b[3];
	struct chunks c;
	size_t i, changed;

	for (i = 0; i < 3; i++) {
		b[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert(b[i]);
		memset(b[i], 0x5a, 64);
	}
	c = chunks_of(pool);
	memset(c.va[0], 0x5a, c.len[0]);
	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_alloced(dev, b[0], d[0], 64);
	dmapool_fuzz_dev_alloced(dev, b[2], d[2], 64);
	dmapool_fuzz_dev_own(dev, b[1], d[1], 64);
	RUN(dev, DMAPOOL_FUZZ_SMASH, 0, 3);
	for (i = 0; i < 3; i++)
		for (size_t j = 0; j < 64; j++)
			cr_assert_eq(b[i][j], 0x5a, "held block %zu changed", i);
	changed = 0;
	for (i = 0; i < c.len[0]; i++)
		changed += c.va[0][i] != 0x5a;
	cr_assert_gt(changed, c.len[0] / 2, "free memory left alone");
	/* Mode 1: everything. */
	RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 3);
	changed = 0;
	for (i = 0; i < 3; i++)
		for (size_t j = 0; j < 64; j++)
			changed += b[i][j] != 0x5a;
	cr_assert_gt(changed, 64);
	for (i = 0; i < 3; i++)
		dmapool_free(pool, b[i], d[i]);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

static size_t smashed;

static bool count_bytes(void *ctx, void *addr, size_t len)
{
	(void)addr;
	cr_assert_eq(ctx, &smashed);
	smashed += len;
	return true;
}

/*
 * SMASH writes at most cfg.smash_budget bytes, and all SMASHes of one input
 * at most cfg.smash_total: one past it is skipped and reads its bytes the
 * same; a reset starts the next input with the whole total again.
 */
Test(hostile_dev, smash_total_bounds_an_input)
{
	struct dmapool_fuzz_cfg cfg;
	struct dmapool_fuzz_dev *dev;
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	void *b = dmapool_alloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);

	cr_assert(b);
	cr_assert_gt(c.len[0], 1000, "the chunk is smaller than the test");
	dmapool_fuzz_cfg_init(&cfg);
	cfg.smash_budget = 256;
	cfg.smash_total = 600;
	cfg.before_write = count_bytes;
	cfg.ctx = &smashed;
	dev = dmapool_fuzz_dev_new(&cfg);
	cr_assert(dev);
	dmapool_fuzz_dev_add_pool(dev, pool);
	cr_assert_eq(RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 7), 0);
	cr_assert_eq(smashed, 256);
	RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 8);
	cr_assert_eq(smashed, 512);
	RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 9);
	cr_assert_eq(smashed, 600, "the last one takes what is left");
	cr_assert_eq(RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 10, 0x55), 1,
		     "a skipped smash reads its two bytes");
	cr_assert_eq(smashed, 600);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.skipped, 1);
	/* The next input. */
	dmapool_fuzz_dev_reset(dev);
	dmapool_fuzz_dev_add_pool(dev, pool);
	RUN(dev, DMAPOOL_FUZZ_SMASH, 1, 11);
	cr_assert_eq(smashed, 856);
	dmapool_fuzz_dev_remove(dev, pool);
	dmapool_fuzz_dev_free(dev);
	/* The device wrote into the block: the pool need not know. */
	dmapool_free(pool, b, d);
	pool_put(pool, mem);
}

/* POKE: into a freed block while its chunk is there, never after. */
Test(hostile_dev, poke_only_while_the_chunk_is_held)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	uint8_t *b = dmapool_zalloc(pool, 0, &d);

	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_alloced(dev, b, d, 64);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_freed(dev, b);
	RUN(dev, DMAPOOL_FUZZ_POKE, 0, 8, 4, 0xde, 0xad, 0xbe, 0xef);
	cr_assert_eq(memcmp(b + 8, "\xde\xad\xbe\xef", 4), 0);
	/* The chunk goes back: the block is no device memory any more. */
	cr_assert_eq(dmapool_shrink(pool), 1);
	RUN(dev, DMAPOOL_FUZZ_POKE, 0, 8, 4, 1, 2, 3, 4);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.writes, 1);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* OWNED_VALUE and OWNED_BUS: little-endian, at the offset, fitted. */
Test(hostile_dev, owned_values_and_forged_bus_addresses)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	uint8_t *b = dmapool_zalloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);
	uint64_t x;
	uint16_t y;

	dmapool_fuzz_dev_add_pool(dev, pool);
	cr_assert_eq(dmapool_fuzz_dev_own(dev, b, d, 64), 0);
	/* Width 2 (kind bits 0-1 = 1), all ones (value 2), at +12. */
	RUN(dev, DMAPOOL_FUZZ_OWNED_VALUE, 0, 12, 0, 2 << 2 | 1);
	memcpy(&y, b + 12, 2);
	cr_assert_eq(y, 0xffff);
	cr_assert_eq(count_nonzero(b, 64), 2);
	/* Width 8 at +60 is moved back to +56 to fit. */
	RUN(dev, DMAPOOL_FUZZ_OWNED_VALUE, 0, 60, 0, 1 << 2 | 3);
	memcpy(&x, b + 56, 8);
	cr_assert_eq(x, 1);
	/* The chunk's bus address + 0x40, then a block's - 8. */
	RUN(dev, DMAPOOL_FUZZ_OWNED_BUS, 0, 0, 0, DMAPOOL_FUZZ_BUS_CHUNK,
	    0x40, 0);
	memcpy(&x, b, 8);
	cr_assert_eq(x, c.dma[0] + 0x40);
	dmapool_fuzz_dev_alloced(dev, b, d, 64);
	RUN(dev, DMAPOOL_FUZZ_OWNED_BUS, 0, 0, 0, DMAPOOL_FUZZ_BUS_BLOCK,
	    0xf8, 0xff);
	memcpy(&x, b, 8);
	cr_assert_eq(x, d - 8);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* BUS_WRITE: through the chunks' bus addresses; elsewhere a fault. */
Test(hostile_dev, bus_writes_and_faults)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	uint8_t *b = dmapool_zalloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);
	size_t room;

	dmapool_fuzz_dev_add_pool(dev, pool);
	cr_assert_eq(dmapool_fuzz_dev_bus_to_virt(dev, d + 3, &room), b + 3);
	cr_assert_eq(room, c.len[0] - (size_t)(b + 3 - c.va[0]));
	cr_assert_null(dmapool_fuzz_dev_bus_to_virt(dev, c.dma[0] + c.len[0],
						    &room));
	dmapool_fuzz_dev_alloced(dev, b, d, 64);
	RUN(dev, DMAPOOL_FUZZ_BUS_WRITE, DMAPOOL_FUZZ_BUS_BLOCK, 4, 0, 2, 7, 9);
	cr_assert_eq(b[4], 7);
	cr_assert_eq(b[5], 9);
	/* Just past the chunk: nothing is mapped there. */
	RUN(dev, DMAPOOL_FUZZ_BUS_WRITE, DMAPOOL_FUZZ_BUS_CHUNK_END, 0, 0, 2,
	    7, 9);
	RUN(dev, DMAPOOL_FUZZ_BUS_WRITE, DMAPOOL_FUZZ_BUS_HIGH, 0, 0, 1, 7);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.writes, 1);
	cr_assert_eq(st.faults, 2);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* A region outside every pool is reached by owned writes and its bus
 * address, never past its end. */
Test(hostile_dev, region_outside_pools)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	uint8_t buf[96];
	uint8_t zero[96] = { 0 };

	memset(buf, 0, sizeof(buf));
	cr_assert_eq(dmapool_fuzz_dev_own(dev, buf + 32, 0x1000, 32), 0);
	RUN(dev, DMAPOOL_FUZZ_OWNED_WRITE, 0, 30, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8);
	cr_assert_eq(buf[32 + 30], 1);
	cr_assert_eq(buf[32 + 31], 2);
	cr_assert_eq(memcmp(buf, zero, 32), 0);
	cr_assert_eq(memcmp(buf + 64, zero, 32), 0);
	cr_assert_eq(dmapool_fuzz_dev_write_bus(dev, 0x1000 + 31, "xy", 2), 1);
	cr_assert_eq(buf[63], 'x');
	cr_assert_eq(buf[64], 0);
	/* OVERRUN from a region outside every chunk writes nothing. */
	RUN(dev, DMAPOOL_FUZZ_OVERRUN, 0, 8, 0xff);
	cr_assert_eq(memcmp(buf + 64, zero, 32), 0);
	dmapool_fuzz_dev_free(dev);
}

/* OVERRUN: from a block's end on, inside its chunk. */
Test(hostile_dev, overrun_past_a_block)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	uint8_t *b = dmapool_zalloc(pool, 0, &d);
	struct chunks c = chunks_of(pool);

	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_alloced(dev, b, d, 64);
	RUN(dev, DMAPOOL_FUZZ_OVERRUN, 0, 3, 0xab);
	cr_assert_eq(count_nonzero(b, 64), 0);
	cr_assert_eq(b[64], 0xab);
	cr_assert_eq(b[67], 0xab);
	cr_assert_eq(count_nonzero(c.va[0], c.len[0]), 4);
	dmapool_free(pool, b, d);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* remove() forgets the pool's blocks and the regions inside it. */
Test(hostile_dev, remove_forgets_what_was_inside)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_fuzz_stats st;
	struct dmapool_dev *mem;
	struct dmapool *pool = pool_new(&mem, NULL);
	dmapool_dma_t d;
	uint8_t *b = dmapool_zalloc(pool, 0, &d);

	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_own(dev, b, d, 64);
	dmapool_fuzz_dev_alloced(dev, b, d, 64);
	dmapool_fuzz_dev_remove(dev, pool);
	RUN(dev, DMAPOOL_FUZZ_OWNED_WRITE, 0, 0, 0, 1, 1);
	RUN(dev, DMAPOOL_FUZZ_OVERRUN, 0, 1, 1);
	RUN(dev, DMAPOOL_FUZZ_WRITE, 0, 0, 0, 0, 1, 1);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.writes, 0);
	cr_assert_eq(count_nonzero(b, 64), 0);
	dmapool_free(pool, b, d);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
}

/* act() picks only enabled actions. */
Test(hostile_dev, action_mask)
{
	struct dmapool_fuzz_cfg cfg;
	struct dmapool_fuzz_dev *dev;
	struct dmapool_fuzz_stats st;
	struct dmapool_fuzz_in in;
	uint8_t prog[64];
	unsigned int i;

	dmapool_fuzz_cfg_init(&cfg);
	cfg.actions = DMAPOOL_FUZZ_A(DMAPOOL_FUZZ_FLIP) |
		      DMAPOOL_FUZZ_A(DMAPOOL_FUZZ_OWNED_VALUE);
	dev = dmapool_fuzz_dev_new(&cfg);
	for (i = 0; i < sizeof(prog); i++)
		prog[i] = (uint8_t)(i * 37);
	dmapool_fuzz_in_init(&in, prog, sizeof(prog));
	while (dmapool_fuzz_more(&in))
		dmapool_fuzz_dev_act(dev, &in);
	dmapool_fuzz_dev_stats(dev, &st);
	for (i = 0; i < DMAPOOL_FUZZ_ACTIONS; i++)
		if (i != DMAPOOL_FUZZ_FLIP && i != DMAPOOL_FUZZ_OWNED_VALUE)
			cr_assert_eq(st.actions[i], 0, "action %u ran", i);
	cr_assert_gt(st.actions[DMAPOOL_FUZZ_FLIP] +
		     st.actions[DMAPOOL_FUZZ_OWNED_VALUE], 5);
	dmapool_fuzz_dev_free(dev);
	cfg.actions = 0x80000000u;
	cr_assert_null(dmapool_fuzz_dev_new(&cfg), "no action at all");
}

/* The sink: device reports counted, host misuse aborts. */
Test(hostile_dev, report_sink_counts_device_reports)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_fuzz_stats st;
	struct dmapool_report r = { 0 };

	r.kind = DMAPOOL_R_DEVICE_WRITE_AFTER_FREE;
	dmapool_fuzz_report(&r, dev);
	r.kind = DMAPOOL_R_DEVICE_OVERRUN;
	dmapool_fuzz_report(&r, dev);
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.device_reports, 2);
	cr_assert_eq(st.host_reports, 0);
	dmapool_fuzz_dev_free(dev);
}

Test(hostile_dev, report_sink_aborts_on_host_misuse, .signal = SIGABRT)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_dev *mem;
	struct dmapool_opts o;
	struct dmapool *pool;
	dmapool_dma_t d;
	void *b;

	dmapool_opts_init(&o);
	o.report = dmapool_fuzz_report;
	o.report_ctx = dev;
	pool = pool_new(&mem, &o);
	b = dmapool_alloc(pool, 0, &d);
	dmapool_free(pool, b, d);
	dmapool_free(pool, b, d);	/* double free: must abort */
}

/*
 * Any options: a long random program of device actions between allocs
 * and frees leaves every pool usable, makes no host-misuse report, and
 * writes nothing outside the pools' chunks and the owned region (a host
 * buffer with guards around it).
 */
static bool random_program(const struct dmapool_opts *o, uint64_t seed)
{
	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
	struct dmapool_opts oo = *o;
	struct dmapool_dev *mem;
	struct dmapool *pool;
	struct dmapool_fuzz_in in;
	struct dmapool_fuzz_stats st;
	static uint8_t prog[1 << 16];
	uint8_t host[256], guard[256];
	void *b[32] = { 0 };
	dmapool_dma_t d[32];
	uint64_t x = seed;
	unsigned int i, k;

	mem = dmapool_dev_heap();
	cr_assert(mem);
	/* Probe first, with the default sink: a refusal is not misuse. */
	pool = dmapool_create_opts("probe", mem, 64, 64, 0, &oo);
	if (!pool) {
		dmapool_dev_put(mem);
		dmapool_fuzz_dev_free(dev);
		return false;
	}
	dmapool_destroy(pool);
	oo.report = dmapool_fuzz_report;
	oo.report_ctx = dev;
	pool = dmapool_create_opts("hostile", mem, 64, 64, 0, &oo);
	cr_assert(pool);
	for (i = 0; i < sizeof(prog); i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		prog[i] = (uint8_t)(x >> 56);
	}
	memset(host, 0x11, sizeof(host));
	memcpy(guard, host, sizeof(host));
	dmapool_fuzz_dev_add_pool(dev, pool);
	dmapool_fuzz_dev_own(dev, host + 64, 0x5000, 128);
	dmapool_fuzz_in_init(&in, prog, sizeof(prog));
	while (dmapool_fuzz_more(&in)) {
		k = dmapool_fuzz_u8(&in) % 32;
		if (b[k]) {
			dmapool_free(pool, b[k], d[k]);
			dmapool_fuzz_dev_freed(dev, b[k]);
			b[k] = NULL;
		} else {
			b[k] = dmapool_alloc(pool, 0, &d[k]);
			cr_assert(b[k], "the pool stopped handing out blocks");
			dmapool_fuzz_dev_alloced(dev, b[k], d[k], 64);
		}
		dmapool_fuzz_dev_act(dev, &in);
	}
	cr_assert_eq(memcmp(host, guard, 64), 0, "written before the region");
	cr_assert_eq(memcmp(host + 192, guard + 192, 64), 0,
		     "written past the region");
	dmapool_fuzz_dev_stats(dev, &st);
	cr_assert_eq(st.host_reports, 0);
	cr_assert_gt(st.writes, 100);
	for (k = 0; k < 32; k++)
		if (b[k])
			dmapool_free(pool, b[k], d[k]);
	dmapool_fuzz_dev_remove(dev, pool);
	pool_put(pool, mem);
	dmapool_fuzz_dev_free(dev);
	return true;
}

Test(hostile_dev, any_options, .timeout = 120)
{
	/* flags, and whether this build may refuse them (declared in
	 * dmapool.h before the data path that implements them) */
	static const struct {
		unsigned int flags;
		bool may_refuse;
	} sets[] = {
		{ 0, false },
		{ DMAPOOL_OPT_POISON, false },
		{ DMAPOOL_OPT_QUARANTINE, false },
		{ DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM, false },
		{ DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
		  DMAPOOL_OPT_AUTO_SHRINK, false },
		{ DMAPOOL_OPT_SHARED, true },
		{ DMAPOOL_OPT_POISON_SAMPLED, true },
	};
	struct dmapool_opts o;
	unsigned int i, rz, ran = 0;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		for (rz = 0; rz <= 16; rz += 16) {
			dmapool_opts_init(&o);
			o.flags = sets[i].flags;
			o.redzone = rz;
			o.index = (enum dmapool_index_kind)(i & 1);
			o.seed = 7;
			if (random_program(&o, i * 2 + rz + 1)) {
				ran++;
				continue;
			}
			cr_assert(sets[i].may_refuse,
				  "flags %#x redzone %u refused", o.flags, rz);
			cr_log_info("flags %#x redzone %u: refused by this build",
				    o.flags, rz);
		}
	}
	cr_assert_geq(ran, 10);
}
