#!/bin/bash -eu
# SPDX-License-Identifier: MIT OR GPL-2.0-only
#
# The build script of ClusterFuzzLite and OSS-Fuzz: run by the service in
# its builder image (Dockerfile) from the checkout, with
#   $CC $CXX $CFLAGS $CXXFLAGS  the compilers and the sanitizer's flags
#   $LIB_FUZZING_ENGINE         what to link a target with (-fsanitize=fuzzer,
#                               AFL++'s libAFLDriver.a, ...)
#   $OUT $WORK                  where targets go, scratch space
# and nothing of ours installed.  Builds every harness that has
# a corpus directory (fuzz/corpus/NAME/) into $OUT/NAME, with
# $OUT/NAME_seed_corpus.zip (the corpus and the regression inputs) and
# $OUT/NAME.dict.  fuzz/run oss runs this the way the services do
# (the fuzz suite's fuzz-oss-* tests); docs/fuzzing.md says more.
#
# The harnesses are built by meson with -Dfuzz_engine: the service's
# compiler and flags for every file (the core included), the engine at link
# time, nothing of ours left to load at run time (the services run a target
# where nothing else is installed).  No Criterion, afl++ or clang of our
# own.

src=$(pwd)
if ! grep -q "project('dmapool'" "$src/meson.build" 2>/dev/null; then
	src=$SRC/dmapool
fi
build=$WORK/dmapool-build
rm -rf "$build"

# The service's flags are meson's: no build type of its own on top.
meson setup "$build" "$src" \
	--buildtype=plain \
	-Ddefault_library=static \
	-Db_lundef=false \
	-Dtests=disabled \
	-Dfuzz=enabled \
	-Dfuzz_engine="$LIB_FUZZING_ENGINE"

names=()
for d in "$src"/fuzz/corpus/*/; do
	names+=("$(basename "$d")")
done
targets=()
for n in "${names[@]}"; do
	targets+=("fuzz/$n")
done
ninja -C "$build" ${DMAPOOL_JOBS:+-j "$DMAPOOL_JOBS"} "${targets[@]}"

for n in "${names[@]}"; do
	cp "$build/fuzz/$n" "$OUT/$n"
	rm -f "$OUT/${n}_seed_corpus.zip"
	(cd "$src/fuzz" && zip -q -j "$OUT/${n}_seed_corpus.zip" \
		corpus/"$n"/* $(ls -d regress/"$n"/* 2>/dev/null))
	if [ -f "$src/fuzz/corpus/$n.dict" ]; then
		cp "$src/fuzz/corpus/$n.dict" "$OUT/$n.dict"
	fi
done
