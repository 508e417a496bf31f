// A small memo of values by key, held by a caller that asks for the same keys again (a search
// evaluating many strategies of one model on one cluster). The values also depend on some larger
// inputs (the model, the GPU profile) that the key leaves out: the memo keeps copies of the ones
// it was filled for and empties itself when they differ, so a lookup never returns a value
// computed from other inputs (a GPU profile's large tables are shared by its copies, so comparing
// a copy does not read them: core/shared_vector.h). Not safe for concurrent use: one memo per
// thread.
#pragma once

#include <cstddef>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace shardsim {

// Key and each of Inputs need operator==; at most `capacity` entries, then it starts empty again.
template <class Key, class Value, class... Inputs>
class Memo {
 public:
  explicit Memo(std::size_t capacity = 256) : capacity_(capacity) {}

  // The value stored for `key` with these inputs, or nullptr (then compute it and insert it).
  [[nodiscard]] const Value* find(const Key& key, const Inputs&... inputs) {
    if (!inputs_ || !(*inputs_ == std::tie(inputs...))) {
      entries_.clear();
      inputs_.emplace(inputs...);
      return nullptr;
    }
    // Consecutive evaluations often share a key: look at the last hit first.
    if (last_ < entries_.size() && entries_[last_].first == key) return &entries_[last_].second;
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].first == key) {
        last_ = i;
        return &entries_[i].second;
      }
    return nullptr;
  }

  // Stores `value` for `key`. REQUIRES: find(key, inputs...) just returned nullptr.
  const Value& insert(const Key& key, Value value) {
    if (entries_.size() >= capacity_) entries_.clear();
    entries_.emplace_back(key, std::move(value));
    last_ = entries_.size() - 1;
    return entries_.back().second;
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  std::size_t capacity_;
  std::optional<std::tuple<Inputs...>> inputs_;
  std::vector<std::pair<Key, Value>> entries_;
  std::size_t last_ = 0;
};

}  // namespace shardsim
