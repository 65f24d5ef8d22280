"""The device-plugin conformance kit.

``python -m monoflow.devices.conformance TARGET [--json out.json]`` checks a
device plugin, given as a registered device type (``cpu``, ``testdev``, ...)
or as the path of its library, in two suites:

- ``contract`` (contract.py): the ABI contract, on the plugin's table through
  ctypes: version and struct sizes, errors and ``last_error``, stream order,
  events across streams, asynchronous errors, allocator stress, odd copies,
  threads;
- ``ops`` (ops.py): every (op, dtype) kernel the plugin registers, run through
  monoflow on the device and compared with the CPU over random shapes
  (zero-size and 0-d included), dtypes and non-contiguous strides.

Each suite runs in a child process (isolate.py), so a crash fails a check
rather than the kit. See docs/writing_a_plugin.md.
"""
import os

from monoflow.devices.conformance.report import Report

__all__ = ["run", "resolve", "Report"]


def resolve(target):
    """(device type or "", path of the library) of a TARGET."""
    if os.path.sep in target or target.endswith(".so") or os.path.isfile(target):
        return "", os.path.abspath(target)
    from monoflow import devices

    if target not in devices.available():
        raise ValueError(f"{target!r} is neither a registered device type ({', '.join(devices.available())}) "
                         "nor a plugin library path")
    return target, devices.info(target)["path"]


def run(target, suites=("contract", "ops"), examples=None, seed=0, timeout=300.0):
    """Runs the kit on `target`; returns the Report."""
    from monoflow.devices.conformance.isolate import run_suite

    # The plugin is only ever opened in the children: this process survives it.
    device_type, path = resolve(target)
    report = Report(target, device_type, path)
    options = [f"--seed={seed}"] + ([f"--examples={examples}"] if examples else [])
    for suite in suites:
        info = {}
        for result in run_suite(suite, path, timeout=timeout, options=options if suite == "ops" else (), info=info):
            report.add(result)
        report.device_type = report.device_type or info.get("device_type", "")
    return report
