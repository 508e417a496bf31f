// A vector whose elements copies share until one of them changes (copy on write). For large
// tables that are read far more often than changed: a GPU profile's measured points, which a
// search's memos compare on every lookup (simulator/core/memo.h). Copies of one table compare
// equal by address, without reading their elements; tables that are not copies of each other
// still compare element by element, as std::vector does (one difference: copies of a table that
// holds a NaN compare equal).
//
// Reading: begin/end/size/empty/operator[]/front/back, or the whole std::vector through get()
// (or the conversion). Changing: edit() returns this object's own std::vector, copying the
// shared elements first when another copy holds them; push_back and insert go through it, clear
// lets go of the elements. A shared buffer is never written, so no copy sees another's change,
// provided the reference edit() returns is written only until this object is next copied.
#pragma once

#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace shardsim {

template <class T>
class SharedVector {
 public:
  using value_type = T;
  using const_iterator = typename std::vector<T>::const_iterator;
  using size_type = std::size_t;

  SharedVector() = default;
  SharedVector(std::initializer_list<T> items) : SharedVector(std::vector<T>(items)) {}
  SharedVector(std::vector<T> items)  // NOLINT(google-explicit-constructor): a vector's value
      : items_(items.empty() ? nullptr : std::make_shared<std::vector<T>>(std::move(items))) {}

  [[nodiscard]] const std::vector<T>& get() const { return items_ ? *items_ : empty_vector(); }
  // NOLINTNEXTLINE(google-explicit-constructor): read as a vector where one is expected
  operator const std::vector<T>&() const { return get(); }

  [[nodiscard]] const_iterator begin() const { return get().begin(); }
  [[nodiscard]] const_iterator end() const { return get().end(); }
  [[nodiscard]] size_type size() const { return items_ ? items_->size() : 0; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] const T& operator[](size_type i) const { return (*items_)[i]; }
  [[nodiscard]] const T& front() const { return items_->front(); }
  [[nodiscard]] const T& back() const { return items_->back(); }

  // This object's own elements, to change: copied first when another SharedVector shares them.
  // Write through the reference only until this object is next copied.
  std::vector<T>& edit() {
    if (!items_)
      items_ = std::make_shared<std::vector<T>>();
    else if (items_.use_count() > 1)
      items_ = std::make_shared<std::vector<T>>(*items_);
    else  // the last other copy may have just been dropped on another thread: order its reads
      std::atomic_thread_fence(std::memory_order_acquire);  // before this thread's writes
    return *items_;
  }
  void push_back(T item) { edit().push_back(std::move(item)); }
  template <class It>
  void insert(const_iterator pos, It first, It last) {
    const auto at = pos - begin();
    std::vector<T>& v = edit();
    v.insert(v.begin() + at, first, last);
  }
  void clear() { items_.reset(); }

  friend bool operator==(const SharedVector& a, const SharedVector& b) {
    return a.items_ == b.items_ || a.get() == b.get();
  }

 private:
  static const std::vector<T>& empty_vector() {
    static const std::vector<T> none;
    return none;
  }
  std::shared_ptr<std::vector<T>> items_;  // null when empty; written only while unshared
};

}  // namespace shardsim
