// Implementation of tests/cli/cli_runner.h.
#include "cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

extern char** environ;

namespace cli_test {

// A private scratch folder for the whole test binary, removed at exit.
const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    std::string templ = (fs::temp_directory_path() / "shardsim_cli_test.XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    return fs::path(templ);
  }();
  struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  };
  static Cleanup cleanup;
  return dir;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Runs `shardsim args...` and waits for it.
Result shardsim(const std::vector<std::string>& args) {
  static int counter = 0;
  const int id = ++counter;
  const fs::path out_path = scratch_dir() / ("stdout." + std::to_string(id));
  const fs::path err_path = scratch_dir() / ("stderr." + std::to_string(id));

  std::vector<std::string> argv_storage = {SHARDSIM_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  Result r;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << SHARDSIM_BINARY << ": error " << rc;
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.exit_code = 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

// "shardsim memory ..." with a readable description of the command for failure messages.
std::string describe(const std::vector<std::string>& args) {
  std::string s = "shardsim";
  for (const auto& a : args) s += " " + a;
  return s;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// NaN or infinity printed as a word ("nan", "-inf", "inf", "infinity"; "provenance" does not
// count). nlohmann::json writes NaN as null, which has_null() catches in JSON output.
bool has_nan_or_inf(const std::string& text) {
  static const std::regex re(R"((^|[^A-Za-z0-9_])-?(nan|inf|infinity)([^A-Za-z0-9_]|$))",
                             std::regex::icase);
  return std::regex_search(text, re);
}

bool has_null(const json& j) {
  if (j.is_null()) return true;
  if (j.is_structured())
    for (const auto& v : j)
      if (has_null(v)) return true;
  return false;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// True if some line is "error: POINTER: ..." (or "error: ..." without a pointer when `pointer`
// is empty) and contains `fragment`.
bool has_error_line(const std::string& err, const std::string& pointer,
                    const std::string& fragment) {
  const std::string prefix = pointer.empty() ? "error: " : "error: " + pointer + ": ";
  for (const auto& line : lines_of(err)) {
    if (!line.starts_with(prefix) || !contains(line, fragment)) continue;
    if (pointer.empty() && line.size() > prefix.size() && line[prefix.size()] == '/') continue;
    return true;
  }
  return false;
}

int count_error_lines(const std::string& err) {
  int n = 0;
  for (const auto& line : lines_of(err))
    if (line.starts_with("error: ")) ++n;
  return n;
}

json parse_report(const Result& r) {
  const json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not valid JSON:\n" << r.out.substr(0, 400);
  return j.is_discarded() ? json::object() : j;
}

// Names of the shipped example scenarios, from `shardsim presets examples --json`.
std::vector<std::string> example_names() {
  const Result r = shardsim({"presets", "examples", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  const json j = json::parse(r.out, nullptr, false);
  if (j.is_object() && j.contains("examples"))
    for (const auto& e : j["examples"]) names.push_back(e.value("name", ""));
  return names;
}

}  // namespace cli_test
