// The options of `shardsim calibrate` and `shardsim fit` (CLI11); main.cc parses and dispatches.
#include "simulator/cli/fit_options.h"

#include <limits>
#include <string>

#include "simulator/cli/whole_number.h"

namespace shardsim::cli {
namespace {

// A whole number >= 1 (whole_number.h), up to the largest int (the options' type).
const CLI::Validator kWholeAtLeastOne = whole_number(1, std::numeric_limits<int>::max());

}  // namespace

void add_calibrate_options(CLI::App* cmd, CalibrateArgs& a) {
  cmd->add_option("--backend", a.backend, "cpu or cuda")
      ->required()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_flag("--quick", a.quick, "the short sweep (CPU, 2 ranks: under a minute)");
  cmd->add_option("--base", a.base, "GPU preset or profile JSON the fit starts from");
  cmd->add_option("-o,--output", a.output, "profile JSON to write (samples: PROFILE.samples.json)")
      ->required();
  cmd->add_option("--launcher", a.launcher,
                  "start the ranks with this command (e.g. \"mpirun -np 8\") and exit 3 naming "
                  "the failing call when a rank fails or is lost, whatever the launcher returns")
      ->check(CLI::Validator(
          [](const std::string& v) {
            // An empty launcher ran without one, silently (found by review, 2026-11-27).
            return v.find_first_not_of(" \t") == std::string::npos
                       ? std::string("is empty; give a command such as \"mpirun -np 2\"")
                       : std::string();
          },
          "COMMAND"));
  cmd->add_flag("--verbose", a.verbose,
                "one line per measured item on stderr (default: only when it is a terminal)");
}

void add_fit_options(CLI::App* cmd, FitArgs& a) {
  cmd->add_option("--nccl-tests", a.nccl_logs, "nccl-tests output (repeatable; one fabric)")
      ->allow_extra_args(false);
  cmd->add_option("--collective-table", a.collective_tables,
                  "collective CSV: a vTrain all-reduce table (one node, N from busbw/algbw) or a "
                  "busbw summary (repeatable; same fabric as the logs)")
      ->allow_extra_args(false);
  cmd->add_option("--table-fit-sizes", a.table_fit_sizes,
                  "all (default) or ladder: fit a collective table's rows at 2^k and 3x2^k bytes "
                  "only and report the error on the others (held out)")
      ->check(CLI::IsMember({"all", "ladder"}));
  cmd->add_option("--gemm", a.gemm_csvs, "GEMM CSV: m,n,k,dtype,tflops[,batch,gpu] (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--gemm-timing", a.gemm_timing,
                  "how the --gemm tables were timed: back_to_back (default: a loop of launches, "
                  "the launch gap is in the times) or kernel_only (a profiler's kernel durations; "
                  "compute.launch_overhead_s is added to each kernel priced from them)")
      ->check(CLI::IsMember({"back_to_back", "kernel_only"}));
  cmd->add_option("--gemm-best", a.gemm_best,
                  "best-shape GEMM table (mamf): sets compute.gemm_peak_efficiency from its bf16 "
                  "(else fp16) row")
      ->allow_extra_args(false);
  cmd->add_option("--gemm-alias", a.gemm_aliases,
                  "DST=SRC: a dtype without points takes SRC's (same tensor cores, e.g. bf16=fp16)")
      ->allow_extra_args(false);
  cmd->add_option(
         "--hbm", a.bandwidth_csvs,
         "bandwidth CSV gpu,test,value,unit: BabelStream triad -> memory_bound_efficiency, "
         "nvbandwidth host copies -> host.pcie_bytes_per_second")
      ->allow_extra_args(false);
  cmd->add_option("--attention", a.attention_csvs,
                  "flash attention CSV gpu,kernel,dtype,causal,head_dim,seq_len,batch,heads,"
                  "fwd_bwd_tflops -> compute.attention_points (replacing the base's points of "
                  "the kernels it measures)")
      ->allow_extra_args(false);
  cmd->add_option("--attention-timing", a.attention_timing,
                  "how the --attention tables were timed: back_to_back (default) or kernel_only "
                  "(as --gemm-timing)")
      ->check(CLI::IsMember({"back_to_back", "kernel_only"}));
  cmd->add_option("--attention-relative", a.attention_relative,
                  "KERNEL/REFERENCE@DEVICE: a kernel the --attention table measured on DEVICE "
                  "only, at this device's REFERENCE efficiency x the KERNEL/REFERENCE FLOP/s "
                  "ratio on DEVICE (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--attention-relative-table", a.attention_relative_table,
                  "the table --attention-relative reads DEVICE's two kernels from, when not the "
                  "--attention table (which then need not hold DEVICE's rows)");
  cmd->add_option("--attention-device", a.attention_device,
                  "for --attention tables without this device's rows: that sibling part's rows "
                  "('|'-separated parts), a part with the same tensor cores, SMs and clocks");
  cmd->add_option("--samples", a.samples, "calibration samples JSON (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--base", a.base, "GPU preset or profile JSON to update");
  auto* device = cmd->add_option("--device", a.device,
                                 "use only table rows whose device contains one of these "
                                 "'|'-separated parts");
  cmd->add_option("--gemm-device", a.device, "the same as --device")->excludes(device);
  cmd->add_option("--measured-on", a.measured_on,
                  "GPU preset or profile the tables were measured on, when not --base (a sibling "
                  "part): efficiencies against its peaks and HBM bandwidth");
  cmd->add_option("--ranks", a.ranks, "rank count of the logs (checked against them)")
      ->check(kWholeAtLeastOne);
  cmd->add_option("--gpus-per-node", a.gpus_per_node,
                  "ranks per node when a log prints no hosts (default: the base profile's)")
      ->check(kWholeAtLeastOne);
  cmd->add_option("--name", a.name, "name of the fitted profile (default: BASE-fitted)");
  cmd->add_option("--node-network", a.node_network,
                  "network preset the fitted profile names as node.network");
  cmd->add_option("--network-base", a.network_base,
                  "network preset or JSON the collective fit starts from (default: the base "
                  "profile's network)");
  cmd->add_option("--network-name", a.network_name, "name of the fitted network");
  cmd->add_option("--network-output", a.network_output,
                  "write the fitted network as a cluster preset JSON (not embedded in -o)");
  cmd->add_option("-o,--output", a.output, "profile JSON to write");
  cmd->add_flag("--json", a.json, "JSON fit report on stdout");
}

}  // namespace shardsim::cli
