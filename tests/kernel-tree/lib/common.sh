# SPDX-License-Identifier: MIT OR GPL-2.0-only
# shellcheck shell=bash disable=SC2034
#
# Shared helpers for the tests/kernel-tree scripts. Sourced, never run.
# Everything big (extracted trees, build dirs, initramfs staging) lives under
# $KT_DIR, outside the repository.

KT_DIR=${DMAPOOL_KTREE_DIR:-/var/tmp/dmapool-ktree}
KT_TARBALL=${DMAPOOL_KTREE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KT_JOBS=${DMAPOOL_KTREE_JOBS:-2}
KT_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

kt_prog=$(basename "$0")

kt_log()
{
	printf '%s: %s\n' "$kt_prog" "$*" >&2
}

kt_die()
{
	printf '%s: error: %s\n' "$kt_prog" "$*" >&2
	exit 1
}

# kt_need TOOL [PACKAGE]: fail loudly, naming the Debian package, when a tool
# is missing.
kt_need()
{
	command -v "$1" >/dev/null 2>&1 ||
		kt_die "'$1' not found; install it: apt-get install -y ${2:-$1}"
}

# kt_need_file PATH PACKAGE: same for a file a package provides.
kt_need_file()
{
	[ -e "$1" ] || kt_die "'$1' not found; install it: apt-get install -y $2"
}

# Tools that building our configs needs (Debian package names). objtool
# needs libelf; libssl-dev is not needed as long as module signing and
# trusted keys stay off (they are, in config/).
kt_need_build_tools()
{
	kt_need make make
	kt_need gcc gcc
	kt_need flex flex
	kt_need bison bison
	kt_need bc bc
	kt_need perl perl
	kt_need xz xz-utils
	kt_need tar tar
	kt_need flock util-linux
	kt_need sha256sum coreutils
	kt_need_file /usr/include/libelf.h libelf-dev
}

# A valid tree name is used in paths: keep it boring.
kt_check_name()
{
	[[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] ||
		kt_die "bad tree name '$1' (letters, digits, '_', '.', '-')"
}

kt_src_dir()   { printf '%s/src-%s' "$KT_DIR" "$1"; }
kt_meta_dir()  { printf '%s/meta-%s' "$KT_DIR" "$1"; }
kt_build_dir() { printf '%s/build-%s-%s' "$KT_DIR" "$1" "$2"; }  # flavour tree

# kt_lock NAME: hold an exclusive lock on $KT_DIR/NAME.lock until the script
# exits, so two scripts never mutate the same tree or build dir at once.
kt_lock()
{
	local fd
	mkdir -p "$KT_DIR"
	exec {fd}>"$KT_DIR/$1.lock"
	if ! flock -n "$fd"; then
		kt_log "waiting for lock $KT_DIR/$1.lock"
		flock "$fd"
	fi
}

# Wall-clock seconds since the epoch, with milliseconds.
kt_now() { date +%s.%N | cut -c1-14; }

# kt_elapsed START: seconds since START, one decimal.
kt_elapsed()
{
	awk -v s="$1" -v e="$(kt_now)" 'BEGIN { printf "%.1f", e - s }'
}
