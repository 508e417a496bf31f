#include "calibrate/profile_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "calibrate/collective_fit.h"
#include "calibrate/compute_fit.h"
#include "calibrate/samples_check.h"
#include "calibrate/topology_fit.h"
#include "simulator/cost/collective.h"

namespace shardsim::calibrate {
namespace {

using Key = std::tuple<std::string, int, int>;  // op, ranks, ranks_per_node

// What every CPU-backend profile's description says (is_cpu_profile looks for it).
constexpr std::string_view kCpuDeviceMark =
    "described as a device by `shardsim calibrate --backend cpu`";

// Collective items grouped by (op, ranks, ranks_per_node), rows ascending by size.
std::vector<MeasuredCollective> collective_rows(const nlohmann::json& samples,
                                                const std::string& file) {
  std::map<Key, std::map<double, std::pair<double, int>>> groups;
  int index = 0;
  for (const auto& item : samples.at("items")) {
    ++index;
    if (item.at("kind") != "collective") continue;
    const auto& p = item.at("params");
    const auto op = collective_from_name(p.at("op").get<std::string>());
    const double bytes = p.at("bytes"), t = item.at("median_s");
    if (!op || bytes <= 0 || t <= 0) continue;
    // Group sizes are whole numbers of ranks (a cast of 1e300 to int is undefined): ranks 1 to
    // 2^20, ranks per node a divisor of them.
    const double ranks = p.at("ranks"), per_node = p.at("ranks_per_node");
    const auto whole = [](double v, double hi) { return v >= 1 && v <= hi && v == std::floor(v); };
    if (!whole(ranks, double(1 << 20)) || !whole(per_node, ranks) ||
        std::fmod(ranks, per_node) != 0)
      throw std::invalid_argument(fmt::format(
          "{}: items[{}]: params.ranks {} and ranks_per_node {} are not a group of 1 to 2^20 "
          "ranks in nodes of a divisor of it",
          file, index - 1, p.at("ranks").dump(), p.at("ranks_per_node").dump()));
    const Key key{collective_name(*op), int(ranks), int(per_node)};
    groups[key].emplace(bytes, std::pair{t, index});
  }
  std::vector<MeasuredCollective> out;
  for (const auto& [key, rows] : groups) {
    MeasuredCollective m{file, std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}, {}, {},
                         {}};
    if (m.ranks < 2 || rows.size() < 2) continue;
    for (const auto& [bytes, tl] : rows) {
      m.bytes.push_back(bytes);
      m.seconds.push_back(tl.first);
      m.lines.push_back(tl.second);
    }
    // As for logs (found by review, 2026-11-28: a 1 KiB sample stalled to 1 ms collapsed the
    // fit into one segment 4.4x off at 64 MiB, exit 0). `lines` holds 1-based item numbers.
    leave_out_stalled(m);
    if (m.bytes.size() < 2)  // as for a log: the group cannot be fitted, and says why
      throw std::invalid_argument(fmt::format(
          "{}: {} on {} ranks, {} per node: fewer than 2 sizes left after {} stalled item(s) "
          "(over {:g}x slower than a larger message) were left out",
          file, m.op, m.ranks, m.ranks_per_node, m.left_out.size(), kStallFactor));
    out.push_back(std::move(m));
  }
  return out;
}

// A starting network for the topology fit from the collective fits: the best busbw and the
// smallest all_reduce latency, used for both levels (one-node sweeps measure no network).
NetworkConfig start_network(const std::vector<CollectiveFit>& fits, const GpuProfile& base) {
  NetworkConfig n = base.network.value_or(NetworkConfig{});
  double busbw = 0, alpha = 1;
  for (const auto& f : fits)
    for (const auto& s : f.segments) {
      busbw = std::max(busbw, std::min(s.entry.busbw_bytes_per_second, 1e13));
      if (s.entry.op == "all_reduce" && s.entry.alpha_s > 0)
        alpha = std::min(alpha, s.entry.alpha_s);
    }
  n.name = "calibrated";
  n.intra_node_GBps = busbw / 1e9;
  n.inter_node_Gbps = busbw * 8 / 1e9;
  n.intra_node_latency_us = alpha * 1e6;
  n.inter_node_latency_us = alpha * 1e6;
  return n;
}

// Whether `text` names the collective `key` ("all_reduce/2x2"), not a longer one that contains it
// ("reduce/2x2" in "all_reduce/2x2", "all_reduce/2x2" in "all_reduce/2x24").
bool names_key(const std::string& full, const std::string& key) {
  // The key is after the last ':' ("FILE:all_reduce/8x8", "base 'X': all_reduce/2x2 items"): a
  // file path that happens to contain a key is not it (found by review, 2026-11-27).
  const std::string text = full.substr(full.rfind(':') == std::string::npos ? 0 : full.rfind(':'));
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const bool starts =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    const std::size_t after = at + key.size();
    const bool ends =
        after == text.size() || !std::isdigit(static_cast<unsigned char>(text[after]));
    if (starts && ends) return true;
  }
  return false;
}

// The base network's provenance for what stays of it: the sources, residuals and fit ranges
// that name none of the re-measured keys (its other segments), sources marked "base 'NAME'"
// once (a base's own base keeps its mark). The topology formula is refit, so the base's
// topology residuals go. (Found by review, 2026-11-27: the base's provenance was kept whole,
// replaced segments and the old topology's residuals included, and a base's base was dropped.)
void keep_base_network_provenance(const Provenance& base, const std::string& base_name,
                                  const std::vector<std::string>& remeasured, Provenance& p) {
  const auto stale = [&](const std::string& text) {
    return std::ranges::any_of(remeasured,
                               [&](const std::string& k) { return names_key(text, k); });
  };
  for (auto src : base.sources) {
    if (stale(src.description)) continue;
    if (!src.description.starts_with("base '"))
      src.description = fmt::format("base '{}': {}", base_name, src.description);
    p.sources.push_back(std::move(src));
  }
  for (const auto& [name, value] : base.residuals)
    // The topology fits' own residuals ("topology/all_reduce/2x2/median_pct" from samples,
    // "topology RMS log error" from nccl-tests logs), not a log whose name starts "topology".
    if (!stale(name) && !name.starts_with("topology/") && name != "topology RMS log error")
      p.residuals.emplace(name, value);
  for (const auto& r : base.fit_ranges)
    if (!stale(r.name) &&
        std::ranges::none_of(p.fit_ranges, [&](const FitRange& n) { return n.name == r.name; }))
      p.fit_ranges.push_back(r);
}

void fit_network(const std::vector<MeasuredCollective>& rows, GpuProfile& g) {
  std::vector<CollectiveFit> fits;
  for (const auto& m : rows) fits.push_back(fit_collective(m));
  const TopologyFit topo = fit_topology(rows, start_network(fits, g));
  NetworkConfig net = topo.net;
  // The base's segments of a measured key give way to the new ones (found 2026-11-27: refitting
  // a profile's own samples onto it duplicated every segment, and the profile did not read back).
  std::erase_if(net.fitted_collectives, [&](const FittedCollective& f) {
    return std::ranges::any_of(rows, [&](const MeasuredCollective& m) {
      return m.op == f.op && m.ranks == f.ranks && m.ranks_per_node == f.ranks_per_node;
    });
  });
  std::vector<std::string> files;
  for (const auto& m : rows)
    if (std::ranges::find(files, m.file) == files.end()) files.push_back(m.file);
  const bool kept = !net.fitted_collectives.empty();  // the base's segments of other keys
  net.description =
      fmt::format("fitted by shardsim from calibration collectives ({}){}", fmt::join(files, ", "),
                  kept ? fmt::format("; other segments from base network '{}'",
                                     g.network ? g.network->name : std::string())
                       : std::string());
  Provenance prov{true, {}, {}, {}, "topology-model fit and fitted collective segments"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& m = rows[i];
    const std::string name = fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node);
    for (const auto& e : entries(fits[i])) net.fitted_collectives.push_back(e);
    prov.residuals[name] = fits[i].residual;
    prov.residuals["topology/" + name + "/median_pct"] = topo.errors[i].median_pct;
    prov.sources.push_back({m.file, m.lines.front(), m.lines.back(), "", name + " items"});
    prov.fit_ranges.push_back({name + " bytes", m.bytes.front(), m.bytes.back(), "bytes"});
  }
  if (g.network && g.network->provenance) {
    std::vector<std::string> remeasured;
    for (const auto& m : rows)
      remeasured.push_back(fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node));
    keep_base_network_provenance(*g.network->provenance, g.network->name, remeasured, prov);
  }
  net.provenance = prov;
  g.network = net;
}

void fit_compute(const DeviceFits& d, bool cpu, GpuProfile& g) {
  if (cpu && d.best_gemm_fp32 > 0) {
    g.peak = {d.best_gemm_fp32, 0, d.best_gemm_fp32, d.best_gemm_fp32, 0};
  } else {
    for (const auto& m : d.gemms) {
      double& p = m.dtype == "fp16"   ? g.peak.fp16
                  : m.dtype == "bf16" ? g.peak.bf16
                  : m.dtype == "fp8"  ? g.peak.fp8
                  : m.dtype == "tf32" ? g.peak.tf32
                                      : g.peak.fp32;
      p = std::max(p, m.flops_per_second);
    }
  }
  // No spread limit: the sweep times a shape plain and transposed, one point here (found by
  // review, 2026-11-28: under the tables' 2x rule every point was dropped without a word).
  auto points = gemm_points(d.gemms, g.peak, "samples", 0);
  if (auto* e = std::get_if<std::string>(&points)) throw std::invalid_argument(*e);
  if (auto* p = std::get_if<std::vector<GemmPoint>>(&points); p && !p->empty()) {
    g.compute.kind = "measured";
    g.compute.gemm_points = *p;
    index_gemm_points(g.compute);
  }
  if (d.hbm_bytes_per_second > 0) {
    g.hbm_bytes_per_second = d.hbm_bytes_per_second;
    g.compute.memory_bound_points = d.memory_bound_points;
    if (d.memory_bound_efficiency > 0)
      g.compute.memory_bound_efficiency = d.memory_bound_efficiency;
  }
  if (d.launch_overhead_s > 0) g.compute.launch_overhead_s = d.launch_overhead_s;
  // The model's copy time is bytes / (pcie x kPcieCopyEfficiency) (simulator/cost/collective.h):
  // the link rate that reproduces the largest measured copy.
  if (d.copy_bytes_per_second > 0)
    g.pcie_bytes_per_second = d.copy_bytes_per_second / kPcieCopyEfficiency;
}

// The profile's name and description from a samples document's context. With a base (`base`
// non-null) the base's description stays and a sentence naming the measured device follows it
// (once: a refit on the same device adds nothing); without one the sweep's device is the whole
// story. memory_bytes becomes the device's total when the sweep reported it.
void describe(const nlohmann::json& ctx, bool cpu, const GpuProfile* base, GpuProfile& g) {
  const std::string host = ctx.value("host", "unknown");
  if (cpu) {
    g.name = "cpu-" + host;
    g.description = fmt::format(
        "The CPU of {} ({}) {}: one MPI rank is one device; peak_flops_per_second (fp32 = fp16 = "
        "bf16) is the best measured "
        "sgemm FLOP/s (no tensor cores, fp8 0), hbm_bytes_per_second the best measured "
        "memory-bound rate, host.pcie_bytes_per_second the largest host memcpy's rate / 0.8 (the "
        "model's copy efficiency), memory_bytes "
        "the host RAM share of one rank. For testing the calibrate -> fit -> simulate loop, "
        "not for predicting GPUs.",
        host, ctx.value("cpu_model", "unknown CPU"), kCpuDeviceMark);
    return;
  }
  nlohmann::json dev = ctx.at("backend").value("device", nlohmann::json::object());
  if (!dev.is_object()) dev = nlohmann::json::object();  // null: the device was not found
  const std::string device = dev.value("name", std::string("GPU"));
  g.name = "calibrated-" + dev.value("name", std::string("gpu"));
  const bool memory = dev.contains("memory_bytes");
  if (memory) g.memory_bytes = dev.at("memory_bytes");
  if (base == nullptr || base->description.empty()) {
    g.description =
        fmt::format("measured by shardsim's calibration sweep (--backend cuda) on one {} (host {})",
                    device, host);
    return;
  }
  const std::string sentence = fmt::format(
      " Measured by shardsim's calibration sweep (--backend cuda) on one {}: the parts "
      "provenance.sources lists{}.",
      device,
      memory ? ", and memory_bytes (the device's total memory as the CUDA runtime reports it, in "
               "place of any convention above)"
             : "");
  g.description = base->description.find(sentence) == std::string::npos
                      ? base->description + sentence
                      : base->description;
}

}  // namespace

bool is_cpu_profile(const GpuProfile& g) {
  return g.description.find(kCpuDeviceMark) != std::string::npos;
}

double samples_memory_bytes(const nlohmann::json& samples) {
  const auto& ctx = samples.at("context");
  if (ctx.at("backend").at("backend") != "cpu") return 0;
  const double ram = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  const double per_node = ctx.at("mpi").value("ranks_per_node", 1.0);
  return ram / std::max(1.0, per_node);  // check_samples: a whole number >= 1
}

namespace {

std::string backend_of(const SamplesInput& in) {
  return in.doc->at("context").at("backend").at("backend").get<std::string>();
}

// The parts of the device a document measured, with its item counts.
std::vector<std::pair<std::string, std::string>> device_parts(const nlohmann::json& samples,
                                                              const DeviceFits& d) {
  std::map<std::string, int> count;
  for (const auto& item : samples.at("items")) ++count[item.at("kind").get<std::string>()];
  std::vector<std::pair<std::string, std::string>> out;
  const auto add = [&](const std::string& part, bool measured) {
    if (measured) out.push_back({part, fmt::format("{} ({} items)", part, count[part])});
  };
  // GEMMs are a part per dtype ("gemm bf16"), so that documents measuring one dtype each (a
  // sweep run family by family, --filter gemm/bf16/) all count. Found on the first GPU run
  // (2026-11-27): the last of five one-dtype documents replaced the other four.
  for (const auto& m : d.gemms) ++count["gemm " + m.dtype];
  for (const auto& [part, n] : count)
    if (part.starts_with("gemm ") && n > 0) add(part, true);
  add("memory_bound", d.hbm_bytes_per_second > 0);
  add("launch", d.launch_overhead_s > 0);
  add("copy", d.copy_bytes_per_second > 0);
  return out;
}

}  // namespace

namespace {

// A key the fits need that document i lacks (or of the wrong type) names the document.
template <class Work>
void in_document(const std::vector<SamplesInput>& docs, std::size_t i, const Work& work) {
  try {
    work();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("{}: {}", docs[i].file, e.what()));
  }
}

// Every document checked, of one backend, and of the base's kind; true for cpu.
bool check_documents(const std::vector<SamplesInput>& docs, const GpuProfile* base) {
  if (docs.empty()) throw std::invalid_argument("no calibration samples document given");
  for (const auto& in : docs) check_samples(*in.doc, in.file);
  const std::string backend = backend_of(docs.front());
  for (const auto& in : docs)
    if (backend_of(in) != backend)
      throw std::invalid_argument(
          fmt::format("{} was measured by the {} backend and {} by the {} backend; one profile "
                      "describes one kind of device",
                      docs.front().file, backend, in.file, backend_of(in)));
  const bool cpu = backend == "cpu";
  if (base != nullptr && is_cpu_profile(*base) != cpu)
    throw std::invalid_argument(fmt::format(
        "{} holds {}-backend samples, but the base profile '{}' describes {}; fit {} samples "
        "without a base or onto a profile of the same backend",
        docs.front().file, backend, base->name, is_cpu_profile(*base) ? "a CPU" : "a GPU",
        backend));
  return cpu;
}

// Each document's device fits, and for each device part the document whose values stay (the
// last that measured it).
struct DocumentFits {
  std::vector<DeviceFits> fits;
  std::map<std::string, std::size_t> part_from;
};

// One device from the documents whose values stay, part by part: a document whose GEMMs a later
// one measured again sets no peak (found by review, 2026-11-27: a CUDA file reported as "used:
// nothing" still raised the bf16 peak, and every efficiency was taken against it).
DeviceFits kept_device(const DocumentFits& d) {
  DeviceFits device;
  const auto from = [&](const std::string& part) -> const DeviceFits* {
    const auto it = d.part_from.find(part);
    return it == d.part_from.end() ? nullptr : &d.fits[it->second];
  };
  for (const char* dtype : {"fp32", "tf32", "fp16", "bf16", "fp8"}) {
    const auto* f = from(std::string("gemm ") + dtype);
    if (f == nullptr) continue;
    for (const auto& m : f->gemms)
      if (m.dtype == dtype) device.gemms.push_back(m);
    if (std::string_view(dtype) == "fp32") device.best_gemm_fp32 = f->best_gemm_fp32;
  }
  if (const auto* f = from("memory_bound")) {
    device.hbm_bytes_per_second = f->hbm_bytes_per_second;
    device.memory_bound_points = f->memory_bound_points;
    device.memory_bound_efficiency = f->memory_bound_efficiency;
    device.memory_bound_residual = f->memory_bound_residual;
  }
  if (const auto* f = from("launch")) device.launch_overhead_s = f->launch_overhead_s;
  if (const auto* f = from("copy")) device.copy_bytes_per_second = f->copy_bytes_per_second;
  return device;
}

// Every document's collectives, each (op, ranks, ranks per node) from one of them; `keys` gets
// each document's ("collective all_reduce/2x2"), `left_out` each document's stalled samples.
std::vector<MeasuredCollective> all_collectives(const std::vector<SamplesInput>& docs,
                                                std::vector<std::vector<std::string>>& keys,
                                                std::vector<std::vector<SampleLeftOut>>& left_out) {
  std::vector<MeasuredCollective> rows;
  std::map<Key, std::string> measured_in;
  keys.assign(docs.size(), {});
  left_out.assign(docs.size(), {});
  for (std::size_t i = 0; i < docs.size(); ++i) {
    std::vector<MeasuredCollective> measured;
    in_document(docs, i, [&] { measured = collective_rows(*docs[i].doc, docs[i].file); });
    for (auto& m : measured) {
      const Key key{m.op, m.ranks, m.ranks_per_node};
      if (const auto first = measured_in.find(key); first != measured_in.end())
        throw std::invalid_argument(
            fmt::format("{} and {} both measure {} on {} ranks, {} per node; give one samples "
                        "file per job size",
                        first->second, docs[i].file, m.op, m.ranks, m.ranks_per_node));
      measured_in[key] = docs[i].file;
      const std::string group = fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node);
      keys[i].push_back("collective " + group);
      // `lines` of samples are 1-based item numbers (collective_rows).
      for (const auto& o : m.left_out)
        left_out[i].push_back({group, o.line - 1, o.seconds, o.larger_line - 1, o.larger_seconds});
      rows.push_back(std::move(m));
    }
  }
  return rows;
}

// What document i gave (used) and what a later one measured again (replaced).
SamplesUse use_of(const std::vector<SamplesInput>& docs, std::size_t i, const DocumentFits& d,
                  const std::vector<std::string>& keys, std::vector<SampleLeftOut> left_out) {
  const auto& doc = *docs[i].doc;
  SamplesUse u{docs[i].file, backend_of(docs[i]), "", "", true, int(doc.at("items").size()), {},
               {},           std::move(left_out)};
  in_document(docs, i, [&] {
    u.host = doc.at("context").value("host", "unknown");
    u.date = doc.at("context").value("date_utc", "").substr(0, 10);
    u.complete = doc.value("complete", true);
  });
  for (const auto& [part, text] : device_parts(doc, d.fits[i]))
    (d.part_from.at(part) == i ? u.used : u.replaced).push_back(text);
  u.used.insert(u.used.end(), keys.begin(), keys.end());
  return u;
}

// The profile's provenance: each document with what it gave, the kept device's fit ranges and
// residuals, and the base named for every value the samples did not measure (its own
// provenance mixes values the samples replaced with those they kept, in free text).
Provenance samples_provenance(const std::vector<SamplesUse>& uses, const DocumentFits& d, bool cpu,
                              const GpuProfile* base) {
  Provenance prov{
      true, {}, {}, {}, cpu ? "CPU backend: the CPU described as a device (see description)" : ""};
  for (const auto& u : uses) {
    std::string what =
        fmt::format("calibration samples ({} backend): {}", u.backend,
                    u.used.empty() ? "nothing" : fmt::format("{}", fmt::join(u.used, ", ")));
    if (!u.replaced.empty())
      what += fmt::format("; measured again by a later file: {}", fmt::join(u.replaced, ", "));
    prov.sources.push_back({u.file, 1, u.items, u.date, what});
  }
  const DeviceFits device = kept_device(d);
  if (!device.gemms.empty()) {
    auto [lo, hi] = std::ranges::minmax(device.gemms, {}, &GemmMeasurement::flops_per_second);
    prov.fit_ranges.push_back({"gemm rate", lo.flops_per_second, hi.flops_per_second, "FLOP/s"});
  }
  if (!device.memory_bound_points.empty()) {
    prov.residuals["memory_bound"] = device.memory_bound_residual;
    auto [lo, hi] = std::ranges::minmax(device.memory_bound_points, {}, &MemoryBoundPoint::bytes);
    prov.fit_ranges.push_back({"memory_bound bytes", lo.bytes, hi.bytes, "bytes"});
  }
  if (base != nullptr)
    prov.sources.push_back(
        {base->name, 0, 0, "",
         fmt::format("base profile '{}': every value these samples did not measure (that "
                     "profile's provenance says where each comes from)",
                     base->name)});
  return prov;
}

}  // namespace

SamplesProfile profile_from_samples(const std::vector<SamplesInput>& docs, const GpuProfile* base) {
  const bool cpu = check_documents(docs, base);
  GpuProfile g = base != nullptr ? *base : GpuProfile{};
  DocumentFits d;
  for (std::size_t i = 0; i < docs.size(); ++i)
    in_document(docs, i, [&] {
      describe(docs[i].doc->at("context"), cpu, base, g);
      if (docs[i].memory_bytes > 0) g.memory_bytes = docs[i].memory_bytes;
      d.fits.push_back(fit_device(*docs[i].doc));
      for (const auto& [part, text] : device_parts(*docs[i].doc, d.fits.back()))
        d.part_from[part] = i;
    });
  fit_compute(kept_device(d), cpu, g);
  std::vector<std::vector<std::string>> keys;
  std::vector<std::vector<SampleLeftOut>> left_out;
  const std::vector<MeasuredCollective> rows = all_collectives(docs, keys, left_out);
  if (!rows.empty()) fit_network(rows, g);
  SamplesProfile out;
  for (std::size_t i = 0; i < docs.size(); ++i)
    out.uses.push_back(use_of(docs, i, d, keys[i], std::move(left_out[i])));
  g.provenance = samples_provenance(out.uses, d, cpu, base);
  out.profile = std::move(g);
  return out;
}

}  // namespace shardsim::calibrate
