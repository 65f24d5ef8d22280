// The value of a counter key (Store::add): decimal text, as torch's stores keep
// it, so that get() of a counter reads "3" in both frameworks and add() on a
// key set to "12" continues from 12.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "monoflow/collective/store.h"

namespace monoflow::collective {

// 0 for an absent (empty) value; std::invalid_argument (ValueError in Python)
// for one that is not a decimal integer.
inline int64_t parse_counter(const Bytes& value, const std::string& key) {
  if (value.empty()) return 0;
  std::string text(value.begin(), value.end());
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size() || errno == ERANGE || text.size() != std::string(text.c_str()).size())
    throw std::invalid_argument("Store.add(): the value of key '" + key + "' is not an integer");
  return int64_t(v);
}

inline Bytes format_counter(int64_t v) {
  std::string text = std::to_string(v);
  return Bytes(text.begin(), text.end());
}

}  // namespace monoflow::collective
