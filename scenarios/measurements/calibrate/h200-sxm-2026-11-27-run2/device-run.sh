#!/bin/bash
# Device run 2: the GEMM sweep again, now timed on random data (verified on eighths first);
# NCCL with two ranks on one GPU; a PyTorch data-kind comparison. Everything lands under $OUT.
R=/tmp/r; mkdir -p $R; LOG=$OUT/log.txt
exec > >(tee -a $LOG) 2>&1
T0=$(date +%s); BUDGET=${BUDGET:-500}
el() { echo "== +$(( $(date +%s) - T0 ))s: $*"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
save() { tar czf $OUT/res.tgz -C $R . 2>/dev/null; }
B=/tmp/b; mkdir -p $B; tar xzf .dev/bundle.tgz -C $B
el unpacked; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
CUDIRS=$(find /usr/local /opt /usr/lib -xdev \( -name 'libcublasLt.so.13*' -o -name 'libnccl.so.2*' -o -name 'libcudart.so.13*' -o -name 'libcublas.so.13*' \) 2>/dev/null | tee $R/cudalibs.txt | xargs -r -n1 dirname | sort -u | tr '\n' ':')
cat $R/cudalibs.txt
export LD_LIBRARY_PATH=$B/libs:$CUDIRS
export OPAL_PREFIX=$B/root PMIX_INSTALL_PREFIX=$B/root PATH=$B/root/bin:$PATH
cd $R
el "nccl: two ranks on one GPU"
OMPI_MCA_ess_singleton_isolated= NCCL_DEBUG=WARN timeout 60 $B/root/bin/mpirun --allow-run-as-root --oversubscribe -np 2 \
  -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_INSTALL_PREFIX -x NCCL_DEBUG \
  $B/bin/shardsim-calibrate-sweep --backend cuda --quick --filter collective/ --sync-timeout 20 -o $R/nccl-2ranks-1gpu.samples.json 2>&1 | tail -40
echo rc=${PIPESTATUS[0]}
save
export OMPI_MCA_ess_singleton_isolated=1
el "torch data kinds"; timeout 60 python3 .dev/torch_data.py 2>&1 | tee $R/torch-data.txt
save
for f in gemm/bf16/ gemm/fp16/ gemm/tf32/ gemm/fp8/; do
  L=$(left); n=sweep-$(echo $f | tr '/' '-' | sed 's/-$//').samples.json
  if [ $L -lt 30 ]; then el "skip $f ($L s left)"; continue; fi
  el "sweep $f (limit $L s)"; timeout $L $B/bin/shardsim-calibrate-sweep --backend cuda --filter $f -o $R/$n 2>&1 | tail -4; echo rc=${PIPESTATUS[0]}
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
  save
done
ls -la $R; save; el done
