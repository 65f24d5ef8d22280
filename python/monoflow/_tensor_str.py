"""repr() of tensors, formatted as PyTorch formats them (torch/_tensor_str.py
with its default print options): the same choice of integer/fixed/scientific
notation, widths, summarisation with "...", line wrapping at 80 columns and
suffixes (device, size, dtype)."""
import math

import numpy as np

from monoflow import _C, _dtypes

EDGE_ITEMS = 3
THRESHOLD = 1000
PRECISION = 4
LINEWIDTH = 80
SCI_MODE = None  # None: chosen per tensor; True/False forces it (monoflow.set_printoptions)


def _host_values(t):
    if t.dtype == _dtypes.bfloat16:
        t = t.float()
    return t.numpy() if t.device.type == "cpu" else t.cpu().numpy()


def _summarize(a):
    # The first and last EDGE_ITEMS along every dim: what the formatter scans.
    if a.ndim == 0:
        return a
    for d in range(a.ndim):
        if a.shape[d] > 2 * EDGE_ITEMS:
            idx = list(range(EDGE_ITEMS)) + list(range(a.shape[d] - EDGE_ITEMS, a.shape[d]))
            a = np.take(a, idx, axis=d)
    return a


class _Formatter:
    """Picks one notation and width for all elements. For floats only the
    nonzero finite values decide (zeros, nan and inf may end up wider); the
    width is that of their strings in the notation finally used, a forced
    sci_mode (set_printoptions) included."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.ravel()
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        f64 = flat.astype(np.float64)
        nonzero = f64[np.isfinite(f64) & (f64 != 0)]
        if nonzero.size == 0:
            return
        lo, hi = np.abs(nonzero).min(), np.abs(nonzero).max()
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE
        else:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or (not self.int_mode and lo < 1.0e-4))
        if self.sci_mode:
            fmt = lambda v: f"{v:.{PRECISION}e}"  # noqa: E731
        elif self.int_mode:
            fmt = lambda v: f"{v:.0f}."  # noqa: E731
        else:
            fmt = lambda v: f"{v:.{PRECISION}f}"  # noqa: E731
        for v in nonzero.tolist():
            self.max_width = max(self.max_width, len(fmt(v)))

    def __call__(self, value):
        if isinstance(value, (bool, np.bool_)) or not self.floating:
            ret = f"{value}"
        elif self.sci_mode:
            ret = f"{value:{self.max_width}.{PRECISION}e}"
        elif self.int_mode:
            ret = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                ret += "."
        else:
            ret = f"{value:.{PRECISION}f}"
        return (self.max_width - len(ret)) * " " + ret


class _ComplexFormatter:
    """torch's complex layout: the real and imaginary parts each formatted
    as floats, "a+bj": the real part padded to its formatter's width, the
    imaginary part unpadded, the whole element not padded further."""

    def __init__(self, values):
        self.real, self.imag = _Formatter(values.real, True), _Formatter(values.imag, True)
        self.max_width = self.real.max_width + self.imag.max_width + 1  # what a line makes room for

    def __call__(self, value):
        value = complex(value)
        im = (self.imag(value.imag) + "j").lstrip()
        return self.real(value.real) + (im if im[0] in "+-" else "+" + im)


def _vector_str(a, indent, summarize, fmt):
    element_length = fmt.max_width + 2  # with ", "
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and a.shape[0] > 2 * EDGE_ITEMS:
        data = ([fmt(v) for v in a[:EDGE_ITEMS].tolist()] + [" ..."] +
                [fmt(v) for v in a[-EDGE_ITEMS:].tolist()])
    else:
        data = [fmt(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _format(a, fmt, indent, summarize):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * EDGE_ITEMS:
        rows = list(range(EDGE_ITEMS)) + [None] + list(range(n - EDGE_ITEMS, n))
    else:
        rows = list(range(n))
    parts = ["..." if i is None else _format(a[i], fmt, indent + 1, summarize) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text, suffixes, indent):
    # A suffix that would cross the line width goes on a line of its own.
    out = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t, prefix="tensor("):
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = _C.get_default_dtype()
    if t.device.type == "meta":  # no values to show (torch's form)
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != default:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "..."
    elif t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != default:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if t.dtype not in (default, _dtypes.int64, _dtypes.bool_, _dtypes.default_complex()):
            suffixes.append(f"dtype={t.dtype!r}")
        values = _host_values(t.detach())
        summarize = values.size > THRESHOLD
        shown = _summarize(values) if summarize else values
        fmt = _ComplexFormatter(shown) if t.dtype.is_complex else _Formatter(shown, t.dtype.is_floating_point)
        body = _format(values, fmt, indent, summarize)
    if t.grad_fn is not None:
        name = t.grad_fn.name()
        suffixes.append(f"grad_fn=<{name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
