/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
#ifndef LX_SHIM_LINUX_SCHED_H
#define LX_SHIM_LINUX_SCHED_H

#include <linux/types.h>

#endif /* LX_SHIM_LINUX_SCHED_H */
