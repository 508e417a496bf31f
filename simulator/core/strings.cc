#include "simulator/core/strings.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "simulator/core/units.h"

namespace shardsim {

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_terminal_control(c)) {
      out += fmt::format("\\u{:04x}", c);
    } else if (c == 0xc2 && i + 1 < text.size() &&
               is_c1_second_byte(static_cast<unsigned char>(text[i + 1]))) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out;
}

bool terminal_safe_already(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_terminal_control(c) || (c == 0xc2 && i + 1 < text.size() &&
                                   is_c1_second_byte(static_cast<unsigned char>(text[i + 1]))))
      return false;
  }
  return true;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Classic two-row dynamic programme: row[j] = distance(a[0..i), b[0..j)).
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& ch : out) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  const std::string w = lower(word);
  // A different case ("BF16" -> "bf16"), then the shortest candidate the word begins
  // ("h100" -> "h100-sxm"), then the fewest edits.
  std::string prefixed;
  for (const auto& c : candidates) {
    const std::string lc = lower(c);
    if (lc == w) return c;
    if (!w.empty() && lc.starts_with(w) && (prefixed.empty() || c.size() < prefixed.size()))
      prefixed = c;
  }
  if (!prefixed.empty()) return prefixed;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(w, lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string abbreviated(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "... (" + std::to_string(text.size()) + " characters)";
}

std::string format_gib(double bytes) {
  return format_fixed(bytes / kGiB, 2) + " GiB";
}

std::string format_fixed(double v, int decimals) {
  if (std::signbit(v) || !(v < 0x1p53) || decimals < 0 || decimals > 3)
    return fmt::format("{:.{}f}", v, decimals);
  // v = m * 2^e exactly, m < 2^53.
  int e = 0;
  const double f = std::frexp(v, &e);
  const auto m = std::uint64_t(std::ldexp(f, 53));
  e -= 53;
  std::uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // q = v * 10^decimals rounded half to even: n = m * 10^d (< 2^53 * 1000 < 2^63) shifted right
  // by -e.
  const std::uint64_t n = m * scale;
  std::uint64_t q = 0;
  if (e >= 0) {
    q = n << e;  // v < 2^53 leaves m < 2^(53 - e): no overflow
  } else if (-e < 64) {
    const int shift = -e;
    const std::uint64_t r = n & ((std::uint64_t(1) << shift) - 1);
    const std::uint64_t half = std::uint64_t(1) << (shift - 1);
    q = n >> shift;
    if (r > half || (r == half && (q & 1))) ++q;
  }  // else n < 2^63 <= half: rounds to 0
  std::string out = std::to_string(q / scale);
  if (decimals > 0) {
    const std::string frac = std::to_string(q % scale);
    out += '.';
    out.append(std::size_t(decimals) - frac.size(), '0');
    out += frac;
  }
  return out;
}

}  // namespace shardsim
