#include "simulator/des/event_queue.h"

#include <utility>

namespace shardsim {
namespace {

// A 4-ary min-heap on (time, order): a node's children are 4i+1 .. 4i+4. Against a binary heap
// the tree is half as deep, so a pop's sift-down touches half as many levels (each compares up to
// four neighbouring children in one cache line) and a push's sift-up half as many parents.
constexpr std::size_t kArity = 4;

bool earlier(const EventQueue::Event& a, const EventQueue::Event& b) {
  if (a.time != b.time) return a.time < b.time;
  return a.order < b.order;
}

}  // namespace

void EventQueue::push(double time, int id, int klass) {
  Event e{time, (std::uint64_t(klass) << kSeqBits) | next_seq_++, id};
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {  // sift up: move parents later than e down
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

EventQueue::Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n > 0) {  // sift `last` down from the root: move the earliest child up while it is earlier
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }
  now_ = top.time;
  return top;
}

}  // namespace shardsim
