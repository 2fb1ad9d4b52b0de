# SPDX-License-Identifier: MIT OR GPL-2.0-only
#
# tests/qemu/lib.sh - shared helpers for every QEMU-based dmapool test.
#
# Source it from bash:   . "$(dirname "$0")/../qemu/lib.sh"
# Every function fails loudly: on error it prints "qemu-lib: ERROR: ..." on
# stderr and exits the calling script with status 1 (these are test scripts;
# there is no silent skip, a missing tool is an error). Inside a command
# substitution that exit only leaves the subshell: write
# "v=$(qemu_kver 6.12) || exit 1" (or run under set -e).
#
# Interface (KERNEL below is "6.12", "6.1", a full version found under
# /lib/modules, or - where noted - a path):
#
#   qemu_kver SPEC
#	Print the full kernel version for SPEC ("6.12" -> 6.12.117+deb12-amd64)
#	by listing /lib/modules/*-amd64 (never uname -r). Exact names pass.
#
#   qemu_build_module SRC_DIR KERNEL OUT_DIR [EXTRA_FILE...]
#	Copy SRC_DIR (Kbuild/Makefile + sources) and the EXTRA_FILEs into a
#	fresh build dir OUT_DIR/build-<name>, build it with
#	"make -C <kdir> M=<build dir> modules" and copy the resulting .ko files
#	to OUT_DIR; prints their paths, one a line. KERNEL is a version SPEC
#	(uses /lib/modules/<ver>/build) or the path of a kernel build dir
#	(a self-built tree, "make O=<dir>"). Nothing is written to SRC_DIR.
#
#   qemu_initramfs OUT.cpio.gz [options]
#	Build a busybox initramfs (gzip'd newc cpio). Its /init mounts
#	proc/sys/devtmpfs/tmpfs, prints "QEMU-INIT: start", raises the console
#	log level to 7 (pr_info reaches the log), runs the test body with sh,
#	prints "QEMU-INIT: test script exit status <n>" and powers off.
#	  --init FILE         test body (sh script) run as /test.sh    (required)
#	  --ko FILE           a .ko to put in /ko/ (repeatable; the body insmods)
#	  --file SRC[:DEST]   extra file, DEST an absolute guest path
#	                      (default /bin/<basename>) (repeatable)
#	  --modprobe NAME     a module of KERNEL, copied with its dependencies
#	                      (modprobe --show-depends) into /lib/modules/<ver>
#	                      and depmod'ed, so "modprobe NAME" works in the
#	                      guest (repeatable; needs --kver)
#	  --kver SPEC         kernel version the --modprobe modules are for
#	  --modroot DIR       root holding lib/modules/<ver> (default /; for a
#	                      self-built kernel: its INSTALL_MOD_PATH)
#
#   qemu_boot [options]
#	Boot qemu-system-x86_64 -accel tcg,thread=multi -nographic -no-reboot,
#	console to a log file, under a timeout. Only one QEMU of this library
#	runs at a time on the machine (flock on $QEMU_LOCK). Returns QEMU's
#	status; on a timeout or an abnormal exit it appends a "QEMU-LIB: ..."
#	line to the log (which qemu_check_log treats as a failure) and returns
#	nonzero.
#	  --kernel SPEC|PATH  a version SPEC (/boot/vmlinuz-<ver>) or a bzImage
#	  --initrd FILE       initramfs                                 (required)
#	  --log FILE          console log                               (required)
#	  --timeout SEC       default 120
#	  --iommu             -machine q35 -device intel-iommu, intel_iommu=on
#	  --edu               -device edu (QEMU's DMA test device, 1234:11e8)
#	  --machine M         default: q35 with --iommu, QEMU's default otherwise
#	  --mem MB            default 512        --smp N   default 2
#	  --append STR        extra kernel command line
#	  --loglevel N        console loglevel N from the first line on, not
#	                      "quiet loglevel=4" (which hides pr_warn, e.g.
#	                      lockdep's reports, until /init raises it)
#	  --qemu-arg ARG      extra QEMU argument (repeatable)
#
#   qemu_check_log LOG [options]
#	Fail (return 1, print the offending lines and the log's tail) unless
#	every marker is present and no line matches a failure pattern:
#	FAIL, Oops, BUG:, Kernel panic, Call Trace, WARNING:, QEMU-LIB: (timeout
#	or abnormal exit), and - when the log comes from qemu_initramfs's init -
#	a missing or nonzero "QEMU-INIT: test script exit status".
#	  --marker STR        fixed string that must appear (repeatable)
#	  --ignore-warnings   do not fail on WARNING: / Call Trace
#	  --allow ERE         lines matching ERE (awk, unanchored) never count
#	                      as failures (repeatable)
#	  --forbid ERE        an extra failure pattern (repeatable)
#	Returns 0 on success (and prints one "PASS" line), 1 on failure.
#
#   qemu_die MSG...       print an error and exit 1
#   qemu_need TOOL...     fail unless every TOOL is on PATH
#
# Environment: QEMU_LOCK (default /tmp/dmapool-qemu.lock), QEMU_JOBS (make
# -j, default 2), QEMU_VERBOSE=1 (copy the console to stderr as well),
# QEMU_BIN (default qemu-system-x86_64), QEMU_BUSYBOX (default /bin/busybox).

qemu_die()
{
	echo "qemu-lib: ERROR: $*" >&2
	exit 1
}

qemu_log()
{
	echo "qemu-lib: $*" >&2
}

qemu_need()
{
	local t

	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			qemu_die "required tool '$t' not found on PATH (install it; tests never skip)"
	done
}

# Version spec -> full version under /lib/modules.
qemu_kver()
{
	local spec=$1 d match=""

	[ -n "$spec" ] || qemu_die "qemu_kver: missing version (6.12, 6.1 or a full version)"
	if [ -d "/lib/modules/$spec" ]; then
		echo "$spec"
		return 0
	fi
	for d in /lib/modules/"$spec".*-amd64 /lib/modules/"$spec"-*-amd64; do
		[ -d "$d" ] || continue
		match="$match${match:+
}${d##*/}"
	done
	[ -n "$match" ] ||
		qemu_die "qemu_kver: no kernel '$spec' under /lib/modules (have: $(cd /lib/modules && echo *-amd64))"
	# Several builds of one series: take the newest.
	printf '%s\n' "$match" | sort -uV | tail -n1
}

# KERNEL spec or path -> kernel build dir for M= builds.
qemu__kdir()
{
	local k=$1 v

	case $k in
	*/*)
		[ -f "$k/Makefile" ] ||
			qemu_die "kernel build dir '$k' has no Makefile"
		echo "$k"
		;;
	*)
		v=$(qemu_kver "$k") || exit 1
		[ -f "/lib/modules/$v/build/Makefile" ] ||
			qemu_die "no kernel headers for $v: /lib/modules/$v/build/Makefile missing (install linux-headers-$v)"
		echo "/lib/modules/$v/build"
		;;
	esac
}

qemu_build_module()
{
	local src=$1 kernel=$2 out=$3 kdir name bdir log f ko n=0

	[ $# -ge 3 ] || qemu_die "usage: qemu_build_module SRC_DIR KERNEL OUT_DIR [EXTRA_FILE...]"
	shift 3
	qemu_need make gcc
	[ -d "$src" ] || qemu_die "module source dir '$src' not found"
	[ -f "$src/Kbuild" ] || [ -f "$src/Makefile" ] ||
		qemu_die "module source dir '$src' has neither Kbuild nor Makefile"
	kdir=$(qemu__kdir "$kernel") || exit 1
	mkdir -p "$out" || qemu_die "cannot create '$out'"
	out=$(cd "$out" && pwd)
	src=$(cd "$src" && pwd)
	case "$out/" in
	"$src"/*) qemu_die "OUT_DIR '$out' is inside the source dir '$src'" ;;
	esac
	name=${src##*/}
	bdir=$out/build-$name
	log=$out/build-$name.log
	rm -rf "$bdir"
	mkdir -p "$bdir" || qemu_die "cannot create '$bdir'"
	# Copy sources only: never build in (or leave objects in) the repo.
	for f in "$src"/* "$@"; do
		[ -e "$f" ] || qemu_die "module file '$f' not found"
		case $f in
		*.o | *.ko | *.mod | *.mod.c | *.cmd) continue ;;
		esac
		cp -a "$f" "$bdir/" || qemu_die "cannot copy '$f' to '$bdir'"
	done
	if ! make -C "$kdir" M="$bdir" -j"${QEMU_JOBS:-2}" modules >"$log" 2>&1; then
		echo "qemu-lib: module build failed ($src against $kdir); last lines of $log:" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
	for ko in "$bdir"/*.ko; do
		[ -f "$ko" ] || continue
		cp "$ko" "$out/" || qemu_die "cannot copy '$ko'"
		echo "$out/${ko##*/}"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || qemu_die "module build of '$src' produced no .ko (see $log)"
}

# Copy one module (possibly compressed) of version $2 from root $3 into the
# staging tree $1, decompressed, at the same relative path.
qemu__stage_module()
{
	local stage=$1 ver=$2 root=$3 path=$4 rel dst

	# modprobe -d / prints "//lib/...": squeeze slashes on both sides.
	path=$(printf '%s' "$path" | tr -s /)
	root=$(printf '%s' "$root" | tr -s /)
	root=${root%/}
	case $path in
	"$root"/lib/modules/"$ver"/* | /lib/modules/"$ver"/*) ;;
	*) qemu_die "module path '$path' is not under lib/modules/$ver" ;;
	esac
	rel=${path#"$root"}
	rel=${rel#/}
	rel=${rel#lib/modules/"$ver"/}
	dst=$stage/lib/modules/$ver/$rel
	mkdir -p "${dst%/*}"
	case $path in
	*.ko.xz) qemu_need xz; xz -dc "$path" >"${dst%.xz}" ;;
	*.ko.gz) gzip -dc "$path" >"${dst%.gz}" ;;
	*.ko.zst) qemu_need zstd; zstd -qdc "$path" >"${dst%.zst}" ;;
	*.ko) cp "$path" "$dst" ;;
	*) qemu_die "unknown module file type '$path'" ;;
	esac || qemu_die "cannot stage module '$path'"
}

qemu_initramfs()
{
	local out=$1 init="" kver="" modroot=/ stage f src dst line path m
	local -a kos=() files=() mods=()

	[ -n "$out" ] || qemu_die "usage: qemu_initramfs OUT.cpio.gz --init FILE [...]"
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--init) init=$2; shift 2 ;;
		--ko) kos+=("$2"); shift 2 ;;
		--file) files+=("$2"); shift 2 ;;
		--modprobe) mods+=("$2"); shift 2 ;;
		--kver) kver=$2; shift 2 ;;
		--modroot) modroot=$2; shift 2 ;;
		*) qemu_die "qemu_initramfs: unknown option '$1'" ;;
		esac
	done
	qemu_need cpio gzip find sort
	[ -f "$init" ] || qemu_die "qemu_initramfs: --init FILE missing or not found ('$init')"
	local bb=${QEMU_BUSYBOX:-/bin/busybox}
	[ -x "$bb" ] || qemu_die "busybox not found at $bb (install busybox-static)"
	qemu_need readelf
	if readelf -l "$bb" 2>/dev/null | grep -q INTERP; then
		qemu_die "$bb is dynamically linked; need busybox-static"
	fi

	# Staged next to the output: a failed build leaves it for inspection
	# where the caller keeps its outputs, never in the shared /tmp.
	mkdir -p "$(dirname "$out")" || qemu_die "cannot create $(dirname "$out")"
	stage=$out.stage
	rm -rf "$stage"
	mkdir -p "$stage" || qemu_die "cannot create $stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,ko,etc}
	cp "$bb" "$stage/bin/busybox" || qemu_die "cannot copy busybox"
	# The kernel opens /dev/console before init; create it when we can
	# (root), otherwise /init reopens the console after mounting devtmpfs.
	if [ "$(id -u)" = 0 ]; then
		mknod "$stage/dev/console" c 5 1 2>/dev/null || true
	fi

	cat >"$stage/init" <<'EOF'
#!/bin/busybox sh
# SPDX-License-Identifier: MIT OR GPL-2.0-only
# generated by tests/qemu/lib.sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
dmesg -n 7
echo
echo "QEMU-INIT: start $(uname -r)"
sh /test.sh
echo "QEMU-INIT: test script exit status $?"
sync
poweroff -f
EOF
	chmod 755 "$stage/init"
	cp "$init" "$stage/test.sh" || qemu_die "cannot copy '$init'"

	for f in "${kos[@]}"; do
		[ -f "$f" ] || qemu_die "qemu_initramfs: module '$f' not found"
		cp "$f" "$stage/ko/" || qemu_die "cannot copy '$f'"
	done
	for f in "${files[@]}"; do
		src=${f%%:*}
		if [ "$src" = "$f" ]; then
			dst=/bin/${src##*/}
		else
			dst=${f#*:}
		fi
		case $dst in
		/*) ;;
		*) qemu_die "qemu_initramfs: --file DEST must be absolute ('$f')" ;;
		esac
		[ -f "$src" ] || qemu_die "qemu_initramfs: file '$src' not found"
		mkdir -p "$stage${dst%/*}"
		cp -a "$src" "$stage$dst" || qemu_die "cannot copy '$src'"
	done

	if [ ${#mods[@]} -gt 0 ]; then
		[ -n "$kver" ] || qemu_die "qemu_initramfs: --modprobe needs --kver"
		qemu_need modprobe depmod
		case $kver in
		*/*) qemu_die "qemu_initramfs: --kver takes a version, not a path" ;;
		esac
		if [ -d "$modroot/lib/modules/$kver" ]; then
			:
		else
			kver=$(qemu_kver "$kver") || exit 1
		fi
		[ -d "$modroot/lib/modules/$kver" ] ||
			qemu_die "no $modroot/lib/modules/$kver"
		modroot=$(cd "$modroot" && pwd)
		for m in "${mods[@]}"; do
			local deps
			deps=$(modprobe -d "$modroot" -S "$kver" --show-depends "$m" 2>&1) ||
				qemu_die "modprobe --show-depends $m for $kver failed: $deps"
			while read -r line; do
				set -- $line
				case $1 in
				insmod) qemu__stage_module "$stage" "$kver" "${modroot%/}" "$2" ;;
				builtin) ;;
				*) qemu_die "unexpected modprobe output for $m: $line" ;;
				esac
			done <<<"$deps"
		done
		for f in modules.builtin modules.builtin.modinfo modules.order; do
			[ -f "$modroot/lib/modules/$kver/$f" ] &&
				cp "$modroot/lib/modules/$kver/$f" "$stage/lib/modules/$kver/"
		done
		depmod -b "$stage" "$kver" ||
			qemu_die "depmod -b $stage $kver failed"
	fi

	(cd "$stage" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out" ||
		qemu_die "packing the initramfs into '$out' failed"
	rm -rf "$stage"
}

qemu_boot()
{
	local kernel="" initrd="" log="" timeout=120 iommu=0 edu=0 machine=""
	local mem=512 smp=2 append="" img v rc t0 t1 verbosity="quiet loglevel=4"
	local -a extra=() cmd=()

	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift 2 ;;
		--initrd) initrd=$2; shift 2 ;;
		--log) log=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--iommu) iommu=1; shift ;;
		--edu) edu=1; shift ;;
		--machine) machine=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--append) append="$append $2"; shift 2 ;;
		--loglevel)
			[[ ${2:-} =~ ^[0-9]+$ ]] ||
				qemu_die "qemu_boot: --loglevel wants a number, got '${2:-}'"
			verbosity="loglevel=$2"; shift 2 ;;
		--qemu-arg) extra+=("$2"); shift 2 ;;
		*) qemu_die "qemu_boot: unknown option '$1'" ;;
		esac
	done
	local qemu=${QEMU_BIN:-qemu-system-x86_64}
	qemu_need "$qemu" timeout flock
	[ -n "$kernel" ] || qemu_die "qemu_boot: --kernel missing"
	[ -f "$initrd" ] || qemu_die "qemu_boot: --initrd '$initrd' not found"
	[ -n "$log" ] || qemu_die "qemu_boot: --log missing"
	case $kernel in
	*/*) img=$kernel ;;
	*)
		v=$(qemu_kver "$kernel") || exit 1
		img=/boot/vmlinuz-$v
		;;
	esac
	[ -r "$img" ] || qemu_die "qemu_boot: kernel image '$img' not found or unreadable"

	if [ $iommu = 1 ]; then
		machine=${machine:-q35}
		extra=(-device intel-iommu "${extra[@]}")
		append=" intel_iommu=on$append"
	fi
	[ $edu = 1 ] && extra+=(-device edu)
	[ -n "$machine" ] && extra=(-machine "$machine" "${extra[@]}")

	# KVM does not work on these hosts: TCG only, multi-threaded: one host
	# thread per vCPU, so -smp 2 runs two CPUs in parallel (QEMU 7.2's
	# default for x86_64 guests here; written out so that it stays so, as
	# the kernel-tree stress needs two CPUs at once).  Under heavy host load
	# TCG's timer can look broken to the kernel's IO-APIC check, which then
	# panics ("timer doesn't work through Interrupt-remapped IO-APIC"):
	# no_timer_check skips that check.
	cmd=("$qemu" -accel tcg,thread=multi -m "$mem" -smp "$smp" -nographic -no-reboot
		-vga none -nic none -kernel "$img" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 $verbosity no_timer_check$append"
		"${extra[@]}")
	mkdir -p "$(dirname "$log")"
	{
		echo "QEMU-CMD: ${cmd[*]}"
	} >"$log"
	qemu_log "boot: ${img##*/} (log: $log, timeout ${timeout}s)"
	t0=$(date +%s.%N)
	# One QEMU at a time on this shared machine; the lock wait does not
	# count against the boot timeout.
	if [ "${QEMU_VERBOSE:-0}" = 1 ]; then
		flock "${QEMU_LOCK:-/tmp/dmapool-qemu.lock}" \
			timeout -k 5 "$timeout" "${cmd[@]}" </dev/null 2>&1 |
			tee -a "$log" >&2
		rc=${PIPESTATUS[0]}
	else
		flock "${QEMU_LOCK:-/tmp/dmapool-qemu.lock}" \
			timeout -k 5 "$timeout" "${cmd[@]}" </dev/null >>"$log" 2>&1
		rc=$?
	fi
	t1=$(date +%s.%N)
	# The serial console writes CRLF: keep the log greppable with '$'.
	sed -i 's/\r$//' "$log"
	qemu_log "boot finished in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")s wall, qemu status $rc"
	case $rc in
	0) ;;
	124 | 137) echo "QEMU-LIB: TIMEOUT after ${timeout}s (qemu killed)" >>"$log" ;;
	*) echo "QEMU-LIB: qemu exited with status $rc" >>"$log" ;;
	esac
	return $rc
}

qemu_check_log()
{
	local log=$1 ignore_warn=0 bad="" m st allowre
	local -a markers=() allow=() forbid=() missing=()
	local pat='FAIL|Oops|BUG:|Kernel panic|QEMU-LIB:'

	[ -n "$log" ] || qemu_die "usage: qemu_check_log LOG [--marker STR]..."
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--marker) markers+=("$2"); shift 2 ;;
		--ignore-warnings) ignore_warn=1; shift ;;
		--allow) allow+=("$2"); shift 2 ;;
		--forbid) forbid+=("$2"); shift 2 ;;
		*) qemu_die "qemu_check_log: unknown option '$1'" ;;
		esac
	done
	[ -f "$log" ] || qemu_die "qemu_check_log: log '$log' not found"
	[ $ignore_warn = 1 ] || pat="$pat|Call Trace|WARNING:"
	for m in "${forbid[@]}"; do
		pat="$pat|$m"
	done

	allowre=""
	for m in "${allow[@]}"; do
		allowre="$allowre${allowre:+|}($m)"
	done
	# The QEMU-CMD line echoes our own arguments: never match it.
	bad=$(awk -v pat="$pat" -v allow="$allowre" '
		/^QEMU-CMD: / { next }
		$0 ~ pat && !(allow != "" && $0 ~ allow) { print NR ": " $0 }
	' "$log")
	for m in "${markers[@]}"; do
		grep -qF -- "$m" "$log" || missing+=("$m")
	done
	# Unanchored: firmware escape sequences may precede the first line.
	if grep -q 'QEMU-INIT: start' "$log"; then
		st=$(sed -n 's/.*QEMU-INIT: test script exit status \([0-9]*\).*/\1/p' "$log" | tail -n1)
		if [ -z "$st" ]; then
			missing+=("QEMU-INIT: test script exit status (guest did not finish)")
		elif [ "$st" != 0 ]; then
			bad="$bad${bad:+
}(init) test script exit status $st"
		fi
	fi

	if [ -z "$bad" ] && [ ${#missing[@]} -eq 0 ]; then
		echo "qemu-lib: PASS: $log (${#markers[@]} marker(s) found, no failure pattern)"
		return 0
	fi
	{
		echo "qemu-lib: FAILED check of $log"
		for m in "${missing[@]}"; do
			echo "  missing marker: $m"
		done
		if [ -n "$bad" ]; then
			echo "  failure lines (first 20):"
			printf '%s\n' "$bad" | head -n 20 | sed 's/^/    /'
		fi
		echo "  last 40 lines of the log:"
		tail -n 40 "$log" | sed 's/^/    | /'
	} >&2
	return 1
}
