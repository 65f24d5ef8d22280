"""Atomic checkpoint writes, and the clean-up of temporaries that writers
killed mid-save left behind."""
import os
import re
import socket
import stat
import tempfile


def _new_file_mode(path):
    """The permissions open(path, 'w') would give: the old file's, or 0o666 & ~umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        pass
    umask = None
    try:  # Linux: read it without changing it (os.umask() is process-wide)
        with open("/proc/self/status") as s:
            for line in s:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
    except OSError:
        pass
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def _fsync_dir(d):
    if os.name != "posix":
        return
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _writer_tag():
    """host.pid of this process: a temporary's name says who writes it."""
    host = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"
    return host, os.getpid()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, under another user
        return True
    return True


def remove_stale_temporaries(directory, name):
    """Deletes the temporaries of `name` that writers on this host left when
    they died mid-save (killed, power loss). A temporary of a live process,
    of another host (a shared file system) or of an unknown name is kept."""
    host, me = _writer_tag()
    pattern = re.compile(rf"\.{re.escape(name)}\.{re.escape(host)}\.([0-9]+)\.[A-Za-z0-9_]+\.tmp")
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for entry in entries:
        m = pattern.fullmatch(entry)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid != me and not _alive(pid):
            try:
                os.unlink(os.path.join(directory, entry))
            except OSError:
                pass  # another writer removed it first, or we may not


def atomic_write(path, write):
    """Writes `path` through write(fp) so that it is either the old file or the
    complete new one: a temporary in the same directory (named
    .<name>.<host>.<pid>.<random>.tmp, so that a later save can tell whether
    its writer is still alive), fsynced, renamed over the target."""
    # resolve symlinks so that a link keeps pointing at the (replaced) checkpoint,
    # as with open(path, "wb")
    path = os.path.realpath(path)
    directory, name = os.path.split(path)
    mode = _new_file_mode(path)
    remove_stale_temporaries(directory, name)
    host, pid = _writer_tag()
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.{host}.{pid}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fp:
            write(fp)
            fp.flush()
            os.fsync(fp.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)  # makes the rename itself durable
