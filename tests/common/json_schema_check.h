// A small checker of the JSON Schema features the shipped report schemas use (reports/schemas):
// type (a name or a list of names), required, properties, items, const, enum and local
// "$ref": "#/$defs/NAME". Enough to catch a report that drifts from its schema; not a validator.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardsim::testing_schema {

inline bool has_type(const nlohmann::json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  return false;
}

inline bool type_matches(const nlohmann::json& type, const nlohmann::json& v) {
  if (type.is_string()) return has_type(v, type.get<std::string>());
  for (const auto& t : type)
    if (has_type(v, t.get<std::string>())) return true;
  return false;
}

// Appends "path: problem" to `errors` for each difference between `v` and `schema`; `root` is the
// document whose $defs a "$ref" names.
inline void check(const nlohmann::json& schema, const nlohmann::json& v, const std::string& at,
                  std::vector<std::string>& errors, const nlohmann::json* root = nullptr) {
  if (root == nullptr) root = &schema;
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"].get<std::string>();
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root->contains("$defs") ||
        !(*root)["$defs"].contains(ref.substr(prefix.size())))
      errors.push_back(at + ": unresolved $ref " + ref);
    else
      check((*root)["$defs"][ref.substr(prefix.size())], v, at, errors, root);
  }
  if (schema.contains("type") && !type_matches(schema["type"], v))
    errors.push_back(at + ": not of type " + schema["type"].dump());
  if (schema.contains("const") && v != schema["const"]) errors.push_back(at + ": not the const");
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == v;
    if (!found) errors.push_back(at + ": " + v.dump() + " not in enum");
  }
  if (schema.contains("required") && v.is_object())
    for (const auto& key : schema["required"])
      if (!v.contains(key.get<std::string>()))
        errors.push_back(at + ": missing " + key.get<std::string>());
  if (schema.contains("properties") && v.is_object())
    for (const auto& [key, sub] : schema["properties"].items())
      if (v.contains(key)) check(sub, v[key], at + "/" + key, errors, root);
  if (schema.contains("items") && v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      check(schema["items"], v[i], at + "/" + std::to_string(i), errors, root);
}

}  // namespace shardsim::testing_schema
