// Device: a small value type naming one device of one registered type.
#pragma once
#include <cstdint>
#include <string>

namespace monoflow {

struct Device {
  int16_t type = 0;   // index into the DeviceRegistry; 0 is always "cpu"
  int16_t index = 0;  // device ordinal within the type
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == 0; }
  std::string str() const;  // "cpu", "testdev:1"
};

// Parses "cpu", "cuda:1", "testdev" (index 0). Throws RuntimeError for an
// unknown type and a malformed string.
Device parse_device(const std::string& spec);

}  // namespace monoflow
