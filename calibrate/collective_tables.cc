#include "calibrate/collective_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "calibrate/csv.h"
#include "calibrate/linear_fit.h"
#include "simulator/cost/collective.h"
#include "simulator/hardware/nccl_tests_log.h"

namespace shardsim::calibrate {
namespace {

const std::vector<std::string> kVtrainHeader = {"size(B)",     "count",    "type",       "time(ns)",
                                                "busbw(GB/s)", "time(ns)", "busbw(GB/s)"};
const std::vector<std::string> kSummaryHeader = {"system",     "gpu",        "nranks",
                                                 "size_label", "size_bytes", "inplace_busbw_GBps"};
constexpr double kNs = 1e-9;
constexpr double kGB = 1e9;
constexpr double kRankRatioTolerance = 0.01;  // busbw / algbw within 1% of 2(N-1)/N
constexpr double kBusbwTolerance = 0.01;      // a row's busbw within 1% (+ 0.01 GB/s rounding)

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "..._<N>gpu..." in the file name -> N, else 0.
int ranks_from_gpu_suffix(const std::string& path) {
  const std::string name = file_name(path);
  for (std::size_t at = name.find("gpu"); at != std::string::npos; at = name.find("gpu", at + 1)) {
    std::size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
    if (start < at && start > 0 && name[start - 1] == '_')
      return std::stoi(name.substr(start, at - start));
  }
  return 0;
}

// One vTrain row: size, best time (s), out-of-place busbw (B/s) and time; or an error text.
struct VtrainRow {
  double bytes = 0, seconds = 0, oop_seconds = 0, oop_busbw = 0, ip_seconds = 0, ip_busbw = 0;
};

std::variant<VtrainRow, std::string> vtrain_row(const std::vector<std::string>& f) {
  if (f.size() != kVtrainHeader.size())
    return fmt::format(
        "expected {} fields (size(B),count,type,time(ns),busbw(GB/s),time(ns),"
        "busbw(GB/s)), got {}",
        kVtrainHeader.size(), f.size());
  const auto size = parse_number(f[0]), t_oop = parse_number(f[3]), b_oop = parse_number(f[4]),
             t_ip = parse_number(f[5]), b_ip = parse_number(f[6]);
  if (!size || *size < 1) return fmt::format("size(B) \"{}\" is not a number >= 1", f[0]);
  // One all-reduce of `count` elements of `type` (nccl-tests' columns): size(B) = count x the
  // type's bytes in every row of vTrain's tables; a row that breaks it was edited.
  const auto count = parse_number(f[1]);
  const double bytes = nccl_datatype_bytes(f[2]);
  if (bytes == 0)
    return fmt::format("type \"{}\" is not an nccl-tests datatype (float, half, bfloat16, ...)",
                       f[2]);
  if (!count || *count * bytes != *size)
    return fmt::format("size(B) {} is not count \"{}\" x {} bytes ({})", f[0], f[1], bytes, f[2]);
  if (!t_oop || *t_oop <= 0 || !t_ip || *t_ip <= 0)
    return fmt::format("time(ns) \"{}\" / \"{}\" must be numbers > 0", f[3], f[5]);
  if (!b_oop || *b_oop <= 0 || !b_ip || *b_ip <= 0)
    return fmt::format("busbw(GB/s) \"{}\" / \"{}\" must be numbers > 0", f[4], f[6]);
  return VtrainRow{
      *size, std::min(*t_oop, *t_ip) * kNs, *t_oop * kNs, *b_oop * kGB, *t_ip * kNs, *b_ip * kGB};
}

// N from busbw / algbw = 2(N-1)/N (all-reduce): the median ratio r, N = round(2 / (2 - r)).
std::variant<int, std::string> ranks_from_busbw(const std::vector<VtrainRow>& rows,
                                                const std::string& file) {
  std::vector<double> ratios;
  for (const auto& r : rows) ratios.push_back(r.oop_busbw / (r.bytes / r.oop_seconds));
  const double ratio = median(ratios);
  const double n = ratio < 1.999 ? std::round(2 / (2 - ratio)) : 0;
  if (n < 2 || std::abs(ratio - 2 * (n - 1) / n) > kRankRatioTolerance * ratio)
    return fmt::format(
        "{}: busbw / (size / time) is {:.4f}, not the all-reduce bus factor "
        "2(N-1)/N of any rank count N >= 2; is this an all-reduce table with "
        "time in ns and busbw in GB/s?",
        file, ratio);
  return int(n);
}

// Each row's busbw must be size / time x 2(N-1)/N (both columns), within rounding.
std::optional<std::string> check_busbw(const VtrainRow& r, int ranks, const std::string& file,
                                       int line) {
  const double factor = bus_factor(CollectiveOp::kAllReduce, ranks);
  for (const auto& [t, b] : {std::pair{r.oop_seconds, r.oop_busbw}, {r.ip_seconds, r.ip_busbw}}) {
    const double expected = r.bytes / t * factor;
    if (std::abs(b - expected) > kBusbwTolerance * expected + 0.01 * kGB)
      return fmt::format(
          "{}:{}: busbw {:.4g} GB/s but size / time x 2(N-1)/N = {:.4g} GB/s "
          "for N = {} ranks",
          file, line, b / kGB, expected / kGB, ranks);
  }
  return std::nullopt;
}

std::variant<std::vector<MeasuredCollective>, std::string> parse_vtrain(
    const std::vector<CsvLine>& lines, const std::string& file, const PlacementHints& hints) {
  std::vector<VtrainRow> rows;
  std::vector<int> numbers;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto row = vtrain_row(lines[i].fields);
    if (auto* e = std::get_if<std::string>(&row))
      return fmt::format("{}:{}: {}", file, lines[i].number, *e);
    if (rows.size() >= kMaxRowsPerCollective)
      return fmt::format("{}:{}: more than {} data rows; thin the table", file, lines[i].number,
                         kMaxRowsPerCollective);
    rows.push_back(std::get<VtrainRow>(row));
    numbers.push_back(lines[i].number);
  }
  if (rows.size() < 2) return fmt::format("{}: fewer than 2 data rows", file);
  auto detected = ranks_from_busbw(rows, file);
  if (auto* e = std::get_if<std::string>(&detected)) return *e;
  const int ranks = std::get<int>(detected);
  const int named = ranks_from_gpu_suffix(file);
  if (named > 0 && named != ranks)
    return fmt::format("{}: the file name says {} GPUs but busbw / algbw gives {} ranks", file,
                       named, ranks);
  if (hints.ranks > 0 && hints.ranks != ranks)
    return fmt::format("{}: busbw / algbw gives {} ranks but --ranks is {}", file, ranks,
                       hints.ranks);
  MeasuredCollective m{file, "all_reduce", ranks, ranks, {}, {}, {}, {}, {}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (auto e = check_busbw(rows[i], ranks, file, numbers[i])) return *e;
    m.bytes.push_back(rows[i].bytes);
    m.seconds.push_back(rows[i].seconds);
    m.lines.push_back(numbers[i]);
  }
  // A repeated size keeps the fastest row and reports the others, as a log's (found by review,
  // 2026-11-28: the first was kept without a word).
  keep_fastest_of_repeats(m);
  return std::vector<MeasuredCollective>{std::move(m)};
}

// The nccl-tests collective named in the file name, between '_' or '-' separators; "" and
// `error` set otherwise.
std::string op_from_file_name(const std::string& file, std::string& error) {
  // appended, not "_" + string&&: GCC 12 warns falsely (-Wrestrict) on that operator+
  std::string name = "_";
  name += file_name(file);
  name += '_';
  std::ranges::replace(name, '-', '_');
  std::ranges::replace(name, '.', '_');
  std::set<std::string> found;
  for (const auto& op : collective_names())
    if (name.find("_" + op + "_") != std::string::npos) found.insert(op);
  if (found.size() == 1) return *found.begin();
  error = fmt::format(
      "{}: the busbw summary has no collective column; name one collective in "
      "the file name (e.g. ..._all_reduce_8_busbw-summary.csv), found {}",
      file, found.empty() ? "none" : fmt::format("{}", fmt::join(found, ", ")));
  return "";
}

struct SummaryRow {
  std::string device;
  int ranks = 0;
  double bytes = 0, busbw = 0;
  int line = 0;
};

std::variant<SummaryRow, std::string> summary_row(const CsvLine& l) {
  const auto& f = l.fields;
  if (f.size() != kSummaryHeader.size())
    return fmt::format("expected {} fields ({}), got {}", kSummaryHeader.size(),
                       fmt::join(kSummaryHeader, ","), f.size());
  const auto ranks = parse_number(f[2]), bytes = parse_number(f[4]), busbw = parse_number(f[5]);
  // At most 2^24 ranks, the bound of every group size (found by review, 2026-11-28: 2^31 was
  // cast to int and failed inside the fit, exit 3).
  if (!ranks || *ranks < 2 || *ranks > (1 << 24) || *ranks != std::floor(*ranks))
    return fmt::format("nranks \"{}\" is not an integer from 2 to 2^24", f[2]);
  if (!bytes || *bytes < 1) return fmt::format("size_bytes \"{}\" is not a number >= 1", f[4]);
  if (!busbw || *busbw <= 0)
    return fmt::format("inplace_busbw_GBps \"{}\" is not a number > 0", f[5]);
  return SummaryRow{f[1], int(*ranks), *bytes, *busbw * kGB, l.number};
}

std::variant<std::vector<MeasuredCollective>, std::string> parse_summary(
    const std::vector<CsvLine>& lines, const std::string& file, const PlacementHints& hints,
    const std::string& device) {
  std::string error;
  const std::string op = op_from_file_name(file, error);
  if (op.empty()) return error;
  std::vector<SummaryRow> rows;
  std::set<std::string> devices;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto row = summary_row(lines[i]);
    if (auto* e = std::get_if<std::string>(&row))
      return fmt::format("{}:{}: {}", file, lines[i].number, *e);
    auto& r = std::get<SummaryRow>(row);
    if (!device_matches(r.device, device)) continue;
    devices.insert(r.device);
    if (!rows.empty() && r.ranks != rows.front().ranks)
      return fmt::format("{}:{}: nranks {} differs from {} on line {}", file, r.line, r.ranks,
                         rows.front().ranks, rows.front().line);
    if (rows.size() >= kMaxRowsPerCollective)
      return fmt::format("{}:{}: more than {} data rows; thin the table", file, r.line,
                         kMaxRowsPerCollective);
    rows.push_back(std::move(r));
  }
  if (auto e = device_rows_error(file, devices, rows.size(), 2, "fewer than 2 rows", device))
    return *e;
  const int ranks = rows.front().ranks;
  if (hints.ranks > 0 && hints.ranks != ranks)
    return fmt::format("{}: nranks is {} but --ranks is {}", file, ranks, hints.ranks);
  MeasuredCollective m{file, op, ranks, std::min(ranks, hints.gpus_per_node), {}, {}, {}, {}, {}};
  // Nodes of equal size, as for a log (found by review, 2026-11-28: 12 ranks in nodes of 8 were
  // stored).
  if (ranks % m.ranks_per_node != 0)
    return fmt::format(
        "{}: {} ranks do not fill nodes of {} (--gpus-per-node, or the base profile's node "
        "size); give the node size the job ran with",
        file, ranks, m.ranks_per_node);
  const double factor = bus_factor(*collective_from_name(op), ranks);
  for (const auto& r : rows) {
    m.bytes.push_back(r.bytes);
    m.seconds.push_back(r.bytes * factor / r.busbw);  // time = size x bus factor / busbw
    m.lines.push_back(r.line);
  }
  keep_fastest_of_repeats(m);  // as for a log
  return std::vector<MeasuredCollective>{std::move(m)};
}

}  // namespace

bool on_size_ladder(double bytes) {
  if (bytes < 1 || bytes != std::floor(bytes) || bytes > 1e18) return false;
  auto v = static_cast<unsigned long long>(bytes);
  while (v % 2 == 0) v /= 2;  // bytes = odd x 2^k
  return v == 1 || v == 3;
}

std::pair<MeasuredCollective, MeasuredCollective> split_on_ladder(const MeasuredCollective& m) {
  MeasuredCollective on{m.file, m.op, m.ranks, m.ranks_per_node, {}, {}, {}, {}, {}}, off = on;
  for (std::size_t i = 0; i < m.bytes.size(); ++i) {
    auto& to = on_size_ladder(m.bytes[i]) ? on : off;
    to.bytes.push_back(m.bytes[i]);
    to.seconds.push_back(m.seconds[i]);
    to.lines.push_back(m.lines[i]);
  }
  return {std::move(on), std::move(off)};
}

std::vector<double> prediction_errors_pct(const CollectiveFit& fit,
                                          const MeasuredCollective& held) {
  std::vector<double> out;
  for (std::size_t i = 0; i < held.bytes.size(); ++i) {
    const double predicted = predict_fitted(fit.segments, held.bytes[i]);
    out.push_back(std::abs(predicted - held.seconds[i]) / held.seconds[i] * 100);
  }
  return out;
}

bool device_matches(std::string_view name, std::string_view device) {
  if (device.empty()) return true;
  for (std::size_t start = 0; start <= device.size();) {
    const std::size_t bar = std::min(device.find('|', start), device.size());
    const auto part = device.substr(start, bar - start);
    if (!part.empty() && name.find(part) != std::string_view::npos) return true;
    start = bar + 1;
  }
  return false;
}

std::optional<std::string> device_rows_error(const std::string& file,
                                             const std::set<std::string>& devices, std::size_t rows,
                                             std::size_t min_rows, std::string_view too_few,
                                             std::string_view device) {
  if (devices.size() > 1)
    return fmt::format(
        "{}: rows of {} devices ({}); choose one with --device (a part of its name, or "
        "several parts separated by '|')",
        file, devices.size(), fmt::join(devices, "; "));
  if (rows < min_rows)
    return fmt::format("{}: {}{}", file, too_few,
                       device.empty() ? "" : fmt::format(" for device \"{}\"", device));
  return std::nullopt;
}

std::variant<std::vector<MeasuredCollective>, std::string> parse_collective_table(
    std::string_view text, const std::string& file, const PlacementHints& hints,
    const std::string& device) {
  const auto lines = csv_lines(text);
  if (lines.empty()) return fmt::format("{}: no column header and no rows", file);
  const auto& header = lines.front();
  if (header.fields == kVtrainHeader) return parse_vtrain(lines, file, hints);
  if (header.fields == kSummaryHeader) return parse_summary(lines, file, hints, device);
  return fmt::format(
      "{}:{}: unknown collective table header \"{}\"; known: the vTrain "
      "all-reduce table ({}) and the busbw summary ({})",
      file, header.number, fmt::join(header.fields, ","), fmt::join(kVtrainHeader, ","),
      fmt::join(kSummaryHeader, ","));
}

}  // namespace shardsim::calibrate
