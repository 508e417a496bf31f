#!/bin/bash
# Device run 2 (H200, 2026-11-30): torch.profiler per-kernel times of the PyTorch GPT steps.
R=/tmp/r; mkdir -p $R; LOG=$OUT/log.txt
exec > >(tee -a $LOG) 2>&1
T0=$(date +%s); el() { echo "== +$(( $(date +%s) - T0 ))s: $*"; }
cp .dev/run2.sh .dev/prof_gpt.py $R/
el start; nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
PYTHONUNBUFFERED=1 timeout 300 python3 $R/prof_gpt.py $R/prof-gpt.json > $R/prof-gpt.txt 2>&1; echo "prof rc=$?"; cut -c1-300 $R/prof-gpt.txt
tar czf $OUT/res2.tgz -C $R .; el done
