#include "reports/report_common.h"

#include <fmt/format.h>

#include <cmath>

#include "simulator/core/dtype.h"
#include "simulator/core/units.h"
#include "simulator/cost/compute.h"
#include "simulator/model/params.h"

namespace shardsim {

namespace {

nlohmann::json base_header(const Estimate& e) {
  const Scenario& s = e.input();
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool_version"] = tool_version();
  j["build"] = build_json();
  j["profile"] = profile_summary(s.cluster.gpu);  // name, fitted, sources, note
  j["network"] = network_summary(s.cluster.network);
  j["scenario"] = s.resolved;
  j["warnings"] = e.warnings;
  return j;
}

}  // namespace

nlohmann::json feasibility_json(const std::vector<Infeasibility>& reasons) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : reasons)
    list.push_back({{"code", r.code}, {"path", r.path}, {"message", r.message}});
  return {{"feasible", reasons.empty()}, {"reasons", list}};
}

nlohmann::json infeasible_report(const Estimate& e) {
  const Scenario& s = e.input();
  nlohmann::json j = base_header(e);
  const ParamTotals p = count_parameters(s.model, s.training.seq_len);
  j["model"] = {{"parameters", p.total},
                {"active_parameters", p.active},
                {"embedding_parameters", p.embedding}};
  j["feasibility"] = feasibility_json(e.infeasible);
  return j;
}

std::string infeasible_text(const Estimate& e) {
  const Scenario& s = e.input();
  std::string out = fmt::format("scenario  {}\nfeasible  no: the plan cannot run\n",
                                s.name.empty() ? "(unnamed)" : s.name);
  for (const auto& r : e.infeasible)
    out += fmt::format("  [{}] {}: {}\n", r.code, r.path, r.message);
  return out + warnings_text(e);
}

std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string csv_number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "";
}

std::string warnings_text(const Estimate& e) {
  std::string out;
  for (const auto& w : e.warnings) out += "warning: " + w + "\n";
  return out;
}

nlohmann::json report_header(const Estimate& e) {
  nlohmann::json j = base_header(e);
  if (!e.plan) return j;
  const Plan& plan = *e.plan;
  j["plan"] = {{"tp", plan.tp},
               {"pp", plan.pp},
               {"vpp", plan.vpp},
               {"cp", plan.cp},
               {"ep", plan.ep},
               {"dp", plan.dp},
               {"gpus", plan.gpus},
               {"micro_batches", plan.micro_batches},
               {"schedule", schedule_name(plan.schedule)}};
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& st : plan.stages) {
    nlohmann::json chunks = nlohmann::json::array();
    for (const auto& c : st.chunks)
      chunks.push_back({{"first_layer", c.first_layer}, {"layers", c.layers}});
    stages.push_back({{"pp_stage", st.index}, {"layers", st.layers()}, {"chunks", chunks}});
  }
  j["plan"]["stages"] = stages;
  return j;
}

std::string describe_setup(const Estimate& e) {
  const Scenario& s = e.input();
  const Plan& plan = *e.plan;
  const Strategy& p = e.strategy;
  const auto& t = s.training;
  std::string out = fmt::format("scenario  {}\n", s.name.empty() ? "(unnamed)" : s.name);
  out += fmt::format("model     {}: {} layers, hidden {}, {} heads ({} kv), vocab {}\n",
                     s.model.name.empty() ? "custom" : s.model.name, s.model.layers, s.model.hidden,
                     s.model.heads, s.model.effective_kv_heads(), s.model.vocab);
  out += fmt::format(
      "cluster   {} GPUs = {} nodes x {} {} ({:.1f} GiB = {:.1f} GB each), "
      "network {}\n",
      plan.gpus, s.cluster.nodes, s.cluster.gpus_per_node, s.cluster.gpu.name,
      s.cluster.gpu.memory_bytes / kGiB, s.cluster.gpu.memory_bytes / 1e9,
      s.cluster.network.name.empty() ? "custom" : s.cluster.network.name);
  out += fmt::format(
      "strategy  tp {} pp {} vpp {} cp {}{} ep {} dp {}, sp {}, ZeRO-{}{}{}, "
      "schedule {}\n",
      p.tp, p.pp, p.vpp, p.cp, p.cp > 1 ? " (" + cp_comm_name(p.cp_comm) + ")" : std::string(),
      p.ep, p.dp, p.sp ? "on" : "off", p.zero, p.offload_optimizer ? ", optimizer offload" : "",
      p.offload_params ? ", parameter offload" : "", schedule_name(p.schedule));
  out += fmt::format(
      "training  {} x {} tokens per step, micro-batch {} (m = {} per DP rank), {}, "
      "{}, recompute {}, flash attention {}, loss {}\n",
      t.global_batch, t.seq_len, e.micro_batch, plan.micro_batches,
      t.precision != Dtype::kFp32 ? dtype_name(t.precision)
      : !t.tf32                   ? std::string("fp32 (GEMMs in FP32, TF32 off)")
      : gemm_dtype(t.precision, t.tf32, s.cluster.gpu.peak) == Dtype::kTf32
          ? std::string("fp32 (GEMMs on TF32 tensor cores)")
          : std::string("fp32 (GEMMs in FP32: the GPU has no TF32)"),
      optimizer_name(t.optimizer), recompute_name(p.recompute),
      t.flash_attention ? "on (" + t.attention_kernel + ")" : std::string("off"),
      cross_entropy_name(t.cross_entropy));
  return out;
}

}  // namespace shardsim
