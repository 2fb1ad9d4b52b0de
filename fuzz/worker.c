// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A second thread for the harnesses, run in lock step: the harness hands
 * it one call and waits until the call returns, so exactly one thread runs
 * at any time and an input takes the same path every time it runs.  What
 * it gives the pools is a second owning context: its allocations come from
 * a heap of its own, its frees of the first thread's blocks are remote
 * frees (and the other way round), and when it exits its heaps are
 * orphaned and adopted by the next thread that needs one.  Real
 * concurrency (two frees racing on one block) is the stress tests' job;
 * this is the part of it a fuzzer can replay.
 *
 * The thread is started on first use, never before an input runs (AFL++'s
 * fork server would not carry it into its children), and lives on across
 * inputs until an input asks it to exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int dpf_ctx;

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid;
	bool running;
	bool busy;			/* a call (or the exit) is handed over */
	bool quit;
	void (*fn)(void *arg);
	void *arg;
} T = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

static void *worker(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&T.mu);
	for (;;) {
		void (*fn)(void *arg);
		void *arg;

		while (!T.busy)
			pthread_cond_wait(&T.cv, &T.mu);
		if (T.quit)
			break;
		fn = T.fn;
		arg = T.arg;
		pthread_mutex_unlock(&T.mu);
		fn(arg);
		pthread_mutex_lock(&T.mu);
		T.busy = false;
		pthread_cond_broadcast(&T.cv);
	}
	pthread_mutex_unlock(&T.mu);
	/* Returning runs the thread's exit: its heaps become orphans. */
	return NULL;
}

void dpf_in_ctx(int ctx, void (*fn)(void *arg), void *arg)
{
	int saved = dpf_ctx;

	if (!ctx) {
		fn(arg);
		return;
	}
	if (!T.running) {
		dpf_check(!pthread_create(&T.tid, NULL, worker, NULL),
			  "cannot start the second thread");
		T.running = true;
	}
	dpf_ctx = ctx;
	pthread_mutex_lock(&T.mu);
	T.fn = fn;
	T.arg = arg;
	T.quit = false;
	T.busy = true;
	pthread_cond_broadcast(&T.cv);
	while (T.busy)
		pthread_cond_wait(&T.cv, &T.mu);
	pthread_mutex_unlock(&T.mu);
	dpf_ctx = saved;
}

bool dpf_worker_exit(void)
{
	if (!T.running)
		return false;
	dpf_ctx = 1;		/* what its exit releases, it releases */
	pthread_mutex_lock(&T.mu);
	T.quit = true;
	T.busy = true;
	pthread_cond_broadcast(&T.cv);
	pthread_mutex_unlock(&T.mu);
	dpf_check(!pthread_join(T.tid, NULL), "cannot join the second thread");
	pthread_mutex_lock(&T.mu);
	T.busy = false;
	T.quit = false;
	pthread_mutex_unlock(&T.mu);
	T.running = false;
	dpf_ctx = 0;
	return true;
}
