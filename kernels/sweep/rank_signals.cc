#include "kernels/sweep/rank_signals.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>
#include <utility>

#include "kernels/common/errors.h"

namespace shardsim::kernels {
namespace {

constexpr std::array kStopSignals = {SIGTERM, SIGINT, SIGHUP};
constexpr std::array kCrashSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// State the handlers read: fixed buffers, written by the main thread outside the handlers.
char g_error_path[4096] = {};
char g_item[512] = {};
int g_rank = 0;
// Ranks on this host other than this one, and their pids (set_peers).
constexpr std::size_t kMaxPeers = 1024;
int g_peer_rank[kMaxPeers] = {};
long g_peer_pid[kMaxPeers] = {};
// How many of g_peer_* are valid: published after the arrays (set_peers), read once per handler.
volatile std::sig_atomic_t g_peers = 0;
// The handlers write a record only while this is set (the constructor sets it; stop_recording()
// and the destructor clear it), so that a failure the main thread already recorded is not
// overwritten by a signal arriving during MPI_Abort, nor a completed sweep given a stale record.
volatile std::sig_atomic_t g_recording = 0;
// ", " and up to 10 digits per lost rank, for every peer: the list is never cut.
constexpr std::size_t kLostCap = kMaxPeers * 12 + 1;
struct sigaction g_previous[kStopSignals.size() + kCrashSignals.size()];

// Appends `text` to buf[0..cap) at `len` (async-signal-safe string building).
void append(char* buf, std::size_t cap, std::size_t& len, const char* text) {
  while (*text != '\0' && len + 1 < cap) buf[len++] = *text++;
  buf[len] = '\0';
}

// Writes the JSON string escape of byte c to out (at most 6 bytes: the byte itself when it needs
// none) and returns its length.
std::size_t json_escape(char c, char* out) {
  const auto u = static_cast<unsigned char>(c);
  const char* named = c == '"'    ? "\\\""
                      : c == '\\' ? "\\\\"
                      : c == '\b' ? "\\b"
                      : c == '\f' ? "\\f"
                      : c == '\n' ? "\\n"
                      : c == '\r' ? "\\r"
                      : c == '\t' ? "\\t"
                                  : nullptr;
  std::size_t n = 0;
  if (named != nullptr) {
    while (named[n] != '\0') {
      out[n] = named[n];
      ++n;
    }
  } else if (u < 0x20) {  // \u00XX
    constexpr char kHex[] = "0123456789abcdef";
    const char esc[] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 0xf]};
    for (const char e : esc) out[n++] = e;
  } else {
    out[n++] = c;
  }
  return n;
}

void append_int(char* buf, std::size_t cap, std::size_t& len, long value) {
  char digits[24];
  std::size_t n = 0;
  const bool negative = value < 0;
  unsigned long v = negative ? 0UL - static_cast<unsigned long>(value) : value;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < sizeof(digits));
  if (negative) append(buf, cap, len, "-");
  char one[2] = {0, 0};
  while (n > 0) {
    one[0] = digits[--n];
    append(buf, cap, len, one);
  }
}

// Whether process `pid` is gone: no such process, or a zombie (exited, not yet reaped by the
// launcher). Async-signal-safe (kill, open, read, close): the stop handler and lost_ranks use it.
bool process_gone(long pid) {
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  char path[64];
  std::size_t p = 0;
  append(path, sizeof(path), p, "/proc/");
  append_int(path, sizeof(path), p, pid);
  append(path, sizeof(path), p, "/stat");
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  char stat[512];
  const ssize_t n = read(fd, stat, sizeof(stat) - 1);
  close(fd);
  if (n <= 0) return false;
  // "pid (comm) S ...": the state follows the last ')'.
  ssize_t close_paren = -1;
  for (ssize_t i = 0; i < n; ++i)
    if (stat[i] == ')') close_paren = i;
  return close_paren >= 0 && close_paren + 2 < n && stat[close_paren + 2] == 'Z';
}

// The stop handler's record (rank_signals.h): `<samples>.rank<N>.error` naming the item, the
// signal and the ranks on this host whose process is gone, written now because a rank blocked in
// a call that the signal does not interrupt never reports again.
// Writes the record to g_error_path (while recording): {"call", "message", "item", "rank",
// "signal"[, "lost_ranks"]}. Strings are escaped (an item name may hold '"' or '\\'); each may take
// the document up to kDoc - kTail, leaving room for what follows it (the item, escaped, at most 6
// bytes per byte, the lost ranks and the numbers), so the document always closes.
void write_record(const char* call, const char* message, int signal, const char* lost) {
  if (g_recording == 0 || g_error_path[0] == '\0') return;
  constexpr std::size_t kDoc = 32768;
  constexpr std::size_t kTail = 6 * sizeof(g_item) + kLostCap + 128;
  char doc[kDoc];
  std::size_t d = 0;
  append(doc, sizeof(doc), d, "{\"call\": \"");
  append_json_string(doc, kDoc - kTail, d, call);
  append(doc, sizeof(doc), d, "\", \"message\": \"");
  append_json_string(doc, kDoc - kTail, d, message);
  append(doc, sizeof(doc), d, "\", \"item\": \"");
  append_json_string(doc, kDoc - kLostCap - 128, d, g_item);
  append(doc, sizeof(doc), d, "\", \"rank\": ");
  append_int(doc, sizeof(doc), d, g_rank);
  append(doc, sizeof(doc), d, ", \"signal\": ");
  append_int(doc, sizeof(doc), d, signal);
  if (lost != nullptr && lost[0] != '\0') {
    append(doc, sizeof(doc), d, ", \"lost_ranks\": [");
    append(doc, sizeof(doc), d, lost);
    append(doc, sizeof(doc), d, "]");
  }
  append(doc, sizeof(doc), d, "}\n");
  const int fd = open(g_error_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!write(fd, doc, d);
    close(fd);
  }
}

// The stop handler's record (rank_signals.h): `<samples>.rank<N>.error` naming the item, the
// signal and the ranks on this host whose process is gone, written now because a rank blocked in
// a call that the signal does not interrupt never reports again.
void write_stop_record(int signal) {
  if (g_recording == 0) return;
  char lost[kLostCap];  // "1, 5": the lost ranks, for the message and the lost_ranks array
  std::size_t l = 0;
  lost[0] = '\0';
  std::size_t n_lost = 0;
  const auto peers = static_cast<std::size_t>(g_peers);
  for (std::size_t i = 0; i < peers; ++i) {
    if (!process_gone(g_peer_pid[i])) continue;
    if (l > 0) append(lost, sizeof(lost), l, ", ");
    append_int(lost, sizeof(lost), l, g_peer_rank[i]);
    ++n_lost;
  }
  char message[4096];
  std::size_t m = 0;
  if (n_lost > 0) {
    append(message, sizeof(message), m, n_lost > 1 ? "ranks " : "rank ");
    append(message, sizeof(message), m, lost);
    append(message, sizeof(message), m, " lost during ");
    append(message, sizeof(message), m, g_item[0] != '\0' ? g_item : "the sweep");
    append(message, sizeof(message), m, ": ");
  }
  append(message, sizeof(message), m, "interrupted by ");
  append(message, sizeof(message), m, signal_name(signal));
  append(message, sizeof(message), m,
         " (the launcher is ending the job: another rank was lost or failed, or the job was "
         "cancelled)");
  if (n_lost == 0 &&
      g_item[0] != '\0') {  // (when a rank is lost, the message starts with the item)
    append(message, sizeof(message), m, " while measuring ");
    append(message, sizeof(message), m, g_item);
  }
  append(message, sizeof(message), m,
         "; recorded when the signal arrived: a rank blocked in a call that does not return "
         "(a collective waiting for a lost rank) is killed before it can report more");
  if (g_error_path[0] == '\0') {  // no record file (validate): the record goes to stderr
    char line[4200];
    std::size_t n = 0;
    append(line, sizeof(line), n, "error: rank ");
    append_int(line, sizeof(line), n, g_rank);
    append(line, sizeof(line), n, ": ");
    append(line, sizeof(line), n, message);
    append(line, sizeof(line), n, "\n");
    (void)!write(STDERR_FILENO, line, n);
    return;
  }
  write_record(g_item[0] != '\0' ? g_item : signal_name(signal), message, signal, lost);
}

void on_stop(int signal) {
  if (termination_signal() != 0) {  // the second request: stop now, as by default
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  const int saved_errno = errno;
  note_termination_signal(signal);
  write_stop_record(signal);
  errno = saved_errno;
}

// This rank crashed: report it the way a failed call is reported, then exit 3.
void on_crash(int signal) {
  char message[1024];
  std::size_t m = 0;
  append(message, sizeof(message), m, "rank ");
  append_int(message, sizeof(message), m, g_rank);
  append(message, sizeof(message), m, " crashed: ");
  append(message, sizeof(message), m, signal_name(signal));
  append(message, sizeof(message), m, " (signal ");
  append_int(message, sizeof(message), m, signal);
  append(message, sizeof(message), m, ")");
  if (g_item[0] != '\0') {
    append(message, sizeof(message), m, " while measuring ");
    append(message, sizeof(message), m, g_item);
  }
  char line[1100];
  std::size_t l = 0;
  append(line, sizeof(line), l, "error: ");
  append(line, sizeof(line), l, message);
  append(line, sizeof(line), l, "\n");
  (void)!write(STDERR_FILENO, line, l);
  write_record(signal_name(signal), message, signal, nullptr);
  _exit(3);
}

void copy_to(char* buf, std::size_t cap, const std::string& text) {
  std::size_t len = 0;
  buf[0] = '\0';
  append(buf, cap, len, text.c_str());
}

}  // namespace

RankSignals::RankSignals(int rank, const std::string& error_path) {
  g_rank = rank;
  copy_to(g_error_path, sizeof(g_error_path), error_path);
  g_item[0] = '\0';
  g_peers = 0;
  g_recording = 1;
  clear_termination_signal();
  std::size_t i = 0;
  for (const int s : kStopSignals) {
    struct sigaction a = {};
    a.sa_handler = on_stop;
    sigemptyset(&a.sa_mask);
    sigaction(s, &a, &g_previous[i++]);
  }
  for (const int s : kCrashSignals) {
    struct sigaction a = {};
    a.sa_handler = on_crash;
    sigemptyset(&a.sa_mask);
    a.sa_flags = SA_RESETHAND;  // a crash inside the handler ends the process by default
    sigaction(s, &a, &g_previous[i++]);
  }
}

RankSignals::~RankSignals() {
  std::size_t i = 0;
  for (const int s : kStopSignals) sigaction(s, &g_previous[i++], nullptr);
  for (const int s : kCrashSignals) sigaction(s, &g_previous[i++], nullptr);
  g_recording = 0;
  g_error_path[0] = '\0';
}

void append_json_string(char* buf, std::size_t limit, std::size_t& len, const char* text) {
  char escape[8];
  for (; *text != '\0'; ++text) {
    const std::size_t n = json_escape(*text, escape);
    if (len + n + 1 > limit) break;
    for (std::size_t i = 0; i < n; ++i) buf[len++] = escape[i];
  }
  buf[len] = '\0';
}

void RankSignals::set_item(const std::string& item) {
  copy_to(g_item, sizeof(g_item), item);
}

void RankSignals::set_peers(const std::vector<Peer>& peers, int self) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  g_peers = 0;  // a handler running now sees no peers rather than a half-written list
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::size_t n = 0;
  for (std::size_t r = 0; r < peers.size() && n < kMaxPeers; ++r) {
    if (static_cast<int>(r) == self || peers[r].host != host.data()) continue;
    g_peer_rank[n] = static_cast<int>(r);
    g_peer_pid[n] = peers[r].pid;
    ++n;
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the entries before their count
  g_peers = static_cast<std::sig_atomic_t>(n);
}

void RankSignals::stop_recording() {
  g_recording = 0;
}

void RankSignals::forget_error() {
  stop_recording();  // no later signal may leave a record beside a completed sweep
  if (g_error_path[0] != '\0') std::remove(g_error_path);
}

std::vector<Peer> gather_peers(const Comm& world) {
  constexpr int kHost = 256;
  std::array<char, kHost> host{};
  gethostname(host.data(), kHost - 1);
  const long pid = static_cast<long>(getpid());
  const auto n = static_cast<std::size_t>(world.size());
  std::vector<char> hosts(n * kHost);
  std::vector<long> pids(n);
  check_mpi(
      MPI_Allgather(host.data(), kHost, MPI_CHAR, hosts.data(), kHost, MPI_CHAR, world.handle()),
      "MPI_Allgather");
  check_mpi(MPI_Allgather(&pid, 1, MPI_LONG, pids.data(), 1, MPI_LONG, world.handle()),
            "MPI_Allgather");
  std::vector<Peer> out(n);
  for (std::size_t r = 0; r < n; ++r) out[r] = {std::string(&hosts[r * kHost]), pids[r]};
  return out;
}

std::vector<int> lost_ranks(const std::vector<Peer>& peers) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  std::vector<int> out;
  for (std::size_t r = 0; r < peers.size(); ++r) {
    if (peers[r].host == host.data() && process_gone(peers[r].pid))
      out.push_back(static_cast<int>(r));
  }
  return out;
}

namespace {
// SHARDSIM_TEST_DIE_SIGNAL, default SIGKILL.
int test_hook_signal() {
  const char* sig = std::getenv("SHARDSIM_TEST_DIE_SIGNAL");
  return sig != nullptr ? std::atoi(sig) : SIGKILL;
}
}  // namespace

void test_hook_maybe_die(std::size_t items_done, const Comm& world) {
  const char* after = std::getenv("SHARDSIM_TEST_DIE_AFTER_ITEMS");
  if (after == nullptr || world.rank() != world.size() - 1) return;
  char* end = nullptr;
  const unsigned long n = std::strtoul(after, &end, 10);
  if (end == after || *end != '\0') {  // not a number: a stray variable must not kill a real run
    static bool warned = false;
    if (!std::exchange(warned, true))
      std::cerr << "warning: SHARDSIM_TEST_DIE_AFTER_ITEMS=\"" << after
                << "\" is not a number; test hook ignored" << std::endl;
    return;
  }
  if (n != items_done) return;
  const int signal = test_hook_signal();
  std::cerr << "test hook (SHARDSIM_TEST_DIE_AFTER_ITEMS): rank " << world.rank() << " raises "
            << signal_name(signal) << " after " << items_done << " items" << std::endl;
  std::raise(signal);
}

void test_hook_maybe_die_at(std::string_view place, const Comm& world) {
  const char* where = std::getenv("SHARDSIM_TEST_DIE_INSIDE");
  if (where == nullptr || world.rank() != world.size() - 1) return;
  const std::string_view w(where);
  if (w != "collective" && w != "composite") {
    static bool warned = false;
    if (!std::exchange(warned, true))
      std::cerr << "warning: SHARDSIM_TEST_DIE_INSIDE=\"" << where
                << "\" is neither \"collective\" nor \"composite\"; test hook ignored" << std::endl;
    return;
  }
  if (w != place) return;
  const int signal = test_hook_signal();
  std::cerr << "test hook (SHARDSIM_TEST_DIE_INSIDE): rank " << world.rank() << " raises "
            << signal_name(signal) << " at " << place << std::endl;
  std::raise(signal);
}

void test_hook_maybe_die_inside(bool collective_item, const Comm& world) {
  if (collective_item) test_hook_maybe_die_at("collective", world);
}

}  // namespace shardsim::kernels
