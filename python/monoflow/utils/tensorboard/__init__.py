"""monoflow.utils.tensorboard: a SummaryWriter for scalars, text, histograms and
images, writing TensorBoard event files itself (TFRecord framing of hand-encoded
Event protocol buffers; images as PNG encoded here), so that training scripts that
log losses (karpathy/makemore: ``writer.add_scalar("Loss/train", loss, step)``),
weight histograms or sample images run without the tensorboard package. The files
are what TensorBoard reads: one ``events.out.tfevents.*`` per writer in ``log_dir``.

Graphs, embeddings, hparams and PR curves are not written: those methods raise
NotImplementedError naming themselves."""
import math
import os
import socket
import struct
import time
import zlib

import numpy as np

__all__ = ["SummaryWriter"]


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def _crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked_crc(data):
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n):
    out = bytearray()
    n &= (1 << 64) - 1  # negative int64 steps are ten bytes, as protobuf writes them
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field_bytes(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _event(wall_time, step=None, file_version=None, summary=None):
    # Event: 1 wall_time (double), 2 step (int64), 3 file_version (string), 5 summary (Summary)
    out = _varint(1 << 3 | 1) + struct.pack("<d", wall_time)
    if step is not None:
        out += _varint(2 << 3) + _varint(int(step))
    if file_version is not None:
        out += _field_bytes(3, file_version.encode())
    if summary is not None:
        out += _field_bytes(5, summary)
    return out


def _scalar_value(tag, value):
    # Summary.Value: 1 tag (string), 2 simple_value (float)
    return _field_bytes(1, _field_bytes(1, tag.encode()) + _varint(2 << 3 | 5) + struct.pack("<f", value))


def _text_value(tag, text):
    # Summary.Value: 1 tag, 9 metadata {1 plugin_data {1 plugin_name "text"}}, 8 tensor
    # TensorProto: 1 dtype (DT_STRING = 7), 2 tensor_shape {2 dim {1 size 1}}, 8 string_val
    plugin = _field_bytes(9, _field_bytes(1, _field_bytes(1, b"text")))
    shape = _field_bytes(2, _field_bytes(2, _varint(1 << 3) + _varint(1)))
    tensor = _varint(1 << 3) + _varint(7) + shape + _field_bytes(8, text.encode())
    return _field_bytes(1, _field_bytes(1, tag.encode()) + plugin + _field_bytes(8, tensor))


def _packed_doubles(number, values):
    return _field_bytes(number, struct.pack(f"<{len(values)}d", *values))


def _double(number, value):
    return _varint(number << 3 | 1) + struct.pack("<d", float(value))


def _tf_default_bins():
    # TensorFlow's default histogram buckets (torch's bins='tensorflow'): +-1e-12 * 1.1^k up to 1e20, and 0
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return np.array([-x for x in reversed(pos)] + [0.0] + pos)


def _histogram_value(tag, values, bins, max_bins):
    # Summary.Value: 1 tag, 5 histo (HistogramProto: 1 min, 2 max, 3 num, 4 sum, 5 sum_squares,
    # 6 bucket_limit (packed double, each bucket's right edge), 7 bucket (packed double, counts))
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("SummaryWriter.add_histogram(): the input has no values")
    counts, limits = np.histogram(values, bins=_tf_default_bins() if bins == "tensorflow" else bins)
    if max_bins is not None and len(counts) > max_bins:  # merge neighbours, as torch does
        k = int(math.ceil(len(counts) / max_bins))
        pad = (-len(counts)) % k
        counts = np.pad(counts, (0, pad)).reshape(-1, k).sum(1)
        limits = np.concatenate([limits[:-1:k], limits[-1:]])
    nonzero = np.flatnonzero(counts)  # drop the empty buckets at both ends (keep one below the data)
    start, end = max(int(nonzero[0]) - 1, 0) if nonzero.size else 0, int(nonzero[-1]) + 1 if nonzero.size else 1
    counts, right = counts[start:end], limits[start + 1:end + 1]
    histo = (_double(1, values.min()) + _double(2, values.max()) + _double(3, values.size) +
             _double(4, values.sum()) + _double(5, values.dot(values)) +
             _packed_doubles(6, right.tolist()) + _packed_doubles(7, counts.astype(np.float64).tolist()))
    return _field_bytes(1, _field_bytes(1, tag.encode()) + _field_bytes(5, histo))


def _png(hwc):
    """PNG bytes of an (H, W, C) uint8 array, C in 1 (gray), 3 (RGB), 4 (RGBA)."""
    h, w, c = hwc.shape
    color = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + hwc[i].tobytes() for i in range(h))  # filter type 0 on every row

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def _image_value(tag, hwc):
    # Summary.Value: 1 tag, 4 image (Summary.Image: 1 height, 2 width, 3 colorspace, 4 encoded_image_string)
    h, w, c = hwc.shape
    image = (_varint(1 << 3) + _varint(h) + _varint(2 << 3) + _varint(w) + _varint(3 << 3) + _varint(c) +
             _field_bytes(4, _png(hwc)))
    return _field_bytes(1, _field_bytes(1, tag.encode()) + _field_bytes(4, image))


def _numpy(x):
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "cpu"):
        x = x.cpu()
    return np.asarray(x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else x)


def _to_hwc(img, dataformats, what):
    """(H, W, C) uint8 from an image in `dataformats` (torch's rules: floats are scaled by 255,
    one channel becomes three)."""
    img = _numpy(img)
    fmt = dataformats.upper()
    if len(fmt) != img.ndim or len(set(fmt)) != len(fmt) or not set(fmt) <= set("NCHW"):
        raise ValueError(f"SummaryWriter.{what}(): dataformats {dataformats!r} does not describe an image of "
                         f"shape {list(img.shape)}")
    if "N" in fmt:  # a batch: tiled into a grid of up to 8 columns, as torch's make_grid
        img = np.transpose(img, [fmt.index(d) for d in ("N", "C", "H", "W")] if "C" in fmt else
                           [fmt.index(d) for d in ("N", "H", "W")])
        if img.ndim == 3:
            img = img[:, None]
        if img.shape[1] == 1:
            img = np.concatenate([img] * 3, 1)
        n, c, h, w = img.shape
        cols = min(n, 8)
        rows = int(math.ceil(n / cols))
        canvas = np.zeros((c, h * rows, w * cols), dtype=img.dtype)
        for i in range(n):
            r, q = divmod(i, cols)
            canvas[:, r * h:(r + 1) * h, q * w:(q + 1) * w] = img[i]
        img, fmt = canvas, "CHW"
    if fmt == "HW":
        img, fmt = img[..., None], "HWC"
    img = np.transpose(img, [fmt.index(d) for d in "HWC"])
    if img.shape[2] == 1:
        img = np.concatenate([img] * 3, 2)
    if img.dtype != np.uint8:
        img = (img.astype(np.float64) * 255).clip(0, 255).round().astype(np.uint8)
    return np.asarray(img, order="C")


def _as_float(value, what):
    if hasattr(value, "item"):
        value = value.item()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"SummaryWriter.{what}(): scalar_value must be a number or a one-element tensor, not "
                        f"{type(value).__name__}") from None


class SummaryWriter:
    """Writes scalars, text, histograms and images to an event file in ``log_dir``
    (default ``runs/<date>_<host><comment>``), as torch.utils.tensorboard does."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            stamp = time.strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        os.makedirs(self.log_dir, exist_ok=True)
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}.0{filename_suffix}"
        self._file = open(os.path.join(self.log_dir, name), "wb")
        self._write(_event(time.time(), file_version="brain.Event:2"))
        self.flush()

    def get_logdir(self):
        return self.log_dir

    def _write(self, record):
        if self._file is None:
            raise RuntimeError("SummaryWriter: the writer is closed")
        header = struct.pack("<Q", len(record))
        self._file.write(header + struct.pack("<I", _masked_crc(header)) + record +
                         struct.pack("<I", _masked_crc(record)))

    def _summary(self, values, global_step, walltime):
        step = 0 if global_step is None else int(global_step)
        self._write(_event(time.time() if walltime is None else walltime, step=step, summary=b"".join(values)))

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._summary([_scalar_value(tag, _as_float(scalar_value, "add_scalar"))], global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        # torch writes each into its own run directory main_tag_tag; one file with tags main_tag/tag here
        self._summary([_scalar_value(f"{main_tag}/{k}", _as_float(v, "add_scalars"))
                       for k, v in tag_scalar_dict.items()], global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._summary([_text_value(tag, str(text_string))], global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Writes a histogram of ``values`` (a tensor or array): ``bins`` is ``'tensorflow'`` (TF's
        exponential buckets, torch's default) or anything ``numpy.histogram`` takes."""
        self._summary([_histogram_value(tag, _numpy(values), bins, max_bins)], global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Writes an image (a tensor or array, ``dataformats`` ``'CHW'``, ``'HWC'`` or ``'HW'``; floats
        in ``[0, 1]``, uint8 in ``[0, 255]``) as a PNG."""
        self._summary([_image_value(tag, _to_hwc(img_tensor, dataformats, "add_image"))], global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """Writes a batch of images (``'NCHW'`` or ``'NHWC'``) tiled into one grid image."""
        self._summary([_image_value(tag, _to_hwc(img_tensor, dataformats, "add_images"))], global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Writes a matplotlib figure (or a list of them, side by side) rendered as an image."""
        figures = figure if isinstance(figure, (list, tuple)) else [figure]
        images = []
        for fig in figures:
            fig.canvas.draw()
            images.append(np.asarray(fig.canvas.buffer_rgba())[..., :3])
            if close:
                import matplotlib.pyplot as plt

                plt.close(fig)
        height = max(im.shape[0] for im in images)
        images = [np.pad(im, ((0, height - im.shape[0]), (0, 0), (0, 0))) for im in images]
        self.add_image(tag, np.concatenate(images, 1), global_step, walltime, dataformats="HWC")

    def _not_written(self, what):
        def method(*args, **kwargs):
            raise NotImplementedError(f"SummaryWriter.{what}(): monoflow's writer records scalars, text, "
                                      "histograms and images only")
        return method

    def __getattr__(self, name):
        if name.startswith("add_"):
            return self._not_written(name)
        raise AttributeError(f"'SummaryWriter' object has no attribute '{name}'")

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
