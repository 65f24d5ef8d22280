"""Whether an export is tracing right now (read by is_in_onnx_export)."""

exporting = False
