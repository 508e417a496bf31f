// SharedVector (simulator/core/shared_vector.h): copies share their elements until one changes,
// a change never shows in another copy, and equality means what std::vector's means.
#include "simulator/core/shared_vector.h"

#include <gtest/gtest.h>

#include <vector>

namespace shardsim {
namespace {

TEST(shared_vector, CopiesShareUntilOneChanges) {
  SharedVector<int> a = std::vector<int>{1, 2, 3};
  const SharedVector<int> b = a;
  EXPECT_EQ(&a.get(), &b.get());  // one buffer
  a.edit()[0] = 7;                // a copies before it writes
  EXPECT_NE(&a.get(), &b.get());
  EXPECT_EQ(a.get(), (std::vector<int>{7, 2, 3}));
  EXPECT_EQ(b.get(), (std::vector<int>{1, 2, 3}));  // the other copy kept its elements
  EXPECT_FALSE(a == b);
}

TEST(shared_vector, AnUnsharedVectorChangesInPlace) {
  SharedVector<int> a = std::vector<int>{1, 2};
  const std::vector<int>* before = &a.get();
  a.push_back(3);
  EXPECT_EQ(&a.get(), before);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.back(), 3);
}

TEST(shared_vector, EqualityComparesElementsOfTablesThatAreNotCopies) {
  const SharedVector<int> a = std::vector<int>{1, 2, 3}, b = std::vector<int>{1, 2, 3};
  EXPECT_NE(&a.get(), &b.get());
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == SharedVector<int>(std::vector<int>{1, 2}));
  EXPECT_TRUE(SharedVector<int>() == SharedVector<int>(std::vector<int>{}));
}

// An element type that counts its comparisons.
struct Counted {
  int value = 0;
  static inline int compared = 0;
  bool operator==(const Counted& o) const {
    ++compared;
    return value == o.value;
  }
};

TEST(shared_vector, CopiesCompareWithoutReadingTheirElements) {
  const SharedVector<Counted> a = std::vector<Counted>{{1}, {2}, {3}};
  const SharedVector<Counted> copy = a, other = std::vector<Counted>{{1}, {2}, {3}};
  Counted::compared = 0;
  EXPECT_TRUE(a == copy);
  EXPECT_EQ(Counted::compared, 0);  // the memo's case: by address
  EXPECT_TRUE(a == other);
  EXPECT_EQ(Counted::compared, 3);  // not a copy: element by element
}

TEST(shared_vector, InsertAndClearGoThroughACopy) {
  SharedVector<int> a = {1, 4};
  const SharedVector<int> b = a;
  const int more[] = {2, 3};
  a.insert(a.begin() + 1, std::begin(more), std::end(more));
  EXPECT_EQ(a.get(), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(b.get(), (std::vector<int>{1, 4}));
  a.insert(a.end(), std::begin(more), std::end(more));
  EXPECT_EQ(a.get(), (std::vector<int>{1, 2, 3, 4, 2, 3}));
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b.size(), 2u);
  a.push_back(5);  // from empty
  EXPECT_EQ(a.get(), (std::vector<int>{5}));
}

}  // namespace
}  // namespace shardsim
