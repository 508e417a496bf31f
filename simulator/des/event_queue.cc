#include "simulator/des/event_queue.h"

#include <algorithm>

namespace shardsim {
namespace {

// std heap functions build a max-heap: "later" events compare as smaller. A function object (not
// a function pointer) so the heap operations inline it.
struct Later {
  bool operator()(const EventQueue::Event& a, const EventQueue::Event& b) const {
    if (a.time != b.time) return a.time > b.time;
    return a.order > b.order;
  }
};

}  // namespace

void EventQueue::push(double time, int id, int klass) {
  heap_.push_back({time, (std::uint64_t(klass) << kSeqBits) | next_seq_++, id});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

EventQueue::Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Event e = heap_.back();
  heap_.pop_back();
  now_ = e.time;
  return e;
}

}  // namespace shardsim
