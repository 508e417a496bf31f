#include "simulator/evaluate/variants.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <set>

#include "simulator/core/parallel.h"
#include "simulator/core/strings.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/overrides.h"

namespace shardsim {
namespace {

// Variant i's value index on each axis (first axis slowest).
std::vector<std::size_t> digits(std::size_t i, const std::vector<VaryAxis>& axes) {
  std::vector<std::size_t> d(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    d[a] = i % axes[a].values.size();
    i /= axes[a].values.size();
  }
  return d;
}

void evaluate_variant(const std::string& scenario, const std::vector<std::string>& overrides,
                      const std::vector<VaryAxis>& axes, Mode mode, EvaluateCache& cache,
                      Variant& v) {
  std::vector<std::string> sets = overrides;
  for (std::size_t a = 0; a < axes.size(); ++a) sets.push_back(axes[a].key + "=" + v.values[a]);
  try {
    v.scenario = std::make_unique<Scenario>(load_scenario(scenario, sets));
  } catch (const InputError& e) {
    v.errors = e.items();
    return;
  }
  EvaluateOptions o;
  o.mode = mode;
  o.cache = &cache;
  Expected<Estimate> e = evaluate(*v.scenario, o);
  if (!e.ok()) {
    v.errors = e.errors().items();
    v.scenario.reset();
    return;
  }
  v.estimate = std::move(e).value();
}

}  // namespace

VaryAxis parse_vary(const std::string& arg) {
  const std::size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("", fmt::format("--vary \"{}\": expected KEY=V1,V2,... (a dotted scenario "
                                     "key, '=', and comma-separated values)",
                                     abbreviated(arg)));
  VaryAxis axis{arg.substr(0, eq), {}};
  const std::string list = arg.substr(eq + 1);
  // The next comma outside brackets, braces and strings: a value may be a JSON object or array
  // ('cluster.network={"intra_node_GBps":450,...}'; found by review, 2026-11-27).
  const auto next_comma = [&list](std::size_t from) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = from; i < list.size(); ++i) {
      const char c = list[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && depth > 0) {
        --depth;
      } else if (c == ',' && depth == 0) {
        return i;
      }
    }
    return std::string::npos;
  };
  std::size_t start = 0;
  std::vector<nlohmann::json> parsed;  // the values as JSON, to find one listed twice
  for (;;) {
    const std::size_t comma = next_comma(start);
    std::string value = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (value.empty())
      throw InputError("", fmt::format("--vary \"{}\": value {} of {} is empty", abbreviated(arg),
                                       axis.values.size() + 1, axis.key));
    // A value the scenario would refuse as malformed JSON ("{", "[[") is bad --vary input, not a
    // variant: said here, naming the flag (it surfaced as "--set v" from the report writer).
    nlohmann::json holder = nlohmann::json::object();
    try {
      apply_override(holder, "v=" + value);
    } catch (const InputError& e) {
      throw InputError(
          "", fmt::format("--vary \"{}\": value {} of {} ({}) is not valid JSON", abbreviated(arg),
                          axis.values.size() + 1, axis.key, abbreviated(value)));
    }
    // Two equal values (1 and 1.0 too) give two identical variants that --baseline, which matches
    // variants by their values, cannot tell apart (found by review, 2026-11-28).
    for (std::size_t i = 0; i < parsed.size(); ++i)
      if (parsed[i] == holder["v"])
        throw InputError(
            "", fmt::format("--vary \"{}\": value {} of {} ({}) repeats value {}", abbreviated(arg),
                            axis.values.size() + 1, axis.key, abbreviated(value), i + 1));
    parsed.push_back(std::move(holder["v"]));
    axis.values.push_back(std::move(value));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return axis;
}

Comparison compare_variants(const std::string& scenario, const std::vector<std::string>& overrides,
                            std::vector<VaryAxis> axes, Mode mode, int threads,
                            const std::function<void(std::size_t, std::size_t)>& progress) {
  if (axes.empty()) throw InputError("", "compare needs at least one --vary KEY=V1,V2,...");
  // The values apply in order, the --set ones first, then each --vary's: a key followed by its
  // own section ("parallel.zero", then "parallel") would lose its value in every variant (found
  // by review, 2026-11-27: --vary won over --set silently, and a varied section over a key
  // inside it varied before). A section followed by a key inside it is fine: the key applies
  // within it.
  const auto inside = [](const std::string& key, const std::string& section) {
    return key.starts_with(section + ".");
  };
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[i].key == axes[j].key)
        throw InputError("", fmt::format("--vary {}: the key is varied twice; list all its values "
                                         "in one --vary",
                                         axes[i].key));
      if (inside(axes[j].key, axes[i].key))
        throw InputError("", fmt::format("--vary {}: it replaces the whole section after --vary "
                                         "{} set a key inside it, which every variant would "
                                         "lose; give --vary {} first",
                                         axes[i].key, axes[j].key, axes[i].key));
    }
  for (const auto& axis : axes)
    for (const auto& o : overrides) {
      const std::string key = o.substr(0, o.find('='));
      if (key == axis.key)
        throw InputError("--set " + o, "the key " + axis.key +
                                           " is also varied with --vary; drop one of the two");
      if (inside(key, axis.key))
        throw InputError("--set " + o, "--vary " + axis.key +
                                           " replaces the whole section, so every variant would "
                                           "lose this value; give it as a one-value --vary " +
                                           key + "=... after --vary " + axis.key);
    }
  std::size_t n = 1;
  for (const auto& a : axes) {
    n *= a.values.size();
    if (n > kMaxVariants)
      throw InputError("", fmt::format("--vary: the cross product exceeds {} variants; vary "
                                       "fewer keys or values (search covers large spaces)",
                                       kMaxVariants));
  }
  Comparison c;
  c.mode = mode;
  c.variants.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto d = digits(i, axes);
    for (std::size_t a = 0; a < axes.size(); ++a)
      c.variants[i].values.push_back(axes[a].values[d[a]]);
  }
  // Each worker takes the next variant; every variant's result depends only on its own input.
  std::vector<EvaluateCache> caches(static_cast<std::size_t>(worker_count(n, threads)));
  std::atomic<std::size_t> done{0};
  auto last = std::chrono::steady_clock::now();
  parallel_for(n, threads, [&](std::size_t i, int worker) {
    evaluate_variant(scenario, overrides, axes, mode, caches[std::size_t(worker)], c.variants[i]);
    done.fetch_add(1);
    if (worker == 0 && progress) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::milliseconds(200) && done.load() < n) {
        progress(done.load(), n);
        last = now;
      }
    }
  });
  if (progress) progress(n, n);
  bool any_valid = false;
  for (const auto& v : c.variants) any_valid |= !v.invalid();
  if (!any_valid) {
    // Every variant's errors, each prefixed with its values, once per distinct error (found by
    // review, 2026-11-27: only the first variant's were given, without saying which variant).
    std::vector<Diagnostic> all;
    std::set<std::string> seen;
    for (const auto& v : c.variants) {
      std::string which;
      for (std::size_t a = 0; a < axes.size(); ++a)
        which += (a ? ", " : "") + axes[a].key + "=" + v.values[a];
      for (const auto& e : v.errors)
        if (seen.insert(e.path + "\n" + e.message).second)
          all.push_back({e.path, e.message + " (variant " + which + ")"});
    }
    throw InputError(all);
  }
  c.axes = std::move(axes);
  return c;
}

}  // namespace shardsim
