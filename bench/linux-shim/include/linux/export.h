/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* Nothing to export in userspace: a redeclaration that eats the ';'. */
#ifndef LX_SHIM_LINUX_EXPORT_H
#define LX_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)	extern __typeof__(sym) sym
#define EXPORT_SYMBOL_GPL(sym)	EXPORT_SYMBOL(sym)

#endif /* LX_SHIM_LINUX_EXPORT_H */
