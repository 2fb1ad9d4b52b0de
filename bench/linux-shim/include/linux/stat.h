/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
#ifndef LX_SHIM_LINUX_STAT_H
#define LX_SHIM_LINUX_STAT_H

#define S_IRUGO	0444

#endif /* LX_SHIM_LINUX_STAT_H */
