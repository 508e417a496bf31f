// fit --samples: the profile calibration samples documents describe, and one report line per
// document saying what it gave (fit_inputs.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "calibrate/collective_fit.h"
#include "calibrate/profile_fit.h"
#include "calibrate/samples_check.h"
#include "simulator/cli/fit_inputs.h"
#include "simulator/cli/fit_network.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"

namespace shardsim::cli {

namespace cal = shardsim::calibrate;
using nlohmann::json;

std::set<std::string> fit_samples(const std::vector<std::string>& files, bool has_base,
                                  bool host_link_from_tables, const std::string& network_base,
                                  const std::string& network_name, GpuProfile& g, FitNotes& notes) {
  if (files.empty()) return {};
  std::vector<json> docs;
  std::vector<cal::SamplesInput> inputs;
  docs.reserve(files.size());
  try {
    for (const auto& path : files) {
      // Samples of a long GPU sweep are bigger than scenarios: up to 256 MiB.
      docs.push_back(parse_json_text(read_text_file(path, std::uintmax_t{256} << 20, "--samples"),
                                     "--samples \"" + path + "\""));
      cal::check_samples(docs.back(), path);
      inputs.push_back({&docs.back(), path, cal::samples_memory_bytes(docs.back())});
    }
    // The base's line rates bound the measured collectives, from its node.network preset when
    // it embeds no network (found by review, 2026-11-28: every GPU preset names one, so the
    // check saw no line rate).
    // --network-base's line rates and the network the fit starts from (found by review,
    // 2026-11-29: with --samples alone it was ignored).
    const NetworkConfig lines =
        has_base || !network_base.empty() ? base_network(g, network_base) : NetworkConfig{};
    const NetworkConfig* start = network_base.empty() ? nullptr : &lines;
    auto fitted =
        cal::profile_from_samples(inputs, has_base ? &g : nullptr, &lines, start, network_name);
    g = std::move(fitted.profile);
    // A document that gave nothing would still mark the profile fitted (found by review,
    // 2026-11-28: an aborted run's `"items": []` wrote the base back as `fitted: true`).
    // (One whose values a later document measured again gave them first: not nothing.)
    for (const auto& u : fitted.uses)
      if (u.used.empty() && u.replaced.empty())
        throw InputError("--samples",
                         u.items == 0 ? fmt::format("{}: no items: nothing to fit (a sweep that "
                                                    "stopped before its first item?)",
                                                    u.file)
                                      : fmt::format("{}: none of its {} items gives a profile "
                                                    "value: nothing to fit",
                                                    u.file, u.items));
    // Without --base every value comes from the samples: one they did not measure was refused
    // later as "outside the accepted ranges: /peak_flops_per_second/fp32 ... got 0.0" (found by
    // review, 2026-11-29). Said here as what is missing and where it comes from.
    if (!has_base) {
      std::vector<std::string> missing;
      // A profile needs its fp32 and fp16 peaks (the others may be 0: no such tensor cores); the
      // CPU backend's sgemm gives every peak, a GPU's GEMMs each dtype's own.
      if (cal::is_cpu_profile(g)) {
        if (!(g.peak.fp32 > 0)) missing.push_back("GEMM items (the peaks)");
      } else {
        for (const auto& [dtype, peak] : {std::pair{"fp32", g.peak.fp32}, {"fp16", g.peak.fp16}})
          if (!(peak > 0))
            missing.push_back(fmt::format("{} GEMM items (the {} peak)", dtype, dtype));
      }
      if (!(g.hbm_bytes_per_second > 0)) missing.push_back("memory-bound items (the HBM rate)");
      // An --hbm table's host copy may give the host link instead (run_fit checks it after).
      if (!(g.pcie_bytes_per_second > 0) && !host_link_from_tables)
        missing.push_back("copy items (the host link)");
      if (!(g.memory_bytes > 0))
        missing.push_back("the device's memory (context.backend.device.memory_bytes)");
      if (!missing.empty())
        throw InputError("--samples", fmt::format("without --base the profile takes every value "
                                                  "from the samples, which lack {}; give --base "
                                                  "PROFILE for the values they did not measure",
                                                  fmt::join(missing, ", ")));
    }
    for (const auto& u : fitted.uses) {
      const std::string state = u.complete ? "" : ", an incomplete (.partial) sweep";
      std::string line = fmt::format(
          "{}: calibration samples, {} items ({} backend on {}, {}{}); "
          "used: {}",
          u.file, u.items, u.backend, u.host, u.date, state,
          u.used.empty() ? "nothing" : fmt::format("{}", fmt::join(u.used, ", ")));
      if (!u.replaced.empty())
        line += fmt::format("; measured again by a later file: {}", fmt::join(u.replaced, ", "));
      // Stalled collective samples are left out as stalled log rows are, and said as they are
      // (found by review, 2026-11-28: the samples report did not list them).
      json left = json::array();
      for (const auto& o : u.left_out) {
        line += fmt::format(
            "\n  items[{}] ({}) left out: {}, over {:g}x the {} of the larger message items[{}] "
            "(a stalled run)",
            o.item, o.collective, cal::time_text(o.seconds), cal::kStallFactor,
            cal::time_text(o.larger_seconds), o.larger_item);
        left.push_back({{"item", o.item},
                        {"collective", o.collective},
                        {"seconds", o.seconds},
                        {"larger_item", o.larger_item},
                        {"larger_seconds", o.larger_seconds}});
      }
      notes.add({{"input", "samples"},
                 {"file", u.file},
                 {"rows", u.items},
                 {"backend", u.backend},
                 {"host", u.host},
                 {"date", u.date},
                 {"complete", u.complete},
                 {"used", u.used},
                 {"replaced_by_later_file", u.replaced},
                 {"left_out", left}},
                line);
    }
    return fitted.device_parts;
  } catch (const json::exception& e) {
    // Reading a document (parse, check, its memory share) is what throws this here:
    // profile_from_samples turns its own into invalid_argument naming the file. The document
    // being read is the one after those accepted.
    const std::string& file = files[std::min(inputs.size(), files.size() - 1)];
    throw InputError("--samples", fmt::format("{}: {}", file, e.what()));
  } catch (const std::invalid_argument& e) {
    throw InputError("--samples", e.what());
  }
}

}  // namespace shardsim::cli
