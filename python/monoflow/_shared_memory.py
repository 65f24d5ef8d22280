"""Tensors whose memory is a shared memory segment, visible to other processes.

A segment is an anonymous memory file (memfd) mapped MAP_SHARED: another
process that receives its file descriptor maps the same pages, so writes on
either side are seen by both (Hogwild training relies on that). The kernel
frees the pages when the last mapping and descriptor are gone; nothing is
left behind in /dev/shm when a process dies.
"""
import ctypes
import mmap
import os

from monoflow import _C


class SharedSegment:
    """One mapped memory file. Storages over it hold a reference, so it lives
    as long as any tensor viewing it."""

    __slots__ = ("fd", "nbytes", "_map", "_anchor", "__weakref__")

    def __init__(self, nbytes, fd=None):
        if fd is None:
            fd = os.memfd_create("monoflow-shared", os.MFD_CLOEXEC)
            os.ftruncate(fd, max(nbytes, 1))
        self.fd, self.nbytes = fd, nbytes
        # mmap cannot map zero bytes: an empty storage still gets one page.
        self._map = mmap.mmap(fd, max(nbytes, 1), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        # Exporting the buffer pins the mapping (mmap.close() then refuses),
        # so the address stays valid until this object goes.
        self._anchor = ctypes.c_char.from_buffer(self._map)

    @property
    def address(self):
        return ctypes.addressof(self._anchor)

    def __del__(self):
        try:
            os.close(self.fd)
        except (OSError, AttributeError):
            pass


def segment_of(tensor):
    """The segment holding tensor's memory, or None when it is private."""
    owner = _C.storage_owner(tensor)
    return owner if isinstance(owner, SharedSegment) else None


def share_in_place(tensor):
    """Moves tensor's storage (with every view of it) into a new segment,
    unless it is there already; returns the segment."""
    seg = segment_of(tensor)
    if seg is None:
        nbytes = _C.storage_layout(tensor)[0]
        seg = SharedSegment(nbytes)
        _C._move_storage_to(tensor, seg, seg.address, nbytes)
    return seg


def tensor_over(seg, dtype, shape, strides, offset):
    """A tensor viewing `seg` laid out as given (the receiving side)."""
    return _C._borrow_host_memory(seg, seg.address, seg.nbytes, shape, strides, dtype, offset)
