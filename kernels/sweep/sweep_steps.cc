#include "kernels/sweep/sweep_steps.h"

#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "kernels/common/errors.h"
#include "kernels/common/timing_loop.h"

namespace shardsim::kernels {
namespace {

nlohmann::json loop_json(const SweepOptions& o, const LoopConfig& c) {
  return {{"quick", o.quick},
          {"name_filter", o.name_filter},
          {"sync_timeout_s", o.sync_timeout_s},
          {"warmup_runs", c.warmup_runs},
          {"min_repetitions", c.min_repetitions},
          {"max_repetitions", c.max_repetitions},
          {"min_total_s", c.min_total_s},
          {"min_sample_s", c.min_sample_s},
          {"samples_reduction", "max over ranks per repetition"},
          // Files written before this key lack it: the first GPU run's GEMMs were timed on the
          // eighths, the second run's (h200-sxm-2026-11-27-run2) already on random data.
          {"gemm_timing_inputs",
           "uniform random in [-1, 1) (seeds 21, 22; gemm_check.h make_timing_inputs), after one "
           "verified run on multiples of 1/8"}};
}

// "45.6 GFLOP/s", "12.3 GB/s busbw", "2.1 us/launch": the headline rate of an item.
std::string headline(const nlohmann::json& item) {
  const nlohmann::json& d = item["derived"];
  if (d.contains("flops_per_second")) {
    return fmt::format("{:.1f} GFLOP/s", d["flops_per_second"].get<double>() / 1e9);
  }
  if (d.contains("busbw_bytes_per_second")) {
    return fmt::format("{:.2f} GB/s busbw", d["busbw_bytes_per_second"].get<double>() / 1e9);
  }
  if (d.contains("bytes_per_second")) {
    return fmt::format("{:.2f} GB/s", d["bytes_per_second"].get<double>() / 1e9);
  }
  return fmt::format("{:.3f} us/launch", d.value("seconds_per_launch", 0.0) * 1e6);
}

// Why rank 0 could not write the samples document at `path` ("" when it can, or no path):
// probes the temporary file that write_json_file() renames into place.
std::string output_problem(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "is a directory, not a file";
  // The sweep also writes PATH.partial (through PATH.partial.tmp.<pid>) and PATH.rank<N>.error
  // beside it: their names must fit the 255-byte limit too, or the sweep fails after measuring
  // (found by review, 2026-11-29: a 250-byte name measured one item, then exit 3). Up to 20
  // bytes are added (".partial.tmp." and a pid of 7 digits; ".rank" N ".error" is shorter).
  constexpr std::size_t kNameMax = 255, kLongestSuffix = 20;
  if (const std::size_t name = std::filesystem::path(path).filename().string().size();
      name > kNameMax - kLongestSuffix)
    return fmt::format(
        "its file name is {} bytes: the sweep writes files beside it whose names "
        "add up to {} bytes (.partial, .rank<N>.error), and a name has at most {}; "
        "use a name of at most {} bytes",
        name, kLongestSuffix, kNameMax, kNameMax - kLongestSuffix);
  const std::string probe_path = temporary_path(path);
  {
    std::ofstream probe(probe_path);
    if (!probe) {
      const std::filesystem::path dir = std::filesystem::path(path).parent_path();
      if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
        return "cannot create " + probe_path + ": its directory " + dir.string() +
               " does not exist";
      return "cannot create " + probe_path + ": " + std::strerror(errno);
    }
  }
  std::remove(probe_path.c_str());
  return "";
}

// `<samples_path>.rank<N>.error`: the error of rank N after a failure (run_sweep.h).
std::string error_path(const std::string& samples_path, int rank) {
  return samples_path + ".rank" + std::to_string(rank) + ".error";
}

}  // namespace

SweepRun::SweepRun(const SweepOptions& options, std::ostream& log, nlohmann::json& out,
                   bool abort_on_failure)
    : options_(options), log_(log), out_(out), abort_on_failure_(abort_on_failure) {}

int SweepRun::execute(const BuildInfo& build, const BackendFactory& make_backend) {
  std::optional<Comm> world;
  std::optional<RankSignals> signals;  // rank_signals.h, for the whole sweep
  std::unique_ptr<Backend> backend;    // declared here: alive while a failure is handled
  try {
    world.emplace(Comm::world(options_.sync_timeout_s));
    rank0_ = world->rank() == 0;
    const std::string my_error_file =
        options_.samples_path.empty() ? "" : error_path(options_.samples_path, world->rank());
    std::remove(my_error_file.c_str());  // an error file of an earlier run would mislead
    signals.emplace(world->rank(), my_error_file);
    peers_ = gather_peers(*world);
    RankSignals::set_peers(peers_, world->rank());
    // Checked before measuring (rank 0 writes the file; every rank takes its answer).
    const std::string bad_output = rank0_ ? output_problem(options_.samples_path) : "";
    if (!world->all(bad_output.empty())) {
      if (rank0_) log_ << "error: -o " << options_.samples_path << ": " << bad_output << "\n";
      return 2;
    }
    // The run's description comes first: a backend can fail while it starts (NCCL's
    // communicators are made then), and the .partial file of that failure must still say where,
    // with what build and how many ranks it ran.
    const SweepPlan plan = make_sweep_plan(options_.backend, options_.quick);
    context_ = base_context(*world, build);
    context_["sweep"] = loop_json(options_, plan.loop);
    std::string error;
    backend = make_backend(*world, error);
    if (!backend) {  // every rank took this decision together: nothing to abort
      if (rank0_) log_ << "error: " << error << "\n";
      error_ = {{"call", "backend"}, {"message", error}};
      // The .partial, with no items, says why: `calibrate --launcher` reads it (found by README
      // audit, 2026-11-29: it said "no rank recorded an error" after the ranks' own message).
      publish(false);
      return 3;
    }
    context_["backend"] = backend->context();
    std::vector<Descriptor> all = backend->descriptors(plan);
    std::vector<const Descriptor*> chosen;
    for (const Descriptor& d : all) {
      if (d.name.find(options_.name_filter) != std::string::npos) chosen.push_back(&d);
    }
    if (chosen.empty()) {
      if (rank0_) {
        log_ << "error: --filter '" << options_.name_filter << "' matches no item of this sweep\n";
      }
      return 2;
    }
    publish(false);  // the .partial exists (no items yet) from the start of the measurements
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      test_hook_maybe_die(i, *world);
      current_item_ = chosen[i]->name;
      RankSignals::set_item(current_item_);
      const bool collective = chosen[i]->kind == Kind::kCollective;
      const Measurement m = measure(*chosen[i], backend->timer(), *world, plan.loop,
                                    [&] { test_hook_maybe_die_inside(collective, *world); });
      items_.push_back(item_json(*chosen[i], m));
      log_item(i, chosen.size(), items_.back());
      publish(false);
    }
    publish(true);
    RankSignals::forget_error();  // a stop signal's record, when the sweep completed after all
  } catch (const CallError& e) {
    return fail(world ? &*world : nullptr, e.call(), e.what());
  } catch (const std::exception& e) {
    return fail(world ? &*world : nullptr, "std::exception", e.what());
  }
  for (const auto& item : items_) {
    if (!item["verified"].get<bool>()) return 1;
  }
  return 0;
}

void SweepRun::log_item(std::size_t index, std::size_t count, const nlohmann::json& item) {
  if (!rank0_ || (!options_.item_lines && item["verified"].get<bool>())) return;
  log_ << fmt::format("[{:>4}/{}] {:<48} median {:.3e} s  mad {:.1e} s  {}{}\n", index + 1, count,
                      item["name"].get<std::string>(), item["median_s"].get<double>(),
                      item["spread"]["mad_s"].get<double>(), headline(item),
                      item["verified"].get<bool>() ? "" : "  VERIFICATION FAILED");
  if (!item["verified"].get<bool>())
    log_ << "  " << item["verification"].get<std::string>() << "\n";
  log_.flush();
}

int SweepRun::fail(const Comm* world, const std::string& call, const std::string& detail) {
  const int rank = world != nullptr ? world->rank() : 0;
  // A peer process that is gone explains a failed or interrupted wait: name it first.
  const std::vector<int> lost = lost_ranks(peers_);
  std::string message = detail;
  if (!lost.empty()) {
    std::string names;
    for (const int r : lost) names += (names.empty() ? "" : ", ") + std::to_string(r);
    message = fmt::format("rank{} {} lost during {}: {}", lost.size() > 1 ? "s" : "", names, call,
                          detail);
  }
  RankSignals::stop_recording();  // this is the record: a signal during MPI_Abort adds none
  log_ << "error: rank " << rank << ": " << message
       << (current_item_.empty() ? "" : " (while measuring " + current_item_ + ")") << "\n";
  error_ = {{"call", call}, {"message", message}, {"item", current_item_}, {"rank", rank}};
  if (!lost.empty()) error_["lost_ranks"] = lost;
  try {
    publish(false);
    if (!options_.samples_path.empty()) {
      // Every failing rank writes its own error file before MPI_Abort: when rank 0 is not the one
      // that failed, the abort may end it before it learns the error, so its .partial would keep
      // `error: null`; this file names the failing call regardless.
      const std::string error_file = error_path(options_.samples_path, rank);
      write_json_file(error_file, error_);
      log_ << "error of rank " << rank << " written to " << error_file << "\n";
    }
    if (rank0_ && !options_.samples_path.empty()) {
      log_ << "partial samples (" << items_.size() << " items) kept in " << options_.samples_path
           << ".partial\n";
    }
  } catch (const CallError& e) {
    log_ << "error: " << e.what() << "\n";
  }
  log_.flush();
  if (abort_on_failure_ && world != nullptr && world->size() > 1) MPI_Abort(MPI_COMM_WORLD, 3);
  return 3;
}

// Refreshes `out_`; rank 0 writes the document: the final file when complete, otherwise the
// .partial sibling (after every item, so it is current whenever another rank's failure aborts
// rank 0; one small JSON file per item costs far less than the item's measurement).
void SweepRun::publish(bool complete) {
  out_ = samples_document(context_, items_, complete, error_);
  if (!rank0_ || options_.samples_path.empty()) return;
  const std::string partial = options_.samples_path + ".partial";
  if (complete) {
    write_json_file(options_.samples_path, out_);
    std::remove(partial.c_str());
    return;
  }
  write_json_file(partial, out_);
}

}  // namespace shardsim::kernels
