"""monoflow.utils.tensorboard: a SummaryWriter for scalars and text, writing
TensorBoard event files itself (TFRecord framing of hand-encoded Event protocol
buffers), so that training scripts that log losses (karpathy/makemore:
``writer.add_scalar("Loss/train", loss, step)``) run without the tensorboard
package. The files are what TensorBoard reads: one ``events.out.tfevents.*``
per writer in ``log_dir``.

Images, histograms, graphs and embeddings are not written: those methods raise
NotImplementedError naming themselves."""
import os
import socket
import struct
import time

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


def _as_float(value, what):
    if hasattr(value, "item"):
        value = value.item()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"SummaryWriter.{what}(): scalar_value must be a number or a one-element tensor, not "
                        f"{type(value).__name__}") from None


class SummaryWriter:
    """Writes scalars and text to an event file in ``log_dir``
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

    def _not_written(self, what):
        def method(*args, **kwargs):
            raise NotImplementedError(f"SummaryWriter.{what}(): monoflow's writer records scalars and text only")
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
