// Field tables: one table per JSON section lists every key with its member, unit, range, whether
// it is required and a one-line description. The strict reader (ObjectReader), the writer and the
// JSON Schema generator below are all driven by these tables, so no key list is kept twice.
// Nested objects, optional objects, arrays of objects and name -> number maps are fields too
// (Nested), built from the sub-structure's own table.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/core/shared_vector.h"

namespace shardsim {

using json = nlohmann::json;

// A field that is itself JSON structure (object, array, map): how to read, write and describe it.
template <class T>
struct Nested {
  std::function<void(const json&, const std::string& path, Diagnostics&, T&)> read;
  std::function<std::optional<json>(const T&)> write;  // nullopt: the key is omitted
  std::function<json()> schema;
};

template <class T>
struct Field {
  std::string_view key;
  std::variant<double T::*, int T::*, std::string T::*, bool T::*, Nested<T>> member;
  std::string_view unit;  // SI unit of a number ("bytes/s", "s"); "" when dimensionless
  double min = 0;         // inclusive range of numbers and integers
  double max = 0;
  bool required = false;
  std::string_view description;
  const std::vector<std::string>* choices = nullptr;  // allowed values of a string (null: any)
  bool omit_zero = false;                             // the writer leaves out a number equal to 0
};

template <class T>
using Table = std::vector<Field<T>>;
template <class T>
using TableFn = const Table<T>& (*)();
// Cross-field checks of a structure after its table was read (path = the structure's pointer).
template <class T>
using Check = std::function<void(const T&, const std::string& path, Diagnostics&)>;

namespace field_detail {

template <class T>
void read_field(ObjectReader& r, const Field<T>& f, T& out, Diagnostics& d) {
  const std::string key(f.key);
  if (auto* m = std::get_if<double T::*>(&f.member)) {
    r.number(key, out.**m, f.min, f.max, f.required);
  } else if (auto* i = std::get_if<int T::*>(&f.member)) {
    r.integer(key, out.**i, int(f.min), int(f.max), f.required);
  } else if (auto* s = std::get_if<std::string T::*>(&f.member)) {
    if (f.choices)
      r.choice(key, out.**s, *f.choices, f.required);
    else
      r.string(key, out.**s, f.required);
  } else if (auto* b = std::get_if<bool T::*>(&f.member)) {
    r.boolean(key, out.**b, f.required);
  } else if (const auto* v = r.raw(key)) {
    std::get<Nested<T>>(f.member).read(*v, pointer_join(r.path(), key), d, out);
  } else if (f.required && r.ok()) {
    d.error(pointer_join(r.path(), key), "is required but missing");
  }
}

template <class T>
void write_field(const Field<T>& f, const T& v, json& j) {
  const std::string key(f.key);
  if (auto* m = std::get_if<double T::*>(&f.member)) {
    if (!(f.omit_zero && v.**m == 0)) j[key] = v.**m;
  } else if (auto* i = std::get_if<int T::*>(&f.member)) {
    if (!(f.omit_zero && v.**i == 0)) j[key] = v.**i;
  } else if (auto* s = std::get_if<std::string T::*>(&f.member)) {
    if (f.required || !(v.**s).empty()) j[key] = v.**s;
  } else if (auto* b = std::get_if<bool T::*>(&f.member)) {
    j[key] = v.**b;
  } else if (auto w = std::get<Nested<T>>(f.member).write(v)) {
    j[key] = *w;
  }
}

template <class T>
json field_schema(const Field<T>& f) {
  json s;
  if (std::holds_alternative<double T::*>(f.member) || std::holds_alternative<int T::*>(f.member))
    s = {{"type", std::holds_alternative<int T::*>(f.member) ? "integer" : "number"},
         {"minimum", f.min},
         {"maximum", f.max}};
  else if (std::holds_alternative<std::string T::*>(f.member))
    s = {{"type", "string"}};
  else if (std::holds_alternative<bool T::*>(f.member))
    s = {{"type", "boolean"}};
  else
    s = std::get<Nested<T>>(f.member).schema();
  if (f.choices) s["enum"] = *f.choices;
  s["description"] =
      f.unit.empty() ? std::string(f.description) : fmt::format("{} [{}]", f.description, f.unit);
  return s;
}

}  // namespace field_detail

// Reads the object `j` at `path` into `out` through `table`; unknown keys are errors.
template <class T>
void read_table(const json& j, const std::string& path, Diagnostics& d, const Table<T>& table,
                T& out) {
  ObjectReader r(j, path, d);
  for (const auto& f : table) field_detail::read_field(r, f, out, d);
  r.finish();
}

template <class T>
json write_table(const Table<T>& table, const T& v) {
  json j = json::object();
  for (const auto& f : table) field_detail::write_field(f, v, j);
  return j;
}

// JSON Schema (draft 2020-12 subset) of an object described by `table`.
template <class T>
json table_schema(const Table<T>& table) {
  json props = json::object(), required = json::array();
  for (const auto& f : table) {
    props[std::string(f.key)] = field_detail::field_schema(f);
    if (f.required) required.push_back(f.key);
  }
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties", props},
          {"required", required}};
}

// A section whose keys are members of T itself (e.g. "host" on GpuProfile).
template <class T>
Nested<T> section(TableFn<T> table) {
  return {[table](const json& j, const std::string& p, Diagnostics& d, T& out) {
            read_table(j, p, d, table(), out);
          },
          [table](const T& v) -> std::optional<json> { return write_table(table(), v); },
          [table] { return table_schema(table()); }};
}

// A sub-structure held in member `m`.
template <class T, class S>
Nested<T> object_member(S T::*m, TableFn<S> table, Check<S> check = {}) {
  return {[=](const json& j, const std::string& p, Diagnostics& d, T& out) {
            read_table(j, p, d, table(), out.*m);
            if (check) check(out.*m, p, d);
          },
          [=](const T& v) -> std::optional<json> { return write_table(table(), v.*m); },
          [=] { return table_schema(table()); }};
}

// An optional sub-structure: absent in JSON <-> nullopt.
template <class T, class S>
Nested<T> optional_member(std::optional<S> T::*m, TableFn<S> table, Check<S> check = {}) {
  return {[=](const json& j, const std::string& p, Diagnostics& d, T& out) {
            S s;
            read_table(j, p, d, table(), s);
            if (check) check(s, p, d);
            out.*m = std::move(s);
          },
          [=](const T& v) -> std::optional<json> {
            if (!(v.*m)) return std::nullopt;
            return write_table(table(), *(v.*m));
          },
          [=] { return table_schema(table()); }};
}

// The elements of a member array, to fill: a std::vector itself, a SharedVector's own copy.
template <class E>
std::vector<E>& elements_to_fill(std::vector<E>& v) {
  return v;
}
template <class E>
std::vector<E>& elements_to_fill(SharedVector<E>& v) {
  v.clear();  // the old elements are replaced, not copied
  return v.edit();
}

// An array of objects of type E (a std::vector or SharedVector member); an empty array is not
// written.
template <class T, class V, class E = typename V::value_type>
Nested<T> array_member(V T::*m, TableFn<E> table) {
  return {[=](const json& j, const std::string& p, Diagnostics& d, T& out) {
            if (!j.is_array()) return d.error(p, "must be an array, got " + json_type_name(j));
            std::vector<E>& items = elements_to_fill(out.*m);
            items.assign(j.size(), E{});
            for (std::size_t i = 0; i < j.size(); ++i)
              read_table(j[i], p + "/" + std::to_string(i), d, table(), items[i]);
          },
          [=](const T& v) -> std::optional<json> {
            if ((v.*m).empty()) return std::nullopt;
            json a = json::array();
            for (const auto& e : v.*m) a.push_back(write_table(table(), e));
            return a;
          },
          [=] {
            return json{{"type", "array"}, {"items", table_schema(table())}};
          }};
}

// An object of name -> number in [min, max]; an empty map is not written.
template <class T>
Nested<T> number_map(std::map<std::string, double> T::*m, double min, double max) {
  return {[=](const json& j, const std::string& p, Diagnostics& d, T& out) {
            if (!j.is_object()) return d.error(p, "must be an object, got " + json_type_name(j));
            for (auto it = j.begin(); it != j.end(); ++it) {
              const json& v = it.value();
              const double x = v.is_number() ? v.template get<double>() : min - 1;
              if (!(x >= min && x <= max))  // NaN too (an in-memory profile can hold one)
                d.error(pointer_join(p, it.key()),
                        fmt::format("must be a number in [{:g}, {:g}], got {}", min, max,
                                    json_text(v)));
              else
                (out.*m)[it.key()] = x;
            }
          },
          [=](const T& v) -> std::optional<json> {
            if ((v.*m).empty()) return std::nullopt;
            return json(v.*m);
          },
          [=] {
            return json{
                {"type", "object"},
                {"additionalProperties", {{"type", "number"}, {"minimum", min}, {"maximum", max}}}};
          }};
}

}  // namespace shardsim
