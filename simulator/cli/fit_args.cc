// fit's argument checks (fit_args.h), before any input file is read.
#include "simulator/cli/fit_args.h"

#include <fmt/format.h>

#include "simulator/cli/fit_inputs.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/strings.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {

void check_fit_args(const FitArgs& a) {
  check_gemm_aliases(a.gemm_aliases);
  if (!a.attention_relative.empty() && a.attention_relative_table.empty() &&
      a.attention_csvs.size() != 1)
    throw InputError("--attention-relative",
                     "needs exactly one --attention table (the one it reads the ratio from), or "
                     "--attention-relative-table naming it");
  if (!a.attention_relative.empty() && a.attention_csvs.empty())
    throw InputError("--attention-relative",
                     "needs an --attention table (this device's reference kernel)");
  if (!a.attention_relative_table.empty() && a.attention_relative.empty())
    throw InputError("--attention-relative-table",
                     "is where --attention-relative reads its ratio, and none is given");
  if (!a.attention_device.empty() && a.attention_csvs.empty())
    throw InputError("--attention-device", "needs an --attention table (whose rows it selects)");
  if (a.nccl_logs.empty() && a.collective_tables.empty() && a.gemm_csvs.empty() &&
      a.gemm_best.empty() && a.bandwidth_csvs.empty() && a.attention_csvs.empty() &&
      a.samples.empty())
    throw InputError("",
                     "nothing to fit: give --nccl-tests, --collective-table, --gemm, "
                     "--gemm-best, --hbm, --attention or --samples");
  if (a.base.empty() && a.samples.empty() && !a.output.empty())
    throw InputError("--base",
                     "is required with -o and without --samples (a GPU preset or profile JSON "
                     "to update)");
  if (a.output.empty() && a.network_output.empty())
    throw InputError("-o", "give -o PROFILE.json, --network-output NETWORK.json or both");
  // --network-output writes the network of logs and tables; a samples document's collectives go
  // into -o's profile, its network included (the first message for samples alone said --base
  // was missing, the second with --base that the samples had no collectives; found by review,
  // 2026-11-28). The order keeps this one first.
  if (!a.network_output.empty() && a.nccl_logs.empty() && a.collective_tables.empty())
    throw InputError("--network-output",
                     a.samples.empty()
                         ? "needs collective measurements (--nccl-tests or --collective-table)"
                         : "needs --nccl-tests or --collective-table: the collectives of --samples "
                           "are fitted into -o's profile, whose network holds them");
  // Flags that only logs and tables read, given without them, were ignored (found by review,
  // 2026-11-28: --ranks 4 beside a 2-rank samples document was exit 0).
  const bool tables = !a.nccl_logs.empty() || !a.collective_tables.empty();
  if (!tables && a.ranks != 0)
    throw InputError("--ranks", "checks nccl-tests logs and collective tables; none is given");
  if (!tables && a.gpus_per_node != 0)
    throw InputError("--gpus-per-node",
                     "places nccl-tests logs and collective tables; none is given (a samples "
                     "document records its own placement)");
  if (a.gemm_csvs.empty() && !a.gemm_timing.empty())
    throw InputError("--gemm-timing", "says how --gemm tables were timed, and none is given");
  if (a.attention_csvs.empty() && !a.attention_timing.empty())
    throw InputError("--attention-timing",
                     "says how --attention tables were timed, and none is given");
  if (a.collective_tables.empty() && a.table_fit_sizes != "all")
    throw InputError("--table-fit-sizes", "applies to --collective-table, and none is given");
  if (!a.measured_on.empty() && a.gemm_csvs.empty() && a.gemm_best.empty() &&
      a.bandwidth_csvs.empty() && a.attention_csvs.empty())
    throw InputError("--measured-on",
                     "applies to --gemm, --gemm-best, --hbm and --attention tables, and none is "
                     "given");
  if (a.base.empty() && a.network_base.empty() && !a.network_output.empty())
    throw InputError("--network-base",
                     "or --base is required with --network-output (the network "
                     "the fit starts from)");
  // Flags of tables and collective fits given without any were ignored too (found by review,
  // 2026-11-29: --device with only --nccl-tests, --network-name with only --gemm, exit 0).
  if (!a.device.empty() && a.gemm_csvs.empty() && a.gemm_best.empty() && a.bandwidth_csvs.empty() &&
      a.attention_csvs.empty() && a.collective_tables.empty())
    throw InputError(
        "--device",
        "(alias --gemm-device) selects rows of --gemm, --gemm-best, --hbm, --attention "
        "and --collective-table tables, and none is given");
  const bool collectives = tables || !a.samples.empty();
  if (!collectives && !a.network_name.empty())
    throw InputError("--network-name",
                     "names the network fitted from --nccl-tests, --collective-table or "
                     "--samples, and none is given");
  if (!collectives && !a.network_base.empty() && a.network_output.empty())
    throw InputError("--network-base",
                     "is where the fit of --nccl-tests, --collective-table or --samples starts, "
                     "and none is given");
  // Names are printed in reports: a control character was refused only after the fit, blamed on
  // the measurements (found by review, 2026-11-29).
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--name", &a.name},
                                    {"--network-name", &a.network_name}})
    for (std::size_t i = 0; i < value->size(); ++i) {
      const auto c = static_cast<unsigned char>((*value)[i]);
      const bool c1 = c == 0xc2 && i + 1 < value->size() &&
                      is_c1_second_byte(static_cast<unsigned char>((*value)[i + 1]));
      if (c < 0x20 || c == 0x7f || c1)
        throw InputError(flag, fmt::format("contains the control character 0x{:02x} at byte {}: "
                                           "names are printed in reports",
                                           c, i));
    }
  if (a.ranks < 0 || a.ranks == 1)
    throw InputError("--ranks",
                     fmt::format("must be >= 2 (a collective spans ranks), got {}", a.ranks));
  if (a.gpus_per_node < 0)
    throw InputError("--gpus-per-node", fmt::format("must be >= 1, got {}", a.gpus_per_node));
  if (!a.node_network.empty() && !find_preset(PresetKind::kCluster, a.node_network))
    throw_unknown_preset(PresetKind::kCluster, a.node_network, "--node-network");
}

}  // namespace shardsim::cli
