"""repr() of tensors, formatted as PyTorch formats them."""
import numpy as np

from monoflow import _dtypes

EDGE_ITEMS = 3
THRESHOLD = 1000
PRECISION = 4


def _host_values(t):
    if t.dtype == _dtypes.bfloat16:
        t = t.float()
    return t.numpy() if t.device.type == "cpu" else t.cpu().numpy()


def _summarize(a):
    # Keep the first and last EDGE_ITEMS along every dim (for the width scan).
    if a.ndim == 0:
        return a
    for d in range(a.ndim):
        if a.shape[d] > 2 * EDGE_ITEMS:
            idx = list(range(EDGE_ITEMS)) + list(range(a.shape[d] - EDGE_ITEMS, a.shape[d]))
            a = np.take(a, idx, axis=d)
    return a


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        flat = values.ravel()
        if floating:
            finite = flat[np.isfinite(flat)].astype(np.float64)
            self.int_mode = bool(finite.size == 0 or np.all(finite == np.ceil(finite)))
            nonzero = np.abs(finite[finite != 0])
            if nonzero.size:
                hi, lo = nonzero.max(), nonzero.min()
                if self.int_mode:
                    self.sci_mode = hi > 1e8
                else:
                    self.sci_mode = hi / lo > 1000.0 or hi > 1e8 or lo < 1e-4
        self.width = max((len(self._fmt(v)) for v in flat), default=1)

    def _fmt(self, v):
        if isinstance(v, (bool, np.bool_)):
            return "True" if v else "False"
        if not self.floating:
            return str(int(v))
        v = float(v)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def __call__(self, v):
        return self._fmt(v).rjust(self.width)


def _format(a, fmt, indent, summarize):
    if a.ndim == 0:
        return fmt(a.item() if hasattr(a, "item") else a)
    n = a.shape[0]
    cut = summarize and n > 2 * EDGE_ITEMS
    rows = list(range(EDGE_ITEMS)) + [None] + list(range(n - EDGE_ITEMS, n)) if cut else list(range(n))
    if a.ndim == 1:
        items = ["..." if i is None else fmt(a[i]) for i in rows]
        return "[" + ", ".join(items) + "]"
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    parts = ["..." if i is None else _format(a[i], fmt, indent + 1, summarize) for i in rows]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t, prefix="tensor(", suffixes=()):
    suffixes = list(suffixes)
    default_dtypes = (_dtypes.float32, _dtypes.int64, _dtypes.bool_)
    if t.device.type != "cpu":
        suffixes.insert(0, f"device='{t.device}'")
    values = _host_values(t)
    summarize = values.size > THRESHOLD
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
    else:
        shown = _summarize(values) if summarize else values
        fmt = _Formatter(shown, t.dtype.is_floating_point)
        body = _format(values, fmt, len(prefix), summarize)
    if t.dtype not in default_dtypes or (values.size == 0 and t.dtype != _dtypes.float32):
        suffixes.append(f"dtype={t.dtype!r}")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
