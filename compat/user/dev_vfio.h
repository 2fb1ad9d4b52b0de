/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dev_vfio.h - library-internal entry of the VFIO backend: the same as
 * dmapool_dev_vfio_create() with the ioctl function supplied, so tests can
 * run the backend's logic against a fake container (no device needed).
 */
#ifndef DMAPOOL_COMPAT_USER_DEV_VFIO_H
#define DMAPOOL_COMPAT_USER_DEV_VFIO_H

#include <stdbool.h>

#include <dmapool/dmapool.h>

#include "vfio_type1.h"

/* @own_fd: close cfg->container_fd when the dev goes. */
int dp_dev_vfio_create_io(const struct dmapool_vfio_cfg *cfg,
			  dp_vfio_ioctl_fn io, bool own_fd,
			  struct dmapool_dev **devp);

#endif /* DMAPOOL_COMPAT_USER_DEV_VFIO_H */
