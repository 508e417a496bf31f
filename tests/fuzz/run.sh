#!/usr/bin/env bash
# Runs shardsim's fuzz targets (tests/fuzz/*_fuzz.cc), each seeded from the shipped files that its
# parser reads, plus tests/fuzz/seeds/<target>/ and the regression inputs
# tests/fuzz/regressions/<target>/.
#
#   tests/fuzz/run.sh [-b BUILD_DIR] [-t SECONDS] [--replay] [TARGET...]
#
# -b: the build folder (default build-fuzz; configure it as README "Guarantees" shows: Clang,
#     -DSHARDSIM_BUILD_FUZZERS=ON -DSHARDSIM_SANITIZE=ON). -t: seconds per target (default 60).
# --replay: run every seed and regression input once and stop (ctest does this in every build;
#     in a build without libFuzzer the targets are plain programs that replay their arguments).
# TARGET: scenario hf_config nccl_log gemm_csv deepspeed megatron profile check samples (default:
#     all). samples is seeded from tests/fuzz/seeds/samples/ (a quick CPU calibration on 2 ranks
#     of the development VM, 2026-11-27, trimmed to a few items of each kind).
# Each run keeps its growing corpus in BUILD_DIR/fuzz-corpus/TARGET and writes what it finds
# (crash-*, leak-*, timeout-*, oom-*) to BUILD_DIR/fuzz-findings/TARGET/. Exit 1 when a target
# found something, 2 for bad usage.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="build-fuzz"
seconds=60
replay=0
targets=()
all=(scenario hf_config nccl_log gemm_csv deepspeed megatron profile check samples)
while [ $# -gt 0 ]; do
  case "$1" in
    -b) build="$2"; shift 2 ;;
    -t) seconds="$2"; shift 2 ;;
    --replay) replay=1; shift ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -t wants a positive integer" >&2; exit 2; }

# The shipped inputs of each target's parser (folders; every file in them is a seed).
seeds() {
  case "$1" in
    scenario) echo "$src/scenarios/examples $src/tests/data/bad_scenarios $src/tests/data/infeasible" ;;
    hf_config) echo "$src/tests/data/hf" ;;
    nccl_log) echo "$src/scenarios/measurements/nccl-tests $src/tests/data/nccl/heldout" ;;
    gemm_csv) echo "$src/scenarios/measurements/gemm" ;;
    profile) echo "$src/scenarios/gpus $src/scenarios/clusters" ;;
    deepspeed|megatron|check|samples) echo "" ;;
    *) echo "run.sh: unknown target $1 (one of: ${all[*]})" >&2; exit 2 ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  dirs="$(seeds "$t")"
  for d in "$src/tests/fuzz/seeds/$t" "$src/tests/fuzz/regressions/$t"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  bin="$build/tests/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "run.sh: $bin not built" >&2; exit 2; }
  if [ "$replay" = 1 ]; then
    # shellcheck disable=SC2086
    "$bin" -runs=0 $dirs
    continue
  fi
  corpus="$build/fuzz-corpus/$t"
  findings="$build/fuzz-findings/$t"
  mkdir -p "$corpus" "$findings"
  dict=()
  case "$t" in scenario|hf_config|deepspeed|profile) dict=(-dict="$src/tests/fuzz/json.dict") ;; esac
  echo "== fuzz_$t for ${seconds}s (corpus $corpus, findings $findings)"
  # The first folder is the working corpus libFuzzer adds to; the seed folders are only read.
  # -max_len 64 KiB: room for every seed's structure (the largest logs are truncated, not lost).
  # shellcheck disable=SC2086
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" "$corpus" $dirs \
      2>"$build/fuzz-$t.log"; then
    status=1
    echo "fuzz_$t FOUND a problem: see $build/fuzz-$t.log and $findings/" >&2
  fi
  grep -E "^(stat::|Done|INFO: seed corpus)" "$build/fuzz-$t.log" || true
done
exit $status
