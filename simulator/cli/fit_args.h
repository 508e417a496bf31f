// The arguments of `shardsim fit` and `shardsim calibrate` (fit_options.cc reads them from the
// command line), and the checks of fit's arguments that need no input file.
#pragma once

#include <string>
#include <vector>

namespace shardsim::cli {

struct FitArgs {
  std::vector<std::string> nccl_logs;           // --nccl-tests LOG (repeatable)
  std::vector<std::string> collective_tables;   // --collective-table CSV (vTrain, busbw summary)
  std::vector<std::string> gemm_csvs;           // --gemm CSV (repeatable)
  std::vector<std::string> gemm_best;           // --gemm-best CSV: best-shape table (mamf)
  std::vector<std::string> gemm_aliases;        // --gemm-alias DST=SRC (e.g. bf16=fp16)
  std::vector<std::string> bandwidth_csvs;      // --hbm CSV: BabelStream / nvbandwidth table
  std::vector<std::string> attention_csvs;      // --attention CSV: FlashAttention benchmark table
  std::vector<std::string> attention_relative;  // --attention-relative KERNEL/REFERENCE@DEVICE
  std::string attention_relative_table;  // --attention-relative-table CSV: where DEVICE's two
                                         // kernels are read ("": the --attention table)
  std::string attention_device;  // --attention-device: a sibling part whose rows are read from
                                 // --attention tables without --device's (all, without --device)
  std::string gemm_timing;       // --gemm-timing back_to_back|kernel_only ("": the default)
  std::string attention_timing;  // --attention-timing back_to_back|kernel_only
  std::vector<std::string> samples;     // --samples FILE (calibration samples)
  std::string table_fit_sizes = "all";  // --table-fit-sizes all|ladder (tables only)
  std::string base;                     // --base PROFILE.json | GPU preset
  std::string device;          // --device (alias --gemm-device): rows whose device has one of the
                               // '|'-separated parts, in every multi-device table
  std::string measured_on;     // --measured-on PROFILE: the tables' device, when not the base's
  int ranks = 0;               // --ranks N: must agree with every log's rank count
  int gpus_per_node = 0;       // --gpus-per-node N (0: the base profile's node size)
  std::string name;            // --name: the fitted profile's name (default: BASE-fitted)
  std::string node_network;    // --node-network PRESET: the fitted profile's node.network
  std::string network_base;    // --network-base PRESET|FILE: the network the fit starts from
  std::string network_name;    // --network-name: the fitted network's name
  std::string network_output;  // --network-output FILE: write the fitted network alone
  std::string output;          // -o PROFILE.json (required without --network-output)
  bool json = false;           // JSON fit report on stdout
};

struct CalibrateArgs {
  std::string backend;  // cpu | cuda
  bool quick = false;
  std::string base;      // optional base profile or preset
  std::string output;    // -o PROFILE.json; samples go to PROFILE.samples.json
  std::string launcher;  // --launcher CMD: shardsim starts the ranks itself (calibrate_launch.h)
  // --verbose: one line per measured item even when stderr is no terminal (progress.h).
  bool verbose = false;
};

// Flags that contradict each other or apply to no input given, names that would reach a report
// with a control character, rank counts out of range: InputError naming the flag. Run before any
// file is read.
void check_fit_args(const FitArgs& a);

}  // namespace shardsim::cli
