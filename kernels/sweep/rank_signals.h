// What one calibration rank does about signals and lost peers (used by SweepRun, and by
// `shardsim validate` through its CLI command).
//
//  - SIGTERM / SIGINT / SIGHUP (a launcher ending the job because another rank died or failed, or a
//    cancelled run): recorded, not fatal (note_termination_signal, comm.h); the rank's next
//    cross-rank wait throws CallError naming its call, so the failure and the samples reach the
//    files before the launcher's SIGKILL. A second such signal ends the process as by default.
//    The handler also writes `<samples>.rank<N>.error` at once (naming the item, the signal and
//    the ranks on this host whose process is gone; with no error file, as in validate, the same
//    record goes to stderr as an "error: rank N: ..." line): a rank blocked inside a call that a
//    signal does not interrupt (a blocking MPI collective waiting for the lost rank) never reaches
//    its next wait, and this record is then all it leaves. When the main thread does reach a wait,
//    it replaces the file with the failing call's error (SweepRun::fail).
//  - SIGSEGV / SIGBUS / SIGFPE / SIGILL / SIGABRT (this rank crashed): writes
//    `<samples>.rank<N>.error` naming the signal and the item, then _exit(3), so the launcher sees
//    exit status 3 rather than 128 + signal.
//  - SIGKILL (the OOM killer, a lost node) cannot be handled: the launcher reports 128 + 9 = 137
//    and the survivors report the lost rank (lost_ranks below).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/comm.h"

namespace shardsim::kernels {

// Where every rank runs (MPI_Allgather over `world`, at the start of the sweep).
struct Peer {
  std::string host;
  long pid = 0;
};

// Installs the handlers above for its lifetime; restores the previous ones on destruction.
class RankSignals {
 public:
  // `error_path`: where a crash writes its error ("" = nowhere, stderr only).
  RankSignals(int rank, const std::string& error_path);
  RankSignals(const RankSignals&) = delete;
  RankSignals& operator=(const RankSignals&) = delete;
  ~RankSignals();
  // The item being measured, named by a crash report.
  static void set_item(const std::string& item);
  // The ranks (index = rank) whose process the stop handler checks: those on this host other
  // than `self` (at most 1024 are kept).
  static void set_peers(const std::vector<Peer>& peers, int self);
  // From now on no handler writes a record (the main thread records the failure itself, or the
  // run is over); the handlers stay installed.
  static void stop_recording();
  // Removes this rank's error file (the run completed after all) and stops recording.
  static void forget_error();
};

// Appends `text` to buf as the inside of a JSON string (RFC 8259): '"' and '\\' escaped,
// control characters below 0x20 as \n, \t, ... or \u00XX, every other byte as it is (the names
// written are ASCII). Whole escapes only: it stops before a character whose escape would not leave
// room for the terminating '\0' in buf[0..limit), so a cut string is still a valid JSON string.
// Async-signal-safe (no allocation, locale or stdio): the crash handler writes its error document
// with it. REQUIRES: len < limit <= the size of buf.
void append_json_string(char* buf, std::size_t limit, std::size_t& len, const char* text);

[[nodiscard]] std::vector<Peer> gather_peers(const Comm& world);

// Ranks of `peers` on this host whose process is gone (no such pid, or a zombie). Ranks on other
// hosts cannot be checked from here and are never listed.
[[nodiscard]] std::vector<int> lost_ranks(const std::vector<Peer>& peers);

// Test hook (documented in README "Calibrating a cluster"): with SHARDSIM_TEST_DIE_AFTER_ITEMS=N
// in its environment, the last rank of the world raises SHARDSIM_TEST_DIE_SIGNAL (a number,
// default 9 = SIGKILL) just before measuring item N+1 (0: before the first), as a lost or crashed
// rank would. Does nothing without the variable.
void test_hook_maybe_die(std::size_t items_done, const Comm& world);
// Test hook: with SHARDSIM_TEST_DIE_INSIDE=collective, the last rank raises
// SHARDSIM_TEST_DIE_SIGNAL (default SIGKILL) inside the first collective item, after the ranks
// agreed to start it (measure()'s `started`), so the others enter the item's blocking collective
// and wait there for it. Does nothing without the variable.
void test_hook_maybe_die_inside(bool collective_item, const Comm& world);
// Test hook: with SHARDSIM_TEST_DIE_INSIDE equal to `place` ("collective" or "composite"), the last
// rank raises SHARDSIM_TEST_DIE_SIGNAL (default SIGKILL) here. validate calls it with "composite"
// just before the composite step, so the other ranks enter the step and wait for it there.
void test_hook_maybe_die_at(std::string_view place, const Comm& world);

}  // namespace shardsim::kernels
