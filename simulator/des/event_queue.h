// A tiny deterministic event engine: a binary min-heap of events keyed on (time, class,
// sequence): at equal times, events of a lower class fire first (the step simulation fires every
// completion of an instant before it takes scheduling decisions), then in scheduling order.
// Owned by one simulation; no statics.
#pragma once

#include <cstdint>
#include <vector>

namespace shardsim {

class EventQueue {
 public:
  struct Event {
    double time = 0;  // seconds
    // (class << 48) | sequence: at equal times a lower class fires first, then the earlier
    // pushed. One integer keeps the three-way order to two comparisons.
    std::uint64_t order = 0;
    int id = 0;  // what the event is about (a task or stage id of the simulation)
    [[nodiscard]] int klass() const { return int(order >> kSeqBits); }
  };
  static constexpr int kSeqBits = 48;  // 2.8e14 events per simulation; classes 0 .. 65535

  // REQUIRES: 0 <= klass < 65536.
  void push(double time, int id, int klass = 0);
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  // REQUIRES: !empty(). Removes the earliest event and advances now() to its time.
  Event pop();
  [[nodiscard]] double now() const { return now_; }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
  double now_ = 0;
};

}  // namespace shardsim
