#!/bin/bash
# Builds .dev/bundle.tgz: shardsim's binaries, the CUDA backend module, their Debian shared
# libraries and a relocatable Open MPI tree (OPAL_PREFIX), for a machine without the packages.
set -e
cd "$(git rev-parse --show-toplevel)"
B=$(mktemp -d); mkdir -p $B/bin $B/libs $B/root
cp build/shardsim build/shardsim-calibrate-sweep build/shardsim-device-query build/libshardsim_cuda_backend.so $B/bin/
skip='libc.so|libm.so|libstdc\+\+|libgcc_s|libdl.so|libpthread|librt.so|ld-linux|linux-vdso|libcudart|libcublas|libnccl'
OMPI=/usr/lib/x86_64-linux-gnu/openmpi
mkdir -p $B/root/lib/x86_64-linux-gnu/openmpi/lib $B/root/share $B/root/etc $B/root/bin
cp -a $OMPI/lib/openmpi3 $B/root/lib/x86_64-linux-gnu/openmpi/lib/
cp -a /usr/share/openmpi $B/root/share/; cp -a /etc/openmpi $B/root/etc/
cp -a /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix $B/root/lib/ 2>/dev/null || true
cp -a /usr/lib/x86_64-linux-gnu/pmix2/share/pmix $B/root/share/ 2>/dev/null || true
cp -L /usr/bin/orterun $B/root/bin/mpirun; cp -L /usr/bin/orted $B/root/bin/
{ for f in $B/bin/* $OMPI/lib/openmpi3/*.so /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so $B/root/bin/*; do ldd $f 2>/dev/null; done; } \
  | awk '/=>/ {print $3}' | sort -u | grep -Ev "$skip" > $B/libs.txt
# second level
for l in $(cat $B/libs.txt); do ldd $l 2>/dev/null; done | awk '/=>/ {print $3}' | grep -Ev "$skip" | sort -u >> $B/libs.txt
for l in $(sort -u $B/libs.txt); do cp -L $l $B/libs/; done
rm $B/libs.txt
tar czf .dev/bundle.tgz -C $B .
rm -rf $B
ls -la .dev/bundle.tgz
