// shardsim fit: builds or updates a hardware profile from nccl-tests logs, GEMM CSVs and
// calibration samples (the fits are in calibrate/), prints a fit report, writes the profile.
#include "simulator/cli/fit_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "calibrate/compute_fit.h"
#include "calibrate/profile_fit.h"
#include "reports/output.h"
#include "simulator/cli/fit_inputs.h"
#include "simulator/cli/fit_network.h"
#include "simulator/cli/fit_report.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {

using nlohmann::json;

GpuProfile load_profile(const std::string& spec, const std::string& flag) {
  json j;
  if (auto preset = find_preset(PresetKind::kGpu, spec)) {
    j = *preset;
  } else {
    if (!path_exists(spec, flag)) throw_unknown_preset(PresetKind::kGpu, spec, flag, true);
    try {
      j = read_json_file(spec);
    } catch (const InputError& e) {
      throw InputError(flag, e.items().front().message);
    }
  }
  GpuProfile g;
  Diagnostics d;
  read_gpu_profile(j, "", d, g);
  if (!d.empty()) throw_with_flag(d, flag, spec);
  return g;
}

namespace {

// The measurements' files, for messages: "--nccl-tests a.log, --gemm b.csv".
std::string inputs_text(const FitArgs& a) {
  std::string out;
  const auto add = [&](const char* flag, const std::vector<std::string>& files) {
    for (const auto& f : files) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", flag, f);
  };
  add("--nccl-tests", a.nccl_logs);
  add("--collective-table", a.collective_tables);
  add("--gemm", a.gemm_csvs);
  add("--gemm-best", a.gemm_best);
  add("--hbm", a.bandwidth_csvs);
  add("--attention", a.attention_csvs);
  if (!a.attention_relative_table.empty())
    add("--attention-relative-table", {a.attention_relative_table});
  add("--samples", a.samples);
  return out;
}

// The fitted profile (or network, for --network-output) must read back: a value outside the
// reader's ranges comes from the measurements (a GEMM rate far below the peak, absurd times, a
// segment past the ranges), so it is bad input, not a bug. The network was once checked only
// while being written, which made such logs exit 3 (found by the nccl_log fuzz target;
// tests/fuzz/regressions/nccl_log/).
template <class T>
void check_reads_back(const FitArgs& a, const T& fitted, const char* what,
                      void (*reader)(const json&, const std::string&, Diagnostics&, T&)) {
  T back;
  Diagnostics d;
  reader(to_json(fitted), "", d, back);
  if (d.empty()) return;
  std::vector<Diagnostic> items;
  for (const auto& e : d.items())
    items.push_back({"", fmt::format("{}: the measurements give a {} outside the accepted "
                                     "ranges: {}: {}",
                                     inputs_text(a), what, e.path, e.message)});
  throw InputError(items);
}

void check_fitted(const FitArgs& a, const GpuProfile& g) {
  check_reads_back(a, g, "profile", &read_gpu_profile);
}

void check_fitted(const FitArgs& a, const NetworkConfig& n) {
  check_reads_back(a, n, "network", &read_network_config);
}

// `fitted` as JSON text, after reading it back through its own reader: a fit that produced
// something the reader rejects is a bug (the inputs were checked by check_fitted), not bad input.
template <class T>
std::string read_back_text(const T& fitted, const char* what,
                           void (*reader)(const json&, const std::string&, Diagnostics&, T&)) {
  const json j = to_json(fitted);
  T back;
  Diagnostics d;
  reader(j, "", d, back);
  if (!d.empty())
    throw std::runtime_error(
        fmt::format("the fitted {} does not pass its own checks:\n{}", what, d.format()));
  return j.dump(2) + "\n";
}

std::string profile_text(const GpuProfile& g) {
  return read_back_text(g, "profile", &read_gpu_profile);
}

}  // namespace

void write_profile(const GpuProfile& g, const std::string& path) {
  write_output(path, profile_text(g));
}

// A fitted profile says so everywhere a report looks: fitted, a note naming what was fitted and
// what kept the base's values, and a name that is not the base preset's (a report naming
// "a100-sxm-80gb" must mean the datasheet preset).
void mark_fitted(const FitArgs& a, const std::string& base_name, GpuProfile& g) {
  g.provenance.fitted = true;
  g.description = fitted_description(g.description);
  std::string what;
  for (const auto& [n, kind] : {std::pair{a.nccl_logs.size(), "nccl-tests log(s)"},
                                {a.collective_tables.size(), "collective table(s)"},
                                {a.gemm_csvs.size(), "GEMM table(s)"},
                                {a.gemm_best.size(), "best-shape GEMM table(s)"},
                                {a.bandwidth_csvs.size(), "bandwidth table(s)"},
                                {a.attention_csvs.size(), "attention table(s)"},
                                {a.samples.size(), "calibration sample file(s)"}})
    if (n > 0) what += fmt::format("{}{} {}", what.empty() ? "" : ", ", n, kind);
  if (!a.measured_on.empty())
    what += fmt::format(
        " measured on '{}' (efficiencies taken against its peaks and HBM "
        "bandwidth, applied to this profile's)",
        a.measured_on);
  g.provenance.note =
      base_name.empty() ? "fitted by shardsim fit from " + what
                        : fmt::format(
                              "fitted by shardsim fit from {} onto base profile '{}'; values these "
                              "measurements do not cover keep the base's",
                              what, base_name);
  if (!a.name.empty())
    g.name = a.name;
  else if (!base_name.empty() && g.name == base_name)
    g.name = base_name + "-fitted";
  if (!a.node_network.empty()) g.default_network = a.node_network;
}

namespace {

// How a table the fit added to was timed (ComputeModel::*_points_timing; "" is back to back).
// One table has one timing: new points timed otherwise than the base's points they join are an
// error. `base_points` is whether the base's points stay in the table.
void set_table_timing(std::string& timing, const std::string& requested, bool base_points,
                      const char* flag, const char* key) {
  const std::string now = timing.empty() ? "back_to_back" : timing;
  const std::string want = requested.empty() ? "back_to_back" : requested;
  if (base_points && now != want)
    throw InputError(flag, fmt::format("the base profile's compute.{} was timed {}, and the new "
                                       "points ({}) would join it: one table has one timing (give "
                                       "{} {}, or a base without that table)",
                                       key, now, want, flag, now));
  timing = want == "back_to_back" ? std::string() : want;
}

// The fitted network alone, as a cluster preset; checked by reading it back.
std::string network_text(const NetworkConfig& n) {
  return read_back_text(n, "network", &read_network_config);
}

}  // namespace

int run_fit(const FitArgs& a) {
  // The report goes to standard output; the profile and the network to their files.
  std::vector<std::pair<std::string, std::string>> outputs = {{"the report", "-"}};
  if (!a.output.empty()) outputs.push_back({"-o", a.output});
  if (!a.network_output.empty()) outputs.push_back({"--network-output", a.network_output});
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"--base", a.base},
      {"--network-base", a.network_base},
      {"--measured-on", a.measured_on},
      {"--attention-relative-table", a.attention_relative_table}};
  // Each input by its flag ("is the input --nccl-tests", not "is the input an input file").
  for (const auto& [flag, list] : {std::pair{"--nccl-tests", &a.nccl_logs},
                                   {"--collective-table", &a.collective_tables},
                                   {"--gemm", &a.gemm_csvs},
                                   {"--gemm-best", &a.gemm_best},
                                   {"--hbm", &a.bandwidth_csvs},
                                   {"--attention", &a.attention_csvs},
                                   {"--samples", &a.samples}})
    for (const std::string& f : *list) inputs.push_back({flag, f});
  check_outputs(outputs, inputs);
  check_fit_args(a);
  GpuProfile g = a.base.empty() ? GpuProfile{} : load_profile(a.base, "--base");
  const std::string base_name = a.base.empty() ? std::string() : g.name;
  // What the tables' efficiencies are taken against, as the base gave it.
  const auto base_rates = std::pair{g.peak, g.hbm_bytes_per_second};
  FitNotes notes;
  std::set<std::string> by_samples =
      fit_samples(a.samples, !a.base.empty(), !a.bandwidth_csvs.empty(), a.network_base,
                  a.network_name, g, notes);
  // GPU measurements (NCCL logs, cuBLAS/FlashAttention/BabelStream tables) describe no CPU: fitted
  // onto a CPU profile they priced its collectives at NVLink rates (found by review, 2026-11-29:
  // an 8-H100 all-reduce log took a CPU profile's intra-node rate from 4.5 to 493 GB/s).
  const bool cpu = (!a.samples.empty() || !a.base.empty()) && calibrate::is_cpu_profile(g);
  if (cpu)
    for (const auto& [flag, list] : {std::pair{"--nccl-tests", &a.nccl_logs},
                                     {"--collective-table", &a.collective_tables},
                                     {"--gemm", &a.gemm_csvs},
                                     {"--gemm-best", &a.gemm_best},
                                     {"--hbm", &a.bandwidth_csvs},
                                     {"--attention", &a.attention_csvs}})
      if (!list->empty())
        throw InputError(flag, fmt::format("{}: GPU measurements cannot be fitted onto '{}', a "
                                           "CPU profile (calibrate --backend cpu); fit them "
                                           "onto a GPU --base",
                                           list->front(), g.name));
  // The network flags need collectives, and --samples without any gave none (found by review,
  // 2026-11-29: a launch-only samples file took --network-name with exit 0).
  if (a.nccl_logs.empty() && a.collective_tables.empty() && !by_samples.contains("collectives"))
    for (const auto& [flag, value] :
         {std::pair<const char*, const std::string*>{"--network-name", &a.network_name},
          {"--network-base", a.network_output.empty() ? &a.network_base : nullptr}})
      if (value != nullptr && !value->empty())
        throw InputError(flag,
                         "applies to the network fitted from collectives, and the --samples "
                         "measured none (a one-rank or filtered sweep?)");
  // ...nor a GPU cluster's network: its segments and line rates were kept beside the CPU's own
  // (found by review, 2026-11-29).
  if (cpu && !a.network_base.empty())
    throw InputError("--network-base",
                     fmt::format("'{}' cannot start the network of '{}', a CPU profile: its "
                                 "collectives are fitted from its own samples",
                                 a.network_base, g.name));
  // The tables' efficiencies are against the device as --samples left it (its measured HBM
  // bandwidth and peaks), or against --measured-on (found by review, 2026-11-29: taken before
  // the samples, a triad at 2.97 TB/s was divided by the base's datasheet 3.35 TB/s and then
  // priced against the samples' 2.67 TB/s; without --base it was divided by 0).
  GpuProfile measured = a.measured_on.empty() ? g : load_profile(a.measured_on, "--measured-on");
  // Named as the user knows it in the provenance ("the dense peak of h100-sxm-datasheet with
  // --samples"), not by the samples' interim name; by the base's alone where the samples left
  // its peaks and HBM bandwidth as they were (a collectives-only sweep).
  if (a.measured_on.empty() && !a.samples.empty() && !base_name.empty())
    measured.name = std::pair{g.peak, g.hbm_bytes_per_second} == base_rates
                        ? base_name
                        : base_name + " with --samples";
  const MeasuredDevice on{measured, a.device, std::move(by_samples)};
  if (!a.gemm_csvs.empty())  // --gemm adds to the points the base (or --samples) gave
    set_table_timing(g.compute.gemm_points_timing, a.gemm_timing, !g.compute.gemm_points.empty(),
                     "--gemm-timing", "gemm_points");
  fit_gemm_tables(a.gemm_csvs, on, g, notes);
  fit_gemm_best(a.gemm_best, on, g, notes);
  apply_gemm_aliases(a.gemm_aliases, g, notes);
  fit_bandwidth_tables(a.bandwidth_csvs, on, g, notes);
  if (a.base.empty() && !a.samples.empty() && !(g.pcie_bytes_per_second > 0))
    throw InputError("--hbm",
                     "without --base the host link comes from the --samples' copy items "
                     "or an --hbm host copy (nvbandwidth_host_to_device or "
                     "device_to_host), and neither gave one; give --base PROFILE");
  const auto base_attention = g.compute.attention_points;
  const auto written =
      fit_attention_tables(a.attention_csvs, a.attention_relative, a.attention_relative_table,
                           a.attention_device, on, g, notes);
  if (!a.attention_csvs.empty()) {  // the base's points of kernels not written here stay
    const bool stay = std::ranges::any_of(base_attention, [&](const AttentionPoint& p) {
      return std::ranges::find(written, p.kernel) == written.end();
    });
    set_table_timing(g.compute.attention_points_timing, a.attention_timing, stay,
                     "--attention-timing", "attention_points");
  }
  auto network = fit_network(a, g);
  if (network && a.network_output.empty()) g.network = network->net;
  mark_fitted(a, base_name, g);
  if (!a.output.empty()) check_fitted(a, g);
  if (network && !a.network_output.empty()) check_fitted(a, network->net);
  static const std::vector<LogReport> kNoLogs;
  const auto& logs = network ? network->logs : kNoLogs;
  const auto* t = network && network->topo ? &*network->topo : nullptr;
  // The report, the profile and the network as one: none is left written when another fails
  // (a full disk, a closed stdout pipe: found by review, 2026-11-28, `fit -o p.json | true` was
  // killed by SIGPIPE with p.json written).
  // The report last: written-through outputs go in order, so a profile sent to a device that
  // fails (-o /dev/full) leaves stdout empty too.
  std::vector<std::pair<std::string, std::string>> files;
  if (!a.output.empty()) files.emplace_back(a.output, profile_text(g));
  if (network && !a.network_output.empty())
    files.emplace_back(a.network_output, network_text(network->net));
  files.emplace_back("-", a.json ? fit_report_json(notes, logs, t).dump(2) + "\n"
                                 : fit_report_text(notes, logs, t));
  write_outputs(files);
  for (const auto& w : notes.warnings) std::cerr << "warning: " << w << "\n";
  // A profile with no network of its own and no node.network preset prices no collective: say
  // so now, not when a scenario first uses it (found by review, 2026-11-27: samples of a
  // one-rank sweep gave such a profile silently).
  if (!a.output.empty() && !g.network && g.default_network.empty())
    std::cerr << "warning: " << a.output
              << ": the profile has no network (no collective was measured and the base names "
                 "none); a scenario using it needs cluster.network\n";
  return kExitOk;
}

}  // namespace shardsim::cli
