/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* The pool's debug fill bytes (used only with CONFIG_SLUB_DEBUG_ON). */
#ifndef LX_SHIM_LINUX_POISON_H
#define LX_SHIM_LINUX_POISON_H

#define POOL_POISON_FREED	0xa7
#define POOL_POISON_ALLOCATED	0xa9

#endif /* LX_SHIM_LINUX_POISON_H */
