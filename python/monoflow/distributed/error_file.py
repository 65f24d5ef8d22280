"""When a rank's uncaught exception happened, for the launcher's report.

The launcher gives each rank MONOFLOW_ERROR_FILE; importing monoflow installs
a sys.excepthook that writes there the time and the exception before the
usual traceback. The time matters: a rank's sockets close while its
interpreter shuts down, so its peers can fail (and exit) before the launcher
sees the rank itself exit; the exception's time says who failed first.
"""
import json
import os
import sys
import time

ENV = "MONOFLOW_ERROR_FILE"


def install():
    path = os.environ.get(ENV)
    if not path or getattr(sys.excepthook, "_monoflow_error_file", False):
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        try:
            with open(path, "w") as f:
                json.dump({"time": time.time(), "type": kind.__name__, "message": str(value)}, f)
        except OSError:
            pass  # the report loses a detail; the traceback still prints
        previous(kind, value, tb)

    hook._monoflow_error_file = True
    sys.excepthook = hook


def read(path):
    """The record a rank wrote, or None."""
    try:
        with open(path) as f:
            record = json.load(f)
        return record if isinstance(record.get("time"), (int, float)) else None
    except (OSError, ValueError, AttributeError):
        return None
