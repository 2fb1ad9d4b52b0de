/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* A sleeping lock; only pool create and destroy take one. */
#ifndef LX_SHIM_LINUX_MUTEX_H
#define LX_SHIM_LINUX_MUTEX_H

struct mutex {
	int locked;
};

#define DEFINE_MUTEX(name)	struct mutex name = { 0 }

void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

#endif /* LX_SHIM_LINUX_MUTEX_H */
