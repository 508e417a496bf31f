#include "simulator/cli/terminal_safe_stream.h"

#include <fmt/format.h>

#include "simulator/core/strings.h"

namespace shardsim::cli {

TerminalSafeBuf::~TerminalSafeBuf() {
  flush_pending();
  write_out();
  out_->pubsync();
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
  write_out();
  return ch;
}

// One write of the whole chunk, as the stream below would have made: a line several processes
// print at once (the ranks of a calibration) must not be cut into bytes (found by a test,
// 2026-11-29: rank 1's message landed inside rank 0's progress line).
std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) put(static_cast<unsigned char>(s[i]));
  write_out();
  return n;
}

int TerminalSafeBuf::sync() {
  flush_pending();
  write_out();
  return out_->pubsync();
}

void TerminalSafeBuf::raw(std::string_view text) {
  chunk_ += text;
}

void TerminalSafeBuf::write_out() {
  if (chunk_.empty()) return;
  out_->sputn(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
  chunk_.clear();
}

void TerminalSafeBuf::flush_pending() {
  if (!pending_c2_) return;
  pending_c2_ = false;
  raw("\xc2");
}

void TerminalSafeBuf::put(unsigned char c) {
  if (pending_c2_) {
    pending_c2_ = false;
    if (is_c1_second_byte(c)) {
      raw(fmt::format("\\u{:04x}", c));
      return;
    }
    raw("\xc2");
  }
  if (c == 0xc2) {
    pending_c2_ = true;
  } else if (is_terminal_control(c)) {
    raw(fmt::format("\\u{:04x}", c));
  } else {
    const char ch = static_cast<char>(c);
    raw(std::string_view(&ch, 1));
  }
}

}  // namespace shardsim::cli
