#include "simulator/memory/activations.h"

namespace shardsim {
namespace {

double divisor(ActShard shard, const ActivationOptions& o) {
  switch (shard) {
    case ActShard::kReplicated:
      return 1;
    case ActShard::kSequence:
      return o.sp ? o.tp : 1;
    case ActShard::kTensor:
      return o.tp;
  }
  return 1;
}

}  // namespace

double saved_bytes_per_element(ActKind kind, Dtype precision) {
  const double act = activation_bytes(precision);
  switch (kind) {
    case ActKind::kActivation:
      return act;
    case ActKind::kGemmInput:
      return precision == Dtype::kFp8 ? 1 : act;
    case ActKind::kFp8Copy:
      return precision == Dtype::kFp8 ? 1 : 0;
    case ActKind::kMask:
      return 1;
    case ActKind::kFp32:
      return 4;
    case ActKind::kInt64:
      return 8;
  }
  return act;
}

double saved_bytes(const std::vector<Op>& ops, const ActivationOptions& o) {
  double bytes = 0;
  for (const auto& op : ops) {
    for (const auto& t : op.saves) {
      if (t.attention_core && o.recompute == Recompute::kSelective) continue;
      bytes += t.elements * saved_bytes_per_element(t.kind, o.precision) / divisor(t.shard, o);
    }
  }
  return bytes;
}

double layer_activation_bytes(const std::vector<Op>& ops, double tokens, double hidden,
                              const ActivationOptions& o) {
  if (o.recompute == Recompute::kFull) {
    const double input =
        tokens * hidden * saved_bytes_per_element(ActKind::kActivation, o.precision);
    return input / divisor(ActShard::kSequence, o);
  }
  return saved_bytes(ops, o);
}

}  // namespace shardsim
