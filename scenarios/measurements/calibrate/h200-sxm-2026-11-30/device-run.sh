#!/bin/bash
# Device run (H200, 2026-11-30): the CUDA backend module's first GPU run (validate on the shipped
# H200 profile, then a quick calibration and its validation), FlashAttention through PyTorch's SDPA
# at FA2's published benchmark shapes, and Megatron-style GPT steps in PyTorch eager (twice).
# Everything lands under $OUT (res.tgz, log.txt). BUDGET: seconds of work before later steps are skipped.
ROOT=$PWD; R=/tmp/r; mkdir -p $R; LOG=$OUT/log.txt
exec > >(tee -a $LOG) 2>&1
T0=$(date +%s); BUDGET=${BUDGET:-500}
el() { echo "== +$(( $(date +%s) - T0 ))s: $*"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
save() { tar czf $OUT/res.tgz -C $R . 2>/dev/null; }
gpu() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader; }
B=/tmp/b; mkdir -p $B; tar xzf $ROOT/.dev/bundle.tgz -C $B
cp $ROOT/.dev/run.sh $ROOT/.dev/flash_bench.py $ROOT/.dev/torch_gpt.py $R/
el unpacked; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
nvidia-smi -q > $R/nvidia-smi-q.txt 2>&1
(uname -a; nproc; grep -m1 'model name' /proc/cpuinfo; free -g; head -2 /etc/os-release; python3 --version) > $R/host.txt 2>&1
CUDIRS=$(find /usr/local /opt /usr/lib -xdev \( -name 'libcublasLt.so.13*' -o -name 'libnccl.so.2*' -o -name 'libcudart.so.13*' -o -name 'libcublas.so.13*' \) 2>/dev/null | tee $R/cudalibs.txt | xargs -r -n1 dirname | sort -u | tr '\n' ':')
# shardsim's environment only: PyTorch runs with the machine's own (its cuDNN differs)
S() { LD_LIBRARY_PATH=$B/libs:$CUDIRS OPAL_PREFIX=$B/root PMIX_INSTALL_PREFIX=$B/root OMPI_MCA_ess_singleton_isolated=1 "$@"; }
cd $R
S $B/bin/shardsim --version > $R/version.txt 2>&1; cat $R/version.txt
S $B/bin/shardsim-device-query > $R/device-query.txt 2>&1; echo "device-query rc=$?"; head -20 $R/device-query.txt
el "validate on the shipped measured/h200-sxm-calibrated profile (module)"; gpu
S timeout 60 $B/bin/shardsim validate --profile $ROOT/scenarios/gpus/measured/h200-sxm-calibrated.json --backend cuda --json -o $R/validate-shipped.json > $R/validate-shipped.log 2>&1; echo "validate-shipped rc=$?"; tail -4 $R/validate-shipped.log; save
el "flash bench"; gpu
PYTHONUNBUFFERED=1 timeout 150 python3 $R/flash_bench.py $R/flash-bench.json > $R/flash-bench.txt 2>&1; echo "flash rc=$?"; tail -3 $R/flash-bench.txt; save
el "torch gpt run 1"; gpu
PYTHONUNBUFFERED=1 timeout 150 python3 $R/torch_gpt.py $R/torch-gpt.json > $R/torch-gpt.txt 2>&1; echo "torch rc=$?"; cut -c1-200 $R/torch-gpt.txt; save
L=$(left); el "calibrate --quick (module; $L s left)"; gpu
if [ $L -gt 190 ]; then
  S timeout 200 $B/bin/shardsim calibrate --backend cuda --quick --verbose -o $R/calibrate-quick.profile.json > $R/calibrate-quick.log 2>&1; echo "calibrate rc=$?"; tail -4 $R/calibrate-quick.log; save
  el "validate on the quick profile"; gpu
  S timeout 60 $B/bin/shardsim validate --profile $R/calibrate-quick.profile.json --backend cuda --json -o $R/validate-quick-profile.json > $R/validate-quick-profile.log 2>&1; echo "validate-quick-profile rc=$?"; tail -4 $R/validate-quick-profile.log; save
fi
L=$(left); el "torch gpt run 2 ($L s left)"; gpu
if [ $L -gt 70 ]; then
  PYTHONUNBUFFERED=1 timeout $((L - 5)) python3 $R/torch_gpt.py $R/torch-gpt-repeat.json > $R/torch-gpt-repeat.txt 2>&1; echo "torch2 rc=$?"; cut -c1-200 $R/torch-gpt-repeat.txt
fi
gpu; ls -la $R; save; el done
