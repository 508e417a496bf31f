// Small string helpers shared by the config readers and the CLI.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

// Levenshtein edit distance (insert, delete, substitute each cost 1).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate `word` most likely meant, or an empty string: one equal but for case, else the
// shortest one that begins with it (case ignored), else the closest within a third of the word's
// length (at least 2 edits, case ignored). Used for "did you mean ...?" suggestions.
[[nodiscard]] std::string nearest(std::string_view word,
                                  const std::vector<std::string>& candidates);

// "a, b, c"
[[nodiscard]] std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// `text` for an error message: as it is up to `max` characters, else its first `max` and
// "... (N characters)", so a huge argument is not echoed whole.
[[nodiscard]] std::string abbreviated(std::string_view text, std::size_t max = 80);

// Whether `c` is a control character a terminal acts on: C0 (below 0x20) other than tab and line
// feed, and DEL. (C1 controls, U+0080 to U+009F, are the UTF-8 pairs 0xC2 0x80-0x9F.)
[[nodiscard]] constexpr bool is_terminal_control(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}
[[nodiscard]] constexpr bool is_c1_second_byte(unsigned char c) {
  return c >= 0x80 && c <= 0x9f;
}

// `text` with every control character a terminal would act on written out instead, as a JSON
// escape: C0 and DEL as "\u001b", C1 (U+0080 to U+009F, such as U+009B, an escape on many
// terminals) as "\u009b". Tabs and line feeds stay. Inside a JSON string such an escape is the
// same character, so JSON output reads back unchanged (found by review, 2026-11-29: "\x7f" for
// a DEL that JSON writes raw made the report invalid JSON).
[[nodiscard]] std::string terminal_safe(std::string_view text);
// Whether terminal_safe(text) == text.
[[nodiscard]] bool terminal_safe_already(std::string_view text);

// Human-readable number with the unit spelled out, e.g. format_bytes(1.5e9) -> "1.40 GiB".
[[nodiscard]] std::string format_gib(double bytes);

// `v` with `decimals` (0 to 3) digits after the point: exactly fmt's "{:.Nf}" and printf's
// "%.Nf" (the double's exact binary value rounded half to even), in a fraction of the time for
// 0 <= v < 2^53; other values are handed to fmt.
[[nodiscard]] std::string format_fixed(double v, int decimals);

}  // namespace shardsim
