// --attention inputs of `shardsim fit` (fit_inputs.h): FlashAttention benchmark tables, a
// sibling part's rows, and kernels carried over from another device by a speed ratio.
#include "simulator/cli/fit_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "calibrate/attention_fit.h"
#include "calibrate/linear_fit.h"
#include "simulator/core/diagnostics.h"

namespace shardsim::cli {

namespace cal = shardsim::calibrate;
using nlohmann::json;

namespace {

// One --attention-relative KERNEL/REFERENCE@DEVICE.
struct RelativeAttention {
  std::string spec, kernel, reference, device;
};

std::vector<RelativeAttention> parse_relative(const std::vector<std::string>& specs) {
  std::vector<RelativeAttention> out;
  for (const auto& s : specs) {
    const auto at = s.find('@'), slash = s.find('/');
    if (slash == std::string::npos || at == std::string::npos || slash == 0 || at < slash + 2 ||
        at + 1 == s.size())
      throw InputError("--attention-relative",
                       fmt::format("\"{}\": expected KERNEL/REFERENCE@DEVICE (e.g. "
                                   "flash-attention-triton/flash-attention-2@A100)",
                                   s));
    const std::string kernel = s.substr(0, slash);
    if (kernel == s.substr(slash + 1, at - slash - 1))
      throw InputError("--attention-relative",
                       fmt::format("\"{}\": the kernel carried over and its reference are both "
                                   "\"{}\"",
                                   s, kernel));
    for (const auto& o : out)
      if (o.kernel == kernel)
        throw InputError("--attention-relative",
                         fmt::format("\"{}\": {} is already carried over by \"{}\" (one source "
                                     "per kernel)",
                                     s, kernel, o.spec));
    out.push_back({s, kernel, s.substr(slash + 1, at - slash - 1), s.substr(at + 1)});
  }
  return out;
}

// The rows' first and last line of `kernel` and their device.
std::tuple<int, int, std::string> kernel_lines(const std::vector<cal::AttentionMeasurement>& m,
                                               const std::string& kernel) {
  int first = 0, last = 0;
  std::string device;
  for (const auto& r : m)
    if (r.kernel == kernel) {
      if (first == 0) first = r.line;
      last = r.line;
      device = r.device;
    }
  return {first, last, device};
}

// This device's rows of every --attention table, and the table each kernel came from (one table
// per kernel).
struct OwnAttention {
  struct Source {
    std::string kernel, file;
    bool sibling = false;  // read for --attention-device's rows
  };
  std::vector<cal::AttentionMeasurement> rows;
  std::vector<AttentionPoint> points;
  std::vector<Source> sources;  // one per kernel
  [[nodiscard]] const Source* source_of(const std::string& kernel) const {
    for (const auto& s : sources)
      if (s.kernel == kernel) return &s;
    return nullptr;
  }
  [[nodiscard]] std::string file_of(const std::string& kernel) const {
    const Source* s = source_of(kernel);
    return s == nullptr ? "" : s->file;
  }
};

// Whether a table's parse error is about which device's rows it holds (none of the device asked
// for, or several devices), rather than about the table itself.
bool is_selection_error(const std::string& e) {
  return e.find(" for device \"") != std::string::npos || e.find("--device") != std::string::npos;
}

// A table read for --attention-device's rows failed: its rows' selection is that flag's business
// (with the flag's name in the message), anything else in the table --attention's (found by
// review, 2026-11-30: a malformed row was blamed on --attention-device).
[[noreturn]] void throw_sibling_parse_error(const std::string& e, const std::string& hint) {
  if (!is_selection_error(e)) throw InputError("--attention", e);
  std::string text_of = e;
  if (const auto at = text_of.find("--device"); at != std::string::npos)
    text_of.replace(at, 8, "--attention-device");
  throw InputError("--attention-device", text_of + hint);
}

// --attention-relative on one table (`path`, read for the flag `flag`): each spec's kernel carried
// over from its device by the speed ratio to the reference kernel (calibrate/attention_fit.h),
// added to `g` with provenance. The reference's own rows may sit in another table, named then.
void carry_over_attention(const std::string& path, const std::string& text, const char* flag,
                          const std::vector<RelativeAttention>& specs, const OwnAttention& own,
                          GpuProfile& g, FitNotes& notes) {
  for (const auto& spec : specs) {
    // A kernel this device measured itself keeps its own rates (named in its own table; found by
    // review, 2026-11-30: the error named the ratio's table with the other table's line).
    if (const auto* src = own.source_of(spec.kernel); src != nullptr) {
      const auto [line, unused, device] = kernel_lines(own.rows, spec.kernel);
      throw InputError("--attention-relative",
                       fmt::format("{}:{}: {} is measured on {}{}; those rates are used, nothing "
                                   "is carried over",
                                   src->file, line, spec.kernel, device,
                                   src->sibling ? " (--attention-device's rows)" : " itself"));
    }
    auto from = cal::parse_attention_csv(text, path, spec.device);
    if (auto* e = std::get_if<std::string>(&from)) throw InputError(flag, *e);
    const auto& rows = std::get<std::vector<cal::AttentionMeasurement>>(from);
    auto derived = cal::relative_attention_points(own.points, own.rows, rows, spec.kernel,
                                                  spec.reference, path);
    if (auto* e = std::get_if<std::string>(&derived)) throw InputError("--attention-relative", *e);
    const auto& points = std::get<std::vector<AttentionPoint>>(derived);
    std::erase_if(g.compute.attention_points.edit(),
                  [&](const AttentionPoint& p) { return p.kernel == spec.kernel; });
    g.compute.attention_points.insert(g.compute.attention_points.end(), points.begin(),
                                      points.end());
    const auto [first, last, device] = kernel_lines(rows, spec.kernel);
    const auto [rfirst, rlast, rdevice] = kernel_lines(rows, spec.reference);
    const auto [ofirst, olast, odevice] = kernel_lines(own.rows, spec.reference);
    // The entry's lines are this file's; the reference's own rows are named by file when they
    // come from another table (--attention-relative-table).
    const std::string own_file = own.file_of(spec.reference);
    const bool same_file = own_file == path;
    g.provenance.sources.push_back(
        {path, same_file ? std::min({first, rfirst, ofirst}) : std::min(first, rfirst),
         same_file ? std::max({last, rlast, olast}) : std::max(last, rlast), "",
         fmt::format("compute.attention_points of {} ({} points): not measured on this device; "
                     "this device's {} efficiency ({}lines {}-{}) x the FLOP/s ratio {} / {} "
                     "measured on {} (lines {}-{} and {}-{}) at the same mask, head dimension "
                     "and sequence length, assuming the two kernels keep their speed ratio "
                     "across devices",
                     spec.kernel, points.size(), spec.reference,
                     same_file ? std::string() : own_file + " ", ofirst, olast, spec.kernel,
                     spec.reference, device, first, last, rfirst, rlast)});
    const auto [lo, hi] = std::ranges::minmax(points, {}, &AttentionPoint::efficiency);
    notes.add({{"input", "attention_relative"},
               {"file", path},
               {"kernel", spec.kernel},
               {"reference", spec.reference},
               {"from_device", device},
               {"points", points.size()},
               {"min_efficiency", lo.efficiency},
               {"max_efficiency", hi.efficiency}},
              fmt::format("--attention-relative {}: {} {} points ({:.1f}-{:.1f}% of peak) = this "
                          "device's {} x the ratio measured on {}",
                          spec.spec, points.size(), spec.kernel, lo.efficiency * 100,
                          hi.efficiency * 100, spec.reference, device));
  }
}

}  // namespace

std::vector<std::string> fit_attention_tables(const std::vector<std::string>& files,
                                              const std::vector<std::string>& relative,
                                              const std::string& relative_table,
                                              const std::string& sibling, const MeasuredDevice& on,
                                              GpuProfile& g, FitNotes& notes) {
  const auto specs = parse_relative(relative);
  std::vector<std::string> written;
  for (const auto& spec : specs) written.push_back(spec.kernel);
  // Every table's rows and points, for --attention-relative's reference kernel.
  OwnAttention own;
  std::string only_text;
  bool sibling_used = false;
  for (const auto& path : files) {
    const std::string text = read_input(path, "--attention");
    only_text = text;
    // This device's rows; a table without any takes --attention-device's sibling part, when
    // given (since 2026-11-30 per table, so that one fit can join this device's own table with a
    // sibling's published one). Without --device every table is read for the sibling's rows, as
    // before 2026-11-30 (found by review: a one-device sibling table was taken as this device's
    // own rows).
    const bool sibling_only = on.device.empty() && !sibling.empty();
    auto rows = cal::parse_attention_csv(text, path, sibling_only ? sibling : on.device);
    bool from_sibling = sibling_only;
    if (auto* e = std::get_if<std::string>(&rows); e != nullptr && sibling_only)
      throw_sibling_parse_error(*e,
                                "; without --device every --attention table is read for "
                                "--attention-device's rows: give --device for a table of "
                                "this device");
    if (auto* e = std::get_if<std::string>(&rows)) {
      // Only a table with no row of this device falls back to the sibling's; one with several
      // devices, or malformed, is --attention's (found by review, 2026-11-30: an ambiguous
      // --device silently took the sibling's rows).
      const bool none_of_mine = e->find("no attention rows for device \"") != std::string::npos;
      if (sibling.empty() || !none_of_mine) throw InputError("--attention", *e);
      rows = cal::parse_attention_csv(text, path, sibling);
      from_sibling = true;
      if (auto* s = std::get_if<std::string>(&rows)) throw_sibling_parse_error(*s, "");
    }
    sibling_used = sibling_used || from_sibling;
    const auto& m = std::get<std::vector<cal::AttentionMeasurement>>(rows);
    auto fitted = cal::attention_points(m, on.profile.peak, path);
    if (auto* e = std::get_if<std::string>(&fitted)) throw InputError("--attention", *e);
    const auto& points = std::get<std::vector<AttentionPoint>>(fitted);
    // Per kernel measured: its rows (lines and device) for the provenance, and the base's points
    // of that kernel replaced (a refit onto a fitted profile must not keep the old rates).
    std::vector<std::string> kernels;
    for (const auto& r : m)
      if (std::ranges::find(kernels, r.kernel) == kernels.end()) kernels.push_back(r.kernel);
    for (const auto& k : kernels)
      if (own.source_of(k) != nullptr)
        throw InputError("--attention",
                         fmt::format("{}: kernel {} is also measured by an earlier --attention "
                                     "table (one table per kernel)",
                                     path, k));
    for (const auto& k : kernels) own.sources.push_back({k, path, from_sibling});
    written.insert(written.end(), kernels.begin(), kernels.end());
    std::erase_if(g.compute.attention_points.edit(), [&](const AttentionPoint& p) {
      return std::ranges::find(kernels, p.kernel) != kernels.end();
    });
    g.compute.attention_points.insert(g.compute.attention_points.end(), points.begin(),
                                      points.end());
    const auto [lo, hi] = std::ranges::minmax(points, {}, &AttentionPoint::efficiency);
    for (const auto& k : kernels) {
      const auto [first, last, device] = kernel_lines(m, k);
      g.provenance.sources.push_back(
          {path, first, last, "",
           fmt::format("compute.attention_points of {} measured on {}{}: forward + backward "
                       "FLOP/s / the fp16/bf16 dense peak of {}",
                       k, device,
                       !from_sibling ? ""
                                     : " (--attention-device: a sibling part with the same "
                                       "tensor cores, SM count and clocks; this one is not "
                                       "measured)",
                       on.profile.name)});
    }
    const auto loo = cal::attention_leave_one_out_pct(points);
    const double mid = loo.empty() ? 0 : cal::median(loo);
    const double worst = loo.empty() ? 0 : *std::ranges::max_element(loo);
    if (!loo.empty()) g.provenance.residuals["attention leave-one-out median " + path] = mid / 100;
    notes.add({{"input", "attention"},
               {"file", path},
               {"rows", m.size()},
               {"min_efficiency", lo.efficiency},
               {"max_efficiency", hi.efficiency},
               {"leave_one_out_median_abs_pct_error", loo.empty() ? json(nullptr) : json(mid)},
               {"leave_one_out_max_abs_pct_error", loo.empty() ? json(nullptr) : json(worst)}},
              fmt::format("{}: attention table, {} rows ({:.1f}-{:.1f}% of peak); leave-one-out "
                          "error median {:.1f}%, max {:.1f}%",
                          path, m.size(), lo.efficiency * 100, hi.efficiency * 100, mid, worst));
    own.rows.insert(own.rows.end(), m.begin(), m.end());
    own.points.insert(own.points.end(), points.begin(), points.end());
  }
  // --attention-device that no table needed: every table measures this device itself (until
  // 2026-11-30 the flag replaced those rows; now it is the fallback of tables without them).
  if (!sibling.empty() && !sibling_used)
    throw InputError("--attention-device",
                     fmt::format("no --attention table needed it: every one has rows of this "
                                 "device (\"{}\"), which are used; drop --attention-device, or "
                                 "give a table without them",
                                 on.device));
  // The ratio's table: --attention-relative-table, else the one --attention table (fit_args.cc
  // refuses several without it).
  if (!specs.empty()) {
    if (relative_table.empty())
      carry_over_attention(files.front(), only_text, "--attention-relative", specs, own, g, notes);
    else
      carry_over_attention(relative_table, read_input(relative_table, "--attention-relative-table"),
                           "--attention-relative-table", specs, own, g, notes);
  }
  return written;
}

}  // namespace shardsim::cli
