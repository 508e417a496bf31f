#include "simulator/plan/plan.h"

#include <algorithm>

namespace shardsim {

int PipelineStage::layers() const {
  int n = 0;
  for (const auto& c : chunks) n += c.layers;
  return n;
}

std::vector<int> split_layers(int layers, int n, int first, int last) {
  if (n == 1) return {layers};
  if (first >= 0 || last >= 0) {
    const int given = int(first >= 0) + int(last >= 0);
    const int rest = layers - std::max(first, 0) - std::max(last, 0);
    const int each = n > given ? rest / (n - given) : 0;
    std::vector<int> out(n, each);
    if (first >= 0) out.front() = first;
    if (last >= 0) out.back() = last;
    return out;
  }
  if (layers % n == 0) return std::vector<int>(n, layers / n);
  // Megatron-LM's uneven split: middle stages take ceil(layers / n), the first and last share the
  // rest, each keeping at least one layer and at most the middle's count.
  const int k = (layers + n - 1) / n;
  const int rest = layers - (n - 2) * k;
  std::vector<int> out(n, k);
  if (rest >= 2 && rest <= 2 * k) {
    out.front() = rest / 2;
    out.back() = rest - rest / 2;
    return out;
  }
  // Otherwise balance: every stage floor(layers / n), the remainder one each on the middle
  // stages (then the last), so no stage holds more than one layer above another.
  const int base = layers / n, extra = layers % n;
  out.assign(n, base);
  for (int i = 0; i < extra; ++i) ++out[std::size_t(i + 1 < n ? i + 1 : n - 1)];
  return out;
}

namespace {

// "tp-cp-dp-pp": each dimension's stride is the product of the sizes of those before it.
void assign_strides(const std::string& order, Plan& plan) {
  long long stride = 1;
  std::size_t pos = 0;
  while (pos < order.size()) {
    const std::size_t dash = order.find('-', pos);
    const std::string dim = order.substr(pos, dash == std::string::npos ? dash : dash - pos);
    if (dim == "tp") plan.stride_tp = stride, stride *= plan.tp;
    if (dim == "cp") plan.stride_cp = stride, stride *= plan.cp;
    if (dim == "dp") plan.stride_dp = stride, stride *= plan.dp;
    if (dim == "pp") plan.stride_pp = stride, stride *= plan.pp;
    if (dash == std::string::npos) break;
    pos = dash + 1;
  }
}

}  // namespace

Plan make_plan(const Scenario& s) {
  const auto& p = s.strategy;
  Plan plan;
  plan.tp = p.tp;
  plan.pp = p.pp;
  plan.vpp = p.vpp;
  plan.cp = p.cp;
  plan.ep = p.ep;
  plan.dp = p.dp;
  plan.gpus = s.cluster.gpus();
  plan.schedule = p.schedule;
  plan.gpus_per_node = s.cluster.gpus_per_node;
  assign_strides(p.rank_order, plan);
  plan.micro_batches = s.training.global_batch / (std::int64_t(p.dp) * s.training.micro_batch);
  const std::vector<int> per_chunk =
      split_layers(s.model.layers, p.pp * p.vpp, p.first_stage_layers, p.last_stage_layers);
  std::vector<int> first_layer(per_chunk.size(), 0);
  for (std::size_t i = 1; i < per_chunk.size(); ++i)
    first_layer[i] = first_layer[i - 1] + per_chunk[i - 1];
  plan.stages.reserve(std::size_t(p.pp));
  for (int st = 0; st < p.pp; ++st) {
    PipelineStage stage;
    stage.index = st;
    stage.chunks.reserve(std::size_t(p.vpp));
    for (int c = 0; c < p.vpp; ++c) {
      const int v = c * p.pp + st;
      stage.chunks.push_back({first_layer[v], per_chunk[v]});
    }
    stage.has_embedding = st == 0;
    stage.has_output = st == p.pp - 1;
    plan.stages.push_back(std::move(stage));
  }
  return plan;
}

OpShape op_shape(const Scenario& s, const Plan& plan) {
  const TrainingConfig& t = s.training;
  return {double(t.seq_len) / plan.cp,
          double(t.seq_len),
          double(t.micro_batch),
          t.flash_attention,
          t.cross_entropy,
          attention_window(s.model, t.seq_len, t.flash_attention, t.attention_kernel),
          s.strategy.cp_comm == CpComm::kA2a ? double(plan.cp) : 1.0};
}

}  // namespace shardsim
