#include "calibrate/profile_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include "calibrate/collective_fit.h"
#include "calibrate/compute_fit.h"
#include "calibrate/samples_check.h"
#include "calibrate/samples_network.h"
#include "simulator/cost/collective.h"

namespace shardsim::calibrate {
namespace {

// What every CPU-backend profile's description says (is_cpu_profile looks for it).
constexpr std::string_view kCpuDeviceMark =
    "described as a device by `shardsim calibrate --backend cpu`";

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
    g.compute.gemm_points_timing.clear();  // the sweep times its kernels back to back
    index_gemm_points(g.compute);
  }
  if (d.hbm_bytes_per_second > 0) {
    g.hbm_bytes_per_second = d.hbm_bytes_per_second;
    g.compute.memory_bound_points = d.memory_bound_points;
    g.compute.memory_bound_points_timing.clear();
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
    g.device_kind = "cpu";
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
  g.device_kind = "gpu";
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
  if (!g.device_kind.empty()) return g.device_kind == "cpu";
  return g.description.find(kCpuDeviceMark) != std::string::npos;
}

double samples_memory_bytes(const nlohmann::json& samples) {
  const auto& ctx = samples.at("context");
  if (ctx.at("backend").at("backend") != "cpu") return 0;
  // The measuring host's RAM as the document records it; documents written before 2026-11-28
  // lack it, and take this machine's.
  const auto& recorded = ctx.at("backend").value("host_memory_bytes", nlohmann::json());
  const double ram = recorded.is_number() && recorded.get<double>() > 0
                         ? recorded.get<double>()
                         : double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
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
  std::map<CollectiveKey, std::string> measured_in;
  keys.assign(docs.size(), {});
  left_out.assign(docs.size(), {});
  for (std::size_t i = 0; i < docs.size(); ++i) {
    std::vector<MeasuredCollective> measured;
    in_document(docs, i, [&] { measured = collective_rows(*docs[i].doc, docs[i].file); });
    for (auto& m : measured) {
      const CollectiveKey key{m.op, m.ranks, m.ranks_per_node};
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
    // Rows are the document's items, counted from 1 as every provenance row is; errors and
    // left-out notes name items[i] from 0 (found by review, 2026-11-28: the two read as one).
    const std::string rows =
        u.items == 1  ? "; row 1 is items[0]"
        : u.items > 1 ? fmt::format("; rows 1-{} are items[0]-items[{}]", u.items, u.items - 1)
                      : std::string();
    std::string what =
        fmt::format("calibration samples ({} backend{}): {}", u.backend, rows,
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

SamplesProfile profile_from_samples(const std::vector<SamplesInput>& docs, const GpuProfile* base,
                                    const NetworkConfig* line_rates,
                                    const NetworkConfig* network_start,
                                    const std::string& network_name, bool warn_unfitted) {
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
  SamplesProfile out;
  if (!rows.empty())
    fit_samples_network(rows, g, line_rates, network_start, network_name,
                        warn_unfitted ? &out.warnings : nullptr);
  for (std::size_t i = 0; i < docs.size(); ++i)
    out.uses.push_back(use_of(docs, i, d, keys[i], std::move(left_out[i])));
  g.provenance = samples_provenance(out.uses, d, cpu, base);
  out.profile = std::move(g);
  for (const auto& [part, from] : d.part_from) out.device_parts.insert(part);
  if (!rows.empty()) out.device_parts.insert("collectives");
  return out;
}

}  // namespace shardsim::calibrate
