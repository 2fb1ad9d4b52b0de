// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Owners: which heap of a pool belongs to the calling thread (dmapool/os.h).
 *
 * Every struct dp_owners (one per pool) gets a slot number; a thread keeps
 * its heap pointers in a table indexed by slot: the first DP_OWNER_FAST in a
 * fixed initial-exec TLS array (the allocation fast path is one load), the
 * rest in a per-thread overflow array.  A thread's token is its thread
 * pointer: even, and unique among the threads alive (a new thread may get
 * an exited one's: its heaps were orphaned first).
 *
 * Everything but the fast lookup runs under one mutex: installing a heap,
 * the exit of a thread (a pthread key destructor hands each of its heaps to
 * the pool's exit callback, which orphans it, then forgets the thread), and
 * a pool's fini (clears the slot in every thread).  The mutex is taken
 * before any pool lock, never after.  A slot is written by its own thread
 * (install) and by fini (clear) with atomic stores; its thread reads it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dmapool_os_impl.h"

/* Every slot starts without a heap (a thread's copy of this image). */
__thread void *dp_owner_tls[DP_OWNER_FAST]
	__attribute__((tls_model("initial-exec"))) = {
	[0 ... DP_OWNER_FAST - 1] = DP_NO_HEAP
};

/* A thread that installed a heap. */
struct owner_thread {
	struct owner_thread *next, *prev;	/* all such threads */
	void **fast;				/* its dp_owner_tls */
	void **over;				/* slots >= DP_OWNER_FAST */
	uint32_t over_cap;
};

static __thread struct owner_thread *me;
static __thread bool exiting;

static pthread_mutex_t owners_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool key_ok;
static struct owner_thread *threads;

/* Slots in use: slot_owner[slot] (slot 0 is never handed out). */
static struct dp_owners **slot_owner;
static uint32_t slot_cap;

static void **slot_ref(struct owner_thread *t, uint32_t slot)
{
	if (slot < DP_OWNER_FAST)
		return &t->fast[slot];
	if (slot - DP_OWNER_FAST < t->over_cap)
		return &t->over[slot - DP_OWNER_FAST];
	return NULL;
}

/* What slot @slot of a thread holds when it has no heap there. */
static void *no_heap(uint32_t slot)
{
	return slot < DP_OWNER_FAST ? DP_NO_HEAP : NULL;
}

static void thread_exit(void *arg)
{
	struct owner_thread *t = arg;
	uint32_t slot;

	pthread_mutex_lock(&owners_mutex);
	exiting = true;
	for (slot = 1; slot < slot_cap; slot++) {
		void **ref = slot_ref(t, slot);
		void *heap = ref ? __atomic_load_n(ref, __ATOMIC_RELAXED) : NULL;

		if (!heap || heap == DP_NO_HEAP || !slot_owner[slot])
			continue;
		__atomic_store_n(ref, no_heap(slot), __ATOMIC_RELAXED);
		slot_owner[slot]->exit(heap, slot_owner[slot]->arg);
	}
	if (t->prev)
		t->prev->next = t->next;
	else
		threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	me = NULL;
	pthread_mutex_unlock(&owners_mutex);
	free(t->over);
	free(t);
}

static void make_key(void)
{
	key_ok = !pthread_key_create(&exit_key, thread_exit);
}

int dp_owners_init(struct dp_owners *o, void (*exit)(void *heap, void *arg),
		   void *arg)
{
	uint32_t slot;

	pthread_once(&key_once, make_key);
	if (!key_ok)
		return -EAGAIN;
	memset(o, 0, sizeof(*o));
	o->exit = exit;
	o->arg = arg;
	pthread_mutex_lock(&owners_mutex);
	for (slot = 1; slot < slot_cap && slot_owner[slot]; slot++)
		;
	if (slot >= slot_cap) {
		uint32_t cap = slot_cap ? slot_cap * 2 : DP_OWNER_FAST;
		struct dp_owners **n = realloc(slot_owner, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&owners_mutex);
			return -ENOMEM;
		}
		memset(n + slot_cap, 0, (cap - slot_cap) * sizeof(*n));
		slot_owner = n;
		slot = slot_cap ? slot_cap : 1;
		slot_cap = cap;
	}
	slot_owner[slot] = o;
	o->slot = slot;
	o->fast = slot < DP_OWNER_FAST ? slot : 0;
	pthread_mutex_unlock(&owners_mutex);
	return 0;
}

void dp_owners_fini(struct dp_owners *o)
{
	struct owner_thread *t;

	if (!o->slot)
		return;
	pthread_mutex_lock(&owners_mutex);
	for (t = threads; t; t = t->next) {
		void **ref = slot_ref(t, o->slot);

		if (ref)
			__atomic_store_n(ref, no_heap(o->slot),
					 __ATOMIC_RELAXED);
	}
	slot_owner[o->slot] = NULL;
	o->slot = 0;
	o->fast = 0;
	pthread_mutex_unlock(&owners_mutex);
}

void *dp_owner_heap_slow(struct dp_owners *o)
{
	void **ref;

	if (o->slot < DP_OWNER_FAST || !me)
		return NULL;
	ref = slot_ref(me, o->slot);
	return ref ? __atomic_load_n(ref, __ATOMIC_RELAXED) : NULL;
}

/* This thread's record, made on its first heap; mutex held. */
static struct owner_thread *this_thread(void)
{
	struct owner_thread *t = me;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (pthread_setspecific(exit_key, t)) {
		free(t);
		return NULL;
	}
	t->fast = dp_owner_tls;
	t->next = threads;
	if (threads)
		threads->prev = t;
	threads = t;
	me = t;
	return t;
}

uintptr_t dp_owner_set_heap(struct dp_owners *o, void *heap)
{
	struct owner_thread *t;
	uintptr_t tok = 0;
	void **ref;

	pthread_mutex_lock(&owners_mutex);
	if (exiting || !o->slot)
		goto out;
	t = this_thread();
	if (!t)
		goto out;
	ref = slot_ref(t, o->slot);
	if (!ref) {
		uint32_t cap = t->over_cap ? t->over_cap : 16;
		void **n;

		while (cap <= o->slot - DP_OWNER_FAST)
			cap *= 2;
		n = realloc(t->over, cap * sizeof(*n));
		if (!n)
			goto out;
		memset(n + t->over_cap, 0, (cap - t->over_cap) * sizeof(*n));
		t->over = n;
		t->over_cap = cap;
		ref = slot_ref(t, o->slot);
	}
	__atomic_store_n(ref, heap, __ATOMIC_RELAXED);
	tok = (uintptr_t)__builtin_thread_pointer();
out:
	pthread_mutex_unlock(&owners_mutex);
	return tok;
}
