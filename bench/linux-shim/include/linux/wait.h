/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
#ifndef LX_SHIM_LINUX_WAIT_H
#define LX_SHIM_LINUX_WAIT_H

#endif /* LX_SHIM_LINUX_WAIT_H */
