// Issue 11's defects in writing output, each with a regression test: -o/--trace given a FIFO, a
// character device or a symlink replaced it with a regular file (a temporary file renamed over
// it: as root, `-o /dev/stdout` or `--trace /dev/full` would replace the device node or the
// link); a failed write to stdout exited 0; the same path for -o and --trace silently kept only
// one of them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.h"

namespace {

using namespace cli_test;

bool is_char_device(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(cli_output, SymlinkIsFollowedAndKept) {
  const fs::path target = scratch_dir() / "link_target.json", link = scratch_dir() / "link.json";
  fs::remove(link);
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  const Result r = shardsim({"memory", kExample, "--json", "-o", link.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(json::parse(read_file(target))["schema_version"], 1);  // the target got the report
}

// Found by review: the atomic replace made a 0600 report world-readable (0644) and used a
// predictable temporary name; now the replaced file's mode is kept and no temporary is left.
TEST(cli_output, ReplacedFileKeepsItsModeAndNoTemporaryIsLeft) {
  const fs::path dir = scratch_dir() / "mode";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path out = dir / "private.json";
  std::ofstream(out) << "old";
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  const Result r = shardsim({"memory", kExample, "--json", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(json::parse(read_file(out))["schema_version"], 1);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);  // the report only: the temporary was renamed over it
}

TEST(cli_output, FifoIsWrittenThroughNotReplaced) {
  const fs::path fifo = scratch_dir() / "report.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });  // blocks until the writer opens it
  const Result r = shardsim({"memory", kExample, "--json", "-o", fifo.string()});
  reader.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_EQ(json::parse(received)["schema_version"], 1);
}

TEST(cli_output, DeviceIsWrittenThroughAndAFullOneIsExitThree) {
  // A link to /dev/null: the report goes through it; the link and the device stay.
  const fs::path link = scratch_dir() / "null_link";
  fs::remove(link);
  fs::create_symlink("/dev/null", link);
  Result r = shardsim({"simulate", kExample, "-o", link.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(is_char_device("/dev/null"));
  // /dev/full takes nothing (ENOSPC): exit 3 with the system's reason; the device stays.
  if (!is_char_device("/dev/full")) GTEST_SKIP() << "no /dev/full on this machine";
  r = shardsim({"simulate", kExample, "--trace", "/dev/full"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "", "cannot write \"/dev/full\": write: No space left"))
      << r.err;
  EXPECT_TRUE(is_char_device("/dev/full"));
}

// Found by review (2026-11-28): a command's outputs were written one after another, so when a
// later one failed (exit 3) the earlier ones stayed written: `fit -o p.json --network-output
// /dev/full` left p.json, `simulate --trace t.json -o /dev/full` left t.json. Now a command's
// files are written as one (write_outputs): all of them, or none and no temporary left over.
TEST(cli_output, AFailedOutputLeavesTheOthersUnwritten) {
  if (!is_char_device("/dev/full")) GTEST_SKIP() << "no /dev/full on this machine";
  const fs::path dir = scratch_dir() / "all_or_none";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto empty = [&] { return fs::directory_iterator(dir) == fs::directory_iterator(); };
  const std::string log =
      std::string(SHARDSIM_SOURCE_DIR) +
      "/scenarios/measurements/nccl-tests/h100-sxm-nvlink-1node_all_gather_8.log";
  Result r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--nccl-tests", log, "-o",
                       (dir / "p.json").string(), "--network-output", "/dev/full"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(empty()) << "fit left a file";
  // Nor is its report printed (found by review, 2026-11-28: a full fit report on stdout, exit 3).
  EXPECT_EQ(r.out, "");
  r = shardsim({"simulate", kExample, "--trace", (dir / "t.json").string(), "-o", "/dev/full"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(empty()) << "simulate left a file";
  r = shardsim({"simulate", kExample, "--json", "-o", (dir / "r.json").string(), "--html",
                (dir / "r.html").string(), "--trace", "/dev/full"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(empty()) << "simulate left a file";
  // With every output writable, all of them are written.
  r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--nccl-tests", log, "-o",
                (dir / "p.json").string(), "--network-output", (dir / "n.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "p.json"));
  EXPECT_TRUE(fs::exists(dir / "n.json"));
}

// Standard output is one of the outputs written as one: a pipe whose reader is gone is exit 3
// (SIGPIPE is ignored while writing), and the trace staged beside it is removed, not left as
// t.json.tmp.XXXXXX (found by review, 2026-11-28: the process died of SIGPIPE, exit 141). The
// pipe's read end is closed before shardsim starts, so every write to it fails.
// Runs shardsim with `args` and its stdout a pipe whose read end is already closed; returns the
// wait status and leaves stderr in `err`.
int run_into_closed_pipe(const std::vector<std::string>& args, const std::string& err) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  ::close(fds[0]);
  std::vector<char*> argv = {const_cast<char*>(SHARDSIM_BINARY)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::dup2(fds[1], 1);
    if (std::freopen(err.c_str(), "w", stderr) == nullptr) ::_exit(99);
    ::execv(SHARDSIM_BINARY, argv.data());
    ::_exit(98);
  }
  ::close(fds[1]);
  int status = 0;
  return ::waitpid(pid, &status, 0) == pid ? status : -1;
}

TEST(cli_output, AClosedPipeOnStdoutLeavesNoFileBehind) {
  const fs::path dir = scratch_dir() / "closed_pipe";
  const std::string err = (scratch_dir() / "closed_pipe.err").string();
  const std::string log =
      std::string(SHARDSIM_SOURCE_DIR) +
      "/scenarios/measurements/nccl-tests/h100-sxm-nvlink-1node_all_gather_8.log";
  // simulate's trace; fit's profile and network beside its report (found by review, 2026-11-28:
  // fit wrote its report with std::cout, was killed by SIGPIPE, exit 141, and left p.json).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"simulate", kExample, "--trace", (dir / "t.json").string()},
        {"fit", "--base", "h100-sxm-datasheet", "--nccl-tests", log, "-o",
         (dir / "p.json").string(), "--network-output", (dir / "n.json").string()}}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const int status = run_into_closed_pipe(args, err);
    ASSERT_TRUE(WIFEXITED(status)) << describe(args) << ": killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 3) << describe(args) << read_file(err);
    EXPECT_TRUE(contains(read_file(err), "standard output")) << read_file(err);
    EXPECT_TRUE(fs::directory_iterator(dir) == fs::directory_iterator())
        << describe(args) << ": a file was left";
  }
}

// The files a scenario names are inputs too: an output on one of them is exit 2 and the file is
// kept (found by review, 2026-11-28: `simulate s.json -o prof.json`, with prof.json the
// scenario's cluster.gpu, replaced the profile with the text report, exit 0).
TEST(cli_output, FilesTheScenarioNamesAreNotOverwritten) {
  const fs::path dir = scratch_dir() / "named_inputs";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string src = SHARDSIM_SOURCE_DIR;
  fs::copy_file(src + "/scenarios/gpus/h100-sxm-datasheet.json", dir / "prof.json");
  fs::copy_file(src + "/scenarios/clusters/dgx-h100-datasheet.json", dir / "net.json");
  fs::copy_file(src + "/tests/data/hf/llama3_8b.json", dir / "hf.json");
  std::ofstream(dir / "s.json") << R"({"model": {"hf_config": "hf.json"},
    "training": {"seq_len": 2048, "global_batch": 8, "micro_batch": 1, "precision": "bf16"},
    "parallel": {"tp": 8}, "cluster": {"gpu": "prof.json", "network": "net.json", "nodes": 1}})";
  const std::string scenario = (dir / "s.json").string();
  for (const auto& [file, field] : {std::pair{"prof.json", "cluster.gpu"},
                                    {"net.json", "cluster.network"},
                                    {"hf.json", "model.hf_config"}}) {
    const std::string target = (dir / file).string(), before = read_file(target);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"simulate", scenario, "-o", target},
          {"simulate", scenario, "--trace", target},
          {"memory", scenario, "--html", target},
          {"compare", scenario, "--vary", "parallel.tp=4,8", "--csv", target},
          {"search", scenario, "--top", "1", "--csv", target}}) {
      const Result r = shardsim(args);
      EXPECT_EQ(r.exit_code, 2) << describe(args) << "\n" << r.err;
      EXPECT_TRUE(contains(r.err, std::string("is the input ") + field)) << r.err;
      EXPECT_EQ(read_file(target), before) << describe(args) << " replaced " << file;
    }
  }
  // The same profile given by --set, relative to the working directory.
  const std::string profile = (dir / "prof.json").string(), before = read_file(profile);
  const Result r =
      shardsim({"simulate", kExample, "--set", "cluster.gpu=" + profile, "-o", profile});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_file(profile), before);
}

// calibrate's samples file (PROFILE.samples.json beside -o) is an output too, and -o must be a
// regular file to have one beside it (found by review, 2026-11-28: `--base z.samples.json -o
// z.json` overwrote the base with samples; `-o /dev/full` left /dev/full.samples.json). Both
// are refused before anything is measured.
TEST(cli_output, CalibratesSamplesFileIsCheckedAsAnOutput) {
  const fs::path dir = scratch_dir() / "calibrate_samples";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string base = (dir / "z.samples.json").string();
  fs::copy_file(std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/gpus/h100-sxm-datasheet.json", base);
  const std::string before = read_file(base);
  Result r = shardsim({"calibrate", "--backend", "cpu", "--quick", "--base", base, "-o",
                       (dir / "z.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is the input --base")) << r.err;
  EXPECT_EQ(read_file(base), before);
  fs::create_symlink("/dev/null", dir / "null.json");
  r = shardsim({"calibrate", "--backend", "cpu", "--quick", "-o", (dir / "null.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is not a regular file")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "null.samples.json"));
  // The in-progress copy is an output too: a directory there is exit 2 before any measuring
  // (found by review, 2026-11-28: exit 3 at the first item, a temporary file left beside it).
  fs::create_directories(dir / "p.samples.json.partial");
  r = shardsim({"calibrate", "--backend", "cpu", "--quick", "-o", (dir / "p.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "-o's in-progress samples file")) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3);
}

TEST(cli_output, FullStdoutIsExitThree) {
  // The issue's `shardsim memory X --json > /dev/full` exited 0.
  if (!is_char_device("/dev/full")) GTEST_SKIP() << "no /dev/full on this machine";
  const fs::path err = scratch_dir() / "stdout_full.err";
  const int status = std::system((std::string(SHARDSIM_BINARY) + " memory " + kExample +
                                  " --json > /dev/full 2> " + err.string())
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_file(err);
  EXPECT_TRUE(contains(read_file(err), "standard output")) << read_file(err);
}

TEST(cli_output, SameFileForTwoOutputsIsExitTwo) {
  const fs::path out = scratch_dir() / "both.json";
  fs::remove(out);
  Result r =
      shardsim({"simulate", kExample, "--json", "-o", out.string(), "--trace", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--trace", "is also the file of -o")) << r.err;
  EXPECT_FALSE(fs::exists(out));  // refused before anything was written
  // Through a symlink too, and for --html.
  const fs::path alias = scratch_dir() / "alias.json";
  fs::remove(alias);
  fs::create_symlink(out, alias);
  r = shardsim({"memory", kExample, "-o", out.string(), "--html", alias.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--html", "is also the file of -o")) << r.err;
}

// Found by review (2026-11-27): an output that is one of the command's inputs replaced it (a
// scenario by its search report, a DeepSpeed config by its import, calibration samples by the
// profile fitted from them), and two outputs to standard output were printed one after the other.
TEST(cli_output, AnOutputThatIsAnInputOrASecondStdoutIsExitTwo) {
  const fs::path in = scratch_dir() / "input_scenario.json";
  {
    std::ofstream f(in);
    f << R"({"model": {"layers": 2, "hidden": 256, "heads": 4, "vocab": 1000},
            "training": {"seq_len": 1024, "global_batch": 8}, "cluster": {"gpu": "h100-sxm"}})";
  }
  const std::string before = read_file(in);
  Result r = shardsim({"search", in.string(), "--top", "1", "--json", "-o", in.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "-o", "is the input SCENARIO")) << r.err;
  r = shardsim({"compare", in.string(), "--vary", "parallel.zero=0,1", "--csv", in.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_file(in), before);  // untouched
  r = shardsim({"search", kExample, "--top", "1", "--csv", "-"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--csv", "standard output is already the output of -o"))
      << r.err;
  EXPECT_TRUE(r.out.empty());
  r = shardsim({"simulate", kExample, "-o", (scratch_dir() / "x.txt").string(), "--html", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // one output on stdout is fine
}

// Found by review (2026-11-28): a path that is standard output under another name (/dev/stdout,
// here the runner's capture file behind it) beside the default report wrote both there, exit 0:
// the report overwrote the start of the HTML page.
TEST(cli_output, AnOutputThatIsStandardOutputUnderAnotherNameIsExitTwo) {
  Result r = shardsim({"memory", kExample, "--html", "/dev/stdout"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--html", "standard output is already the output of -o"))
      << r.err;
  EXPECT_TRUE(r.out.empty());
  r = shardsim({"simulate", kExample, "--json", "--trace", "/dev/stdout"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // with the report in a file, the trace may take standard output
  r = shardsim(
      {"simulate", kExample, "-o", (scratch_dir() / "y.txt").string(), "--trace", "/dev/stdout"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).count("traceEvents"), 1u);
}

// Found by review (2026-11-28): every file option read "" as "not given", so `--baseline
// "$UNSET"` skipped a CI gate (with --tolerance, which needs --baseline) and exited 0.
TEST(cli_output, AnOptionGivenAnEmptyValueIsExitTwo) {
  for (const auto& [flag, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"--baseline", {"simulate", kExample, "--baseline", "", "--tolerance", "1%"}},
           {"--trace", {"simulate", kExample, "--trace", ""}},
           {"--csv", {"search", kExample, "--top", "1", "--csv", ""}},
           {"--output", {"memory", kExample, "-o", ""}}}) {
    const Result r = shardsim(args);
    EXPECT_EQ(r.exit_code, 2) << describe(args) << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "error: " + flag + ": empty value")) << r.err;
    EXPECT_TRUE(r.out.empty()) << describe(args);
  }
}

// A GPU profile's node.network names a shipped preset. A path there was read from the working
// directory, unlike every other input not protected from the outputs, so `simulate s.json -o
// mynet.json` overwrote the network it had read and exited 0 (found by review, 2026-11-29; so
// did collective, compare --csv and search --csv). Now it is exit 2 naming the field, and the
// file is left alone.
TEST(cli_output, AProfilesNodeNetworkIsAPresetNotAFile) {
  const fs::path dir = scratch_dir() / "node_network";
  fs::create_directories(dir);
  const fs::path net = dir / "mynet.json", gpu = dir / "mygpu.json", s = dir / "s.json";
  std::ofstream(net) << read_file(fs::path(SHARDSIM_SOURCE_DIR) /
                                  "scenarios/clusters/dgx-h100.json");
  json profile =
      json::parse(read_file(fs::path(SHARDSIM_SOURCE_DIR) / "scenarios/gpus/h100-sxm.json"));
  profile["node"]["network"] = net.string();
  std::ofstream(gpu) << profile.dump();
  std::ofstream(s) << json{{"model", {{"preset", "llama3-8b"}}},
                           {"training", {{"seq_len", 8192}, {"global_batch", 64}}},
                           {"parallel", {{"tp", 2}}},
                           {"cluster", {{"gpu", gpu.string()}}}}
                          .dump();
  const std::string before = read_file(net);
  const Result r = shardsim({"simulate", s.string(), "-o", net.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/cluster/gpu/node/network", "clusters preset, not a file"))
      << r.err;
  const Result c = shardsim({"collective", "--gpu", gpu.string(), "--op", "all_reduce", "--bytes",
                             "1048576", "--ranks", "8", "-o", net.string()});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(contains(c.err, "node.network")) << c.err;
  EXPECT_EQ(read_file(net), before);
}

// A legal 255-byte file name (250 + ".json"): its temporary sibling "NAME.tmp.XXXXXX" would be
// 266 bytes, over the 255-byte limit, and the report was refused as "File name too long" (found
// by review, 2026-11-29). The temporary's name is cut to fit; the report lands under its name
// and no temporary is left.
TEST(cli_output, ALongestLegalFileNameIsWritten) {
  const fs::path dir = scratch_dir() / "long_name";
  fs::create_directories(dir);
  const fs::path out = dir / (std::string(250, 'b') + ".json");
  const Result r = shardsim({"memory", kExample, "--json", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(read_file(out))["schema_version"], 1);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(cli_output, MissingDirectoryIsExitTwoBeforeAnyWork) {
  const std::string path = (scratch_dir() / "no_such_dir" / "r.csv").string();
  const Result r = shardsim({"search", kExample, "--csv", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--csv", "does not exist")) << r.err;
  // A file where the directory should be is said to be one (found by review, 2026-11-27: it was
  // reported as a directory that does not exist).
  const fs::path file = scratch_dir() / "plain_file.txt";
  std::ofstream(file) << "x";
  const Result f = shardsim({"search", kExample, "--csv", (file / "r.csv").string()});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has_error_line(f.err, "--csv", "is a file, not a directory")) << f.err;
}

// Found by review (2026-11-27): -o into a directory that takes no new file (permission denied as
// a user; /proc and /sys refuse even root) failed with exit 3 after the DES had run and --trace
// had been written. Now the command probes every output first: exit 2, nothing written.
TEST(cli_output, AnOutputWhoseDirectoryRefusesAFileIsExitTwoBeforeAnyWork) {
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc on this machine";
  const fs::path trace = scratch_dir() / "refused_trace.json";
  fs::remove(trace);
  const Result r = shardsim(
      {"simulate", kExample, "--trace", trace.string(), "-o", "/proc/shardsim_report.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "-o", "cannot create \"/proc/shardsim_report.json\"")) << r.err;
  EXPECT_FALSE(fs::exists(trace));  // refused before the trace was written
  EXPECT_TRUE(r.out.empty());
}

// Found by the second review (2026-11-27): /dev/stdout into a pipe resolved to "pipe:[N]", which
// does not exist, so the output probe refused it (exit 2); and `-o /dev/stdout >> log` replaced
// log by a rename. Descriptor links are written through as given, appending.
TEST(cli_output, DescriptorLinksAreWrittenThroughAppending) {
  if (!fs::exists("/dev/stdout")) GTEST_SKIP() << "no /dev/stdout on this machine";
  const fs::path piped = scratch_dir() / "piped.json", log = scratch_dir() / "appended.log";
  const std::string bin = SHARDSIM_BINARY;
  int status = std::system(
      (bin + " memory " + kExample + " --json -o /dev/stdout | cat > " + piped.string()).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(json::parse(read_file(piped))["schema_version"], 1);
  std::ofstream(log) << "keep\n";
  status = std::system(
      (bin + " memory " + kExample + " --json -o /dev/stdout >> " + log.string()).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string text = read_file(log);
  ASSERT_TRUE(text.starts_with("keep\n")) << text.substr(0, 80);
  EXPECT_EQ(json::parse(text.substr(5))["schema_version"], 1);
}

}  // namespace
