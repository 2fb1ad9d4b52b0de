/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* Shared between the kernel shim's files; not for users. */
#ifndef DMAPOOL_KERNEL_PRIV_H
#define DMAPOOL_KERNEL_PRIV_H

#include <dmapool/kernel.h>

/*
 * Wait for host frees deferred out of atomic context and the grace-period
 * kick (module unload).
 */
void dp_kernel_flush_deferred(void);

#endif
