// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Per-thread objects for the core's per-thread caches (see dmapool/os.h).
 *
 * Every struct dp_local gets a small id; every thread that asks for an
 * object gets a table indexed by id.  The fast path (dp_os_local_get in
 * dmapool_os_impl.h) is a TLS load and a table load.  Everything else runs
 * under one mutex: creating a thread's object, draining and freeing the
 * objects of an exiting thread (a pthread key destructor), and draining and
 * freeing every object of a dp_local that is being finalized.  The mutex is
 * taken before any pool lock (drain takes the pool lock), never after.
 *
 * A table slot is written by its own thread (new object) and by fini (which
 * clears it while its thread may be reading other slots); both use atomic
 * stores, the owner an atomic load.  Only the owner grows its table, under
 * the mutex, so fini never writes into a table that is being replaced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dmapool_os_impl.h"

struct dp_local_obj {
	struct dp_local_obj *next, *prev;	/* in owner->objs */
	struct dp_local *owner;
	struct dp_local_tls **tls;		/* the thread's table pointer */
	uint64_t payload[];			/* what dp_os_local_get returns */
};

__thread struct dp_local_tls *dp_local_tls
	__attribute__((tls_model("initial-exec")));
static __thread bool thread_exiting;

static pthread_mutex_t local_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool key_ok;

/* Ids in use, one bit each; id 0 is never handed out (so a zeroed
 * dp_local is recognizably uninitialized). */
static uint64_t *id_map;
static uint32_t id_cap;

static struct dp_local_obj *obj_of(void *payload)
{
	return DP_CONTAINER_OF(payload, struct dp_local_obj, payload);
}

static void unlink_obj(struct dp_local_obj *o)
{
	if (o->prev)
		o->prev->next = o->next;
	else
		o->owner->objs = o->next;
	if (o->next)
		o->next->prev = o->prev;
}

/* The thread is exiting: give each of its objects back to its owner. */
static void thread_exit(void *arg)
{
	struct dp_local_tls *t = arg;
	uint32_t id;

	thread_exiting = true;
	pthread_mutex_lock(&local_mutex);
	for (id = 0; id < t->cap; id++) {
		void *payload = __atomic_load_n(&t->slot[id], __ATOMIC_RELAXED);
		struct dp_local_obj *o;

		if (!payload)
			continue;
		o = obj_of(payload);
		o->owner->drain(payload, o->owner->arg);
		unlink_obj(o);
		free(o);
	}
	dp_local_tls = NULL;
	pthread_mutex_unlock(&local_mutex);
	free(t);
}

static void make_key(void)
{
	key_ok = !pthread_key_create(&exit_key, thread_exit);
}

int dp_os_local_init(struct dp_local *l, size_t size,
		     void (*drain)(void *obj, void *arg), void *arg)
{
	uint32_t id;

	pthread_once(&key_once, make_key);
	if (!key_ok)
		return -EAGAIN;
	memset(l, 0, sizeof(*l));
	l->size = size;
	l->drain = drain;
	l->arg = arg;
	pthread_mutex_lock(&local_mutex);
	for (id = 1; id < id_cap; id++)
		if (!(id_map[id / 64] >> (id % 64) & 1))
			break;
	if (id >= id_cap) {
		uint32_t cap = id_cap ? id_cap * 2 : 64;
		uint64_t *map = realloc(id_map, cap / 8);

		if (!map) {
			pthread_mutex_unlock(&local_mutex);
			return -ENOMEM;
		}
		memset(map + id_cap / 64, 0, (cap - id_cap) / 8);
		id_map = map;
		id = id_cap ? id_cap : 1;
		id_cap = cap;
	}
	id_map[id / 64] |= (uint64_t)1 << (id % 64);
	l->id = id;
	pthread_mutex_unlock(&local_mutex);
	return 0;
}

/* Make this thread's table cover @id; mutex held. */
static struct dp_local_tls *table_for(uint32_t id)
{
	struct dp_local_tls *t = dp_local_tls, *n;
	uint32_t cap, i;

	if (t && id < t->cap)
		return t;
	cap = t ? t->cap : 8;
	while (cap <= id)
		cap *= 2;
	n = calloc(1, sizeof(*n) + cap * sizeof(n->slot[0]));
	if (!n)
		return NULL;
	n->cap = cap;
	for (i = 0; t && i < t->cap; i++)
		n->slot[i] = __atomic_load_n(&t->slot[i], __ATOMIC_RELAXED);
	if (pthread_setspecific(exit_key, n)) {
		free(n);
		return NULL;
	}
	/* Readers of the old table are this thread only: free it now. */
	dp_local_tls = n;
	free(t);
	return n;
}

void *dp_os_local_get_slow(struct dp_local *l)
{
	struct dp_local_tls *t;
	struct dp_local_obj *o;

	if (thread_exiting || !l->id)
		return NULL;
	pthread_mutex_lock(&local_mutex);
	t = table_for(l->id);
	o = t ? calloc(1, sizeof(*o) + l->size) : NULL;
	if (o) {
		o->owner = l;
		o->tls = &dp_local_tls;
		o->next = l->objs;
		if (l->objs)
			l->objs->prev = o;
		l->objs = o;
		__atomic_store_n(&t->slot[l->id], (void *)o->payload,
				 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&local_mutex);
	return o ? o->payload : NULL;
}

void dp_os_local_fini(struct dp_local *l)
{
	struct dp_local_obj *o, *next;

	if (!l->id)
		return;
	pthread_mutex_lock(&local_mutex);
	for (o = l->objs; o; o = next) {
		next = o->next;
		l->drain(o->payload, l->arg);
		/* The owning thread may be reading its other slots. */
		__atomic_store_n(&(*o->tls)->slot[l->id], NULL,
				 __ATOMIC_RELAXED);
		free(o);
	}
	l->objs = NULL;
	id_map[l->id / 64] &= ~((uint64_t)1 << (l->id % 64));
	l->id = 0;
	pthread_mutex_unlock(&local_mutex);
}

void dp_os_local_for_each(struct dp_local *l, void (*fn)(void *obj, void *ctx),
			  void *ctx)
{
	struct dp_local_obj *o;

	pthread_mutex_lock(&local_mutex);
	for (o = l->objs; o; o = o->next)
		fn(o->payload, ctx);
	pthread_mutex_unlock(&local_mutex);
}
