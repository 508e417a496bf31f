// A stream buffer that writes through another one with every control character a terminal acts
// on spelled out (simulator/core/strings.h terminal_safe's rule), byte by byte. main() puts it
// under std::cerr: errors and warnings echo paths, values and names the user gave, and an escape
// sequence in one was printed raw (found by review, 2026-11-29: a scenario path holding
// "\x1b[31m" coloured the terminal).
#pragma once

#include <streambuf>
#include <string>
#include <string_view>

namespace shardsim::cli {

class TerminalSafeBuf final : public std::streambuf {
 public:
  explicit TerminalSafeBuf(std::streambuf* out) : out_(out) {}
  TerminalSafeBuf(const TerminalSafeBuf&) = delete;
  TerminalSafeBuf& operator=(const TerminalSafeBuf&) = delete;
  ~TerminalSafeBuf() override;

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void put(unsigned char c);
  void raw(std::string_view text);  // appends to chunk_
  void write_out();                 // chunk_ to the stream below, in one write
  void flush_pending();

  std::streambuf* out_;
  std::string chunk_;
  bool pending_c2_ = false;  // a 0xC2 byte held back: a C1 control if the next byte is 0x80-0x9F
};

}  // namespace shardsim::cli
