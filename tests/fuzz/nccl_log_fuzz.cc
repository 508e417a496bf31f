// Fuzz target: the nccl-tests log parser and the per-log collective fit (what `shardsim fit
// --nccl-tests FILE` does before writing the network profile). Input: log text. Property: the
// parser returns a log or an error naming the line (it never throws); every collective it yields
// either has too few rows or fits to finite segments, which the network profile reader reads
// back (accepting them or refusing with diagnostics, as fit does before writing).
#include <cstddef>
#include <cstdint>
#include <variant>

#include "calibrate/collective_fit.h"
#include "simulator/hardware/nccl_tests_log.h"
#include "simulator/scenario/presets.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  // The file name carries the op and rank count when the log does not (fit's naming rule).
  const auto parsed = parse_nccl_tests_log(fuzz::as_text(data, size), "fuzz_all_reduce_16.log");
  if (const auto* err = std::get_if<NcclTestsError>(&parsed)) {
    if (err->message.empty()) fuzz::fail("parse error without a message");
    return 0;
  }
  const NcclTestsLog& log = std::get<NcclTestsLog>(parsed);
  calibrate::PlacementHints hints;
  const auto measured = calibrate::measured_collectives(log, hints);
  if (std::holds_alternative<std::string>(measured)) return 0;
  for (const calibrate::MeasuredCollective& m :
       std::get<std::vector<calibrate::MeasuredCollective>>(measured)) {
    if (m.bytes.size() < 2) continue;  // fit_collective REQUIRES >= 2 rows; fit refuses fewer
    const calibrate::CollectiveFit f = calibrate::fit_collective(m);
    if (f.segments.empty()) fuzz::fail("a fit of >= 2 rows with no segment");
    for (const calibrate::SegmentFit& seg : f.segments) {
      const FittedCollective& e = seg.entry;
      if (!std::isfinite(e.alpha_s) || !std::isfinite(e.busbw_bytes_per_second) ||
          !std::isfinite(seg.residual))
        fuzz::fail("non-finite fitted segment");
    }
    static const nlohmann::json base = *find_preset(PresetKind::kCluster, "dgx-h100");
    NetworkConfig net;
    Diagnostics d;
    read_network_config(base, "", d, net);
    net.fitted_collectives = calibrate::entries(f);
    // The reader may refuse what absurd measurements fit to (a segment past its ranges): fit
    // then exits 2 naming the file (cli_fit.NetworkOutsideTheReaderRangesExitsTwoWith...). It
    // must do so with diagnostics, never a throw.
    NetworkConfig back;
    read_network_config(to_json(net), "", d, back);
    if (m.bytes.size() >= 4) {
      const double pct = calibrate::held_out_median_pct(m);
      if (!std::isfinite(pct) || pct < 0) fuzz::fail("non-finite held-out error");
    }
  }
  return 0;
}
