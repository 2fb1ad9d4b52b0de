// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The showcase: one scripted hostile device against the kernel's dma_pool
 * design and against dmapool, then the host's own mistakes, then what
 * dmapool costs on the kernel's benchmark.  Run by scripts/showcase.
 *
 * The pools take their memory from the shared-memory backend, and the
 * "device" reaches it the way a device does: through its own mapping of
 * that memory, at the bus (dma) addresses the driver gave it.  It never
 * touches the allocator's host memory.
 *
 * Exit status: 0 when every outcome is the expected one (the baseline
 * hijacked, dmapool intact), 1 otherwise.  --no-bench skips the timing.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

static bool colour;
static int unexpected;

#define RED	(colour ? "\033[1;31m" : "")
#define GREEN	(colour ? "\033[1;32m" : "")
#define BOLD	(colour ? "\033[1m" : "")
#define DIM	(colour ? "\033[2m" : "")
#define OFF	(colour ? "\033[0m" : "")

/* Host memory the attacker would like the driver to write over. */
static _Alignas(64) char driver_secret[64] = "driver secret: key material";

#define FORGED_DMA	0x00000000badd0000ull

/* ---- the device ----------------------------------------------------------- */

/* Write @len bytes at bus address @dma, through the device's own mapping. */
static void device_write(struct dmapool_dev *dev, dmapool_dma_t dma,
			 const void *buf, size_t len)
{
	size_t size = dmapool_dev_shm_size(dev);
	uint8_t *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			    dmapool_dev_shm_fd(dev), 0);

	if (map == MAP_FAILED) {
		perror("device mmap");
		exit(2);
	}
	memcpy(map + (dma - DMAPOOL_SHM_IOVA_BASE), buf, len);
	munmap(map, size);
}

/* What Linux (v6.3+) keeps at the start of every free block. */
struct forged_link {
	void *next;
	dmapool_dma_t dma;
};

/* ---- checking what the allocator hands out ---------------------------------- */

struct chunks {
	unsigned int n;
	struct { uint8_t *v; dmapool_dma_t d; size_t len; } c[64];
};

static void collect(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct chunks *cs = ctx;

	if (cs->n < 64) {
		cs->c[cs->n].v = vaddr;
		cs->c[cs->n].d = dma;
		cs->c[cs->n].len = len;
		cs->n++;
	}
}

struct blk {
	uint8_t *v;
	dmapool_dma_t d;
};

/* NULL when @b is a proper block of the pool, else what is wrong with it. */
static const char *judge(const struct bl_ops *ops, struct bl_pool *p,
			 const struct blk *b, const struct blk *live,
			 unsigned int nlive, size_t size)
{
	struct chunks cs = { 0 };
	unsigned int i;

	if ((void *)b->v == (void *)driver_secret)
		return "driver_secret: host memory the device chose";
	ops->walk(p, collect, &cs);
	for (i = 0; i < cs.n; i++)
		if (b->v >= cs.c[i].v && b->v + size <= cs.c[i].v + cs.c[i].len)
			break;
	if (i == cs.n)
		return "memory outside the pool";
	if (b->d != cs.c[i].d + (size_t)(b->v - cs.c[i].v))
		return "a dma address the device chose";
	for (i = 0; i < nlive; i++)
		if (b->v < live[i].v + size && live[i].v < b->v + size)
			return "a block overlapping one still in use";
	if ((uintptr_t)b->v % size)
		return "a misaligned block";
	return NULL;
}

/* ---- dmapool's reports ------------------------------------------------------ */

static struct {
	unsigned int n;
	char line[8][200];
} reports;

static void sink(const struct dmapool_report *r, void *ctx)
{
	char found[64] = "";
	unsigned int i;
	int o = 0;

	(void)ctx;
	for (i = 0; i < r->found_len && i < 8; i++)
		o += snprintf(found + o, sizeof(found) - (size_t)o, " %02x",
			      r->found[i]);
	if (reports.n < 8)
		snprintf(reports.line[reports.n], sizeof(reports.line[0]),
			 "%s: %s%s%s", dmapool_report_kind_name(r->kind),
			 r->detail ? r->detail : "",
			 r->found_len ? "; device left:" : "", found);
	reports.n++;
}

static void print_reports(void)
{
	unsigned int i;

	for (i = 0; i < reports.n && i < 8; i++)
		printf("      %sdmapool reports%s %s\n", GREEN, OFF, reports.line[i]);
	reports.n = 0;
}

/* dmapool with poison checks when this build has them. */
static bool have_poison;

static struct bl_pool *dmapool_pool(struct dmapool_dev *dev, size_t size)
{
	struct dmapool_opts o;
	struct dmapool *p;

	dmapool_opts_init(&o);
	o.report = sink;
	o.flags = DMAPOOL_OPT_POISON;
	dmapool_set_report_handler(sink, NULL);
	p = dmapool_create_opts("cmds", dev, size, size, 0, &o);
	have_poison = p != NULL;
	if (!p) {
		o.flags = 0;
		p = dmapool_create_opts("cmds", dev, size, size, 0, &o);
	}
	reports.n = 0;		/* the refused create was reported */
	dmapool_set_report_handler(NULL, NULL);
	return (struct bl_pool *)p;
}

static void probe_poison(void)
{
	struct dmapool_dev *dev = dmapool_dev_shm();

	dmapool_destroy((struct dmapool *)dmapool_pool(dev, 64));
	dmapool_dev_put(dev);
}

static struct bl_pool *make_pool(const struct bl_ops *ops,
				 struct dmapool_dev *dev)
{
	return ops == &bl_dmapool ? dmapool_pool(dev, 64) :
				    ops->create(dev, 64, 64, 0);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("    ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static void expect(bool ok, const char *what)
{
	if (!ok) {
		unexpected++;
		printf("    (unexpected: %s)\n", what);
	}
}

/* ---- 1 and 2: the hostile device, told step by step ---------------------------- */

static void device_story(const struct bl_ops *ops)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct bl_pool *p = make_pool(ops, dev);
	struct forged_link forged = { driver_secret, FORGED_DMA };
	struct blk live[2], freed, got[2];
	char before[64];
	const char *bad[2];
	unsigned int i;

	memcpy(before, driver_secret, sizeof(before));
	live[0].v = ops->alloc(p, &live[0].d);
	freed.v = ops->alloc(p, &freed.d);
	live[1].v = ops->alloc(p, &live[1].d);
	say("driver: allocates three 64-byte command blocks, finishes with one and frees it");
	say("        freed block %p, bus address %#" PRIx64, (void *)freed.v,
	    freed.d);
	ops->free(p, freed.v, freed.d);

	say("%sdevice: writes 16 bytes at bus address %#" PRIx64 ":%s", RED,
	    freed.d, OFF);
	say("%s        { next = %p (driver_secret), dma = %#llx }%s", RED,
	    (void *)driver_secret, (unsigned long long)FORGED_DMA, OFF);
	device_write(dev, freed.d, &forged, sizeof(forged));

	for (i = 0; i < 2; i++) {
		got[i].v = ops->alloc(p, &got[i].d);
		bad[i] = judge(ops, p, &got[i], live, 2, 64);
		if (bad[i])
			say("driver: allocates -> %p dma %#" PRIx64 "  %s<-- %s%s",
			    (void *)got[i].v, got[i].d, RED, bad[i], OFF);
		else
			say("driver: allocates -> %p dma %#" PRIx64 "  %sok: a pool block, its own dma, no overlap%s",
			    (void *)got[i].v, got[i].d, GREEN, OFF);
	}
	/* The driver builds its command in what it was given. */
	for (i = 0; i < 2; i++)
		memcpy(got[i].v, "CMD: READ LBA 0x1000 -> buffer 0x7000", 38);
	if (memcmp(before, driver_secret, sizeof(before))) {
		say("driver: writes its command into both blocks");
		say("%s        driver_secret was \"%s\", now \"%.38s\"%s", RED,
		    before, driver_secret, OFF);
		say("%sRESULT: the device chose what the allocator returned: host memory corrupted.%s",
		    RED, OFF);
		memcpy(driver_secret, before, sizeof(before));
	} else {
		say("driver: writes its command into both blocks; driver_secret untouched");
		if (reports.n)
			print_reports();
		else if (ops == &bl_dmapool)
			say("%s(this build has no poison checks yet: the write went unnoticed, and was harmless,\n     because dmapool never reads a block to decide anything)%s",
			    DIM, OFF);
		say("%sRESULT: every block handed out is a pool block; the device changed data, not the allocator.%s",
		    GREEN, OFF);
	}
	if (ops == &bl_linux_embedded)
		expect(bad[1] && !strncmp(bad[1], "driver_secret", 13),
		       "linux-embedded was expected to hand out driver_secret");
	if (ops == &bl_dmapool)
		expect(!bad[0] && !bad[1], "dmapool handed out a bad block");
	/*
	 * The baseline's list now runs through driver_secret: destroy leaks
	 * its pages (nr_active is off), exactly what the kernel would do.
	 */
	for (i = 0; i < 2; i++)
		if (!bad[i])
			ops->free(p, got[i].v, got[i].d);
	for (i = 0; i < 2; i++)
		ops->free(p, live[i].v, live[i].d);
	/* A baseline whose list ran through driver_secret is busy: destroy
	 * leaks its pages, as the kernel would, and never reads the list. */
	ops->destroy(p);
	reports.n = 0;
	dmapool_dev_put(dev);
}

/* ---- 3: the matrix -------------------------------------------------------- */

static int severity(const char *bad)
{
	static const char *const order[] = {
		"the same block twice", "a misaligned block",
		"a dma address the device chose",
		"a block overlapping one still in use",
		"memory outside the pool", "driver_secret",
	};
	int i;

	for (i = (int)(sizeof(order) / sizeof(order[0])) - 1; i >= 0; i--)
		if (!strncmp(bad, order[i], strlen(order[i])))
			return i;
	return -1;
}

/* The device forges the free list of each design, as it would. */
static const char *forge_outcome(const struct bl_ops *ops, char *note)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct bl_pool *p = make_pool(ops, dev);
	struct blk live[2], freed[2], got[2];
	const char *bad = NULL;
	unsigned int i;

	live[0].v = ops->alloc(p, &live[0].d);
	freed[0].v = ops->alloc(p, &freed[0].d);
	freed[1].v = ops->alloc(p, &freed[1].d);
	live[1].v = ops->alloc(p, &live[1].d);
	for (i = 0; i < 2; i++)
		ops->free(p, freed[i].v, freed[i].d);
	for (i = 0; i < 2; i++) {
		if (ops == &bl_linux_pagelist) {
			/* The old design keeps the next free offset in the
			 * first 4 bytes: point it into a live block. */
			unsigned int off = (unsigned int)
				((uintptr_t)live[0].v & 4095) + 8;

			device_write(dev, freed[i].d, &off, sizeof(off));
		} else {
			struct forged_link f = { driver_secret, FORGED_DMA };

			device_write(dev, freed[i].d, &f, sizeof(f));
		}
	}
	/*
	 * Two allocations; the worst of what comes back is the verdict.  (A
	 * third would make linux-embedded follow driver_secret's contents as
	 * a pointer: the kernel would oops there.)
	 */
	for (i = 0; i < 2; i++) {
		const char *b;

		got[i].v = ops->alloc(p, &got[i].d);
		b = judge(ops, p, &got[i], live, 2, 64);
		if (!b && i && got[i].v == got[0].v)
			b = "the same block twice";
		if (b && (!bad || severity(b) > severity(bad)))
			bad = b;
	}
	note[0] = '\0';
	if (reports.n)
		snprintf(note, 64, "reported: %.50s", reports.line[0]);
	reports.n = 0;
	ops->destroy(p);
	dmapool_dev_put(dev);
	return bad;
}

static const char *double_free_outcome(const struct bl_ops *ops, char *note)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct bl_pool *p = make_pool(ops, dev);
	const char *bad = NULL;
	struct blk a, x, y;

	a.v = ops->alloc(p, &a.d);
	ops->free(p, a.v, a.d);
	ops->free(p, a.v, a.d);		/* the bug */
	x.v = ops->alloc(p, &x.d);
	y.v = ops->alloc(p, &y.d);
	if (x.v == y.v)
		bad = "the next two allocations return the same block";
	note[0] = '\0';
	if (reports.n)
		snprintf(note, 64, "reported: %.50s", reports.line[0]);
	reports.n = 0;
	if (ops == &bl_dmapool) {
		ops->free(p, x.v, x.d);
		ops->free(p, y.v, y.d);
	}
	ops->destroy(p);
	dmapool_dev_put(dev);
	return bad;
}

static const char *forged_free_outcome(const struct bl_ops *ops, char *note)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct bl_pool *p = make_pool(ops, dev);
	const char *bad = NULL;
	char before[64];
	struct blk a, x, y;

	memcpy(before, driver_secret, sizeof(before));
	a.v = ops->alloc(p, &a.d);
	/* A host bug: driver_secret's address with a pool block's dma. */
	ops->free(p, driver_secret, a.d);
	x.v = ops->alloc(p, &x.d);
	y.v = ops->alloc(p, &y.d);
	if ((void *)x.v == driver_secret || (void *)y.v == driver_secret)
		bad = "next allocation returns driver_secret";
	else if (memcmp(before, driver_secret, sizeof(before)))
		bad = "it wrote into driver_secret";
	else if (x.v == a.v || y.v == a.v)
		bad = "the block still in use is handed out again";
	memcpy(driver_secret, before, sizeof(before));
	note[0] = '\0';
	if (reports.n)
		snprintf(note, 64, "reported: %.50s", reports.line[0]);
	reports.n = 0;
	if (ops == &bl_dmapool) {
		ops->free(p, a.v, a.d);
		ops->free(p, x.v, x.d);
		ops->free(p, y.v, y.d);
	}
	ops->destroy(p);
	dmapool_dev_put(dev);
	return bad;
}

/* The matrix's short form of a verdict. */
static const char *short_form(const char *bad)
{
	static const char *const map[][2] = {
		{ "driver_secret", "returns host memory" },
		{ "memory outside the pool", "outside the pool" },
		{ "a block overlapping", "overlaps a live block" },
		{ "a dma address", "device-chosen dma" },
		{ "a misaligned block", "misaligned block" },
		{ "the same block twice", "same block twice" },
		{ "the next two allocations return the same block",
		  "same block twice" },
		{ "next allocation returns driver_secret", "returns host memory" },
		{ "it wrote into driver_secret", "writes host memory" },
		{ "the block still in use", "live block reused" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(bad, map[i][0], strlen(map[i][0])))
			return map[i][1];
	return bad;
}

static void cell(const char *bad, const char *note)
{
	if (bad)
		printf("%s%-23.22s%s", RED, short_form(bad), OFF);
	else
		printf("%s%-23s%s", GREEN, note[0] ? "safe, reported" : "safe",
		       OFF);
}

/* Append the report kind named in @note ("reported: kind: ...") once. */
static void add_kind(char *kinds, size_t size, const char *note)
{
	const char *prefix = "reported: ";
	char kind[64];

	if (strncmp(note, prefix, strlen(prefix)))
		return;
	snprintf(kind, sizeof(kind), "%.*s",
		 (int)strcspn(note + strlen(prefix), ":"), note + strlen(prefix));
	if (strstr(kinds, kind))
		return;
	snprintf(kinds + strlen(kinds), size - strlen(kinds), "%s%s",
		 kinds[0] ? ", " : "", kind);
}

static void matrix(void)
{
	static const struct bl_ops *const designs[] = {
		&bl_linux_embedded, &bl_linux_pagelist, &bl_xarray_fix,
		&bl_dmapool,
	};
	char note[128], kinds[256] = "";
	unsigned int i;

	printf("\n%s3. The same attacks on every design%s\n", BOLD, OFF);
	printf("   %-17s%-23s%-23s%-23s\n", "", "device forges a",
	       "host frees a", "host frees a wrong");
	printf("   %-17s%-23s%-23s%-23s\n", "", "freed block", "block twice",
	       "address (valid dma)");
	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		const struct bl_ops *ops = designs[i];
		const char *b;

		printf("   %-17s", ops->name);
		b = forge_outcome(ops, note);
		cell(b, note);
		if (ops == &bl_dmapool) {
			expect(!b, "dmapool failed the forged-block attack");
			add_kind(kinds, sizeof(kinds), note);
		}
		if (ops == &bl_linux_embedded)
			expect(b, "linux-embedded survived the forged link");
		b = double_free_outcome(ops, note);
		cell(b, note);
		if (ops == &bl_dmapool) {
			expect(!b && note[0], "dmapool missed a double free");
			add_kind(kinds, sizeof(kinds), note);
		}
		b = forged_free_outcome(ops, note);
		cell(b, note);
		if (ops == &bl_dmapool) {
			expect(!b && note[0], "dmapool missed a forged free");
			add_kind(kinds, sizeof(kinds), note);
		}
		putchar('\n');
	}
	printf("   dmapool's reports: %s\n", kinds);
}

int main(int argc, char **argv)
{
	bool bench = !(argc > 1 && !strcmp(argv[1], "--no-bench"));

	colour = isatty(1) && getenv("NO_COLOR") == NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%sdmapool showcase: a hostile device against a DMA pool%s\n\n", BOLD, OFF);
	printf("A driver keeps 64-byte command blocks in a DMA pool. The device can write\n"
	       "anywhere in pool memory: that is what DMA is, and an IOMMU maps whole pages\n"
	       "that stay mapped for the pool's life. After the driver frees a block, this\n"
	       "device writes 16 bytes into it: the {next, dma} pair that Linux's dma_pool\n"
	       "(v6.3 and later) keeps inside every free block, pointing at driver_secret,\n"
	       "a piece of the driver's own memory at %p.\n", (void *)driver_secret);

	probe_poison();
	printf("\n%s1. linux-embedded: the Linux v6.3+ mm/dmapool.c design%s\n", BOLD, OFF);
	device_story(&bl_linux_embedded);
	printf("\n%s2. dmapool: the same driver, the same device%s%s\n", BOLD,
	       have_poison ? " (poison checks on)" : "", OFF);
	device_story(&bl_dmapool);
	matrix();
	printf("\n   linux-pagelist is the <= v6.2 design (next-free offsets inside free blocks);\n"
	       "   xarray-fix is the Nov 2024 patch (metadata out of line, never merged).\n");

	if (bench) {
		printf("\n%s4. What it costs%s\n", BOLD, OFF);
		if (bench_quick(stdout))
			unexpected++;
		printf("   Full tables, targets, plot and method: build/bench/dmapool-bench --out DIR (docs/benchmarks.md, bench/README.md).\n");
	}
	if (unexpected)
		printf("\nshowcase: %d outcome(s) differed from what this showcase expects\n",
		       unexpected);
	return unexpected ? 1 : 0;
}
