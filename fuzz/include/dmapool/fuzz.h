/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dmapool/fuzz.h: a hostile device for your own fuzz harnesses.
 *
 * Code that talks to a device through DMA memory (a driver's completion
 * loop, a descriptor ring, a command parser) has to survive whatever the
 * device writes there.  This library lets a fuzzer's bytes play that
 * device against the pools your code uses, between your code's steps:
 *
 *	struct dmapool_fuzz_dev *dev = dmapool_fuzz_dev_new(NULL);
 *	...
 *	dmapool_fuzz_dev_reset(dev);		// every input
 *	dmapool_fuzz_dev_add_pool(dev, pool);	// memory the device reaches
 *	dmapool_fuzz_dev_own(dev, ring, ring_dma, ring_len); // it writes here
 *	while (dmapool_fuzz_more(&in)) {
 *		switch (dmapool_fuzz_u8(&in) % 3) {
 *		case 0: my_submit(...); break;
 *		case 1: my_poll(...); break;	// reads what the device wrote
 *		case 2: dmapool_fuzz_dev_act(dev, &in); break;
 *		}
 *	}
 *	dmapool_fuzz_dev_remove(dev, pool);	// before dmapool_destroy()
 *
 * What the device can do (enum dmapool_fuzz_action): write, fill, copy,
 * add to words and flip bits anywhere in the chunks of the pools it was
 * given (free blocks, live blocks, redzones: a pool's whole DMA memory, as
 * dmapool_walk_chunks() shows it), scribble over free memory only, poke
 * into blocks freed recently, write legitimately-placed but hostile data
 * into the regions it owns (completion entries, descriptors: interesting
 * integers, forged bus addresses), run past the end of a block, and write
 * at a bus address derived from the pools' own (a chunk's, a block's, one
 * just past a chunk) where an address no chunk covers is refused as an
 * IOMMU would refuse it.
 *
 * It uses nothing but dmapool's public API (dmapool_walk_chunks for the
 * memory, the report sink below) and its own records, so it works with any
 * pool, any backend and any options.  What it knows beyond the pools'
 * chunks is what you tell it: the regions the device owns, and optionally
 * the blocks your code holds (dmapool_fuzz_dev_alloced / _freed), which
 * is what lets it aim at free memory and at recently freed blocks.
 *
 * Every input must run the same way every time: the device draws all its
 * choices from the input, never from a clock or a random source.  It is
 * single-threaded: call it between your code's steps, not concurrently.
 * Memory is allocated by dmapool_fuzz_dev_new() only, never during an
 * input.
 *
 * Link with libdmapool_fuzz (pkg-config dmapool-fuzz) or compile
 * fuzz/hostile.c into your harness; docs/fuzzing.md has a full example
 * (examples/cq_consumer_fuzz.c).
 */
#ifndef DMAPOOL_FUZZ_H
#define DMAPOOL_FUZZ_H

#include <dmapool/dmapool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The input: a byte stream that reads as zeros once it runs out, so    */
/* every input is a valid program.  Little-endian.                      */

struct dmapool_fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline void dmapool_fuzz_in_init(struct dmapool_fuzz_in *in,
					const uint8_t *data, size_t size)
{
	in->p = data;
	in->n = size;
}

static inline bool dmapool_fuzz_more(const struct dmapool_fuzz_in *in)
{
	return in->n > 0;
}

static inline uint8_t dmapool_fuzz_u8(struct dmapool_fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t dmapool_fuzz_u16(struct dmapool_fuzz_in *in)
{
	uint16_t lo = dmapool_fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)dmapool_fuzz_u8(in) << 8);
}

static inline uint32_t dmapool_fuzz_u32(struct dmapool_fuzz_in *in)
{
	uint32_t lo = dmapool_fuzz_u16(in);

	return lo | (uint32_t)dmapool_fuzz_u16(in) << 16;
}

static inline uint64_t dmapool_fuzz_u64(struct dmapool_fuzz_in *in)
{
	uint64_t lo = dmapool_fuzz_u32(in);

	return lo | (uint64_t)dmapool_fuzz_u32(in) << 32;
}

/* ------------------------------------------------------------------ */
/* The device.                                                          */

struct dmapool_fuzz_dev;

/*
 * What the device does, and how dmapool_fuzz_dev_act() reads each action
 * from the input: an action byte (taken modulo the number of actions
 * enabled, in this order), then its arguments.
 *
 * "Reachable memory" is the concatenation of every chunk of every memory
 * source (dmapool_fuzz_dev_add_pool / _add_memory), in the order added,
 * each source's chunks in its walk's order; an offset into it is taken
 * modulo its length, and a write stops at the end of its chunk.  WRITE
 * and OWNED_WRITE read only as many data bytes as fit there (all of them
 * when there is nothing to write into); POKE and BUS_WRITE read all len.
 */
enum dmapool_fuzz_action {
	DMAPOOL_FUZZ_WRITE,	/* off u32, len u8, len bytes */
	DMAPOOL_FUZZ_FILL,	/* off u32, len u16, byte u8 */
	DMAPOOL_FUZZ_COPY,	/* src u32, dst u32, len u16 */
	DMAPOOL_FUZZ_ADD,	/* off u32, delta u16 (signed): added to the
				 * 64-bit word at off (moved back to fit) */
	DMAPOOL_FUZZ_SMASH,	/* mode u8 (bit 0: all memory, else free memory
				 * only), seed u8: pseudo-random bytes, at most
				 * cfg.smash_budget of them, and no more than
				 * cfg.smash_total in one input */
	DMAPOOL_FUZZ_POKE,	/* recent u8, off u8, len u8 (mod 17), len
				 * bytes: into the recent-th most recently
				 * freed block, where an embedded free list
				 * keeps its links */
	DMAPOOL_FUZZ_OWNED_WRITE, /* region u8, off u16, len u8, len bytes */
	DMAPOOL_FUZZ_OWNED_VALUE, /* region u8, off u16, kind u8 [, value
				 * u64]: an interesting integer
				 * (DMAPOOL_FUZZ_VAL_*) */
	DMAPOOL_FUZZ_OWNED_BUS,	/* region u8, off u16, target u8, delta u16
				 * (signed): a forged 64-bit bus address
				 * (DMAPOOL_FUZZ_BUS_*) stored at off */
	DMAPOOL_FUZZ_OVERRUN,	/* which u8, len u8, byte u8: len % 64 + 1
				 * bytes from the end of an owned region or a
				 * held block on, inside its chunk */
	DMAPOOL_FUZZ_BUS_WRITE,	/* target u8, delta u16, len u8, len bytes: at
				 * a forged bus address; refused (a fault) when
				 * no chunk or owned region is there */
	DMAPOOL_FUZZ_FLIP,	/* off u32, bit u8: one bit flipped */
	DMAPOOL_FUZZ_ACTIONS
};
#define DMAPOOL_FUZZ_ALL	((1u << DMAPOOL_FUZZ_ACTIONS) - 1)
#define DMAPOOL_FUZZ_A(action)	(1u << (action))

/*
 * OWNED_VALUE's kind byte: bits 0-1 the width (1, 2, 4 or 8 bytes), bits
 * 2-7 the value: 0 zero, 1 one, 2 all ones, 3 the largest signed value,
 * 4 the smallest, 5 the next u64 of the input, 6-37 the numbers 2 to 33
 * (just past a small table), 38-63 powers of two from 2^6 up.
 */
#define DMAPOOL_FUZZ_VAL_INPUT	5

/*
 * The target byte of OWNED_BUS and BUS_WRITE: bits 0-2 what the address is
 * derived from, bits 3-7 which one (modulo how many there are); the signed
 * delta is added.  With nothing of that kind the delta alone is used.
 */
enum dmapool_fuzz_bus {
	DMAPOOL_FUZZ_BUS_CHUNK,		/* a chunk's bus address */
	DMAPOOL_FUZZ_BUS_BLOCK,		/* a block the host holds */
	DMAPOOL_FUZZ_BUS_FREED,		/* a block freed recently */
	DMAPOOL_FUZZ_BUS_REGION,	/* an owned region */
	DMAPOOL_FUZZ_BUS_CHUNK_END,	/* just past a chunk */
	DMAPOOL_FUZZ_BUS_LOW,		/* the delta alone (0 and up) */
	DMAPOOL_FUZZ_BUS_HIGH,		/* the top of the bus (~0 - delta) */
	DMAPOOL_FUZZ_BUS_ALIAS,		/* a chunk's address with a high bit
					 * flipped (a truncated address) */
};

struct dmapool_fuzz_cfg {
	unsigned int actions;		/* DMAPOOL_FUZZ_A() mask act() picks
					 * from; 0 = DMAPOOL_FUZZ_ALL */
	unsigned int max_chunks;	/* chunks seen at once; 0 = 512 */
	unsigned int max_blocks;	/* blocks tracked; 0 = 4096 */
	unsigned int max_regions;	/* owned regions; 0 = 64 */
	unsigned int max_sources;	/* pools and other memory; 0 = 16 */
	unsigned int recent;		/* freed blocks remembered; 0 = 64 */
	size_t smash_budget;		/* bytes per SMASH; 0 = 256 KiB */
	/*
	 * Called before every write the device makes, with the range; false
	 * skips the write (the input is read the same).  For harnesses that
	 * keep a model of which memory the device changed.  May be NULL.
	 */
	bool (*before_write)(void *ctx, void *addr, size_t len);
	void *ctx;
	/* Report kinds (bit k: enum dmapool_report_kind k) that make
	 * dmapool_fuzz_report() abort; default: every kind but the device's
	 * own (device-write-after-free, device-overrun). */
	uint32_t abort_kinds;
	bool trace;			/* print every action on stderr; the
					 * default is DMAPOOL_FUZZ_TRACE=1 in
					 * the environment */
	/*
	 * Bytes all SMASHes of one input (from one dmapool_fuzz_dev_reset()
	 * to the next) may write; 0 = 16 MiB.  A SMASH past it is skipped
	 * (counted in skipped, its bytes read the same), so no input spends
	 * its time generating noise: a SMASH writes byte by byte.
	 */
	uint64_t smash_total;
	uint64_t reserved[3];		/* must be zero */
};

/* Fill @cfg with the defaults. */
void dmapool_fuzz_cfg_init(struct dmapool_fuzz_cfg *cfg);
/* A device (NULL @cfg: the defaults); NULL when out of memory.  It starts
 * switched off when DMAPOOL_FUZZ_OFF=1 is in the environment. */
struct dmapool_fuzz_dev *
dmapool_fuzz_dev_new(const struct dmapool_fuzz_cfg *cfg);
void dmapool_fuzz_dev_free(struct dmapool_fuzz_dev *dev);
/* Start an input: no memory, no regions, no blocks, counters zeroed. */
void dmapool_fuzz_dev_reset(struct dmapool_fuzz_dev *dev);
/* Switch the device off (writes are skipped, the input is read the same):
 * a finding that goes away is the device's doing. */
void dmapool_fuzz_dev_enable(struct dmapool_fuzz_dev *dev, bool on);

/* ------------------------------------------------------------------ */
/* What the device reaches.                                             */

/* The pool's chunks, as dmapool_walk_chunks() shows them at each action.
 * 0, or -1 when the table is full.  Remove it before destroying it. */
int dmapool_fuzz_dev_add_pool(struct dmapool_fuzz_dev *dev,
			      struct dmapool *pool);
/* Any memory: @walk calls @fn for each piece of it (vaddr, dma, len). */
typedef void (*dmapool_fuzz_walk_fn)(void *src, dmapool_chunk_fn fn,
				     void *ctx);
int dmapool_fuzz_dev_add_memory(struct dmapool_fuzz_dev *dev,
				dmapool_fuzz_walk_fn walk, void *src);
/* Forget a pool or memory source; blocks held in it are forgotten too. */
void dmapool_fuzz_dev_remove(struct dmapool_fuzz_dev *dev, const void *src);

/*
 * A region the device owns: it writes there as part of its job
 * (completion entries, status words, descriptors it updates).  @dma may be
 * 0 when the region has no bus address of its own (then BUS_WRITE reaches
 * it only through a chunk).  Returns the region's number, or -1 when full.
 */
int dmapool_fuzz_dev_own(struct dmapool_fuzz_dev *dev, void *vaddr,
			 dmapool_dma_t dma, size_t len);
void dmapool_fuzz_dev_disown(struct dmapool_fuzz_dev *dev, const void *vaddr);

/*
 * Optional: the blocks your code holds.  A held block is not "free
 * memory" (SMASH mode 0 leaves it alone), OVERRUN and the bus addresses
 * can start from it, and a freed one is remembered for POKE.  _forget
 * drops a block without remembering it as freed (a pool destroyed with
 * it still allocated).
 */
void dmapool_fuzz_dev_alloced(struct dmapool_fuzz_dev *dev, void *vaddr,
			      dmapool_dma_t dma, size_t len);
void dmapool_fuzz_dev_freed(struct dmapool_fuzz_dev *dev, const void *vaddr);
void dmapool_fuzz_dev_forget(struct dmapool_fuzz_dev *dev, const void *vaddr);

/* ------------------------------------------------------------------ */
/* Acting.                                                              */

/* One action read from @in (enum dmapool_fuzz_action says how). */
void dmapool_fuzz_dev_act(struct dmapool_fuzz_dev *dev,
			  struct dmapool_fuzz_in *in);
/* One action of your choice, its arguments read from @in. */
void dmapool_fuzz_dev_do(struct dmapool_fuzz_dev *dev,
			 enum dmapool_fuzz_action action,
			 struct dmapool_fuzz_in *in);

/*
 * Direct writes for structured harnesses.  Each returns the bytes written
 * (0 when the address is not reachable, the device is off or the
 * before_write hook said no) and stops at the end of the chunk or region.
 */
size_t dmapool_fuzz_dev_write_owned(struct dmapool_fuzz_dev *dev,
				    unsigned int region, size_t off,
				    const void *buf, size_t len);
size_t dmapool_fuzz_dev_write_bus(struct dmapool_fuzz_dev *dev,
				  dmapool_dma_t bus, const void *buf,
				  size_t len);
/* Where the device would write for bus address @bus (NULL: a fault). */
void *dmapool_fuzz_dev_bus_to_virt(struct dmapool_fuzz_dev *dev,
				   dmapool_dma_t bus, size_t *room);

struct dmapool_fuzz_stats {
	uint64_t actions[DMAPOOL_FUZZ_ACTIONS];	/* per action, this input */
	uint64_t writes, bytes;		/* made */
	uint64_t skipped;		/* device off or the hook said no */
	uint64_t faults;		/* bus addresses nothing answered */
	uint64_t untracked;		/* blocks or regions over the limits */
	uint64_t device_reports;	/* seen by dmapool_fuzz_report() */
	uint64_t host_reports;
};
void dmapool_fuzz_dev_stats(const struct dmapool_fuzz_dev *dev,
			    struct dmapool_fuzz_stats *st);

/* ------------------------------------------------------------------ */
/* Reports.                                                             */

/*
 * A report sink for fuzzing (opts.report, or dmapool_set_report_handler),
 * @ctx the device or NULL.  Reports the device earns (device-write-after-
 * free, device-overrun) are counted: a hostile device makes them.  Every
 * other kind means the code under test misused a pool, most likely
 * because it believed something the device wrote (a double free after a
 * duplicated completion, a free of a forged address): the report is
 * printed and the process aborts, which the fuzzer records as a crash.
 * cfg.abort_kinds changes which kinds abort.
 */
void dmapool_fuzz_report(const struct dmapool_report *r, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DMAPOOL_FUZZ_H */
