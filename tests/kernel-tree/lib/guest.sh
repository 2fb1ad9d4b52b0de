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

# kt_guest_boot BZIMAGE INITRD LOG TIMEOUT [APPEND [QEMU_ARG...]]
# The one QEMU setup of these tests: TCG, q35 with an emulated VT-d
# (intel_iommu=on) and the edu DMA device, 2 CPUs, 1 GiB
# ($DMAPOOL_KTREE_GUEST_MB), console loglevel 7 from the first line on so
# that every warning reaches the log, lockdep's included (lib.sh's default
# "quiet loglevel=4" would hide pr_warn until /init raises the level).
# QEMU_ARGs go to QEMU as they are (e.g. kt_guest_disks' devices).
# Returns QEMU's status.
kt_guest_boot()
{
	local img=$1 initrd=$2 log=$3 timeout=$4 append=${5:-} a
	local -a extra=()
	[ -z "$append" ] || extra=(--append "$append")
	shift $(($# < 5 ? $# : 5))
	for a in "$@"; do extra+=(--qemu-arg "$a"); done
	qemu_boot --kernel "$img" --initrd "$initrd" --log "$log" \
		--timeout "$timeout" --iommu --edu --smp 2 \
		--mem "${DMAPOOL_KTREE_GUEST_MB:-1024}" --loglevel 7 \
		${extra[@]+"${extra[@]}"}
}

# --- the drivers step's disks (run-debug --disks, drivers/drivers.sh) ---------
# kt_guest_disks DIR: three empty 32 MiB raw images in DIR and, in the
# array KT_DISK_ARGS, the QEMU devices that carry them: an nvme controller
# with nvme.img, a qemu-xhci controller with a usb-storage disk (xhci.img)
# and a usb-ehci controller with another (ehci.img), all on q35's PCI bus,
# so behind the emulated VT-d like edu.
kt_guest_disks()
{
	local dir=$1 n
	KT_DISK_ARGS=()
	for n in nvme xhci ehci; do
		rm -f "$dir/$n.img"
		truncate -s 32M "$dir/$n.img" || kt_die "cannot create $dir/$n.img"
		KT_DISK_ARGS+=(-drive "file=$dir/$n.img,if=none,id=kt-$n,format=raw")
	done
	KT_DISK_ARGS+=(-device 'nvme,drive=kt-nvme,serial=kt-nvme-0'
		-device 'qemu-xhci,id=kt-xhci'
		-device 'usb-storage,bus=kt-xhci.0,drive=kt-xhci,serial=kt-xhci-0'
		-device 'usb-ehci,id=kt-ehci'
		-device 'usb-storage,bus=kt-ehci.0,drive=kt-ehci,serial=kt-ehci-0')
}

# kt_guest_disks_check LOG DIR: after the boot, each image in DIR must begin
# with the data the guest wrote to its disk ("KT-DRIVERS: <disk> data
# sha256 <sum> bytes <n>" in LOG): what the guest read back came from the
# device, not from a cache of its own. Prints one line per disk; returns 1
# on a mismatch or a missing line.
kt_guest_disks_check()
{
	local log=$1 dir=$2 n line sum bytes got rc=0
	for n in nvme xhci ehci; do
		line=$(grep -o "KT-DRIVERS: $n data sha256 [0-9a-f]* bytes [0-9]*" "$log" | tail -1)
		if [ -z "$line" ]; then
			kt_log "drivers: no data line for $n in $log"
			rc=1
			continue
		fi
		read -r _ _ _ _ sum _ bytes <<<"$line"
		got=$(head -c "$bytes" "$dir/$n.img" | sha256sum | cut -d' ' -f1)
		if [ "$got" = "$sum" ]; then
			kt_log "drivers: $n.img holds the guest's $bytes bytes (sha256 $sum)"
		else
			kt_log "drivers: $n.img: sha256 $got of its first $bytes bytes, the guest wrote $sum"
			rc=1
		fi
	done
	return $rc
}
