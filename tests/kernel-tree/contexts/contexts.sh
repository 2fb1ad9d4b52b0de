# SPDX-License-Identifier: MIT OR GPL-2.0-only
#
# Guest half of kt_contexts (run by tests/kernel-tree/run-ci as the first
# step; its arguments are the module's parameters, e.g. pending=...): load
# the module (it runs its parts and keeps its drop-in pools), read the
# device's sysfs "pools" file while they exist, then unload it while a
# reader keeps reading that file, so that lockdep sees the file's locks
# against pool creation and destruction.
f=/sys/devices/kt-contexts/pools
insmod /ko/kt_contexts.ko "$@" || exit 1
if ! grep -q '^kt-ctx-64 ' "$f"; then
	echo "KT-CONTEXTS: FAIL no kt-ctx-64 line in $f"
	cat "$f"
	rmmod kt_contexts
	exit 1
fi
cat "$f"
(while cat "$f" >/dev/null 2>&1; do :; done) &
reader=$!
rmmod kt_contexts || exit 1
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
[ ! -e "$f" ] || { echo "KT-CONTEXTS: FAIL $f still there after rmmod"; exit 1; }
echo "KT-CONTEXTS: pools file read while the pools went away"
