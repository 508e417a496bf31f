// Per-log collective fits: nccl-tests rows of one collective, group size and placement ->
// latency/bandwidth segments (FittedCollective entries, simulator/cost/collective.h), and the
// held-out check (fit on every other size, predict the rest). Pure functions, no I/O.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "simulator/hardware/hardware.h"
#include "simulator/hardware/nccl_tests_log.h"

namespace shardsim::calibrate {

// One collective measured at several sizes on one placement (one nccl-tests test).
struct MeasuredCollective {
  std::string file;             // the log it came from
  std::string op;               // nccl-tests name (all_reduce, ...)
  int ranks = 0;                // group size
  int ranks_per_node = 0;       // ranks on each node
  std::vector<double> bytes;    // nccl-tests size, ascending, > 0
  std::vector<double> seconds;  // measured time of the same row (TimeColumn)
  std::vector<int> lines;       // 1-based line of each row in `file`
  // Rows left out of the fit: over kStallFactor times slower than a larger message of the same
  // log, a time no fabric gives that size (a stalled run); each with that larger row.
  struct LeftOut {
    int line = 0;
    double seconds = 0;
    int larger_line = 0;
    double larger_seconds = 0;
  };
  std::vector<LeftOut> left_out;
  // Rows of a size the log measured more than once (found by review, 2026-11-27: the first was
  // kept, silently): each with the row of that size kept, the fastest (TimeColumn).
  struct Repeated {
    int line = 0;
    double seconds = 0;
    int kept_line = 0;
    double kept_seconds = 0;
  };
  std::vector<Repeated> repeated;
};

// How much slower than a larger message a row may be before it is left out as stalled: 3x keeps
// every row of the shipped logs (the largest ratio there is 2.2x, Polaris' 32-rank alltoall below
// 4 KiB: a regime of its own, not a stall) and catches the 100x stall of a review's edited log.
inline constexpr double kStallFactor = 3.0;

// Sorts `m`'s rows by size (stably) and keeps, of a size measured more than once, the fastest
// row (the first of equal ones); the others go to m.repeated, in line order, each with the row
// kept. nccl-tests logs and collective tables alike.
void keep_fastest_of_repeats(MeasuredCollective& m);

// Leaves out of `m` (into m.left_out) every row over kStallFactor times slower than a larger
// message of it; nccl-tests logs (their fit column) and calibration samples alike.
void leave_out_stalled(MeasuredCollective& m);

// Where the rank count and placement of a log come from when the log does not print them.
struct PlacementHints {
  int ranks = 0;          // --ranks N (0 = not given): must agree with the log when both exist
  int gpus_per_node = 8;  // ranks per node when the log prints no "# Rank ... on HOST" lines
  // gpus_per_node was given (--gpus-per-node): a log that prints its hosts may not place more
  // ranks on one (found by review, 2026-11-28: the flag was silently ignored there).
  bool gpus_per_node_given = false;
};

// Which time of an nccl-tests row is the measurement. Each row times the collective twice, out of
// place and in place (same algorithm and size, different buffers, run one after the other);
// interference (a periodic stall, another job's traffic) only ever adds time, and on the shared
// logs it disturbs one run of a pair at a time (e.g. RoCE DGX-1: 84 vs 576 us at 16 B; Polaris
// 8-node all_gather: 254 vs 59 us at 512 B), so the faster run is the better estimate of the
// undisturbed time.
enum class TimeColumn {
  kBest,        // min(out-of-place, in-place) (the out-of-place time when in-place is not > 0);
                // rows over kStallFactor x slower than a larger message left out
  kOutOfPlace,  // the out-of-place time only, every row (no stalled row left out: comparisons)
};

// Bytes per element of an nccl-tests datatype name (the `type` column: test_typenames of
// nccl-tests' common.cu, "bf16" in RCCL's tests, "char" and "int" in NCCL 1's), else 0.
[[nodiscard]] double nccl_datatype_bytes(std::string_view type);

// The collectives of one parsed log. Ranks: the log's "# Rank" lines, else the "_<N>.log" suffix
// of the file name (the naming of scenarios/measurements/nccl-tests), else hints.ranks; hints.ranks
// must agree with the first two when given. ranks_per_node: ranks / distinct hosts when printed,
// else min(ranks, hints.gpus_per_node). Zero-size rows (nothing to time but the launch) are
// skipped; rows are sorted by size, a repeated size keeps its first row; the time is `column`'s.
// Returns an error text ("FILE: ...") when the rank count is unknown, disagrees with hints.ranks,
// or a test names no collective.
[[nodiscard]] std::variant<std::vector<MeasuredCollective>, std::string> measured_collectives(
    const NcclTestsLog& log, const PlacementHints& hints, TimeColumn column = TimeColumn::kBest);

// One fitted segment and how well it fits its rows.
struct SegmentFit {
  FittedCollective entry;  // alpha_s, busbw, [min_bytes, max_bytes] of its rows
  double residual = 0;     // RMS relative error of its rows
  std::size_t points = 0;
};

struct CollectiveFit {
  std::vector<SegmentFit> segments;  // ascending sizes, disjoint ranges
  double residual = 0;               // RMS relative error over all rows
};

// Segmented latency/bandwidth fit, per segment (simulator/cost/collective.h's fitted form):
//   t(S) = alpha + f(op, n) * S / busbw,   f = nccl-tests bus factor
// fitted with calibrate::fit_segments_robust on x = f * S (beta = busbw): each segment minimises
// the Huber loss of the relative error (quadratic up to 10%, linear above, so a row a stall made
// 1.5-5x slower does not drag its regime), segments of >= 4 rows with 24 rows or more (>= 3
// with 12 or more, else >= 2), their number chosen by an AIC-style criterion (up to rows /
// min rows per segment). The segments are the regimes the data shows (the small-message latency
// floor, LL / LL128 / Simple protocol changes, the rendezvous steps of Slingshot) rather than
// one average.
// REQUIRES: m has >= 2 rows. A segment whose time does not grow with size gets busbw
// kFlatBusbw.
inline constexpr double kFlatBusbw = 1e14;  // B/s: the busbw of a flat segment (not a rate)
[[nodiscard]] CollectiveFit fit_collective(const MeasuredCollective& m);

// Predicted seconds at size S from fitted segments through collective_cost (the segment rule of
// simulator/cost/collective.h); more than kFittedExtrapolation times above the largest fitted
// size, from the last segment's line. REQUIRES: segments non-empty.
[[nodiscard]] double predict_fitted(const std::vector<SegmentFit>& segments, double bytes);

// Where a row of `m` is, after its file's name: ":LINE" of a log or table, " items[i]" of a
// samples document (`row` is then a 1-based item number; messages count items from 0).
[[nodiscard]] std::string row_place(int row, bool items);

// A measured time for messages and reports: "12.3 us" (one decimal) below 10 s, else
// "1.235e+20 s" (a 1e300 us time printed all 300 digits, and one near the double limit
// overflowed to "inf us").
[[nodiscard]] std::string time_text(double seconds);

// A row the fit does not represent: its fitted time off by more than kUnfittedFactor either way.
// The fit weights rows by 1 / t^2, so a time far above its neighbours' (the largest size, which
// leave_out_stalled cannot compare with a larger message) got no weight and was dropped without
// a word (found by review, 2026-11-29: a 64 MiB sample at 1e20 s, fitted at 14.7 ms). Real rows
// are fitted within tens of per cent. The error names the row ("FILE:LINE", or "FILE items[i]"
// when `items`: `lines` are then 1-based item numbers); "" when every row is represented.
inline constexpr double kUnfittedFactor = 10.0;
[[nodiscard]] std::string unfitted_row_error(const MeasuredCollective& m, const CollectiveFit& fit,
                                             bool items);
// A segment whose intercept is beyond the +-10 s a profile holds (the reader's range of alpha_s):
// its rows are no one regime, and no profile can be written from it. Named by its rows as above;
// "" when every segment is in range.
[[nodiscard]] std::string segment_range_error(const MeasuredCollective& m, const CollectiveFit& fit,
                                              bool items);

// Held-out check: fit on rows 0, 2, 4, ... (ascending size), predict rows 1, 3, 5, ...;
// returns the median of |predicted - measured| / measured over the predicted rows, in percent.
// Needs >= 4 rows (>= 2 to fit, >= 2 held out); throws std::invalid_argument naming the log and
// the counts when m has fewer rows or m.seconds does not have one time per row.
[[nodiscard]] double held_out_median_pct(const MeasuredCollective& m);
// The same fit, its errors taken against `measured` (seconds per row of m, e.g. the out-of-place
// column alone). Throws std::invalid_argument as above, and when measured.size() !=
// m.bytes.size() or a held-out row's measured time is not > 0.
[[nodiscard]] double held_out_median_pct(const MeasuredCollective& m,
                                         const std::vector<double>& measured);

// The FittedCollective entries of a fit (for NetworkConfig::fitted_collectives).
[[nodiscard]] std::vector<FittedCollective> entries(const CollectiveFit& f);

}  // namespace shardsim::calibrate
