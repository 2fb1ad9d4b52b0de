/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
#ifndef LX_SHIM_LINUX_COMPILER_H
#define LX_SHIM_LINUX_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define noinline	__attribute__((__noinline__))
#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))
#define __stringify_1(x)	#x
#define __stringify(x)	__stringify_1(x)

#endif /* LX_SHIM_LINUX_COMPILER_H */
