# SPDX-License-Identifier: MIT OR GPL-2.0-only
# shellcheck shell=bash
#
# Guest side of tests/kernel-tree: what is specific to booting our own
# kernels, on top of tests/qemu/lib.sh (busybox initramfs, the
# one-QEMU-at-a-time lock, the boot under a timeout). Sourced after
# lib/common.sh. The console checker (check-console) stays apart because its
# patterns are debug-kernel ones.
#
# The console log uses lib.sh's markers: "QEMU-CMD: " (the host's command
# line), "QEMU-INIT: start", "QEMU-INIT: test script exit status <n>", and
# "QEMU-LIB: " when QEMU timed out or failed.

# shellcheck source=../../qemu/lib.sh
. "$KT_HERE/../qemu/lib.sh"

# kt_guest_initramfs OUT BUILD_DIR BODY [qemu_initramfs options...]
#   OUT        the .cpio.gz to write
#   BUILD_DIR  a build-kernel build dir: its modroot/ gives the modules
#   BODY       the sh script /init runs
#   options    --modprobe NAME (a module of that kernel, with its
#              dependencies), --ko FILE, --file SRC[:DEST]
kt_guest_initramfs()
{
	local out=$1 bdir=$2 body=$3 release
	shift 3
	release=$(cat "$bdir/include/config/kernel.release") ||
		kt_die "no kernel.release in $bdir"
	[ -d "$bdir/modroot/lib/modules/$release" ] ||
		kt_die "no modules at $bdir/modroot/lib/modules/$release"
	qemu_initramfs "$out" --init "$body" --kver "$release" \
		--modroot "$bdir/modroot" "$@"
}

# kt_guest_boot BZIMAGE INITRD LOG TIMEOUT [APPEND]
# The one QEMU setup of these tests: TCG, q35 with an emulated VT-d
# (intel_iommu=on) and the edu DMA device, 2 CPUs, 1 GiB
# ($DMAPOOL_KTREE_GUEST_MB), console loglevel 7 from the first line on so
# that every warning reaches the log, lockdep's included (lib.sh's default
# "quiet loglevel=4" would hide pr_warn until /init raises the level).
# Returns QEMU's status.
kt_guest_boot()
{
	local img=$1 initrd=$2 log=$3 timeout=$4 append=${5:-}
	local -a extra=()
	[ -z "$append" ] || extra=(--append "$append")
	qemu_boot --kernel "$img" --initrd "$initrd" --log "$log" \
		--timeout "$timeout" --iommu --edu --smp 2 \
		--mem "${DMAPOOL_KTREE_GUEST_MB:-1024}" --loglevel 7 \
		${extra[@]+"${extra[@]}"}
}
