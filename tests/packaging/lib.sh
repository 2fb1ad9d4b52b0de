# SPDX-License-Identifier: MIT OR GPL-2.0-only
# shellcheck shell=bash
#
# Shared by tests/packaging/run and tests/packaging/update-abi.

# The options every packaging build uses: debug info for abidw, nothing but
# the library.
pkg_setup_args=(-Dbuildtype=release -Ddebug=true -Dtests=disabled
		-Dfuzz=disabled -Dbench=false -Dexamples=false)

# The ABI baseline's file, in the source tree, and the types it leaves out
# (opaque or internal: tests/packaging/abi/private.abignore).
pkg_abi_file=tests/packaging/abi/libdmapool.abi
pkg_abi_supp=tests/packaging/abi/private.abignore

# abi_dump SO HEADERS_DIR BUILD_DIR SRC: the ABI of the exported functions
# of SO and the public types they reach on stdout, with the source paths
# made relative to the tree (the baseline must not depend on where it was
# built).
abi_dump()
{
	local so=$1 hdrs=$2 build=$3 src=$4 rel

	rel=$(realpath --relative-to="$build" "$src")
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs \
		--suppressions "$src/$pkg_abi_supp" \
		--headers-dir "$hdrs" --drop-private-types "$so" |
		sed "s|path='$rel/|path='|g"
}
