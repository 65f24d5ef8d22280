"""The exporter's error type (torch.onnx's name)."""


class OnnxExporterError(RuntimeError):
    """Raised by a failing export: an op or module the exporter cannot write as ONNX."""
