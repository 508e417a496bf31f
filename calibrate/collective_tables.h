// Collective measurements published as CSV tables rather than nccl-tests logs, read into the
// same MeasuredCollective rows the log fits use (collective_fit.h). Pure functions, no I/O: the
// caller passes the file's text and name. Formats, told apart by their column header (the first
// line that does not start with '#'):
//
//   vTrain all-reduce LUT (github.com/VIA-Research/vTrain trace/<gpu>/AR_GPU<N>_..._LUT):
//     size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)
//   one NCCL all-reduce on N ranks of ONE node per file; out-of-place then in-place time (ns)
//   and busbw (GB/s = 1e9 B/s). Time = min(out-of-place, in-place) (TimeColumn::kBest, as for
//   logs). N is read from the data: busbw / algbw = 2(N-1)/N with algbw = size / time, so
//   N = 2 / (2 - busbw / algbw) (the median over the rows' out-of-place columns, which must lie
//   within 1% of 2(N-1)/N for an integer N >= 2). A "_<N>gpu" part of the file name and
//   hints.ranks (--ranks), when present, must agree with it. ranks_per_node = N.
//
//   busbw summary (Azure/AI-benchmarking-guide results, in-place busbw only):
//     system,gpu,nranks,size_label,size_bytes,inplace_busbw_GBps
//   rows of one or more devices; `device` keeps the rows whose gpu column contains one of its
//   '|'-separated parts (device_matches); rows of more than one device left is an error. The
//   collective is named in the file name (an nccl-tests name between '_' or '-' separators,
//   e.g. ..._all_reduce_8_busbw-summary.csv); time = size x bus_factor(op, nranks) / busbw.
//   ranks_per_node = min(nranks, hints.gpus_per_node) (the table prints no hosts).
//
// Every error names "FILE:LINE" (or "FILE" for whole-file problems).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "calibrate/collective_fit.h"

namespace shardsim::calibrate {

// True when `device` is empty or `name` contains one of the '|'-separated parts of `device`
// (e.g. "A100-SXM4-80GB|NVIDIA A100 SXM").
[[nodiscard]] bool device_matches(std::string_view name, std::string_view device);

// What is wrong with the rows a table kept for `device` (the devices they belong to, and how many
// there are): more than one device ("FILE: rows of N devices (...); choose one with --device"),
// or fewer than `min_rows` ("FILE: <too_few>[ for device "D"]"); nullopt when neither.
[[nodiscard]] std::optional<std::string> device_rows_error(const std::string& file,
                                                           const std::set<std::string>& devices,
                                                           std::size_t rows, std::size_t min_rows,
                                                           std::string_view too_few,
                                                           std::string_view device);

// A size on the ladder 2^k or 3 x 2^k bytes (k >= 0): a fixed rule that keeps a geometric subset
// of a dense table (vTrain's 1 MiB steps: 1, 2, 3, 4, 6, 8, 12, ... 1024 MiB, 20 of 1024 rows)
// for fitting, so the other rows are held out.
[[nodiscard]] bool on_size_ladder(double bytes);

// The rows of `m` on the ladder (first) and off it (second), in order.
[[nodiscard]] std::pair<MeasuredCollective, MeasuredCollective> split_on_ladder(
    const MeasuredCollective& m);

// |predicted - measured| / measured in percent for every row of `held`, predicted by the
// segments of `fit` (predict_fitted). REQUIRES: fit has segments.
[[nodiscard]] std::vector<double> prediction_errors_pct(const CollectiveFit& fit,
                                                        const MeasuredCollective& held);

[[nodiscard]] std::variant<std::vector<MeasuredCollective>, std::string> parse_collective_table(
    std::string_view text, const std::string& file, const PlacementHints& hints,
    const std::string& device);

}  // namespace shardsim::calibrate
