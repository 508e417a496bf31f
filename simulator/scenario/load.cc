#include "simulator/scenario/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "simulator/core/json_reader.h"
#include "simulator/core/strings.h"
#include "simulator/model/hf_import.h"
#include "simulator/scenario/overrides.h"
#include "simulator/scenario/presets.h"
#include "simulator/scenario/sections.h"
#include "simulator/scenario/validate.h"

namespace shardsim {
namespace fs = std::filesystem;
namespace {

// Every -0 of `j` as 0: the reader takes -0 as 0, and the echoed scenario says so (found by
// review, 2026-11-29: --set overheads.cuda_context_bytes=-0.0 was echoed as -0.0).
void positive_zeros(nlohmann::json& j) {
  if (j.is_number_float() && j.get<double>() == 0)
    j = 0.0;
  else if (j.is_structured())
    for (auto& item : j) positive_zeros(item);
}

// The framework of a scenario that names none (scenarios/frameworks/).
constexpr const char* kDefaultFramework = "megatron-eager";

// Relative paths inside a scenario file are relative to that file's folder (shipped examples,
// which have none, resolve against the working directory).
std::string resolve_path(const std::string& p, const std::string& base_dir) {
  if (p.empty() || fs::path(p).is_absolute() || base_dir.empty()) return p;
  return (fs::path(base_dir) / p).string();
}

// model = preset (or hf_config) values, then the file's own keys on top.
nlohmann::json resolve_model_json(const nlohmann::json& model, const std::string& base_dir) {
  if (!model.is_object()) return model;  // the strict reader reports the type error
  nlohmann::json base = nlohmann::json::object();
  if (model.contains("preset") && model.contains("hf_config"))
    throw InputError("/model", "give either \"preset\" or \"hf_config\", not both");
  if (model.contains("preset")) {
    const auto& p = model["preset"];
    if (!p.is_string()) throw InputError("/model/preset", "expected a preset name (string)");
    auto preset = find_preset(PresetKind::kModel, p.get<std::string>());
    if (!preset) throw_unknown_preset(PresetKind::kModel, p.get<std::string>(), "/model/preset");
    base = (*preset)["model"];
    base["name"] = p.get<std::string>();
  } else if (model.contains("hf_config")) {
    const auto& p = model["hf_config"];
    if (!p.is_string()) throw InputError("/model/hf_config", "expected a path (string)");
    const std::string path = resolve_path(p.get<std::string>(), base_dir);
    base = hf_config_to_model_json(load_hf_config_file(path), path);
    // The model's name: a Hugging Face checkout's folder ("Llama-3-8B/config.json"), else the
    // file's stem; the path made absolute first ("../cfg.json" named the model ".."; found by
    // review, 2026-11-27).
    if (!base.contains("name")) {
      std::error_code ec;
      fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
      if (abs.empty()) abs = fs::path(path).lexically_normal();
      base["name"] = terminal_safe(abs.filename() == "config.json" && abs.has_parent_path()
                                       ? abs.parent_path().filename().string()
                                       : abs.stem().string());
    }
  }
  nlohmann::json own = model;
  own.erase("preset");
  own.erase("hf_config");
  base.merge_patch(own);
  return base;
}

// A string that names a file rather than a preset of `kind`: not a preset's name, and a path
// (ending in .json or holding a '/'). resolve_preset_or_file reads such a string as a file, and
// named_files lists it among the files a scenario names.
bool names_a_file(const std::string& name, PresetKind kind) {
  return !find_preset(kind, name) &&
         (name.ends_with(".json") || name.find('/') != std::string::npos);
}

// A preset of `kind` by name, else a JSON file when the string looks like a path (relative to
// `base_dir`, the scenario file's folder), else an unknown preset; `pointer` names the field in
// errors. An inline object (or a type error) is returned as it is.
nlohmann::json resolve_preset_or_file(const nlohmann::json& spec, PresetKind kind,
                                      const std::string& pointer, const std::string& base_dir) {
  // Neither a name nor an object: say all three forms (found by review, 2026-11-29:
  // `--set cluster.gpu=8` said only "expected an object").
  if (!spec.is_string() && !spec.is_object())
    throw InputError(pointer, fmt::format("expected a preset name, a JSON file path or an "
                                          "inline object, got {}{}",
                                          spec.type_name(),
                                          spec.is_null() ? "" : " " + abbreviated(spec.dump())));
  if (!spec.is_string()) return spec;
  const std::string name = spec.get<std::string>();
  if (auto preset = find_preset(kind, name)) return *preset;
  if (names_a_file(name, kind)) {
    try {
      return read_json_file(resolve_path(name, base_dir));
    } catch (const InputError& e) {  // name the field that pointed at the file
      throw InputError(pointer, e.items().front().message);
    }
  }
  throw_unknown_preset(kind, name, pointer);
}

// cluster.network: a preset name, a path to a network JSON (what `fit --network-output` writes),
// or an inline object.
nlohmann::json resolve_network_json(const nlohmann::json& net, const std::string& base_dir) {
  return resolve_preset_or_file(net, PresetKind::kCluster, "/cluster/network", base_dir);
}

// framework: a preset name (scenarios/frameworks/) or an inline object; absent: the default.
nlohmann::json resolve_framework_json(const nlohmann::json& f) {
  if (f.is_object() && !f.contains("name")) {  // an inline framework says it is the user's own
    nlohmann::json named = f;
    named["name"] = "custom";
    return named;
  }
  if (!f.is_string()) return f;
  const std::string name = f.get<std::string>();
  auto preset = find_preset(PresetKind::kFramework, name);
  if (!preset) throw_unknown_preset(PresetKind::kFramework, name, "/framework");
  (*preset)["name"] = name;
  return *preset;
}

// The checks that do not depend on the plan (the model's own shape: heads, kv_heads, experts,
// positions against the sequence), run on a plan that divides nothing: data parallelism over
// every GPU, one micro-batch, no other degree. Only their /model errors are the model's.
void check_model_alone(const Scenario& s) {
  Scenario neutral = s;
  Strategy& p = neutral.strategy;
  p.tp = p.pp = p.vpp = p.cp = p.ep = 1;
  p.dp = int(neutral.cluster.gpus());  // resolve_world kept it within the GPU limit (2^24)
  p.zero = 0;
  p.sp = p.offload_optimizer = p.offload_params = false;
  p.schedule = Schedule::k1F1B;
  p.first_stage_layers = p.last_stage_layers = -1;
  neutral.training.micro_batch = 1;
  const StrategyCheck found = check_strategy(neutral);
  Diagnostics model;
  for (const auto& item : found.errors.items())
    if (item.path.starts_with("/model")) model.error(item.path, item.message);
  model.throw_if_any();
}

}  // namespace

namespace {

// The files the fields of `raw` name, as the resolvers above read them: model.hf_config, and a
// cluster.gpu or cluster.network string that is no preset but a path.
std::vector<std::pair<std::string, std::string>> named_files(const nlohmann::json& raw,
                                                             const std::string& base_dir) {
  std::vector<std::pair<std::string, std::string>> files;
  const auto string_at = [&](const char* section, const char* key) -> std::string {
    if (!raw.contains(section) || !raw[section].is_object()) return "";
    const auto it = raw[section].find(key);
    return it != raw[section].end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (const std::string p = string_at("model", "hf_config"); !p.empty())
    files.emplace_back("model.hf_config", resolve_path(p, base_dir));
  for (const auto& [key, kind] :
       {std::pair{"gpu", PresetKind::kGpu}, {"network", PresetKind::kCluster}}) {
    const std::string p = string_at("cluster", key);
    if (!p.empty() && names_a_file(p, kind))
      files.emplace_back(std::string("cluster.") + key, resolve_path(p, base_dir));
  }
  return files;
}

}  // namespace

nlohmann::json resolve_gpu_json(const nlohmann::json& gpu, const std::string& base_dir) {
  return resolve_preset_or_file(gpu, PresetKind::kGpu, "/cluster/gpu", base_dir);
}

// Switches an effect off by removing what it reads (effects section, scenario.h): the measured
// GEMM table, the per-kernel memory-bound curves, the measured flash attention rates, the fitted
// collective curves, the framework's
// host cost, the compute slowdown under overlapped collectives. optimizer_traffic is read where the
// optimizer is costed, cross_entropy_traffic where the op context is made (cost/step_costs.cc).
void apply_effect_switches(Scenario& s) {
  const EffectSwitches& e = s.effects;
  auto& compute = s.cluster.gpu.compute;
  if (!e.gemm_shape) {
    compute.kind = "roofline";
    compute.gemm_points.clear();
    index_gemm_points(compute);
  }
  if (!e.kernel_bandwidth) compute.memory_bound_points.clear();
  if (!e.attention_kernel) compute.attention_points.clear();
  if (!e.comm_contention) compute.overlap_compute_slowdown = 0;
  if (!e.fitted_collectives) s.cluster.network.fitted_collectives.clear();
  if (!e.host_dispatch) {
    s.framework.op_dispatch_s = 0;
    s.framework.collective_dispatch_s = 0;
    s.framework.step_overhead_s = 0;
    s.framework.host_sync_fraction = 0;
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path, kMaxJsonFileBytes, ""), "\"" + path + "\"");
}

// `--set framework.KEY=V` on a scenario whose framework is a preset (named, or the default) changes
// that value of the preset, not of an empty object: the preset is expanded first, renamed
// "<name> (modified by --set)" and marked not fitted, its source kept after a note.
void expand_framework_preset_for(nlohmann::json& raw, const std::string& assignment) {
  if (!raw.is_object() || assignment.rfind("framework.", 0) != 0) return;
  const nlohmann::json named =
      raw.contains("framework") ? raw["framework"] : nlohmann::json(kDefaultFramework);
  if (!named.is_string()) return;  // an object is changed as it is; anything else is an error later
  nlohmann::json preset = resolve_framework_json(named);
  const std::string name = named.get<std::string>();
  preset["name"] = name + " (modified by --set)";
  preset["fitted"] = false;
  preset["source"] = "the " + name + " preset with values changed by --set; the preset's source: " +
                     preset.value("source", std::string("not given"));
  raw["framework"] = std::move(preset);
}

Scenario scenario_from_json(nlohmann::json raw, const std::string& base_dir,
                            const std::vector<std::string>& overrides, PlanChecks checks) {
  check_override_order(overrides);
  for (const auto& o : overrides) {
    expand_framework_preset_for(raw, o);
    apply_override(raw, o);
  }
  if (!raw.is_object()) throw InputError("/", "a scenario must be a JSON object");
  const auto files_read = named_files(raw, base_dir);
  if (raw.contains("model")) raw["model"] = resolve_model_json(raw["model"], base_dir);
  if (raw.contains("cluster") && raw["cluster"].is_object()) {
    auto& c = raw["cluster"];
    if (c.contains("gpu")) c["gpu"] = resolve_gpu_json(c["gpu"], base_dir);
    if (c.contains("network")) c["network"] = resolve_network_json(c["network"], base_dir);
  }
  raw["framework"] = resolve_framework_json(
      raw.contains("framework") ? raw["framework"] : nlohmann::json(kDefaultFramework));
  Scenario s;
  Diagnostics diags;
  read_scenario_sections(raw, diags, s);
  diags.throw_if_any();
  // Network default: the hardware profile's own network section, else the GPU preset's
  // DGX-class network (node.network).
  if (!raw["cluster"].contains("network") && s.cluster.gpu.network) {
    s.cluster.network = *s.cluster.gpu.network;
  } else if (!raw["cluster"].contains("network")) {
    if (s.cluster.gpu.default_network.empty())
      throw InputError("/cluster/network", "is required: the GPU profile names no default network");
    // node.network names a shipped preset (as fit --node-network writes it): a path there was
    // read from the working directory and was no input the output checks protect, so a report
    // could overwrite it (found by review, 2026-11-29).
    const auto preset = find_preset(PresetKind::kCluster, s.cluster.gpu.default_network);
    if (!preset)
      throw_unknown_preset(PresetKind::kCluster, s.cluster.gpu.default_network,
                           "/cluster/gpu/node/network");
    read_network_config(*preset, "/cluster/network", diags, s.cluster.network);
    diags.throw_if_any();
  }
  apply_effect_switches(s);
  // Reports say when their numbers rest on an unfitted profile or network.
  for (const auto& w :
       {unfitted_profile_warning(s.cluster.gpu), unfitted_network_warning(s.cluster.network)})
    if (w) s.warnings.push_back(*w);
  resolve_world(s, diags);  // derived dp / nodes
  if (checks == PlanChecks::kAll) {
    diags.throw_if_any();  // the cross-field checks need dp
    check_strategy(s).errors.throw_if_any();
  } else {
    // The cluster must be sized (its own errors, or the plan's when they left it unsized); the
    // plan's other problems are for the search to avoid.
    Diagnostics cluster;
    for (const auto& item : diags.items())
      if (item.path.starts_with("/cluster") || s.cluster.nodes <= 0)
        cluster.error(item.path, item.message);
    cluster.throw_if_any();
    check_model_alone(s);
  }
  // The reports' scenario is the resolved input (DESIGN.md): presets expanded, and every default
  // and derived value written out (found by review, 2026-11-27: a scenario without a parallel
  // section reported none, and a kv_heads left to its default was not shown).
  if (raw["model"].is_object()) raw["model"].update(to_json(s.model));
  raw["training"] = effective_training_json(s);
  if (s.strategy.dp > 0) raw["parallel"] = effective_parallel_json(s);
  if (raw["cluster"].is_object()) {
    raw["cluster"]["gpus_per_node"] = s.cluster.gpus_per_node;
    if (s.cluster.nodes > 0) raw["cluster"]["nodes"] = s.cluster.nodes;
  }
  positive_zeros(raw);
  s.resolved = raw;
  s.files_read = files_read;
  return s;
}

Scenario load_scenario(const std::string& scenario, const std::vector<std::string>& overrides,
                       PlanChecks checks) {
  if (!path_exists(scenario, "")) {
    if (auto example = find_preset(PresetKind::kExample, scenario)) {
      Scenario s = scenario_from_json(*example, "", overrides, checks);
      if (s.name.empty()) s.name = scenario;
      return s;
    }
    const auto names = preset_names(PresetKind::kExample);
    throw InputError("", fmt::format("scenario \"{}\" is neither a readable file nor a shipped "
                                     "example; examples: {}",
                                     scenario, join(names)));
  }
  // Relative paths inside are read from the folder the file really is in (symbolic links
  // followed), where `import -o` writes them relative to.
  std::error_code ec;
  fs::path folder = fs::weakly_canonical(fs::absolute(scenario), ec).parent_path();
  if (ec) folder = fs::path(scenario).parent_path();
  Scenario s = scenario_from_json(read_json_file(scenario), folder.string(), overrides, checks);
  if (s.name.empty()) s.name = terminal_safe(fs::path(scenario).stem().string());
  return s;
}

}  // namespace shardsim
