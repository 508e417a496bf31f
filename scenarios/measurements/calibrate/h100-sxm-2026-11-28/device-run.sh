#!/bin/bash
# Device run 3: quick CUDA calibration + validation, a PyTorch GPT step, GEMM/memory/copy/launch sweeps.
# Everything lands under $OUT (res.tgz, log.txt). BUDGET: seconds of work before optional steps are skipped.
ROOT=$PWD; R=/tmp/r; mkdir -p $R; LOG=$OUT/log.txt
exec > >(tee -a $LOG) 2>&1
T0=$(date +%s); BUDGET=${BUDGET:-430}
el() { echo "== +$(( $(date +%s) - T0 ))s: $*"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
save() { tar czf $OUT/res.tgz -C $R . 2>/dev/null; }
B=/tmp/b; mkdir -p $B; tar xzf $ROOT/.dev/bundle.tgz -C $B
el unpacked; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
nvidia-smi -q > $R/nvidia-smi-q.txt 2>&1
CUDIRS=$(find /usr/local /opt /usr/lib -xdev \( -name 'libcublasLt.so.13*' -o -name 'libnccl.so.2*' -o -name 'libcudart.so.13*' -o -name 'libcublas.so.13*' \) 2>/dev/null | tee $R/cudalibs.txt | xargs -r -n1 dirname | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH=$B/libs:$CUDIRS OPAL_PREFIX=$B/root PMIX_INSTALL_PREFIX=$B/root OMPI_MCA_ess_singleton_isolated=1
(uname -a; nproc; grep -m1 'model name' /proc/cpuinfo; free -g; cat /etc/os-release | head -2) > $R/host.txt 2>&1
cd $R
$B/bin/shardsim-device-query > $R/device-query.txt 2>&1; echo "device-query rc=$?"; cat $R/device-query.txt | head -20
el "calibrate --quick"
timeout 220 $B/bin/shardsim calibrate --backend cuda --quick --verbose -o $R/calibrate-quick.profile.json > $R/calibrate-quick.log 2>&1; echo "calibrate rc=$?"; tail -5 $R/calibrate-quick.log; save
el "validate (quick profile)"
timeout 60 $B/bin/shardsim validate --profile $R/calibrate-quick.profile.json --backend cuda --json -o $R/validate.json > $R/validate.log 2>&1; echo "validate rc=$?"; tail -3 $R/validate.log; save
el "torch gpt"
PYTHONUNBUFFERED=1 timeout 150 python3 $ROOT/.dev/torch_gpt.py $R/torch-gpt.json 2>&1 | tee $R/torch-gpt.txt; echo "torch rc=${PIPESTATUS[0]}"; save
for f in gemm/bf16/ memory_bound/ copy/ launch/ gemm/tf32/ gemm/fp16/; do
  L=$(left); n=sweep-$(echo $f | tr '/' '-' | sed 's/-$//').samples.json
  if [ $L -lt 40 ]; then el "skip $f ($L s left)"; continue; fi
  el "sweep $f (limit $L s)"; timeout $L $B/bin/shardsim-calibrate-sweep --backend cuda --filter $f -o $R/$n 2>&1 | tail -3; echo rc=${PIPESTATUS[0]}
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
  save
done
ls -la $R; save; el done
