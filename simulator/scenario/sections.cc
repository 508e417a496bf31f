#include "simulator/scenario/sections.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "simulator/core/json_reader.h"

namespace shardsim {
namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;  // sequences, tokens: generous bound
constexpr int kMaxDegree = kMaxParallelDegree;

const std::vector<std::pair<std::string, Dtype>> kPrecisions = {
    {"fp32", Dtype::kFp32}, {"fp16", Dtype::kFp16}, {"bf16", Dtype::kBf16}, {"fp8", Dtype::kFp8}};
const std::vector<std::pair<std::string, GradDtype>> kGradDtypes = {{"same", GradDtype::kSame},
                                                                    {"fp32", GradDtype::kFp32}};
const std::vector<std::pair<std::string, Optimizer>> kOptimizers = {
    {"adam", Optimizer::kAdam}, {"adamw", Optimizer::kAdamW}, {"sgd", Optimizer::kSgd}};
const std::vector<std::pair<std::string, CrossEntropyKernel>> kCrossEntropy = {
    {std::string(kCrossEntropyNames[0]), CrossEntropyKernel::kVocabParallel},
    {std::string(kCrossEntropyNames[1]), CrossEntropyKernel::kFused}};
const std::vector<std::pair<std::string, Recompute>> kRecompute = {
    {"none", Recompute::kNone}, {"selective", Recompute::kSelective}, {"full", Recompute::kFull}};
const std::vector<std::pair<std::string, GradClipScaling>> kGradClipScalings = {
    {"when_clipped", GradClipScaling::kWhenClipped}, {"always", GradClipScaling::kAlways}};
const std::vector<std::pair<std::string, GradAccumulationCast>> kGradAccumulationCasts = {
    {"in_add", GradAccumulationCast::kInAdd}, {"separate", GradAccumulationCast::kSeparate}};
const std::vector<std::pair<std::string, GradAccumulationTarget>> kGradAccumulationTargets = {
    {"main_grad", GradAccumulationTarget::kMainGrad},
    {"param_grad", GradAccumulationTarget::kParamGrad}};
const std::vector<std::pair<std::string, CpComm>> kCpComms = {
    {"p2p", CpComm::kP2p}, {"all_gather", CpComm::kAllGather}, {"a2a", CpComm::kA2a}};
const std::vector<std::pair<std::string, Schedule>> kSchedules = {
    {"gpipe", Schedule::kGpipe},
    {"1f1b", Schedule::k1F1B},
    {"interleaved", Schedule::kInterleaved},
    {"zb-h1", Schedule::kZbH1},
    {"zb-h2", Schedule::kZbH2}};

void read_training(const nlohmann::json& j, Diagnostics& d, TrainingConfig& t,
                   Recompute& recompute) {
  ObjectReader r(j, "/training", d);
  r.integer("seq_len", t.seq_len, 1, std::int64_t{1} << 30, true);
  r.integer("global_batch", t.global_batch, 1, kMaxCount, true);
  r.integer("micro_batch", t.micro_batch, 1, kMaxCount);
  r.enumeration("precision", t.precision, kPrecisions);
  r.boolean("tf32", t.tf32);
  r.enumeration("grad_dtype", t.grad_dtype, kGradDtypes);
  r.boolean("grad_accumulation_fusion", t.grad_accumulation_fusion);
  r.enumeration("grad_accumulation_cast", t.grad_accumulation_cast, kGradAccumulationCasts);
  r.enumeration("grad_accumulation_target", t.grad_accumulation_target, kGradAccumulationTargets);
  r.enumeration("grad_clip_scaling", t.grad_clip_scaling, kGradClipScalings);
  r.enumeration("optimizer", t.optimizer, kOptimizers);
  r.enumeration("recompute", recompute, kRecompute);
  r.boolean("flash_attention", t.flash_attention);
  r.string("attention_kernel", t.attention_kernel);
  r.enumeration("cross_entropy", t.cross_entropy, kCrossEntropy);
  r.finish();
  if (t.attention_kernel.empty())
    d.error("/training/attention_kernel",
            "must name a fused-attention implementation (default \"flash-attention-2\")");
}

void read_parallel(const nlohmann::json& j, Diagnostics& d, Strategy& p) {
  ObjectReader r(j, "/parallel", d);
  r.integer("tp", p.tp, 1, kMaxDegree);
  r.integer("pp", p.pp, 1, kMaxDegree);
  r.integer("vpp", p.vpp, 1, kMaxDegree);
  r.integer("cp", p.cp, 1, kMaxDegree);
  r.integer("ep", p.ep, 1, kMaxDegree);
  r.integer("dp", p.dp, 1, kMaxDegree);
  r.boolean("sp", p.sp);
  r.integer("zero", p.zero, 0, 3);  // an integer, like the degrees ("2" was read as 2)
  r.boolean("offload_optimizer", p.offload_optimizer);
  r.boolean("offload_params", p.offload_params);
  r.enumeration("schedule", p.schedule, kSchedules);
  r.boolean("overlap_grad_reduce", p.overlap_grad_reduce);
  r.boolean("overlap_param_gather", p.overlap_param_gather);
  r.boolean("overlap_tp_comm", p.overlap_tp_comm);
  r.integer("zero3_prefetch", p.zero3_prefetch, 0, 64);
  r.enumeration("cp_comm_type", p.cp_comm, kCpComms);
  r.choice("rank_order", p.rank_order,
           {"tp-cp-dp-pp", "tp-cp-pp-dp", "tp-dp-cp-pp", "tp-pp-cp-dp", "cp-tp-dp-pp",
            "tp-dp-pp-cp", "tp-pp-dp-cp", "dp-tp-cp-pp", "pp-tp-cp-dp"});
  r.integer("first_stage_layers", p.first_stage_layers, 0, 1 << 20);
  r.integer("last_stage_layers", p.last_stage_layers, 0, 1 << 20);
  r.finish();
}

void read_cluster(const nlohmann::json& j, Diagnostics& d, ClusterConfig& c) {
  ObjectReader r(j, "/cluster", d);
  if (const auto* gpu = r.raw("gpu"))
    read_gpu_profile(*gpu, "/cluster/gpu", d, c.gpu);
  else if (r.ok())
    d.error("/cluster/gpu",
            "is required but missing (a GPU preset name or a "
            "hardware profile path)");
  c.gpus_per_node = c.gpu.default_gpus_per_node;
  r.integer("gpus_per_node", c.gpus_per_node, 1, 1 << 16);
  r.integer("nodes", c.nodes, 1, 1 << 24);
  r.number("host_memory_bytes", c.host_memory_bytes, 0, 1e15);  // 0: not checked; 1 PB bound
  if (const auto* net = r.raw("network"))
    read_network_config(*net, "/cluster/network", d, c.network);
  r.finish();
}

void read_overheads(const nlohmann::json& j, Diagnostics& d, OverheadConfig& o) {
  ObjectReader r(j, "/overheads", d);
  constexpr double kBig = 1e13;  // 10 TB: far above any single-GPU buffer
  r.number("cuda_context_bytes", o.cuda_context_bytes, 0, kBig);
  r.number("nccl_bytes_per_communicator", o.nccl_bytes_per_communicator, 0, kBig);
  r.number("gemm_workspace_bytes", o.gemm_workspace_bytes, 0, kBig);
  r.number("fragmentation_fraction", o.fragmentation_fraction, 0, 10);
  r.number("ddp_bucket_bytes", o.ddp_bucket_bytes, 0, kBig);
  r.number("zero_bucket_elements", o.zero_bucket_elements, 0, kBig);
  r.number("zero3_prefetch_elements", o.zero3_prefetch_elements, 0, kBig);
  r.finish();
}

void read_framework(const nlohmann::json& j, Diagnostics& d, FrameworkConfig& f) {
  ObjectReader r(j, "/framework", d);
  r.string("name", f.name);
  std::string description;  // free text; checked for its type
  r.string("description", description);
  r.number("op_dispatch_s", f.op_dispatch_s, 0, 1);
  r.number("collective_dispatch_s", f.collective_dispatch_s, 0, 1);
  r.number("step_overhead_s", f.step_overhead_s, 0, 1000);
  r.number("host_sync_fraction", f.host_sync_fraction, 0, 1);
  r.boolean("fitted", f.fitted);
  r.string("source", f.source);
  r.allow("provenance");
  r.finish();
}

void read_effects(const nlohmann::json& j, Diagnostics& d, EffectSwitches& e) {
  ObjectReader r(j, "/effects", d);
  r.boolean("host_dispatch", e.host_dispatch);
  r.boolean("gemm_shape", e.gemm_shape);
  r.boolean("kernel_bandwidth", e.kernel_bandwidth);
  r.boolean("attention_kernel", e.attention_kernel);
  r.boolean("comm_contention", e.comm_contention);
  r.boolean("fitted_collectives", e.fitted_collectives);
  r.boolean("optimizer_traffic", e.optimizer_traffic);
  r.boolean("cross_entropy_traffic", e.cross_entropy_traffic);
  r.finish();
}

// A list of integers in [min, max], each an error of its own at /search/KEY/i.
template <class T>
void int_list(ObjectReader& r, std::string_view key, std::vector<T>& out, std::int64_t min,
              std::int64_t max, Diagnostics& d) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr) return;
  const std::string path = pointer_join(r.path(), key);
  if (!v->is_array() || v->empty()) {
    d.error(path, fmt::format("must be a non-empty array of integers in [{}, {}], got {}", min, max,
                              json_text(*v)));
    return;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& e = (*v)[i];
    // A whole number written with a point (2.0) counts, as for a single integer key
    // (ObjectReader::integer; found by review, 2026-11-29: parallel.tp 2.0 was read, search.tp
    // [2.0] refused). Unsigned values above int64's range are out of range.
    std::optional<std::int64_t> value;
    if (e.is_number_unsigned())
      value = e.get<std::uint64_t>() <= std::uint64_t(max) ? std::optional(e.get<std::int64_t>())
                                                           : std::nullopt;
    else if (e.is_number_integer())
      value = e.get<std::int64_t>();
    else if (e.is_number_float() && std::trunc(e.get<double>()) == e.get<double>() &&
             std::fabs(e.get<double>()) <= 9.0e15)
      value = static_cast<std::int64_t>(e.get<double>());
    if (!value || *value < min || *value > max) {
      d.error(path + "/" + std::to_string(i),
              fmt::format("must be an integer in [{}, {}], got {}", min, max, json_text(e)));
      continue;
    }
    out.push_back(T(*value));
  }
}

template <class E>
void enum_list(ObjectReader& r, std::string_view key, std::vector<E>& out,
               const std::vector<std::pair<std::string, E>>& table, Diagnostics& d) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr) return;
  const std::string path = pointer_join(r.path(), key);
  std::string names;
  for (const auto& [name, value] : table) names += (names.empty() ? "" : ", ") + name;
  if (!v->is_array() || v->empty()) {
    d.error(path, fmt::format("must be a non-empty array of {{{}}}, got {}", names, json_text(*v)));
    return;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& e = (*v)[i];
    bool found = false;
    if (e.is_string())
      for (const auto& [name, value] : table)
        if (name == e.get<std::string>()) {
          out.push_back(value);
          found = true;
        }
    if (!found)
      d.error(path + "/" + std::to_string(i),
              fmt::format("must be one of {{{}}}, got {}", names, json_text(e)));
  }
}

void bool_list(ObjectReader& r, std::string_view key, std::vector<int>& out, Diagnostics& d) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr) return;
  const std::string path = pointer_join(r.path(), key);
  if (!v->is_array() || v->empty()) {
    d.error(path, fmt::format("must be a non-empty array of booleans, got {}", json_text(*v)));
    return;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    if ((*v)[i].is_boolean())
      out.push_back((*v)[i].get<bool>() ? 1 : 0);
    else
      d.error(path + "/" + std::to_string(i),
              fmt::format("must be a boolean, got {}", json_text((*v)[i])));
  }
}

void read_search(const nlohmann::json& j, Diagnostics& d, SearchSpace& s) {
  ObjectReader r(j, "/search", d);
  int_list(r, "tp", s.tp, 1, kMaxDegree, d);
  int_list(r, "pp", s.pp, 1, kMaxDegree, d);
  int_list(r, "vpp", s.vpp, 1, kMaxDegree, d);
  int_list(r, "cp", s.cp, 1, kMaxDegree, d);
  int_list(r, "ep", s.ep, 1, kMaxDegree, d);
  int_list(r, "zero", s.zero, 0, 3, d);
  int_list(r, "micro_batch", s.micro_batch, 1, kMaxCount, d);
  bool_list(r, "sp", s.sp, d);
  bool_list(r, "offload_optimizer", s.offload_optimizer, d);
  enum_list(r, "recompute", s.recompute, kRecompute, d);
  enum_list(r, "schedule", s.schedule, kSchedules, d);
  enum_list(r, "cp_comm_type", s.cp_comm, kCpComms, d);
  r.integer("top_k", s.top_k, 1, 1000);
  r.finish();
}

}  // namespace

void read_scenario_sections(const nlohmann::json& raw, Diagnostics& diags, Scenario& out) {
  ObjectReader r(raw, "", diags);
  r.string("name", out.name);
  std::string description;  // free text, not used by the model; checked for its type
  r.string("description", description);
  if (const auto* m = r.object("model"))
    read_model_config(*m, "/model", diags, out.model);
  else if (!r.has("model"))
    diags.error("/model", "is required but missing");
  if (const auto* t = r.object("training"))
    read_training(*t, diags, out.training, out.strategy.recompute);
  else if (!r.has("training"))
    diags.error("/training", "is required but missing");
  if (const auto* p = r.object("parallel")) read_parallel(*p, diags, out.strategy);
  if (const auto* c = r.object("cluster"))
    read_cluster(*c, diags, out.cluster);
  else if (!r.has("cluster"))
    diags.error("/cluster", "is required but missing");
  if (const auto* o = r.object("overheads")) read_overheads(*o, diags, out.overheads);
  if (const auto* f = r.object("framework")) read_framework(*f, diags, out.framework);
  if (const auto* e = r.object("effects")) read_effects(*e, diags, out.effects);
  if (const auto* s = r.object("search")) read_search(*s, diags, out.search);
  r.finish();
}

std::string schedule_name(Schedule s) {
  return enum_name(kSchedules, s);
}
std::string cp_comm_name(CpComm c) {
  return enum_name(kCpComms, c);
}

std::string recompute_name(Recompute r) {
  return enum_name(kRecompute, r);
}
std::string optimizer_name(Optimizer o) {
  return enum_name(kOptimizers, o);
}

nlohmann::json effective_training_json(const Scenario& s) {
  const TrainingConfig& t = s.training;
  return {
      {"seq_len", t.seq_len},
      {"global_batch", t.global_batch},
      {"micro_batch", t.micro_batch},
      {"precision", enum_name(kPrecisions, t.precision)},
      {"tf32", t.tf32},
      {"grad_dtype", enum_name(kGradDtypes, t.grad_dtype)},
      {"grad_accumulation_fusion", t.grad_accumulation_fusion},
      {"grad_accumulation_cast", enum_name(kGradAccumulationCasts, t.grad_accumulation_cast)},
      {"grad_accumulation_target", enum_name(kGradAccumulationTargets, t.grad_accumulation_target)},
      {"grad_clip_scaling", enum_name(kGradClipScalings, t.grad_clip_scaling)},
      {"optimizer", enum_name(kOptimizers, t.optimizer)},
      {"recompute", enum_name(kRecompute, s.strategy.recompute)},
      {"flash_attention", t.flash_attention},
      {"attention_kernel", t.attention_kernel},
      {"cross_entropy", enum_name(kCrossEntropy, t.cross_entropy)}};
}

nlohmann::json effective_parallel_json(const Scenario& s) {
  const Strategy& p = s.strategy;
  nlohmann::json j = {{"tp", p.tp},
                      {"pp", p.pp},
                      {"vpp", p.vpp},
                      {"cp", p.cp},
                      {"ep", p.ep},
                      {"dp", p.dp},
                      {"sp", p.sp},
                      {"zero", p.zero},
                      {"offload_optimizer", p.offload_optimizer},
                      {"offload_params", p.offload_params},
                      {"schedule", enum_name(kSchedules, p.schedule)},
                      {"overlap_grad_reduce", p.overlap_grad_reduce},
                      {"overlap_param_gather", p.overlap_param_gather},
                      {"overlap_tp_comm", p.overlap_tp_comm},
                      {"zero3_prefetch", p.zero3_prefetch},
                      {"cp_comm_type", enum_name(kCpComms, p.cp_comm)},
                      {"rank_order", p.rank_order}};
  if (p.first_stage_layers >= 0) j["first_stage_layers"] = p.first_stage_layers;
  if (p.last_stage_layers >= 0) j["last_stage_layers"] = p.last_stage_layers;
  return j;
}

}  // namespace shardsim
