/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
#ifndef LX_SHIM_LINUX_STRING_H
#define LX_SHIM_LINUX_STRING_H

#include <linux/types.h>

#define memset(s, c, n)	__builtin_memset(s, c, n)
#define memcpy(d, s, n)	__builtin_memcpy(d, s, n)

/* Copy with truncation; always terminated; -E2BIG when it truncated. */
ssize_t strscpy(char *dst, const char *src, size_t size);

#endif /* LX_SHIM_LINUX_STRING_H */
