/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* Arithmetic helpers, WARN_ON and the printk level the pool uses. */
#ifndef LX_SHIM_LINUX_KERNEL_H
#define LX_SHIM_LINUX_KERNEL_H

#include <linux/compiler.h>
#include <linux/types.h>

#define INT_MAX		((int)(~0u >> 1))

/* x rounded up to a multiple of a (a power of two). */
#define ALIGN(x, a)	(((x) + ((__typeof__(x))(a) - 1)) & \
			 ~((__typeof__(x))(a) - 1))

#define max_t(type, a, b) ({			\
	type __lx_a = (a), __lx_b = (b);	\
	__lx_a > __lx_b ? __lx_a : __lx_b; })
#define min_t(type, a, b) ({			\
	type __lx_a = (a), __lx_b = (b);	\
	__lx_a < __lx_b ? __lx_a : __lx_b; })
#define min(a, b)	min_t(__typeof__((a) + (b)), a, b)
#define max(a, b)	max_t(__typeof__((a) + (b)), a, b)

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Out of line (bench/linux-shim/kernel.c): one line on stderr. */
__printf(1, 2) void lx_printk(const char *fmt, ...);
void lx_warn(const char *file, int line);

#define pr_err(fmt, ...)	lx_printk("linux-6.12: " fmt, ##__VA_ARGS__)

#define WARN_ON(cond) ({				\
	int __lx_c = !!(cond);				\
	if (unlikely(__lx_c))				\
		lx_warn(__FILE__, __LINE__);		\
	unlikely(__lx_c); })

#endif /* LX_SHIM_LINUX_KERNEL_H */
