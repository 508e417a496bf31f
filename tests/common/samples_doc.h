// Calibration samples documents for tests (reports/schemas/calibration-samples.schema.json):
// one item, and a document of items on a cpu or cuda backend, with the keys profile_from_samples
// and check_samples read. The values are the caller's; nothing here is measured.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace test_samples {

// One measured item: every run took `median_s`, and it was verified. Without `median_s` (< 0) the
// time is the one `derived` gives from `work`, as the sweep writes both (calibrate/samples_check.h:
// they must agree): FLOP / FLOP/s, bytes / B/s, launches x s per launch; else 1 ms.
inline nlohmann::json samples_item(const std::string& kind, const std::string& name,
                                   nlohmann::json params, nlohmann::json work,
                                   nlohmann::json derived, double median_s = -1) {
  if (median_s < 0) {
    if (derived.contains("flops_per_second"))
      median_s = work.at("flops").get<double>() / derived.at("flops_per_second").get<double>();
    else if (derived.contains("bytes_per_second"))
      median_s = work.at("bytes").get<double>() / derived.at("bytes_per_second").get<double>();
    else if (derived.contains("seconds_per_launch"))
      median_s = work.at("launches").get<double>() * derived.at("seconds_per_launch").get<double>();
    else
      median_s = 1e-3;
  }
  return {{"kind", kind},
          {"name", name},
          {"params", std::move(params)},
          {"runs_per_sample", 1},
          {"samples_s", nlohmann::json::array({median_s})},
          {"median_s", median_s},
          {"spread", {{"min_s", median_s}, {"max_s", median_s}, {"mad_s", 0}}},
          {"work", std::move(work)},
          {"derived", std::move(derived)},
          {"verified", true},
          {"verification", "ok"}};
}

// A complete sweep's document from host "testhost" on `ranks_per_node` ranks of one node.
inline nlohmann::json samples_document(nlohmann::json items, const std::string& backend = "cpu",
                                       int ranks_per_node = 1,
                                       const std::string& date = "2026-01-31T12:00:00Z") {
  const nlohmann::json device = backend == "cpu"
                                    ? nlohmann::json("cpu")
                                    : nlohmann::json{{"name", "Test GPU"}, {"memory_bytes", 8e10}};
  return {
      {"schema_version", 1},
      {"complete", true},
      {"error", nullptr},
      {"context",
       {{"host", "testhost"},
        {"cpu_model", "test cpu"},
        {"date_utc", date},
        {"mpi", {{"world_size", ranks_per_node}, {"nodes", 1}, {"ranks_per_node", ranks_per_node}}},
        {"backend", {{"backend", backend}, {"device", device}, {"timer", "steady_clock"}}}}},
      {"items", std::move(items)}};
}

}  // namespace test_samples
