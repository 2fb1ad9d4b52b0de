# SPDX-License-Identifier: MIT OR GPL-2.0-only
#
# Switch a driver from the kernel's dma_pool to dmapool without touching its
# code.  In the driver's Kbuild:
#
#	DMAPOOL_DROPIN_ROOT := /path/to/dmapool
#	include $(DMAPOOL_DROPIN_ROOT)/compat/kernel/dropin.mk
#
# and build it against dmapool.ko's symbols:
#
#	make -C <kdir> M=$PWD \
#		KBUILD_EXTRA_SYMBOLS=<out>/dmapool/Module.symvers modules
#
# (<out> as given to compat/kernel/build-module).  Every object of the
# directory is compiled with <dmapool/dma_pool.h> forced in, which maps
# dma_pool_create/_alloc/_zalloc/_free/_destroy and dmam_pool_create/_destroy
# onto dmapool; the module then depends on dmapool.ko.  To switch only some
# objects, list them before the include:
#
#	DMAPOOL_DROPIN_OBJECTS := foo_main.o foo_ring.o

ifeq ($(DMAPOOL_DROPIN_ROOT),)
$(error set DMAPOOL_DROPIN_ROOT to the dmapool source tree before including dropin.mk)
endif

DMAPOOL_DROPIN_CFLAGS := \
	-include $(DMAPOOL_DROPIN_ROOT)/compat/kernel/include/dmapool/dma_pool.h
ccflags-y += -I$(DMAPOOL_DROPIN_ROOT)/dmapool/include \
	     -I$(DMAPOOL_DROPIN_ROOT)/compat/kernel/include
ifeq ($(DMAPOOL_DROPIN_OBJECTS),)
ccflags-y += $(DMAPOOL_DROPIN_CFLAGS)
else
$(foreach o,$(DMAPOOL_DROPIN_OBJECTS),$(eval CFLAGS_$(o) += $(DMAPOOL_DROPIN_CFLAGS)))
endif
