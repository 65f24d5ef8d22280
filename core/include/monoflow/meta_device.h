// The built-in "meta" device (Note [The meta device] in meta_device.cc).
#pragma once
#include "monoflow/plugin.h"

namespace monoflow {

// The plugin table the registry installs as the "meta" device type.
const MFDevicePlugin* meta_device_plugin();

}  // namespace monoflow
