#include "reports/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/html_page.h"
#include "reports/report_common.h"
#include "simulator/core/units.h"

namespace shardsim {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;"
    "margin-top:28px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
    "padding:3px 8px;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}"
    ".note{color:#555;font-size:13px}svg text{font-size:11px;font-family:sans-serif}";

// Colours of the memory terms, the time categories and the timeline's work kinds.
constexpr const char* kMemoryColours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f"};
constexpr const char* kTimeColours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d",
                                        "#59a14f", "#8cd17d", "#b6992d", "#bab0ac",
                                        "#e15759", "#ff9d9a", "#79706e"};

}  // namespace

namespace html {

std::string page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>"
      "<style>{}</style></head><body>\n<h1>{}</h1>\n{}</body></html>\n",
      html_escape(title), kStyle, html_escape(title), body);
}

std::string svg_open(double w, double h, const std::string& label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      w, h, html_escape(label));
}

std::string legend(double x, double y,
                   const std::vector<std::pair<std::string, std::string>>& items,
                   std::size_t per_row) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const double xi = x + double(i % per_row) * 150, yi = y + double(i / per_row) * 16;
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        xi, yi, items[i].second, xi + 14, yi + 9, html_escape(items[i].first));
  }
  return out;
}

}  // namespace html

namespace {

using html::legend;
using html::page;
using html::svg_open;

// Memory per pipeline stage, stacked, with the capacity as a dashed line (GiB = 2^30 bytes).
std::string memory_chart(const MemoryEstimate& m) {
  const double w = 640, h = 260, left = 60, top = 10, plot_h = 180;
  const double n = double(std::max<std::size_t>(1, m.ranks.size()));
  double top_bytes = m.capacity_bytes;
  for (const auto& r : m.ranks) top_bytes = std::max(top_bytes, r.total_bytes);
  top_bytes *= 1.05;
  const double bar_w = std::min(60.0, (w - left - 20) / n * 0.7);
  std::string out = svg_open(w, h, "memory per pipeline stage");
  auto y_of = [&](double bytes) { return top + plot_h - plot_h * bytes / top_bytes; };
  for (int k = 0; k <= 4; ++k) {
    const double b = top_bytes * k / 4;
    out += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#eee\"/><text x=\"4\" y=\"{:.1f}\">{:.1f} GiB</text>\n",
        left, w - 10, y_of(b), y_of(b), y_of(b) + 4, b / kGiB);
  }
  for (std::size_t i = 0; i < m.ranks.size(); ++i) {
    const RankMemory& r = m.ranks[i];
    const double x = left + (double(i) + 0.15) * (w - left - 20) / n;
    double base = 0;
    const double parts[] = {r.params_bytes, r.grads_bytes, r.optimizer_bytes, r.activations_bytes,
                            r.overhead_bytes};
    for (int p = 0; p < 5; ++p) {
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.2f}\" "
          "fill=\"{}\"><title>stage {}: {:.2f} GiB</title></rect>\n",
          x, y_of(base + parts[p]), bar_w, plot_h * parts[p] / top_bytes, kMemoryColours[p],
          r.pp_stage, parts[p] / kGiB);
      base += parts[p];
    }
    if (m.ranks.size() <= 32)
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x, top + plot_h + 14,
                         r.pp_stage);
  }
  out += fmt::format(
      "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
      "stroke=\"#d62728\" stroke-dasharray=\"6,4\"/><text x=\"{:.1f}\" "
      "y=\"{:.1f}\" fill=\"#d62728\">capacity {:.1f} GiB</text>\n",
      left, w - 10, y_of(m.capacity_bytes), y_of(m.capacity_bytes), w - 130,
      y_of(m.capacity_bytes) - 4, m.capacity_bytes / kGiB);
  out += legend(left, top + plot_h + 24,
                {{"parameters", kMemoryColours[0]},
                 {"gradients", kMemoryColours[1]},
                 {"optimizer states", kMemoryColours[2]},
                 {"activations", kMemoryColours[3]},
                 {"overheads", kMemoryColours[4]}});
  return out + "</svg>\n";
}

// The step's exposed seconds by category, one stacked horizontal bar.
std::string breakdown_chart(const StepTime& t) {
  const double w = 640, h = 110, left = 10, bar_w = 620;
  std::string out = svg_open(w, h, "step-time breakdown");
  double x = left;
  std::vector<std::pair<std::string, std::string>> items;
  for (int k = 0; k < kTimeCategoryCount; ++k) {
    const double sec = t.breakdown.seconds[std::size_t(k)];
    if (sec <= 0) continue;
    const double bw = bar_w * sec / t.step_seconds;
    const std::string key = time_category_key(TimeCategory(k));
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"10\" width=\"{:.2f}\" height=\"30\" fill=\"{}\">"
        "<title>{}: {:.4f} s</title></rect>\n",
        x, bw, kTimeColours[k], key, sec);
    items.emplace_back(fmt::format("{} {:.3f} s", key, sec), kTimeColours[k]);
    x += bw;
  }
  out += legend(left, 52, items);
  return out + "</svg>\n";
}

// One step of the DES: a row per pipeline stage (compute) with a thin row under it for its
// communication; idle compute time is the grey background.
std::string timeline_chart(const std::vector<TraceSlice>& trace, int stages, double step) {
  const double left = 70, w = 900, row = 22, comm = 6, gap = 6;
  const double h = 30 + stages * (row + comm + gap) + 24;
  const double plot_w = w - left - 10;
  std::string out = svg_open(w, h, "pipeline timeline of one step");
  for (int i = 0; i < stages; ++i) {
    const double y = 10 + i * (row + comm + gap);
    out += fmt::format(
        "<text x=\"4\" y=\"{:.1f}\">stage {}</text><rect x=\"{:.1f}\" y=\"{:.1f}\" "
        "width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#eeeeee\"/>\n",
        y + 15, i, left, y, plot_w, row);
  }
  for (const auto& s : trace) {
    const double x = left + plot_w * s.start / step,
                 sw = std::max(0.3, plot_w * (s.end - s.start) / step);
    const double y = 10 + s.stage * (row + comm + gap);
    std::string colour = "#bab0ac";
    double sy = y + row, sh = comm;
    if (s.stream == StreamKind::kCompute) {
      sy = y;
      sh = row;
      const char kind = s.name.empty() ? ' ' : s.name[0];
      colour = kind == 'F'   ? "#4e79a7"
               : kind == 'B' ? "#f28e2b"
               : kind == 'W' ? "#59a14f"
                             : "#b07aa1";
    } else {
      colour = "#e15759";
    }
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
        "fill=\"{}\"><title>{}</title></rect>\n",
        x, sy, sw, sh, colour, html_escape(s.name));
  }
  out += legend(left, h - 18,
                {{"forward", "#4e79a7"},
                 {"backward", "#f28e2b"},
                 {"weight gradient", "#59a14f"},
                 {"communication", "#e15759"}});
  return out + "</svg>\n";
}

struct Point {
  double bytes, tokens_per_second;
  std::string label;
};

// Throughput against peak memory per GPU; the Pareto front (no other point has more throughput
// with no more memory) drawn as a line through its points, marked.
std::string scatter_chart(std::vector<Point> points, double capacity) {
  const double w = 640, h = 320, left = 70, top = 10, plot_w = 540, plot_h = 260;
  std::string out = svg_open(w, h, "throughput against memory, Pareto front marked");
  if (points.empty()) return out + "<text x=\"10\" y=\"20\">no plan runs</text></svg>\n";
  double max_b = capacity, max_t = 0;
  for (const auto& p : points) {
    max_b = std::max(max_b, p.bytes);
    max_t = std::max(max_t, p.tokens_per_second);
  }
  max_b *= 1.05;
  max_t *= 1.05;
  auto px = [&](double b) { return left + plot_w * b / max_b; };
  auto py = [&](double t) { return top + plot_h - plot_h * t / max_t; };
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\">peak memory per GPU in GiB (2^30 B), up to "
      "{:.1f}</text><text x=\"4\" y=\"12\">tokens/s, up to {:.4g}</text>\n",
      left, top + plot_h + 30, max_b / kGiB, max_t);
  out += fmt::format(
      "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
      "stroke=\"#d62728\" stroke-dasharray=\"6,4\"/>\n",
      px(capacity), px(capacity), top, top + plot_h);
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.tokens_per_second > b.tokens_per_second;
  });
  std::vector<const Point*> front;
  double best = -1;
  for (const auto& p : points)
    if (p.tokens_per_second > best) {
      front.push_back(&p);
      best = p.tokens_per_second;
    }
  // At most 2,000 ordinary points drawn (evenly chosen), every front point drawn.
  const std::size_t stride = std::max<std::size_t>(1, points.size() / 2000);
  for (std::size_t i = 0; i < points.size(); i += stride)
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#4e79a7\" "
        "fill-opacity=\"0.5\"><title>{}</title></circle>\n",
        px(points[i].bytes), py(points[i].tokens_per_second), html_escape(points[i].label));
  std::string path;
  for (const Point* p : front)
    path += fmt::format("{:.1f},{:.1f} ", px(p->bytes), py(p->tokens_per_second));
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#e15759\"/>\n", path);
  for (const Point* p : front)
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#e15759\" "
        "class=\"pareto\"><title>Pareto: {}</title></circle>\n",
        px(p->bytes), py(p->tokens_per_second), html_escape(p->label));
  out += legend(left, top + plot_h + 40, {{"plan", "#4e79a7"}, {"Pareto front", "#e15759"}});
  return out + "</svg>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string estimate_html(const Estimate& e, const std::string& title) {
  std::string body;
  if (!e.plan) {
    body = "<p>The plan cannot run:</p><ul>";
    for (const auto& r : e.infeasible)
      body += "<li>" + html_escape(r.code + " (" + r.path + "): " + r.message) + "</li>";
    return page(title, body + "</ul>");
  }
  body += "<pre class=\"note\">" + html_escape(describe_setup(e)) + "</pre>\n";
  const MemoryEstimate& m = *e.memory;
  body += fmt::format(
      "<h2>Memory per GPU, by pipeline stage</h2><p class=\"note\">peak {:.2f} "
      "GiB (2^30 bytes) on stage {} of {:.2f} GiB: {}</p>\n",
      m.peak_bytes / kGiB, m.peak_stage, m.capacity_bytes / kGiB, m.fits ? "fits" : "does not fit");
  body += memory_chart(m);
  if (e.time) {
    const StepTime& t = *e.time;
    body += fmt::format(
        "<h2>Step time: {:.4f} s ({} model)</h2><p class=\"note\">{:.4g} tokens/s, "
        "MFU {:.1f} % (Megatron FLOP convention); exposed seconds of pipeline "
        "stage {}, which sum to the step</p>\n",
        t.step_seconds, mode_name(t.mode), t.throughput.tokens_per_second, 100 * t.throughput.mfu,
        t.critical_stage);
    body += breakdown_chart(t);
    if (!e.timeline.empty()) {
      body +=
          "<h2>Pipeline timeline of one step</h2><p class=\"note\">a row per pipeline stage; "
          "grey: the compute stream idle (bubble, or waiting for communication)</p>\n";
      body += timeline_chart(e.timeline, e.plan->pp, t.step_seconds);
    }
  }
  for (const auto& w : e.warnings)
    body += "<p class=\"note\">warning: " + html_escape(w) + "</p>\n";
  return page(title, body);
}

std::string compare_html(const Comparison& c, const std::string& scenario) {
  std::vector<Point> points;
  double capacity = 0;
  std::string table = "<table><tr>";
  for (const auto& a : c.axes) table += "<th class=\"l\">" + html_escape(a.key) + "</th>";
  table +=
      "<th>peak GiB</th><th>step s</th><th>tokens/s</th><th>MFU %</th><th class=\"l\">status"
      "</th></tr>\n";
  for (const Variant& v : c.variants) {
    std::string label;
    table += "<tr>";
    for (std::size_t a = 0; a < c.axes.size(); ++a) {
      table += "<td class=\"l\">" + html_escape(v.values[a]) + "</td>";
      label += (a ? ", " : "") + c.axes[a].key + "=" + v.values[a];
    }
    const Estimate* e = v.estimate ? &*v.estimate : nullptr;
    if (e && e->plan && e->time) {
      capacity = e->memory->capacity_bytes;
      table += fmt::format("<td>{:.2f}</td><td>{:.4f}</td><td>{:.4g}</td><td>{:.1f}</td>",
                           e->memory->peak_bytes / kGiB, e->time->step_seconds,
                           e->time->throughput.tokens_per_second, 100 * e->time->throughput.mfu);
      if (e->feasible())
        points.push_back({e->memory->peak_bytes, e->time->throughput.tokens_per_second, label});
    } else {
      table += "<td></td><td></td><td></td><td></td>";
    }
    const std::string status = v.invalid() ? "invalid: " + v.errors.front().message
                               : e && !e->feasible()
                                   ? "infeasible: " + e->infeasible.front().message
                                   : "ok";
    table += "<td class=\"l\">" + html_escape(status) + "</td></tr>\n";
  }
  table += "</table>\n";
  const std::string body =
      "<h2>Throughput against memory (variants that run)</h2>" + scatter_chart(points, capacity) +
      "<h2>Variants</h2><p class=\"note\">peak memory per GPU in GiB (2^30 bytes)</p>" + table;
  return page("shardsim compare: " + scenario, body);
}

std::string search_html(const SearchResult& r, const Scenario& s) {
  std::vector<Point> points;
  for (const auto& p : r.points) points.push_back({p.peak_bytes, p.tokens_per_second, p.label});
  std::string table =
      "<table><tr><th>rank</th><th class=\"l\">plan</th><th>peak GiB</th><th>step s</th>"
      "<th>tokens/s</th><th>MFU %</th><th>analytic rank</th></tr>\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const RankedPlan& p = r.results[i];
    const StepTime& t = *p.estimate.time;
    table += fmt::format(
        "<tr><td>{}</td><td class=\"l\">{}</td><td>{:.2f}</td><td>{:.4f}</td>"
        "<td>{:.4g}</td><td>{:.1f}</td><td>{}</td></tr>\n",
        i + 1, html_escape(describe(p.plan)), p.estimate.memory->peak_bytes / kGiB, t.step_seconds,
        t.throughput.tokens_per_second, 100 * t.throughput.mfu, p.analytic_rank);
  }
  table += "</table>\n";
  const std::string body =
      fmt::format(
          "<p class=\"note\">{} plans considered, {} run; analytic throughput of every "
          "plan that runs below, the top {} re-ranked by the discrete-event "
          "simulation in the table</p>",
          r.considered, r.feasible, r.top_k) +
      "<h2>Throughput against memory</h2>" + scatter_chart(points, s.cluster.gpu.memory_bytes) +
      "<h2>Top plans</h2>" + table;
  return page("shardsim search: " + (s.name.empty() ? std::string("(unnamed)") : s.name), body);
}

}  // namespace shardsim
