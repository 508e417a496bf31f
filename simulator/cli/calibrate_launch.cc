// `shardsim calibrate --launcher CMD`: shardsim starts the launcher itself, so that whatever
// status the launcher returns for a lost rank (Open MPI's mpirun: 137 for a SIGKILL), the user's
// command exits with shardsim's codes and names the failing call (calibrate_launch.h).
#include "simulator/cli/calibrate_launch.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "simulator/cli/progress.h"
#include "simulator/core/diagnostics.h"

namespace shardsim::cli {
namespace {

namespace fs = std::filesystem;

// One word for sh: single-quoted, a ' inside written as '\''.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The `<samples>.rank<N>.error` files present now.
std::vector<fs::path> rank_error_files(const std::string& samples) {
  const fs::path p(samples);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string stem = p.filename().string() + ".rank";
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem, 0) == 0 && name.ends_with(".error")) out.push_back(entry.path());
  }
  std::ranges::sort(out);
  return out;
}

// What the ranks recorded: the .partial document's error and items, and every .rank<N>.error.
std::string recorded_failure(const std::string& samples, std::size_t& items) {
  std::string what;
  const fs::path partial = samples + ".partial";
  if (fs::exists(partial)) {
    const auto doc = nlohmann::json::parse(read_text(partial), nullptr, false);
    if (!doc.is_discarded()) {
      items = doc.value("items", nlohmann::json::array()).size();
      if (const auto e = doc.find("error"); e != doc.end() && e->is_object())
        what = fmt::format("{}: {}", e->value("call", "?"), e->value("message", ""));
    }
  }
  for (const fs::path& file : rank_error_files(samples)) {
    const auto e = nlohmann::json::parse(read_text(file), nullptr, false);
    if (e.is_discarded() || !e.is_object()) continue;
    const std::string call = fmt::format("{}: {}", e.value("call", "?"), e.value("message", ""));
    if (what.find(call) != std::string::npos) continue;  // rank 0's error is the .partial's
    what += fmt::format("{}rank {}: {}", what.empty() ? "" : "; ", e.value("rank", -1), call);
  }
  return what;
}

}  // namespace

std::string launch_command(const std::string& launcher, const std::string& self,
                           const CalibrateArgs& a) {
  std::string cmd = launcher + " " + sh_quote(self) + " calibrate --backend " + sh_quote(a.backend);
  if (a.quick) cmd += " --quick";
  if (!a.base.empty()) cmd += " --base " + sh_quote(a.base);
  // The launched ranks' stderr is a pipe: whether someone watches is this process's to say.
  if (a.verbose || progress_wanted()) cmd += " --verbose";
  return cmd + " -o " + sh_quote(a.output);
}

int launcher_exit_code(int wait_status) {
  if (wait_status == -1) return 127;
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 127;
}

int run_launched_calibration(const CalibrateArgs& a, const std::string& samples) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("--launcher", "cannot find this shardsim binary: " + ec.message());
  const std::string cmd = launch_command(a.launcher, self.string(), a);
  // Files of an earlier run (perhaps with more ranks) would be taken for this run's: its error
  // files and partial samples are removed, its profile and samples are only believed if rewritten.
  for (const fs::path& stale : rank_error_files(samples)) fs::remove(stale, ec);
  fs::remove(samples + ".partial", ec);
  const auto started = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  const auto fresh = [&started](const fs::path& p) {
    std::error_code e;
    return fs::exists(p, e) && fs::last_write_time(p, e) >= started;
  };
  std::cerr << "calibrate: running " << cmd << "\n";
  const int status = launcher_exit_code(std::system(cmd.c_str()));
  // 0 with a profile written by this run: done. 1 (a kernel failed verification) is shardsim's
  // answer when this run wrote its samples; 2 is a refusal shardsim printed above (Debug build,
  // bad option), or the shell's for a malformed launcher string: passed on.
  if (status == kExitOk && fresh(a.output)) return kExitOk;
  if (status == kExitCheckFailed && fresh(samples)) return status;
  if (status == kExitBadInput) {
    std::cerr << "error: the launched calibration exited 2: a refusal printed above, or a launcher "
                 "command the shell could not run\n";
    return status;
  }
  std::size_t items = 0;
  const std::string what = recorded_failure(samples, items);
  const bool partial = fresh(samples + ".partial");
  const std::string kept =
      !partial     ? "no samples were kept (did the launcher start shardsim?)"
      : items == 0 ? fmt::format("no item was measured ({}.partial records the failure)", samples)
                   : fmt::format(
                         "{} item(s) measured before it are kept in {}.partial (`shardsim fit "
                         "--samples` reads it)",
                         items, samples);
  std::cerr << fmt::format(
      "error: calibration failed{}{} (the launcher exited with status {}); {}\n",
      what.empty() ? "" : ": ", what.empty() ? ", no rank recorded an error" : what, status, kept);
  return kExitRuntime;
}

}  // namespace shardsim::cli
