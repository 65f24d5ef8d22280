#include "monoflow/indexing.h"

#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

Tensor index_basic(const Tensor& t, const std::vector<IndexItem>& items) {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& it : items) {
    if (it.kind == IndexItem::Int || it.kind == IndexItem::Slice) ++consumed;
    if (it.kind == IndexItem::Ellipsis) ++ellipses;
  }
  MF_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  MF_CHECK(consumed <= t->dim(), IndexError, "too many indices for tensor of dimension ", t->dim());
  Tensor r = t;
  int64_t dim = 0;       // next dim of `r` to index
  int64_t orig_dim = 0;  // the dim of `t` it comes from (for messages)
  for (const auto& it : items) {
    switch (it.kind) {
      case IndexItem::Int: {
        int64_t size = r->shape[dim];
        MF_CHECK(it.index >= -size && it.index < size, IndexError, "index ", it.index,
                 " is out of bounds for dimension ", orig_dim, " with size ", size);
        r = select(r, dim, it.index);
        ++orig_dim;
        break;
      }
      case IndexItem::Slice:
        r = slice(r, dim, it.start, it.stop, it.step);
        ++dim;
        ++orig_dim;
        break;
      case IndexItem::None:
        r = unsqueeze(r, dim);
        ++dim;
        break;
      case IndexItem::Ellipsis:
        dim += t->dim() - consumed;
        orig_dim += t->dim() - consumed;
        break;
    }
  }
  if (r == t) r = make_view(t, t->shape, t->strides, t->offset);  // t[...] is a new view
  return r;
}

}  // namespace monoflow
