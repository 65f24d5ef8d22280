#include "monoflow/device.h"

#include <cctype>

#include "monoflow/backend.h"
#include "monoflow/error.h"

namespace monoflow {

std::string Device::str() const {
  const std::string& name = DeviceRegistry::get().backend(type).name();
  return str_cat(name, ":", index);
}

Device parse_device(const std::string& spec) {
  std::string name = spec;
  int64_t index = 0;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    name = spec.substr(0, colon);
    std::string num = spec.substr(colon + 1);
    bool ok = !num.empty() && num.size() < 9;
    for (char c : num) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    MF_CHECK(ok, RuntimeError, "Invalid device string: '", spec, "'");
    index = std::stoll(num);
  }
  Backend* b = DeviceRegistry::get().find(name);
  if (!b) {
    std::string known;
    for (auto& n : DeviceRegistry::get().names()) known += (known.empty() ? "" : ", ") + n;
    const std::string why = DeviceRegistry::get().deferred_failure(name);
    throw RuntimeError(str_cat("Unknown device type '", name, "' in device string '", spec,
                               "' (registered device types: ", known, ")",
                               why.empty() ? "" : str_cat(" (the built-in ", name, " plugin could not be loaded: ", why, ")"),
                               ". A device type comes from its plugin: load one with monoflow.devices.load(path), "
                               "the MONOFLOW_DEVICE_PLUGINS environment variable or a 'monoflow.devices' entry "
                               "point"));
  }
  // The host is one device: cpu:N names it, as torch's device('cpu', N) does and as OneFlow's
  // programs write flow.device("cpu", rank) in every process.
  if (name == "cpu") index = 0;
  MF_CHECK(index < b->device_count(), RuntimeError, "Invalid device '", spec, "': ", name, " has ",
           b->device_count(), " device(s)");
  return Device{b->type_id(), static_cast<int16_t>(index)};
}

}  // namespace monoflow
