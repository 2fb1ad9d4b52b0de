/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* Allocation flags: the bits are this shim's, the names the kernel's. */
#ifndef LX_SHIM_LINUX_GFP_H
#define LX_SHIM_LINUX_GFP_H

#include <linux/types.h>

#define __GFP_IO		0x040u
#define __GFP_FS		0x080u
#define __GFP_ZERO		0x100u
#define __GFP_NOWARN		0x200u
#define __GFP_HIGH		0x020u
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)

#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_ATOMIC	(__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_NOWAIT	__GFP_KSWAPD_RECLAIM

static inline bool gfpflags_allow_blocking(gfp_t flags)
{
	return flags & __GFP_DIRECT_RECLAIM;
}

#endif /* LX_SHIM_LINUX_GFP_H */
