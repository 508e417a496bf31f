#include "simulator/core/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_set>
#include <vector>

#include "simulator/core/strings.h"

namespace shardsim {

std::string pointer_join(std::string_view parent, std::string_view key) {
  std::string out(parent);
  out += '/';
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {

// "integer 4", "string \"x\"", "null": the offending value for messages.
std::string describe(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  std::string text = json_text(j);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return json_type_name(j) + " " + text;
}

}  // namespace

namespace {

// Where the parser is, for messages and the duplicate-key check: one frame per open object or
// array.
struct ParseFrame {
  bool array = false;
  long long index = -1;                  // arrays: the last element completed
  std::string key;                       // objects: the key being read
  std::unordered_set<std::string> keys;  // the object's keys so far (hashed: an object of
                                         // 10^6 keys is checked in linear time)
};

std::string frames_pointer(const std::vector<ParseFrame>& frames) {
  std::string p;
  for (const auto& f : frames) {
    if (f.array) {
      p += '/';
      p += std::to_string(f.index + 1);  // the element being read
    } else if (!f.key.empty()) {
      p = pointer_join(p, f.key);
    }
  }
  return p.empty() ? "/" : p;
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               const std::optional<std::string>& pointer) {
  using nlohmann::json;
  std::vector<ParseFrame> frames;
  // The InputError's path: the caller's pointer when given, else the field (or "" for the file).
  const auto fail = [&](bool at_field, const std::string& message) {
    throw InputError(pointer ? *pointer : (at_field ? frames_pointer(frames) : ""), message);
  };
  const auto element_starts = [&frames] {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  };
  const json::parser_callback_t track = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth)
          fail(true, fmt::format("{}: nested more than {} levels deep (arrays and objects) at {}",
                                 source, kMaxJsonDepth, frames_pointer(frames)));
        frames.push_back({event == json::parse_event_t::array_start, -1, {}, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        element_starts();  // the finished object or array was an element of its parent
        break;
      case json::parse_event_t::key: {
        ParseFrame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          fail(true, fmt::format("{}: key \"{}\" appears twice in the same object (at {}); JSON "
                                 "would silently keep the last one",
                                 source, f.key, frames_pointer(frames)));
        break;
      }
      case json::parse_event_t::value:
        element_starts();
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), track);
  } catch (const InputError&) {
    throw;
  } catch (const json::parse_error& e) {
    // The parser's message quotes the bytes it last read: non-ASCII and control bytes are
    // written as \xNN, so an error never puts invalid UTF-8 on the terminal (found by review,
    // 2026-11-27).
    std::string what;
    for (const unsigned char c : std::string_view(e.what()))
      what += c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
    fail(false, fmt::format("{} is not valid JSON (byte {}): {}", source, e.byte, what));
  } catch (const json::out_of_range& e) {  // 406: a number a double cannot hold (1e400)
    fail(true, fmt::format("{}: the number at {} is out of range: {}", source,
                           frames_pointer(frames), e.what()));
  } catch (const json::exception& e) {
    fail(false, fmt::format("{}: {}", source, e.what()));
  }
  return {};  // not reached: fail() throws
}

namespace {

// The status of `path`, symbolic links followed; a loop of them is an InputError naming `flag`.
// `ec` is set when the status cannot be read (a missing file among others).
std::filesystem::file_status followed_status(const std::string& path, const std::string& flag,
                                             std::error_code& ec) {
  const auto st = std::filesystem::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels)
    throw InputError(flag, fmt::format("cannot open \"{}\": a loop of symbolic links", path));
  return st;
}

}  // namespace

bool path_exists(const std::string& path, const std::string& flag) {
  std::error_code ec;
  const auto st = followed_status(path, flag, ec);
  return !ec && std::filesystem::exists(st);
}

std::string read_text_file(const std::string& path, std::uintmax_t max_bytes,
                           const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = followed_status(path, flag, ec);
  if (ec || !fs::exists(st))
    throw InputError(flag, fmt::format("cannot open \"{}\": no such file", path));
  if (fs::is_directory(st))
    throw InputError(flag, fmt::format("\"{}\" is a directory, not a file", path));
  if (fs::is_regular_file(st)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes)
      throw InputError(flag, fmt::format("\"{}\" is {} bytes; files over {} bytes ({} MiB) are "
                                         "refused",
                                         path, size, max_bytes, max_bytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(flag,
                     fmt::format("cannot read \"{}\": permission denied or unreadable", path));
  // Read at most max_bytes + 1 (a pipe or device has no size to check first).
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  while (in && text.size() <= max_bytes) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    text.append(chunk.data(), std::size_t(in.gcount()));
  }
  if (in.bad()) throw InputError(flag, fmt::format("cannot read \"{}\": read error", path));
  if (text.size() > max_bytes)
    throw InputError(flag, fmt::format("\"{}\" holds more than {} bytes ({} MiB); refused", path,
                                       max_bytes, max_bytes >> 20));
  return text;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_type_name(const nlohmann::json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "number";
  return j.type_name();
}

ObjectReader::ObjectReader(const nlohmann::json& j, std::string path, Diagnostics& diags)
    : path_(std::move(path)), diags_(diags) {
  if (j.is_object()) {
    obj_ = &j;
  } else {
    diags_.error(path_.empty() ? "/" : path_,
                 fmt::format("expected an object, got {}", describe(j)));
  }
}

bool ObjectReader::has(std::string_view key) const {
  return obj_ && obj_->contains(std::string(key));
}

const nlohmann::json* ObjectReader::find(std::string_view key, bool required) {
  allow(key);
  if (!obj_) return nullptr;
  auto it = obj_->find(std::string(key));
  if (it == obj_->end()) {
    if (required) diags_.error(pointer_join(path_, key), "is required but missing");
    return nullptr;
  }
  return &*it;
}

void ObjectReader::type_error(std::string_view key, std::string_view expected,
                              const nlohmann::json& got) {
  diags_.error(pointer_join(path_, key),
               fmt::format("expected {}, got {}", expected, describe(got)));
}

void ObjectReader::integer(std::string_view key, std::int64_t& out, std::int64_t min,
                           std::int64_t max, bool required) {
  const auto* v = find(key, required);
  if (!v) return;
  std::int64_t value = 0;
  if (v->is_number_integer()) {
    // Unsigned values above int64 range wrap negative; treat them as out of range.
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(max)) {
      diags_.error(pointer_join(path_, key),
                   fmt::format("must be an integer in [{}, {}], got {}", min, max, v->dump()));
      return;
    }
    value = v->get<std::int64_t>();
  } else if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::trunc(d) != d || std::fabs(d) > 9.0e15) {
      type_error(key, fmt::format("an integer in [{}, {}]", min, max), *v);
      return;
    }
    value = static_cast<std::int64_t>(d);
  } else {
    type_error(key, fmt::format("an integer in [{}, {}]", min, max), *v);
    return;
  }
  if (value < min || value > max) {
    diags_.error(pointer_join(path_, key),
                 fmt::format("must be an integer in [{}, {}], got {}", min, max, value));
    return;
  }
  out = value;
}

void ObjectReader::integer(std::string_view key, int& out, int min, int max, bool required) {
  std::int64_t wide = out;
  integer(key, wide, min, max, required);
  out = static_cast<int>(wide);
}

void ObjectReader::number(std::string_view key, double& out, double min, double max,
                          bool required) {
  const auto* v = find(key, required);
  if (!v) return;
  if (!v->is_number()) {
    type_error(key, fmt::format("a number in [{}, {}]", min, max), *v);
    return;
  }
  const double d = v->get<double>();
  if (!(d >= min && d <= max)) {
    diags_.error(pointer_join(path_, key),
                 fmt::format("must be a number in [{}, {}], got {}", min, max, v->dump()));
    return;
  }
  out = d == 0 ? 0.0 : d;  // -0 is read as 0 (found by review, 2026-11-29: echoed as -0.0)
}

void ObjectReader::boolean(std::string_view key, bool& out, bool required) {
  const auto* v = find(key, required);
  if (!v) return;
  if (!v->is_boolean()) {
    type_error(key, "a boolean (true or false)", *v);
    return;
  }
  out = v->get<bool>();
}

void ObjectReader::string(std::string_view key, std::string& out, bool required) {
  const auto* v = find(key, required);
  if (!v) return;
  if (!v->is_string()) {
    type_error(key, "a string", *v);
    return;
  }
  out = v->get<std::string>();
  // Strings are printed in text reports: a NUL, an escape (ESC [ ... moves a terminal's cursor),
  // a carriage return or a backspace would be written raw (found by review, 2026-11-28). Tabs
  // and line feeds print harmlessly. C1 controls (U+0080 to U+009F: U+009B is an escape on many
  // terminals) likewise (found by review, 2026-11-29: "a\u0085b" was accepted).
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    const bool c1 = c == 0xc2 && i + 1 < out.size() &&
                    is_c1_second_byte(static_cast<unsigned char>(out[i + 1]));
    if (is_terminal_control(c) || c1) {
      diags_.error(pointer_join(path_, key),
                   c1 ? fmt::format("contains the control character U+{:04X} at byte {}: strings "
                                    "are printed in reports",
                                    static_cast<unsigned char>(out[i + 1]), i)
                      : fmt::format("contains the control character 0x{:02x} at byte {}: strings "
                                    "are printed in reports",
                                    c, i));
      return;
    }
  }
}

void ObjectReader::choice(std::string_view key, std::string& out,
                          const std::vector<std::string>& allowed, bool required) {
  const auto* v = find(key, required);
  if (!v) return;
  // Numbers are accepted for numeric choices written without quotes (zero: 2).
  std::string s;
  if (v->is_string())
    s = v->get<std::string>();
  else if (v->is_number_integer())
    s = std::to_string(v->get<std::int64_t>());
  else {
    type_error(key, fmt::format("one of: {}", join(allowed)), *v);
    return;
  }
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    const std::string guess = nearest(s, allowed);
    diags_.error(pointer_join(path_, key),
                 fmt::format("unknown value \"{}\"{}; allowed: {}", s,
                             guess.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", guess),
                             join(allowed)));
    return;
  }
  out = s;
}

const nlohmann::json* ObjectReader::raw(std::string_view key) {
  return find(key, false);
}

const nlohmann::json* ObjectReader::object(std::string_view key) {
  const auto* v = find(key, false);
  if (v && !v->is_object()) {
    type_error(key, "an object", *v);
    return nullptr;
  }
  return v;
}

void ObjectReader::allow(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
}

void ObjectReader::finish() {
  if (!obj_) return;
  for (const auto& [key, value] : obj_->items()) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    const std::string guess = nearest(key, known_);
    std::vector<std::string> sorted = known_;
    std::sort(sorted.begin(), sorted.end());
    diags_.error(pointer_join(path_, key),
                 fmt::format("unknown key{}; allowed keys: {}",
                             guess.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", guess),
                             join(sorted)));
  }
}

}  // namespace shardsim
