#!/usr/bin/env bash
# Rebuilds every fitted GPU and network preset from the measurements in this folder with
# shardsim's own `fit`, and writes each fit's report.
#
#   scenarios/measurements/rebuild-profiles.sh SHARDSIM [OUT]
#
# SHARDSIM: the shardsim binary (e.g. build/shardsim). OUT (default: the repository's
# scenarios/): writes OUT/gpus/<gpu>.json, OUT/clusters/<network>.json and
# OUT/measurements/fits/<name>.txt. The fits start from the '-datasheet' presets, never from the
# presets they write, so the output depends only on the measurements, those bases and the binary;
# ctest's rebuild_profiles test runs this into a temporary folder and compares byte for byte.
# Paths in the profiles' provenance are relative to the repository root.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 SHARDSIM [OUT]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$root/scenarios}
mkdir -p "$out/gpus" "$out/clusters" "$out/measurements/fits"
out=$(cd "$out" && pwd)
cd "$root"
m=scenarios/measurements
gemm=$m/gemm/azure_cublaslt_gemm_a100_h100_h200.csv
mamf=$m/gemm/mamf_best_shape_nvidia.csv
hbm=$m/gemm/azure_hbm_stream_bandwidth.csv
attn=$m/attention/flash_attention2_fwd_bwd_a100_h100.csv
attn_h200=$m/attention/flash_attention_fwd_bwd_h200_pytorch.csv
nccl=$m/nccl-tests
vtrain=()
for n in 2 3 4 5 6 7 8; do vtrain+=(--collective-table "$m/vtrain/a100_all_reduce_${n}gpu_1M_1024M.csv"); done

# fit NAME ARGS...: one fit, its text report in fits/NAME.txt
fit() {
  local name=$1
  shift
  "$bin" fit "$@" >"$out/measurements/fits/$name.txt"
}

# --- GPUs: GEMM efficiency over shape, best-shape efficiency, HBM and host-copy bandwidth,
# flash attention (FlashAttention-2's published A100 and H100 benchmark; the same benchmark run by
# this project on an H200 through PyTorch's SDPA, 2026-11-30, for two other kernels) ---
a100='A100-SXM4-80GB|NVIDIA A100 SXM'
fit a100-sxm-80gb --base a100-sxm-80gb-datasheet --name a100-sxm-80gb --node-network dgx-a100 \
  --device "$a100" --gemm $gemm --gemm-alias bf16=fp16 --gemm-best $mamf --hbm $hbm --attention $attn \
  -o "$out/gpus/a100-sxm-80gb.json"
# A100 40GB: no table of its own; the same GA100 die's efficiencies measured on the 80GB part,
# applied to the 40GB datasheet peaks and HBM bandwidth (--measured-on).
fit a100-sxm-40gb --base a100-sxm-40gb-datasheet --measured-on a100-sxm-80gb-datasheet \
  --name a100-sxm-40gb --node-network dgx-a100 \
  --device "$a100" --gemm $gemm --gemm-alias bf16=fp16 --gemm-best $mamf --hbm $hbm --attention $attn \
  -o "$out/gpus/a100-sxm-40gb.json"
# H100 and H200 take their fp32, tf32 and bf16 GEMM tables from shardsim's own sweep on one part
# of each (cuBLAS, the library the frameworks call; uniform random data; at least 0.1 s per
# item), the same kind of measurement for both, so that the two presets compare like with like
# (since 2026-11-28; the H100's bf16 came from XLA's public table before, which the H100 sweep
# runs at 0.835 of in the median on the shapes both hold: calibrate/h100-sxm-2026-11-28/README.md).
# fp8 comes from Azure's cuBLASLt table, which measures fp8 only on these parts.
h100run=$m/calibrate/h100-sxm-2026-11-28
h200run=$m/calibrate/h200-sxm-2026-11-27-run2
# H100: fp16 as bf16 (the sweep's fp16 is the quick run's 69 items only). No FlashAttention
# Triton rate measured; the Triton kernel's speed relative to FlashAttention-2 measured on A100
# (the same figure pair) times H100's measured FlashAttention-2 (--attention-relative; the two
# 2023 kernels use the same pre-Hopper mma instructions on H100).
fit h100-sxm --base h100-sxm-datasheet --name h100-sxm --node-network dgx-h100 \
  --device 'H100 80GB HBM3 SXM|NVIDIA H100 SXM' --gemm $gemm \
  --samples $h100run/sweep-gemm-fp32.samples.json --samples $h100run/sweep-gemm-tf32.samples.json \
  --samples $h100run/sweep-gemm-bf16.samples.json \
  --gemm-alias fp16=bf16 --gemm-best $mamf --hbm $hbm --attention $attn \
  --attention-relative 'flash-attention-triton/flash-attention-2@NVIDIA A100 SXM4 80GB' \
  -o "$out/gpus/h100-sxm.json"
# H200: the public tables measure fp8 GEMMs only (no bf16 best shape either); its sweep also
# gives memory_bytes (the device's total). Its memory-bound kernels are shardsim's own and are not
# used here (h200-sxm-calibrated has them). No published attention benchmark measures an H200:
# FlashAttention-2 (Dao's package) takes the H100's published rows (--attention-device; the same
# GH100 die, 132 SMs, clocks and tensor-core peaks; the kernel is compute-bound at these sizes,
# so the H200's faster HBM is not what sets its rate) and, as for H100, the Triton kernel its A100
# ratio to FlashAttention-2 (--attention-relative-table: the published table). Two other kernels
# are measured on the H200 itself (calibrate/h200-sxm-2026-11-30/README.md): PyTorch SDPA's own
# FlashAttention-2 port (pytorch-sdpa-flash, 0.80-0.98 of the H100's published FlashAttention-2)
# and cuDNN's fused attention (cudnn-fused-attention).
fit h200-sxm --base h200-sxm-datasheet --name h200-sxm --node-network dgx-h200 \
  --device 'H200 141GB SXM|NVIDIA H200 SXM' --gemm $gemm --gemm-best $mamf --hbm $hbm \
  --samples $h200run/sweep-gemm-fp32.samples.json --samples $h200run/sweep-gemm-tf32.samples.json \
  --samples $h200run/sweep-gemm-fp16.samples.json --samples $h200run/sweep-gemm-bf16.samples.json \
  --attention $attn --attention $attn_h200 --attention-device 'NVIDIA H100 SXM' \
  --attention-relative 'flash-attention-triton/flash-attention-2@NVIDIA A100 SXM4 80GB' \
  --attention-relative-table $attn \
  -o "$out/gpus/h200-sxm.json"

# --- Measured by shardsim's own calibration sweep on one H200 (2026-11-27, one rank: no
# collectives). From the second run (calibrate/h200-sxm-2026-11-27-run2/README.md), whose GEMMs
# were timed on random data; the first run's GEMMs (calibrate/h200-sxm-2026-11-27) were timed on
# their verification inputs and ran up to 14 % fast. The sweep ran family by family, one samples
# file each; the datasheet gives what one GPU cannot measure (network, host Adam rate). The sweep
# times no attention kernel: flash attention as in h200-sxm (the H100's published
# FlashAttention-2 rates; PyTorch SDPA's and cuDNN's measured on the H200 on 2026-11-30). ---
cal=$h200run
mkdir -p "$out/gpus/measured"
fit h200-sxm-calibrated --base h200-sxm-datasheet --name h200-sxm-calibrated --node-network dgx-h200 \
  --samples $cal/repeat-memory_bound.samples.json --samples $cal/repeat-copy.samples.json \
  --samples $cal/repeat-launch.samples.json --samples $cal/sweep-gemm-fp32.samples.json \
  --samples $cal/sweep-gemm-tf32.samples.json --samples $cal/sweep-gemm-fp16.samples.json \
  --samples $cal/sweep-gemm-bf16.samples.json --samples $cal/sweep-gemm-fp8.samples.json \
  --device 'H200 141GB SXM|NVIDIA H200 SXM' \
  --attention $attn --attention $attn_h200 --attention-device 'NVIDIA H100 SXM' \
  --attention-relative 'flash-attention-triton/flash-attention-2@NVIDIA A100 SXM4 80GB' \
  --attention-relative-table $attn \
  -o "$out/gpus/measured/h200-sxm-calibrated.json"

# --- Measured by shardsim's own calibration on one H100 SXM (2026-11-28, one rank: no
# collectives; calibrate/h100-sxm-2026-11-28/README.md). The quick calibration's samples first
# (its fp16 GEMMs are the only fp16 measured), then the full sweeps, which replace its items of
# the same families. The sweep times no attention kernel: FlashAttention's published H100 rates,
# as in h100-sxm, rather than the datasheet's fallback (the score GEMM's efficiency); the
# datasheet gives the network, fp8 and the host Adam rate. ---
fit h100-sxm-calibrated --base h100-sxm-datasheet --name h100-sxm-calibrated --node-network dgx-h100 \
  --samples $h100run/calibrate-quick.profile.samples.json \
  --samples $h100run/sweep-memory_bound.samples.json --samples $h100run/sweep-copy.samples.json \
  --samples $h100run/sweep-launch.samples.json --samples $h100run/sweep-gemm-fp32.samples.json \
  --samples $h100run/sweep-gemm-tf32.samples.json --samples $h100run/sweep-gemm-bf16.samples.json \
  --device 'H100 80GB HBM3 SXM|NVIDIA H100 SXM' --attention $attn \
  --attention-relative 'flash-attention-triton/flash-attention-2@NVIDIA A100 SXM4 80GB' \
  -o "$out/gpus/measured/h100-sxm-calibrated.json"

# --- Networks: fitted collectives per measured placement + the topology formula's parameters ---
fit dgx-a100 --network-base dgx-a100-datasheet --network-name dgx-a100 \
  "${vtrain[@]}" --table-fit-sizes ladder \
  --nccl-tests $nccl/dgxa100-ib-hdr-k8s-2node_all_reduce_16.log \
  --nccl-tests $nccl/dgxa100-ib-hdr-4node_all_reduce_32.log \
  --network-output "$out/clusters/dgx-a100.json"
fit dgx-h100 --network-base dgx-h100-datasheet --network-name dgx-h100 \
  --nccl-tests $nccl/aws-p5-h100-nvlink-1node_all_reduce_8.log \
  --nccl-tests $nccl/h100-sxm-nvlink-1node_all_gather_8.log \
  --nccl-tests $nccl/h100-sxm-nvlink-1node_reduce_scatter_8.log \
  --nccl-tests $nccl/h100-sxm-nvlink-1node_alltoall_8.log \
  --nccl-tests $nccl/h100-sxm-nvlink-1node_sendrecv_8.log \
  --nccl-tests $nccl/h100-sxm-10node_all_reduce_80.log \
  --nccl-tests $nccl/h100-sxm-10node_all_gather_80.log \
  --nccl-tests $nccl/h100-sxm-10node_reduce_scatter_80.log \
  --nccl-tests $nccl/h100-sxm-10node_alltoall_80.log \
  --network-output "$out/clusters/dgx-h100.json"
fit dgx-h200 --network-base dgx-h200-datasheet --network-name dgx-h200 --device 'H200' \
  --collective-table $nccl/azure-nd-a100v4-h100v5-h200v5-1node_all_reduce_8_busbw-summary.csv \
  --network-output "$out/clusters/dgx-h200.json"
fit aws-p4de --network-base aws-p4de-datasheet --network-name aws-p4de \
  "${vtrain[@]}" --table-fit-sizes ladder \
  --nccl-tests $nccl/aws-p4de-a100-efa-2node_all_reduce_16.log \
  --network-output "$out/clusters/aws-p4de.json"
fit aws-p5 --network-base aws-p5-datasheet --network-name aws-p5 \
  --nccl-tests $nccl/aws-p5-h100-nvlink-1node_all_reduce_8.log \
  --nccl-tests $nccl/aws-p5-h100-efa-2node_all_reduce_16.log \
  --network-output "$out/clusters/aws-p5.json"
fit gcp-a3-mega --network-base gcp-a3-mega-datasheet --network-name gcp-a3-mega \
  --nccl-tests $nccl/aws-p5-h100-nvlink-1node_all_reduce_8.log \
  --nccl-tests $nccl/gcp-a3mega-h100-tcpxo-2node_all_reduce_16.log \
  --network-output "$out/clusters/gcp-a3-mega.json"
fit pcie-gen3-nop2p --network-base pcie-gen3-nop2p-datasheet --network-name pcie-gen3-nop2p \
  --nccl-tests $nccl/pcie-rtx2080ti-nop2p-1node_all_reduce_2.log \
  --nccl-tests $nccl/pcie-rtx2080ti-nop2p-1node_all_gather_2.log \
  --nccl-tests $nccl/pcie-rtx2080ti-nop2p-1node_alltoall_2.log \
  --network-output "$out/clusters/pcie-gen3-nop2p.json"
fit pcie-gen5-p2p --network-base pcie-gen5-p2p-datasheet --network-name pcie-gen5-p2p \
  --nccl-tests $nccl/pcie-rtx5090-p2p-1node_all_reduce_8.log \
  --network-output "$out/clusters/pcie-gen5-p2p.json"
