# SPDX-License-Identifier: MIT OR GPL-2.0-only
#
# Guest half of the drivers step (tests/kernel-tree/run-debug --disks puts
# it in /kt/drivers.sh; run-ci runs it): the kernel's own nvme, xhci + usb-
# storage and ehci + usb-storage drivers, built in, on QEMU's nvme,
# qemu-xhci and usb-ehci devices, each with a usb-storage or nvme disk that
# the host made empty. Their PRP/SGL lists, rings, contexts and transfer
# descriptors come from dma_pool, which in this kernel is dmapool's drop-in.
#
# First: each controller bound to its driver, in a translated IOMMU
# domain, and its disk there. For each disk then: 8 MiB of its own random
# data, the first 4 MiB written with O_DIRECT (1 MiB writes), the second
# 4 MiB through the page cache (64 KiB writes, fsync), the page cache
# dropped, all 8 MiB read back through the page cache and again with
# O_DIRECT, both compared with the data (sha256). Then each driver's pools
# (the sysfs "pools" file of its PCI device) must be there with blocks in
# them. The host compares each disk image with the sum printed here
# ("KT-DRIVERS: <disk> data sha256 ...", kt_guest_disks_check).
#
# Prints "KT-DRIVERS: <disk> round trip ok", "KT-DRIVERS: <disk> pools ok"
# for nvme, xhci and ehci and "KT-DRIVERS SUMMARY: PASS", or a line with
# FAIL and exits 1.
MB=8
failed=0
fail()
{
	echo "KT-DRIVERS: FAIL $*"
	failed=1
}

# The only dma_pool in this kernel is dmapool's: its drop-in defines the
# kernel's dma_pool_* next to dmapool_of_dma_pool(), which only it has, and
# dmapool_create() is the core's (mm/dmapool.c is not in the tree: run-ci
# checks that on the host).
for s in dma_pool_create dma_pool_alloc dma_pool_free dmapool_of_dma_pool dmapool_create; do
	line=$(grep " $s\$" /proc/kallsyms | head -1)
	[ -n "$line" ] || fail "no $s in /proc/kallsyms"
	echo "KT-DRIVERS: kallsyms: $line"
done
[ $failed = 0 ] && echo "KT-DRIVERS: dma_pool here is dmapool's drop-in"

# The PCI device a driver is bound to (one of each in this guest).
pci_of()
{
	for d in /sys/bus/pci/drivers/"$1"/0000:*; do
		[ -e "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}

# The sd disk below PCI device $1 (USB host controller -> usb-storage).
sd_below()
{
	for b in /sys/block/sd*; do
		[ -e "$b" ] || continue
		case $(readlink -f "$b") in
		*/"$1"/*) basename "$b"; return 0 ;;
		esac
	done
	return 1
}

# Wait for the three controllers and their disks: USB enumeration and the
# SCSI scan run asynchronously after boot (seconds of guest time under TCG).
nvme_pci='' xhci_pci='' ehci_pci='' nvme_dev='' xhci_dev='' ehci_dev=''
i=0
while [ $i -lt 240 ]; do
	nvme_pci=$(pci_of nvme) xhci_pci=$(pci_of xhci_hcd) ehci_pci=$(pci_of ehci-pci)
	nvme_dev='' xhci_dev='' ehci_dev=''
	[ -e /sys/block/nvme0n1 ] && nvme_dev=nvme0n1
	[ -z "$xhci_pci" ] || xhci_dev=$(sd_below "$xhci_pci")
	[ -z "$ehci_pci" ] || ehci_dev=$(sd_below "$ehci_pci")
	if [ -n "$nvme_dev" ] && [ -n "$xhci_dev" ] && [ -n "$ehci_dev" ]; then
		[ "$(cat "/sys/block/$nvme_dev/size")" -gt 0 ] &&
			[ "$(cat "/sys/block/$xhci_dev/size")" -gt 0 ] &&
			[ "$(cat "/sys/block/$ehci_dev/size")" -gt 0 ] && break
	fi
	sleep 0.5
	i=$((i + 1))
done
echo "KT-DRIVERS: nvme ${nvme_pci:-?} ${nvme_dev:-?}, xhci ${xhci_pci:-?} ${xhci_dev:-?}, ehci ${ehci_pci:-?} ${ehci_dev:-?} after $((i / 2)) s"
missing=0
for n in nvme xhci ehci; do
	eval "p=\$${n}_pci d=\$${n}_dev"
	[ -n "$p" ] || { fail "$n: no PCI device bound to its driver"; missing=1; }
	[ -n "$d" ] || { fail "$n: no disk"; missing=1; }
done
if [ $missing = 1 ]; then
	ls -l /sys/block/ /sys/bus/pci/drivers/nvme/ /sys/bus/pci/drivers/xhci_hcd/ \
		/sys/bus/pci/drivers/ehci-pci/ 2>&1
	exit 1
fi

# Each controller's DMA goes through the emulated VT-d: it is in an IOMMU
# group whose default domain translates ("DMA" or "DMA-FQ", not "identity").
for n in nvme xhci ehci; do
	eval "p=\$${n}_pci"
	g=$(readlink "/sys/bus/pci/devices/$p/iommu_group")
	t=$(cat "/sys/bus/pci/devices/$p/iommu_group/type" 2>/dev/null)
	case $t in
	DMA|DMA-FQ) echo "KT-DRIVERS: $n $p behind the VT-d: IOMMU group ${g##*/}, domain $t" ;;
	*) fail "$n: $p not translated by the IOMMU (group '${g##*/}', domain '$t')" ;;
	esac
done

# pools_total PCI NAME: the blocks (total, in use or not) of pool NAME of PCI
# device PCI, from its sysfs "pools" file (name, in use, total, size,
# chunks; names have spaces); nothing when there is no such pool.
pools_total()
{
	awk -v want="$2" 'NR > 1 && NF >= 5 {
		name = $1
		for (i = 2; i <= NF - 4; i++) name = name " " $i
		if (name == want) print $(NF - 2)
	}' "/sys/bus/pci/devices/$1/pools"
}

# prp_blocks: the blocks of both of nvme's PRP list pools (0 when none).
prp_blocks()
{
	a=$(pools_total "$nvme_pci" 'prp list 256')
	b=$(pools_total "$nvme_pci" 'prp list page')
	echo $((${a:-0} + ${b:-0}))
}

show_pools()
{
	echo "KT-DRIVERS: $1 pools ($2, $3):"
	sed 's/^/KT-DRIVERS:   /' "/sys/bus/pci/devices/$2/pools"
}

for n in nvme xhci ehci; do
	eval "p=\$${n}_pci"
	show_pools "$n" "$p" "before the round trip"
done
nvme_before=$(prp_blocks)

# round_trip NAME DEV: the data written, the cache dropped, read back twice.
round_trip()
{
	name=$1 dev=/dev/$2 src=/tmp/kt-drivers-$1.src
	dd if=/dev/urandom of="$src" bs=1M count=$MB 2>/dev/null ||
		{ fail "$name: no random data"; return; }
	[ "$(wc -c <"$src")" = $((MB * 1048576)) ] || { fail "$name: short random data"; return; }
	want=$(sha256sum <"$src" | cut -d' ' -f1)
	echo "KT-DRIVERS: $name data sha256 $want bytes $((MB * 1048576))"
	half=$((MB / 2))
	dd if="$src" of="$dev" bs=1M count=$half oflag=direct conv=notrunc 2>/dev/null ||
		{ fail "$name: O_DIRECT write to $dev"; return; }
	dd if="$src" of="$dev" bs=64k skip=$((half * 16)) seek=$((half * 16)) \
		count=$((half * 16)) conv=notrunc,fsync 2>/dev/null ||
		{ fail "$name: buffered write to $dev"; return; }
	sync
	echo 3 >/proc/sys/vm/drop_caches
	got=$(dd if="$dev" bs=1M count=$MB 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		{ fail "$name: read back through the page cache: sha256 $got, want $want"; return; }
	got=$(dd if="$dev" bs=1M count=$MB iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		{ fail "$name: read back with O_DIRECT: sha256 $got, want $want"; return; }
	rm -f "$src"
	echo "KT-DRIVERS: $name round trip ok ($dev, $MB MiB: O_DIRECT + buffered write, drop_caches, buffered + O_DIRECT read)"
}

# nvme: behind the VT-d, dma_map_sg() maps a request's pages into one IOVA
# range, one DMA segment, and with QEMU's nvme supporting SGLs the driver
# then puts a single SGL entry in the command and takes nothing from its
# pools. With sgl_threshold=0 it uses PRPs: a request of more than two pages
# needs a PRP list from "prp list 256" (up to 32 entries, 128 KiB: the
# largest request here, dma_opt_mapping_size() under the IOMMU) or "prp list
# page" (larger ones).
sgl=/sys/module/nvme/parameters/sgl_threshold
sgl_was=$(cat "$sgl") || fail "nvme: no $sgl"
echo 0 >"$sgl" || fail "nvme: cannot set $sgl"
echo "KT-DRIVERS: nvme sgl_threshold $sgl_was -> $(cat "$sgl"), max request $(cat "/sys/block/$nvme_dev/queue/max_sectors_kb") KiB"
round_trip nvme "$nvme_dev"
echo "$sgl_was" >"$sgl"
round_trip xhci "$xhci_dev"
round_trip ehci "$ehci_dev"

# need_pool NAME PCI POOL: that pool exists and has blocks.
need_pool()
{
	t=$(pools_total "$2" "$3")
	if [ -z "$t" ]; then
		fail "$1: no pool '$3' in /sys/bus/pci/devices/$2/pools"
		return 1
	fi
	[ "$t" -gt 0 ] || { fail "$1: pool '$3' has no blocks"; return 1; }
	return 0
}

ok=1
need_pool nvme "$nvme_pci" 'prp list 256' || ok=0
[ -n "$(pools_total "$nvme_pci" 'prp list page')" ] ||
	{ fail "nvme: no pool 'prp list page'"; ok=0; }
nvme_after=$(prp_blocks)
[ "$nvme_after" -gt "$nvme_before" ] ||
	{ fail "nvme: PRP list pools did not grow ($nvme_before -> $nvme_after blocks)"; ok=0; }
show_pools nvme "$nvme_pci" "after the round trip"
[ $ok = 0 ] || echo "KT-DRIVERS: nvme pools ok (PRP list blocks $nvme_before -> $nvme_after)"
ok=1
need_pool xhci "$xhci_pci" 'xHCI ring segments' || ok=0
need_pool xhci "$xhci_pci" 'xHCI input/output contexts' || ok=0
show_pools xhci "$xhci_pci" "after the round trip"
[ $ok = 0 ] || echo "KT-DRIVERS: xhci pools ok"
ok=1
need_pool ehci "$ehci_pci" 'ehci_qh' || ok=0
need_pool ehci "$ehci_pci" 'ehci_qtd' || ok=0
show_pools ehci "$ehci_pci" "after the round trip"
[ $ok = 0 ] || echo "KT-DRIVERS: ehci pools ok"

[ $failed = 0 ] || exit 1
echo "KT-DRIVERS SUMMARY: PASS"
