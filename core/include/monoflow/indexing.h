// Basic indexing (tensor[...]): ints, slices, None and Ellipsis give views.
#pragma once
#include <optional>
#include <vector>

#include "monoflow/tensor.h"

namespace monoflow {

struct IndexItem {
  enum Kind { Int, Slice, None, Ellipsis } kind;
  int64_t index = 0;                            // Int
  std::optional<int64_t> start, stop;           // Slice
  int64_t step = 1;                             // Slice
};

Tensor index_basic(const Tensor& t, const std::vector<IndexItem>& items);

}  // namespace monoflow
