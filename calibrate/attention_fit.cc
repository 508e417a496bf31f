#include "calibrate/attention_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "calibrate/collective_tables.h"
#include "calibrate/csv.h"
#include "simulator/hardware/measured_efficiency.h"

namespace shardsim::calibrate {
namespace {

constexpr double kTera = 1e12;

struct Columns {
  int device = -1, kernel = -1, dtype = -1, causal = -1, head_dim = -1, seq = -1, batch = -1,
      heads = -1, tflops = -1;
};

std::optional<Columns> find_columns(const std::vector<std::string>& h) {
  Columns c{
      csv_column(h, {"gpu"}),    csv_column(h, {"kernel"}),   csv_column(h, {"dtype"}),
      csv_column(h, {"causal"}), csv_column(h, {"head_dim"}), csv_column(h, {"seq_len"}),
      csv_column(h, {"batch"}),  csv_column(h, {"heads"}),    csv_column(h, {"fwd_bwd_tflops"})};
  if (std::min({c.device, c.kernel, c.dtype, c.causal, c.head_dim, c.seq, c.batch, c.heads,
                c.tflops}) < 0)
    return std::nullopt;
  return c;
}

// "" when row `f` holds every column `c` names; else the error (without the file:line prefix).
std::string short_row(const std::vector<std::string>& f, const Columns& c) {
  const int need = std::max(
      {c.device, c.kernel, c.dtype, c.causal, c.head_dim, c.seq, c.batch, c.heads, c.tflops});
  if (int(f.size()) <= need)
    return fmt::format("expected at least {} fields, got {}", need + 1, f.size());
  return "";
}

// One data row that short_row accepted, or an error message (without the file:line prefix).
std::variant<AttentionMeasurement, std::string> parse_row(const std::vector<std::string>& f,
                                                          const Columns& c) {
  AttentionMeasurement m;
  m.device = f[c.device];
  m.kernel = f[c.kernel];
  if (m.kernel.empty()) return std::string("kernel is empty (name the implementation measured)");
  const std::string& dtype = f[c.dtype];
  if (dtype == "fp16" || dtype == "float16")
    m.dtype = "fp16";
  else if (dtype == "bf16" || dtype == "bfloat16")
    m.dtype = "bf16";
  else
    return fmt::format("dtype \"{}\": expected fp16 or bf16", dtype);
  if (f[c.causal] != "true" && f[c.causal] != "false")
    return fmt::format("causal \"{}\": expected true or false", f[c.causal]);
  m.causal = f[c.causal] == "true";
  const auto hd = parse_number(f[c.head_dim]), seq = parse_number(f[c.seq]);
  const auto batch = parse_number(f[c.batch]), heads = parse_number(f[c.heads]);
  const auto t = parse_number(f[c.tflops]);
  if (!hd || !seq || !batch || !heads || !t || *hd < 1 || *seq < 1 || *batch < 1 || *heads < 1 ||
      *t <= 0)
    return std::string(
        "head_dim, seq_len, batch and heads must be numbers >= 1 and fwd_bwd_tflops a number > 0");
  m.head_dim = *hd;
  m.seq = *seq;
  m.batch = *batch;
  m.heads = *heads;
  m.flops_per_second = *t * kTera;
  return m;
}

}  // namespace

std::variant<std::vector<AttentionMeasurement>, std::string> parse_attention_csv(
    std::string_view text, const std::string& file, const std::string& device) {
  std::vector<AttentionMeasurement> out;
  std::optional<Columns> cols;
  std::set<std::string> devices;
  std::size_t header_fields = 0;
  for (const auto& [line_no, fields] : csv_lines(text)) {
    if (!cols) {
      if (auto e = duplicate_column(fields)) return fmt::format("{}:{}: {}", file, line_no, *e);
      cols = find_columns(fields);
      if (!cols)
        return fmt::format(
            "{}:{}: needs columns gpu, kernel, dtype, causal, head_dim, seq_len, "
            "batch, heads and fwd_bwd_tflops",
            file, line_no);
      header_fields = fields.size();
      continue;
    }
    if (auto e = extra_fields(fields, header_fields))
      return fmt::format("{}:{}: {}", file, line_no, *e);
    // A short row is an error whichever device it names (as in compute_fit.cc).
    if (std::string e = short_row(fields, *cols); !e.empty())
      return fmt::format("{}:{}: {}", file, line_no, e);
    if (!device_matches(fields[cols->device], device)) continue;
    devices.insert(fields[cols->device]);
    auto row = parse_row(fields, *cols);
    if (auto* e = std::get_if<std::string>(&row))
      return fmt::format("{}:{}: {}", file, line_no, *e);
    auto& m = std::get<AttentionMeasurement>(row);
    m.line = line_no;
    for (const auto& o : out)
      if (o.device == m.device && o.kernel == m.kernel && o.causal == m.causal &&
          o.head_dim == m.head_dim && o.seq == m.seq)
        return fmt::format("{}:{}: repeats line {} ({}, causal {}, head_dim {:g}, seq_len {:g})",
                           file, line_no, o.line, m.kernel, m.causal, m.head_dim, m.seq);
    out.push_back(m);
  }
  if (auto e = device_rows_error(file, devices, out.size(), 1, "no attention rows", device))
    return *e;
  return out;
}

std::variant<std::vector<AttentionPoint>, std::string> attention_points(
    const std::vector<AttentionMeasurement>& rows, const PeakFlops& peak, const std::string& file) {
  std::vector<AttentionPoint> out;
  for (const auto& r : rows) {
    const double p = r.dtype == "fp16" ? peak.fp16 : peak.bf16;
    if (p <= 0) return fmt::format("{}:{}: the base profile has no {} peak", file, r.line, r.dtype);
    const double eff = r.flops_per_second / p;
    if (eff > 1)
      return fmt::format(
          "{}:{}: {:.1f} TFLOP/s exceeds the base profile's {} peak {:.1f} TFLOP/s "
          "(wrong --base or --device?)",
          file, r.line, r.flops_per_second / kTera, r.dtype, p / kTera);
    out.push_back({r.kernel, r.seq, r.head_dim, r.causal, r.batch * r.heads, eff});
  }
  return out;
}

std::variant<std::vector<AttentionPoint>, std::string> relative_attention_points(
    const std::vector<AttentionPoint>& target_points,
    const std::vector<AttentionMeasurement>& target_rows,
    const std::vector<AttentionMeasurement>& from_rows, const std::string& kernel,
    const std::string& reference, const std::string& file) {
  if (kernel == reference)
    return fmt::format("{}: the kernel carried over and its reference are both \"{}\"", file,
                       kernel);
  for (const auto& r : target_rows)
    if (r.kernel == kernel)
      return fmt::format(
          "{}:{}: {} is measured on {} itself; its own rates are used, nothing is "
          "carried over",
          file, r.line, kernel, r.device);
  // The rate of `k` on `rows` at the key of `p`, 0 when not measured.
  const auto rate = [](const std::vector<AttentionMeasurement>& rows, const std::string& k,
                       const AttentionPoint& p) {
    for (const auto& r : rows)
      if (r.kernel == k && r.causal == p.causal && r.head_dim == p.head_dim && r.seq == p.seq)
        return r.flops_per_second;
    return 0.0;
  };
  std::vector<AttentionPoint> out;
  for (const auto& p : target_points) {
    if (p.kernel != reference) continue;
    const double num = rate(from_rows, kernel, p), den = rate(from_rows, reference, p);
    if (num <= 0 || den <= 0) continue;
    AttentionPoint q = p;
    q.kernel = kernel;
    q.efficiency = p.efficiency * num / den;
    if (q.efficiency > 1)
      return fmt::format(
          "{}: {} carried over at causal {}, head_dim {:g}, seq_len {:g} exceeds the peak "
          "({:.3f})",
          file, kernel, p.causal, p.head_dim, p.seq, q.efficiency);
    out.push_back(q);
  }
  if (out.empty())
    return fmt::format(
        "{}: no mask, head_dim and seq_len at which the other device measured both {} and {} and "
        "this device {}",
        file, kernel, reference, reference);
  return out;
}

std::vector<double> attention_leave_one_out_pct(const std::vector<AttentionPoint>& points) {
  std::vector<double> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    ComputeModel others;
    for (std::size_t j = 0; j < points.size(); ++j)
      if (j != i) others.attention_points.push_back(points[j]);
    const auto& p = points[i];
    const auto predicted =
        measured_attention_efficiency(others, p.kernel, p.seq, p.head_dim, p.causal);
    if (!predicted) continue;
    out.push_back(std::abs(predicted->efficiency - p.efficiency) / p.efficiency * 100);
  }
  return out;
}

}  // namespace shardsim::calibrate
