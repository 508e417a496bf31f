#include "reports/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "simulator/core/diagnostics.h"
#include "simulator/core/sibling_path.h"
#include "simulator/core/strings.h"

namespace shardsim {
namespace {

namespace fs = std::filesystem;

bool is_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

// The file `path` names, symbolic links followed, a dangling one's target included (the path
// itself when it does not exist yet).
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return path;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {  // 40: Linux's MAXSYMLINKS
    const fs::path t = fs::read_symlink(p, ec);
    if (ec) break;
    p = t.is_absolute() ? t : p.parent_path() / t;
  }
  const fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p : c;
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N or /proc/PID/fd/N: a link to one of the
// process's open descriptors, whose "target" (pipe:[N], a terminal, a file opened with > or >>)
// only the kernel's open follows correctly. Written through as given, appending, never replaced
// (found by review, 2026-11-27: `-o /dev/stdout | cat` resolved to a "pipe:[N]" that does not
// exist and was refused, and `-o /dev/stdout >> log` replaced log).
bool is_descriptor_path(const std::string& path) {
  const auto digits = [](std::string_view v) {
    return !v.empty() &&
           std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string_view p = path;
  if (p == "/dev/stdout" || p == "/dev/stderr") return true;
  if (p.starts_with("/dev/fd/")) return digits(p.substr(8));
  if (!p.starts_with("/proc/")) return false;
  const std::string_view rest = p.substr(6);
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view pid = rest.substr(0, slash), tail = rest.substr(slash);
  return (pid == "self" || digits(pid)) && tail.starts_with("/fd/") && digits(tail.substr(4));
}

// Exists as given (symbolic links followed by the kernel) and is not a regular file: a FIFO, a
// device, a terminal, a pipe behind a descriptor link.
bool is_special_as_given(const std::string& path) {
  struct ::stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

// `path` names the file or pipe standard output already writes (/dev/stdout, /dev/fd/1, or the
// file behind `> out.txt`): a second report there would interleave with or overwrite the first
// (found by review, 2026-11-28: `--html /dev/stdout` beside the default report kept 844 bytes of
// the page after the report, exit 0). /dev/null is left out: two outputs thrown away lose
// nothing. A terminal is not: the report and a page would interleave on it.
bool is_standard_output(const std::string& path) {
  if (path.empty() || path == "-") return false;
  struct ::stat out {};
  struct ::stat st {};
  struct ::stat null {};
  if (::fstat(STDOUT_FILENO, &out) != 0 || ::stat(path.c_str(), &st) != 0) return false;
  if (S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev)
    return false;
  return st.st_dev == out.st_dev && st.st_ino == out.st_ino;
}

// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(std::size_t(n));
  }
  return true;
}

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw OutputError("cannot write \"" + path + "\": " + what + ": " + std::strerror(err));
}

}  // namespace

std::string output_folder(const std::string& path) {
  return is_stdout(path) ? std::string() : resolved(path).parent_path().string();
}

void check_output_path(const std::string& flag, const std::string& path) {
  if (is_stdout(path) || is_descriptor_path(path)) return;
  const fs::path target = resolved(path);
  std::error_code ec;
  // A loop of symbolic links resolves to a link still (found by review, 2026-11-28: the write
  // replaced the link with a file, exit 0).
  if (fs::is_symlink(target, ec))
    throw InputError(flag, "cannot write \"" + path + "\": a loop of symbolic links");
  if (fs::is_directory(target, ec))
    throw InputError(flag, "\"" + path + "\" is a directory; give a file name");
  const fs::path parent = target.parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InputError(flag, "cannot write \"" + path + "\": \"" + parent.string() +
                               (fs::exists(parent, ec) ? "\" is a file, not a directory"
                                                       : "\" (its directory) does not exist"));
}

namespace {

// The mkstemp template of a temporary sibling of `target`: "NAME.tmp.XXXXXX", NAME cut to the
// file-name limit (core/sibling_path.h).
std::string temporary_template(const fs::path& target) {
  return sibling_path(target, ".tmp.XXXXXX");
}

}  // namespace

void check_output_creatable(const std::string& flag, const std::string& path) {
  if (is_stdout(path)) return;
  if (is_descriptor_path(path) || is_special_as_given(path)) {  // written through (write_output)
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(flag, "cannot write \"" + path + "\": " + std::strerror(errno));
    return;
  }
  const fs::path target = resolved(path);
  // what write_output does first: a temporary sibling, here removed at once
  std::string probe = temporary_template(target);
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw InputError(
        flag, "cannot create \"" + path +
                  "\" (a file beside it could not be created: " + std::strerror(errno) + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

void check_outputs_not_inputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                              const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (const auto& [flag, path] : flag_paths) {
    if (is_stdout(path)) continue;
    for (const auto& [in_flag, in] : inputs) {
      std::error_code ec;
      if (in.empty() || in == "-" || !fs::is_regular_file(in, ec)) continue;
      if (fs::exists(resolved(path), ec) && fs::equivalent(resolved(path), in, ec))
        throw InputError(flag, "\"" + path + "\" is the input " + in_flag +
                                   "; writing it would destroy that input: give the output another "
                                   "file");
    }
  }
}

void check_outputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                   const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::string on_stdout;  // the first output flag that goes to standard output
  for (const auto& [flag, path] : flag_paths) {
    if (!(path == "-" || (path.empty() && flag == "-o") || is_standard_output(path))) continue;
    if (!on_stdout.empty())
      throw InputError(flag, "standard output is already the output of " + on_stdout +
                                 "; give one of them a file");
    on_stdout = flag;
  }
  check_outputs_not_inputs(flag_paths, inputs);
  for (std::size_t i = 0; i < flag_paths.size(); ++i) {
    const auto& [flag, path] = flag_paths[i];
    if (is_stdout(path)) continue;
    check_output_path(flag, path);
    check_output_creatable(flag, path);
    for (std::size_t j = 0; j < i; ++j) {
      const auto& [other_flag, other] = flag_paths[j];
      if (!is_stdout(other) && resolved(other) == resolved(path))
        throw InputError(flag, "\"" + path + "\" is also the file of " + other_flag +
                                   "; give each output its own file");
    }
  }
}

namespace {

// Writes `text` through the stdout or special output `path` (write_output's first two cases).
void write_through(const std::string& path, const std::string& text) {
  if (is_stdout(path)) {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw OutputError("cannot write the report to standard output");
    return;
  }
  // A FIFO, a device, a terminal, a descriptor link: write through it as given; replacing it
  // would break what it is. A descriptor link appends (a file behind `>>` keeps its start).
  const bool descriptor = is_descriptor_path(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (descriptor ? O_APPEND : 0));
  if (fd < 0) fail(path, "open", errno);
  const bool ok = write_all(fd, text);
  const int err = errno;
  if (::close(fd) != 0 && ok) fail(path, "close", errno);
  if (!ok) fail(path, "write", err);
}

bool written_through(const std::string& path) {
  return is_stdout(path) || is_descriptor_path(path) || is_special_as_given(path);
}

// A regular or new file's text in a temporary sibling of the target (mkstemp: a fresh name,
// created exclusively, so nothing planted at a predictable name is followed), given the replaced
// file's permissions (a new file: 0666 less the umask) and flushed to disk. Returns its name; on
// failure it is removed and OutputError thrown.
std::string stage(const std::string& path, const std::string& text) {
  const fs::path target = resolved(path);
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  std::string tmp = temporary_template(target);
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(path, "create a temporary file beside it", errno);
  ::mode_t mode = 0;
  if (fs::exists(st)) {
    struct ::stat old {};
    mode = ::stat(target.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644;
  } else {
    const ::mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    fail(path, "write", err);
  }
  return tmp;
}

// Renames a staged temporary over the target. A hard link to the old file keeps the old
// contents.
void commit(const std::string& path, const std::string& tmp) {
  if (::rename(tmp.c_str(), resolved(path).c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename", err);
  }
}

// SIGPIPE ignored while it lives: a reader that closed the pipe makes the write fail (EPIPE, an
// OutputError) instead of killing the process with the temporaries of write_outputs on disk
// (found by review, 2026-11-28: `simulate --trace t.json | true` left t.json.tmp.XXXXXX).
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() { ::sigaction(SIGPIPE, &kIgnore, &saved_); }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &saved_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  static inline const struct ::sigaction kIgnore = [] {
    struct ::sigaction a {};
    a.sa_handler = SIG_IGN;
    ::sigemptyset(&a.sa_mask);
    return a;
  }();
  struct ::sigaction saved_ {};
};

}  // namespace

void write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  // No output drives a terminal (found by review, 2026-11-29: a scenario file named with an
  // escape sequence, or a compare variant holding one, printed it raw). A text that needs no
  // escaping (every report so far) is not copied: a search's JSON can be hundreds of MB.
  std::vector<std::string> escaped(outputs.size());
  std::vector<const std::string*> texts;
  texts.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& text = outputs[i].second;
    if (terminal_safe_already(text)) {
      texts.push_back(&text);
    } else {
      escaped[i] = terminal_safe(text);
      texts.push_back(&escaped[i]);
    }
  }
  std::vector<std::pair<std::string, std::string>> staged;  // (path, temporary)
  staged.reserve(outputs.size());  // no allocation between a stage and its record
  const auto discard = [&](std::size_t from) {
    for (std::size_t i = from; i < staged.size(); ++i) ::unlink(staged[i].second.c_str());
  };
  const IgnoreSigpipe no_sigpipe;
  try {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::string& path = outputs[i].first;
      if (!is_stdout(path)) check_output_path("", path);
      if (!written_through(path)) staged.emplace_back(path, stage(path, *texts[i]));
    }
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (written_through(outputs[i].first)) write_through(outputs[i].first, *texts[i]);
  } catch (...) {
    discard(0);
    throw;
  }
  for (std::size_t i = 0; i < staged.size(); ++i) {
    try {
      commit(staged[i].first, staged[i].second);
    } catch (...) {
      discard(i);  // commit removed staged[i] unless resolved() threw first
      throw;
    }
  }
}

void write_output(const std::string& path, const std::string& text) {
  write_outputs({{path, text}});
}

}  // namespace shardsim
