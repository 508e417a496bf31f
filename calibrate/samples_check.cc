#include "calibrate/samples_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "simulator/core/memory_kernel.h"
#include "simulator/cost/collective.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {
namespace {

using nlohmann::json;

// Throws the refusal of `file`.
[[noreturn]] void refuse(const std::string& file, const std::string& what) {
  throw std::invalid_argument(file + ": " + what);
}

// "YYYY-MM-DD" at the start of `text`, month 01-12 and day 01-31.
bool iso_date(const std::string& text) {
  if (text.size() < 10 || text[4] != '-' || text[7] != '-') return false;
  for (const int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(text[std::size_t(i)]))) return false;
  const int month = std::stoi(text.substr(5, 2)), day = std::stoi(text.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// obj[key] when obj is an object holding it, else null.
json member(const json& obj, const char* key) {
  return obj.is_object() ? obj.value(key, json()) : json();
}

void check_context(const json& ctx, const std::string& file) {
  const json backend = member(member(ctx, "backend"), "backend");
  if (backend != "cpu" && backend != "cuda")
    refuse(file,
           fmt::format("context.backend.backend is {}, not \"cpu\" or \"cuda\"", backend.dump()));
  // context.mpi.ranks_per_node (required by the schema): the CPU backend's memory share.
  const json per_node = member(member(ctx, "mpi"), "ranks_per_node");
  if (!per_node.is_number() || per_node.get<double>() < 1 || per_node.get<double>() > 1 << 20 ||
      per_node.get<double>() != std::floor(per_node.get<double>()))
    refuse(file, fmt::format("context.mpi.ranks_per_node is {}, not a whole number from 1 to 2^20",
                             per_node.dump()));
  // context.mpi.world_size (required by the schema): the bound on a collective's group (found by
  // review, 2026-11-28: 0, -1, "2" or none let a 64-rank item through a 2-rank document).
  const json world = member(member(ctx, "mpi"), "world_size");
  if (!world.is_number() || world.get<double>() < per_node.get<double>() ||
      world.get<double>() > 1 << 24 || world.get<double>() != std::floor(world.get<double>()))
    refuse(file, fmt::format("context.mpi.world_size is {}, not a whole number from "
                             "context.mpi.ranks_per_node ({}) to 2^24",
                             world.dump(), per_node.dump()));
  // context.mpi.nodes, when given, bounds the nodes a collective's group spans
  // (check_item_value): a whole number from 1 to the world size.
  if (const json nodes = member(member(ctx, "mpi"), "nodes");
      nodes != json() &&
      (!nodes.is_number() || nodes.get<double>() < 1 || nodes.get<double>() > world.get<double>() ||
       nodes.get<double>() != std::floor(nodes.get<double>())))
    refuse(file, fmt::format("context.mpi.nodes is {}, not a whole number from 1 to "
                             "context.mpi.world_size ({})",
                             nodes.dump(), world.dump()));
  // The CPU backend's record of its host's RAM (since 2026-11-28), when given.
  if (const json ram = member(member(ctx, "backend"), "host_memory_bytes");
      ram != json() && (!ram.is_number() || !(ram.get<double>() >= per_node.get<double>()) ||
                        ram.get<double>() > 1e14 * per_node.get<double>()))
    // Each rank's share becomes the profile's memory_bytes, which the reader takes from 1 B to
    // 1e14 B.
    refuse(file, fmt::format("context.backend.host_memory_bytes is {}, not a number of bytes "
                             "from 1 to 1e14 per rank on the node ({} ranks)",
                             ram.dump(), per_node.dump()));
  // The sweep's date, when given, is ISO 8601 (its first 10 characters are the date the
  // provenance keeps; a cut through a multi-byte character would not be UTF-8).
  const auto given = [&](const char* key) { return ctx.is_object() && ctx.contains(key); };
  if (const json d = member(ctx, "date_utc"); given("date_utc") && !(d.is_string() && iso_date(d)))
    refuse(file, fmt::format("context.date_utc is {}, not an ISO 8601 date", d.dump()));
  for (const char* key : {"host", "cpu_model"})
    if (given(key) && !member(ctx, key).is_string())
      refuse(file, fmt::format("context.{} must be a string", key));
  // A CUDA device's record (name, memory) becomes the profile's name and memory_bytes: another
  // type reached the JSON library, whose message named neither (found by review, 2026-11-29).
  if (const json dev = member(member(ctx, "backend"), "device");
      backend == "cuda" && dev.is_object()) {
    if (dev.contains("name") &&
        !(dev.at("name").is_string() && !dev.at("name").get<std::string>().empty()))
      refuse(file, fmt::format("context.backend.device.name is {}, not a non-empty string",
                               dev.at("name").dump()));
    if (const json mem = member(dev, "memory_bytes");
        dev.contains("memory_bytes") &&
        (!mem.is_number() || !(mem.get<double>() >= 1) || mem.get<double>() > 1e14))
      refuse(file, fmt::format("context.backend.device.memory_bytes is {}, not a number of bytes "
                               "from 1 to 1e14",
                               mem.dump()));
  }
}

// The measured value each kind's fit reads: a rate or time above 0 (a rate of 0 made the
// memory-bound spread 0/0, a NaN in the profile; found by review, 2026-11-27).
void check_item_value(const json& item, int i, const std::string& file, const json& mpi) {
  const double world_size = mpi.at("world_size").get<double>();  // check_context: a whole number
  const auto positive = [&](const char* section, const char* key) {
    const json v = key == nullptr ? member(item, section) : member(member(item, section), key);
    if (!v.is_number() || !(v.get<double>() > 0))
      refuse(file, fmt::format("items[{}].{}{}{} is {}, not a number above 0", i, section,
                               key ? "." : "", key ? key : "", v.dump()));
  };
  // A parameter the fit keys on must be one the sweep writes: an unknown one was dropped or read
  // as another, silently (found by review, 2026-11-28: op "allreduce" dropped the item, dtype
  // "fp7" was fitted as fp32).
  const auto one_of = [&](const char* key, std::initializer_list<const char*> names) {
    const json v = member(member(item, "params"), key);
    for (const char* n : names)
      if (v == n) return;
    std::string list;
    for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    refuse(file, fmt::format("items[{}].params.{} is {}, not one of {}", i, key, v.dump(), list));
  };
  // A parameter the fit reads as a count: a whole number in [lo, hi]. A string or a missing one
  // reached the JSON library, whose message named neither the item nor the key (found by review,
  // 2026-11-28).
  const auto whole = [&](const char* key, double lo, double hi) {
    const json v = member(member(item, "params"), key);
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi ||
        v.get<double>() != std::floor(v.get<double>()))
      refuse(file,
             fmt::format("items[{}].params.{} is {}, not a whole number from {:.0f} to {:.0f}", i,
                         key, v.dump(), lo, hi));
  };
  // Every item the sweep writes has both, and the fits read them: missing, the JSON library's
  // message named neither the item nor the key (found by review, 2026-11-29).
  for (const char* key : {"params", "derived"})
    if (!member(item, key).is_object())
      refuse(file,
             fmt::format("items[{}].{} is {}, not an object", i, key, member(item, key).dump()));
  const json kind = member(item, "kind");
  if (kind == "gemm") {
    one_of("dtype", {"fp32", "tf32", "fp16", "bf16", "fp8"});
    for (const char* key : {"m", "n", "k"}) whole(key, 1, kMaxMeasuredDimension);
    positive("derived", "flops_per_second");
  } else if (kind == "memory_bound" || kind == "copy") {
    // The fit keys a memory-bound item on its kernel class and a copy on its direction: an
    // unknown or missing one became the generic curve, or a host copy (found by review,
    // 2026-11-28).
    if (kind == "copy")
      one_of("direction", {"host_to_device", "device_to_host", "device_to_device", "host_to_host"});
    else if (const json op = member(member(item, "params"), "op");
             !op.is_string() || op.get<std::string>().empty() ||
             !memory_kernel_from_name(op.get<std::string>()))
      refuse(file, fmt::format(
                       "items[{}].params.op is {}, not one of the memory kernel classes "
                       "({})",
                       i, op.dump(),
                       fmt::join(kMemoryKernelNames.begin() + 1, kMemoryKernelNames.end(), ", ")));
    positive("work", "bytes");
    positive("derived", "bytes_per_second");
  } else if (kind == "launch") {
    positive("derived", "seconds_per_launch");
  } else if (kind == "collective") {
    if (const json op = member(member(item, "params"), "op");
        !op.is_string() || !collective_from_name(op.get<std::string>()))
      refuse(file, fmt::format("items[{}].params.op is {}, not a collective (all_reduce, "
                               "reduce_scatter, all_gather, alltoall, sendrecv, broadcast)",
                               i, op.dump()));
    positive("params", "bytes");
    positive("median_s", nullptr);
    whole("ranks", 1, 1 << 20);  // collective_rows: groups of 1 to 2^20
    whole("ranks_per_node", 1, 1 << 20);
    // No collective completes in under a nanosecond; 1e-300 s made the fit's line NaN.
    if (member(item, "median_s").get<double>() < 1e-9)
      refuse(file, fmt::format("items[{}].median_s is {}, below 1 ns: not a collective's time", i,
                               member(item, "median_s").dump()));
    // A group is ranks of the job that measured it: one larger than the job's world is not a
    // measurement of this run (found by review, 2026-11-28: an 8-rank item in a 2-rank
    // document was fitted as measured).
    if (const json r = member(member(item, "params"), "ranks");
        world_size > 0 && r.is_number() && r.get<double>() > world_size)
      refuse(file, fmt::format("items[{}].params.ranks is {}, more than the {} ranks of the job "
                               "that wrote the file (context.mpi.world_size)",
                               i, r.dump(), world_size));
    // ...and on no more nodes than the job had (context.mpi.nodes, when recorded): a group of 2
    // at 1 per node in a one-node job was fitted as crossing the network (found by review,
    // 2026-11-29).
    const json p = member(item, "params"), nodes = member(mpi, "nodes");
    if (const double groups_nodes =
            p.at("ranks").get<double>() / p.at("ranks_per_node").get<double>();
        nodes.is_number() && groups_nodes > nodes.get<double>())
      refuse(file, fmt::format("items[{}]: a group of {} ranks at {} per node spans {:g} nodes, "
                               "more than the {} of the job that wrote the file "
                               "(context.mpi.nodes)",
                               i, p.at("ranks").dump(), p.at("ranks_per_node").dump(), groups_nodes,
                               nodes.dump()));
  } else {
    refuse(file, fmt::format("items[{}].kind is {}, not one of gemm, memory_bound, collective, "
                             "copy, launch",
                             i, kind.dump()));
  }
}

// The item's `derived` rate is its work over its median time, as the sweep writes it
// (kernels/common/results.cc derived), and a GEMM's work is 2 m n k. Fits read the rate (GEMM,
// memory-bound, copy, launch) or the time (collective), so a document edited in one and not the
// other was fitted from whichever the kind reads, silently (issue 8 review, 2026-11-29). Checked
// to a relative 1e-9: the sweep's own documents agree exactly.
void check_item_agreement(const json& item, int i, const std::string& file) {
  const json median = member(item, "median_s");
  if (!median.is_number() || !(median.get<double>() > 0) || !std::isfinite(median.get<double>()))
    refuse(file, fmt::format("items[{}].median_s is {}, not a number of seconds above 0", i,
                             median.dump()));
  const double t = median.get<double>();
  const auto number_at = [&](const char* section, const char* key) {
    const json v = member(member(item, section), key);
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      refuse(file,
             fmt::format("items[{}].{}.{} is {}, not a number above 0", i, section, key, v.dump()));
    return v.get<double>();
  };
  const auto agree = [&](const char* what, double given, const std::string& from, double want) {
    if (std::fabs(given - want) > 1e-9 * std::fabs(want))
      refuse(file, fmt::format("items[{}].{} is {:.9g}, but {} is {:.9g}: the item was edited "
                               "in one and not the other (the sweep writes both from one "
                               "measurement)",
                               i, what, given, from, want));
  };
  const json kind = member(item, "kind");
  if (kind == "gemm") {
    const json& p = item.at("params");  // m, n, k: whole numbers (check_item_value)
    const double flops = number_at("work", "flops");
    agree("work.flops", flops, "2 m n k",
          2 * p.at("m").get<double>() * p.at("n").get<double>() * p.at("k").get<double>());
    agree("derived.flops_per_second", number_at("derived", "flops_per_second"),
          "work.flops / median_s", flops / t);
  } else if (kind == "memory_bound" || kind == "copy") {
    agree("derived.bytes_per_second", number_at("derived", "bytes_per_second"),
          "work.bytes / median_s", number_at("work", "bytes") / t);
  } else if (kind == "launch") {
    agree("derived.seconds_per_launch", number_at("derived", "seconds_per_launch"),
          "median_s / work.launches", t / number_at("work", "launches"));
  } else if (kind == "collective") {
    agree("work.bytes", number_at("work", "bytes"), "params.bytes",
          item.at("params").at("bytes").get<double>());
    if (const json d = member(member(item, "derived"), "algbw_bytes_per_second"); d != json())
      agree("derived.algbw_bytes_per_second", number_at("derived", "algbw_bytes_per_second"),
            "work.bytes / median_s", number_at("work", "bytes") / t);
  }
}

// What the fit keys an item on (found by review, 2026-11-29: the JSON text of `params` was
// compared, so 262144 and 262144.0, a GEMM's `uses` or a `library` field made one measurement
// two): a collective's op, group and size; a GEMM's dtype, shape and layout; a memory-bound
// kernel's class and bytes; a copy's direction and bytes; the launch. Numbers as numbers.
std::string measurement_key(const json& item) {
  const json p = member(item, "params"), w = member(item, "work");
  const json kind = member(item, "kind");
  const auto number = [](const json& v) { return v.is_number() ? v.get<double>() : 0.0; };
  if (kind == "collective")
    return fmt::format("collective {} {} {} {}",
                       collective_name(*collective_from_name(p.at("op").get<std::string>())),
                       number(p.at("ranks")), number(p.at("ranks_per_node")),
                       number(p.at("bytes")));
  if (kind == "gemm")
    return fmt::format("gemm {} {} {} {} {} {}", p.at("dtype").get<std::string>(),
                       number(p.at("m")), number(p.at("n")), number(p.at("k")),
                       member(p, "trans_a").dump(), member(p, "trans_b").dump());
  if (kind == "memory_bound")
    return fmt::format("memory_bound {} {}", p.at("op").get<std::string>(), number(w.at("bytes")));
  if (kind == "copy")
    return fmt::format("copy {} {}", p.at("direction").get<std::string>(), number(w.at("bytes")));
  return "launch";
}

}  // namespace

void check_samples(const json& s, const std::string& file) {
  if (!s.is_object() || !s.contains("items") || !s.contains("context"))
    refuse(file,
           "not a calibration samples document (an object with schema_version, context and items)");
  const json version = s.value("schema_version", json());
  if (!version.is_number() || version.get<double>() != 1)  // 1.0 is 1, as every count here
    refuse(file,
           fmt::format("schema_version {} is not one this shardsim reads (1)", version.dump()));
  check_context(s.at("context"), file);
  // Read into the report (an incomplete sweep is said to be one): a string reached the JSON
  // library's message (found by review, 2026-11-29).
  if (s.contains("complete") && !s.at("complete").is_boolean())
    refuse(file, fmt::format("complete is {}, not true or false", s.at("complete").dump()));
  if (!s.at("items").is_array()) refuse(file, "items must be an array");
  std::vector<std::string> failed;
  int i = 0;
  // An item measured twice in one document: the sweep writes each once, and the fits kept the
  // first of a collective's size and averaged a GEMM's (found by review, 2026-11-29: a slower
  // copy placed first was fitted silently; a GEMM at 10x raised the peak 10x). Keyed on what the
  // fit keys on: a collective's op, group and size; any other item's kind and params.
  std::map<std::string, int> seen;
  for (const auto& item : s.at("items")) {
    check_item_value(item, i, file, s.at("context").at("mpi"));
    // The CPU backend times OpenBLAS sgemm: a GEMM of another dtype there was refused later as
    // "samples:5: the base profile has no fp8 peak", naming no file (found by review, 2026-11-29).
    if (s.at("context").at("backend").at("backend") == "cpu" && item.at("kind") == "gemm" &&
        item.at("params").at("dtype") != "fp32")
      refuse(file, fmt::format("items[{}].params.dtype is {}, but the CPU backend measures fp32 "
                               "GEMMs (sgemm) only",
                               i, item.at("params").at("dtype").dump()));
    check_item_agreement(item, i, file);
    const json p = member(item, "params");  // a launch item's may be absent
    const std::string key = measurement_key(item);
    if (const auto [it, fresh] = seen.emplace(key, i); !fresh)
      refuse(file, fmt::format(
                       "items[{}] measures what items[{}] measured ({} {}): a document "
                       "holds each measurement once; keep one of them",
                       i, it->second, item.at("kind").get<std::string>(),
                       item.at("kind") == "collective"
                           ? fmt::format("{} of {} B on {} ranks, {} per node",
                                         p.at("op").get<std::string>(), p.at("bytes").get<double>(),
                                         p.at("ranks").dump(), p.at("ranks_per_node").dump())
                           : p.dump()));
    const json verified = member(item, "verified");
    if (!verified.is_boolean())
      refuse(file, fmt::format("items[{}].verified must be true or false", i));
    if (!verified.get<bool>()) {
      const json name = member(item, "name");
      failed.push_back(name.is_string() ? name.get<std::string>() : fmt::format("items[{}]", i));
    }
    ++i;
  }
  if (failed.empty()) return;
  const std::size_t shown = std::min<std::size_t>(failed.size(), 5);
  refuse(file,
         fmt::format("{} item(s) failed verification ({}{}): a kernel whose result was wrong did "
                     "not time the work it names, so no profile is fitted from it (calibrate "
                     "writes none either); rerun the calibration",
                     failed.size(), fmt::join(failed.begin(), failed.begin() + long(shown), ", "),
                     failed.size() > shown ? ", ..." : ""));
}

}  // namespace shardsim::calibrate
