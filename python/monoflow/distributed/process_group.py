"""Process groups and the default group's lifetime (init/destroy)."""
import datetime
import os
import site
import sys

from monoflow.distributed._lib import lib as _lib

_BACKENDS = ("gloo", "nccl", "mpi")


class ProcessGroup:
    """A set of global ranks that run collectives together; made by :func:`init_process_group` and :func:`new_group`.

    ``ranks`` lists the global ranks in group order; ``rank()`` is this process's
    position in it, ``size()`` the number of ranks, ``backend()`` the engine.
    Users do not construct it directly.

    Args:
        name (str): the group's name, the prefix of its keys in the job's store.
        backend (str): ``"gloo"`` or ``"nccl"``.
        ranks (list of int): the global ranks of the members, in group order.
        my_rank (int): this process's rank in the group.
        cgroup: the collective library's group object.
        timeout_s (float): seconds after which a stuck collective raises ``RuntimeError``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.ProcessGroup  # doctest: +ELLIPSIS
        <class 'monoflow.distributed.process_group.ProcessGroup'>
        >>> g = dist.new_group([0, 1])  # doctest: +SKIP
        >>> g.rank(), g.size(), g.backend()  # doctest: +SKIP
        (0, 2, 'gloo')
    """

    def __init__(self, name, backend, ranks, my_rank, cgroup, timeout_s):
        self.name = name
        self._backend = backend
        self.ranks = list(ranks)
        self._rank = my_rank
        self._c = cgroup
        self.timeout_s = timeout_s

    def rank(self):
        return self._rank

    def size(self):
        return len(self.ranks)

    def backend(self):
        return self._backend

    def group_rank(self, global_rank, what):
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"{what}: global rank {global_rank} is not in the group (ranks {self.ranks})") from None

    def __repr__(self):
        return f"ProcessGroup(name={self.name!r}, backend={self._backend!r}, ranks={self.ranks})"


class GroupMember:
    """Markers of group membership: ``WORLD`` (the default group, once initialized)
    and ``NON_GROUP_MEMBER``, what :func:`new_group` returns on a rank outside the
    new group (collectives on it do nothing and return ``None``).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.GroupMember.NON_GROUP_MEMBER is not None
        True
    """

    WORLD = None
    NON_GROUP_MEMBER = object()


class _GroupNames(type):
    @property
    def WORLD(cls):
        return GroupMember.WORLD


class group(metaclass=_GroupNames):
    """torch's ``dist.group``: ``group.WORLD`` is the default process group (``None`` before
    :func:`init_process_group`), for ``all_reduce(t, group=dist.group.WORLD)``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.group.WORLD is dist.GroupMember.WORLD
        True
    """


class _State:
    store = None       # the job's root store (rank 0 serves it for TCP)
    world = None       # the default ProcessGroup
    groups = []        # every ProcessGroup made, the default first
    group_count = 0    # new_group() calls so far: names the store prefixes
    master_addr = ""


_state = _State()


def nccl_search_dirs():
    """The nvidia/nccl/lib folders of the nvidia-nccl-cu12/-cu13 wheels on sys.path."""
    roots = list(sys.path)
    try:
        roots += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # virtualenvs without site.getsitepackages
        pass
    dirs = []
    for root in roots:
        d = os.path.join(root, "nvidia", "nccl", "lib")
        if root and os.path.isdir(d) and d not in dirs:
            dirs.append(d)
    return dirs


def mpi_search_dirs():
    """Where an MPICH-compatible libmpi.so.12 may be, before the system's library path: MONOFLOW_MPI_LIB_DIR,
    then the lib folder of this Python's prefix, where the ``mpich`` wheel installs it."""
    dirs = [os.environ.get("MONOFLOW_MPI_LIB_DIR", ""), os.path.join(sys.prefix, "lib"),
            os.path.join(sys.base_prefix, "lib")]
    out = []
    for d in dirs:
        if d and os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def is_mpi_available():
    """Whether an MPI library the mpi backend can open is present (``pip install mpich``)."""
    return _lib().mpi_available(mpi_search_dirs())


def is_available():
    """Returns whether monoflow.distributed can be used: always ``True`` (the collective library is built in).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
    """
    return True


def is_gloo_available():
    """Returns whether monoflow was built with the Gloo backend (``backend="gloo"``).

    Example::

        >>> import monoflow.distributed as dist
        >>> isinstance(dist.is_gloo_available(), bool)
        True
    """
    return _lib().gloo_available()


def is_nccl_available():
    """Returns whether the NCCL backend can be loaded (a ``libnccl`` found, e.g. from the nvidia-nccl wheels).

    Example::

        >>> import monoflow.distributed as dist
        >>> isinstance(dist.is_nccl_available(), bool)
        True
    """
    return _lib().nccl_available(nccl_search_dirs())


def is_initialized():
    """Returns whether the default process group is initialized (by :func:`init_process_group`).

    Example::

        >>> import monoflow.distributed as dist
        >>> isinstance(dist.is_initialized(), bool)
        True
    """
    return _state.world is not None


def _timeout_seconds(timeout):
    if timeout is None:
        return 1800.0
    if isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    else:
        seconds = float(timeout)
    if seconds <= 0:
        raise ValueError(f"init_process_group: timeout must be positive, got {timeout!r}")
    return seconds


def default_backend():
    """The best engine present (Note [Default backend]): NCCL when this process has CUDA devices (its tensors
    live there) and libnccl can be loaded, else Gloo for host memory, else MPI."""
    # Note [Default backend]: torch's default group with no backend name is
    # Gloo for CPU tensors and NCCL for CUDA ones. A monoflow group has one
    # engine, so it is chosen once, for the device the job's tensors live on:
    # CUDA when the process has a CUDA device (and then NCCL, the engine made
    # for it, when libnccl loads), else host memory, whose engines in order of
    # preference are Gloo (built in, the fastest on host memory) and MPI
    # (opened at run time, present when Gloo was not built). A job that mixes
    # devices names its backend.
    from monoflow.distributed import queries

    if _cuda_available() and is_nccl_available():
        return "nccl"
    if is_gloo_available():
        return "gloo"
    if queries.is_mpi_available():
        return "mpi"
    raise RuntimeError("init_process_group: no collective engine is present: monoflow was built without Gloo, "
                       "no MPI library was found, and NCCL needs CUDA tensors; install libgloo-dev and reinstall, "
                       "or install an MPI (e.g. pip install mpich)")


def _cuda_available():
    try:
        from monoflow import cuda
        return bool(cuda.is_available())
    except Exception:  # a broken device plugin is reported where devices load; here it means no CUDA
        return False


def _normalise_backend(backend):
    if backend is None:
        return default_backend()
    name = str(backend).lower()
    if name not in _BACKENDS:
        raise ValueError(f"init_process_group: unknown backend {backend!r} (expected 'gloo', 'nccl' or 'mpi')")
    return name


def _connect(backend, name, store, my_rank, ranks, timeout_s):
    if backend == "gloo" and not _lib().gloo_available():
        raise RuntimeError("monoflow was built without Gloo: install libgloo-dev and reinstall")
    if backend == "nccl":
        _lib().nccl_library(nccl_search_dirs())  # RuntimeError naming where it looked
    prefixed = _lib().prefix_store(name, store)
    cgroup = _lib().new_group(backend, prefixed, my_rank, len(ranks), timeout_s, _state.master_addr,
                             mpi_search_dirs() if backend == "mpi" else nccl_search_dirs())
    return ProcessGroup(name, backend, ranks, my_rank, cgroup, timeout_s)


def _library_store(store):
    """The collective library's store behind a Store object (TCPStore, FileStore, PrefixStore)."""
    from monoflow.distributed.store import _LibraryStore

    if isinstance(store, _LibraryStore):
        return store._c
    if isinstance(store, _lib().CStore):
        return store
    raise TypeError(f"init_process_group(): argument 'store' must be a TCPStore, FileStore or PrefixStore, "
                    f"not {type(store).__name__} (the process group's threads reach it from C++)")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    """Joins the job's default process group, which the collectives use when given no group.

    Every process of the job calls it. Where OneFlow's rule applies (global
    tensors, DDP), a process that never calls it joins from the launcher's
    environment on first use, or is a world of one.

    Args:
        backend (str, optional): ``"gloo"`` (host memory) or ``"nccl"``; ``ValueError``
            for another name. Default: the best engine present for the job's tensors: ``"nccl"`` when this
            process has CUDA devices and NCCL loads, else ``"gloo"``, else ``"mpi"``; :func:`get_backend`
            says which.
        init_method (str, optional): how the processes find each other: ``"env://"``
            (rank, world size and rank 0's address from the environment of torchrun, srun, mpirun or
            ``monoflow.distributed.run``),
            ``"tcp://host:port"`` or ``"file:///directory"``. Default: ``"env://"``.
        timeout (datetime.timedelta or float, optional): a collective whose peer is
            dead or never arrives raises ``RuntimeError`` after this (seconds).
            Default: 30 minutes.
        world_size (int): the number of processes; ``-1`` reads it from the
            environment (WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE). Default: ``-1``.
        rank (int): this process's rank, in ``[0, world_size)``; ``-1`` reads it from
            the environment (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK). Default: ``-1``.
        store (Store, optional): a :class:`TCPStore`, :class:`FileStore` or
            :class:`PrefixStore` to meet through instead of ``init_method``; needs
            ``rank`` and ``world_size``. Default: ``None``.
        group_name (str): accepted for torch compatibility and ignored. Default: ``""``.
        pg_options: accepted for torch compatibility and ignored. Default: ``None``.

    Raises:
        RuntimeError: when the default group is already initialized.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.init_process_group("gloo")  # doctest: +SKIP
        >>> dist.get_rank(), dist.get_world_size()  # doctest: +SKIP
        (0, 2)
        >>> dist.destroy_process_group()  # doctest: +SKIP
    """
    from monoflow.distributed.rendezvous import rendezvous

    if is_initialized():
        raise RuntimeError("init_process_group: the default process group is already initialized; "
                           "call destroy_process_group() first")
    backend = _normalise_backend(backend)
    timeout_s = _timeout_seconds(timeout)
    if store is not None:
        store = _library_store(store)
        if rank < 0 or world_size < 1:
            raise ValueError("init_process_group: with store=, pass rank= and world_size= too")
        if rank >= world_size:
            raise ValueError(f"init_process_group: rank {rank} is out of range for world_size {world_size}")
        master = os.environ.get("MASTER_ADDR", "127.0.0.1")
    else:
        store, rank, world_size, master = rendezvous(init_method or "env://", rank, world_size, timeout_s)
    _state.store, _state.master_addr = store, master
    _state.group_count = 0
    world = _connect(backend, "pg0", store, rank, range(world_size), timeout_s)
    _state.world = world
    _state.groups = [world]
    GroupMember.WORLD = world


def init_from_environment():
    """OneFlow's rule: a process needs no init_process_group call. Under the
    launcher, torchrun, srun or mpirun (a rank and a world size in the
    environment: Note [Scheduler environments]) it joins its job from the
    environment on first use; a plain process is a
    world of one on a private loopback store. No-op when initialized."""
    if is_initialized():
        return
    from monoflow.distributed import cluster_env

    if cluster_env.launched():
        init_process_group()
    else:
        init_process_group(init_method="tcp://127.0.0.1:0", rank=0, world_size=1)


def destroy_process_group(group=None):
    """Tears down ``group``, or, when ``None``, every group and the job's store.

    Operations still in flight on the group are waited for first.

    Args:
        group (ProcessGroup, optional): the group to close. Default: ``None`` (all).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.init_process_group("gloo")  # doctest: +SKIP
        >>> dist.destroy_process_group()  # doctest: +SKIP
        >>> dist.is_initialized()  # doctest: +SKIP
        False
    """
    if group is None or group is _state.world:
        for g in _state.groups:
            _close(g)
        _state.world, _state.groups, _state.store = None, [], None
        GroupMember.WORLD = None
    else:
        _close(group)
        if group in _state.groups:
            _state.groups.remove(group)


def _close(g):
    if g._c is not None:
        from monoflow.distributed.collectives import _drain
        _drain(g)
        g._c.close()
        g._c = None


def default_group(what):
    if _state.world is None:
        raise RuntimeError(f"{what}: the default process group is not initialized; call "
                           f"monoflow.distributed.init_process_group() first")
    return _state.world


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """Makes a sub-group of the default group, for collectives among ``ranks`` only.

    As in torch, every rank of the job must call ``new_group`` in the same
    order, members or not; a non-member gets ``GroupMember.NON_GROUP_MEMBER``.

    Args:
        ranks (list of int, optional): the global ranks of the members. Default: all ranks.
        timeout (datetime.timedelta or float, optional): the group's collective
            timeout. Default: the default group's.
        backend (str, optional): ``"gloo"`` or ``"nccl"``. Default: the default group's.
        pg_options: accepted for torch compatibility and ignored. Default: ``None``.

    Returns:
        ProcessGroup: the new group (or ``GroupMember.NON_GROUP_MEMBER``).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> evens = dist.new_group([0, 2])  # doctest: +SKIP
        >>> dist.all_reduce(flow.ones(1), group=evens)  # doctest: +SKIP
    """
    world = default_group("new_group")
    ranks = sorted(set(range(world.size()) if ranks is None else [int(r) for r in ranks]))
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r} is out of range for world size {world.size()}")
    if not ranks:
        raise ValueError("new_group: ranks must not be empty")
    _state.group_count += 1
    name = f"pg{_state.group_count}"
    backend = _normalise_backend(backend) if backend is not None else world.backend()
    timeout_s = _timeout_seconds(timeout) if timeout is not None else world.timeout_s
    me = world.rank()
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    g = _connect(backend, name, _state.store, ranks.index(me), ranks, timeout_s)
    _state.groups.append(g)
    return g


def _group(group, what):
    if group is None:
        return default_group(what)
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"{what}: group must be a ProcessGroup from new_group(), got {type(group).__name__}")
    if group._c is None:
        raise RuntimeError(f"{what}: {group!r} was destroyed")
    return group


def get_rank(group=None):
    """Returns this process's rank in ``group``: ``-1`` on a rank outside it.

    Args:
        group (ProcessGroup, optional): the group; ``None`` is the default group.

    Without an initialized default group (and ``group=None``) the answer is
    ``flow.env.get_rank()``'s, from the environment (0 in a plain process), as
    in OneFlow, whose ``flow.distributed.get_rank()`` needs no init call (torch
    raises there).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.get_rank()  # a plain process
        0
    """
    if group is None and _state.world is None:  # OneFlow's answer: the job's rank from the environment
        from monoflow import env

        return env.get_rank()
    g = _group(group, "get_rank")
    if g is None:
        return -1
    return g.rank()


def get_world_size(group=None):
    """Returns the number of ranks in ``group``: ``-1`` on a rank outside it.

    Args:
        group (ProcessGroup, optional): the group; ``None`` is the default group.

    Without an initialized default group (and ``group=None``) the answer is
    ``flow.env.get_world_size()``'s, from the environment (1 in a plain
    process), as in OneFlow (torch raises there).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.get_world_size()  # a plain process
        1
    """
    if group is None and _state.world is None:  # OneFlow's answer: the job's world size from the environment
        from monoflow import env

        return env.get_world_size()
    g = _group(group, "get_world_size")
    if g is None:
        return -1
    return g.size()


def get_backend(group=None):
    """Returns the backend of ``group``: ``"gloo"`` or ``"nccl"`` (the one :func:`init_process_group` chose when
    given none).

    Args:
        group (ProcessGroup, optional): the group; ``None`` is the default group.

    Raises:
        RuntimeError: on a rank outside the group, or when no group is initialized.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.Backend.GLOO
        'gloo'
        >>> dist.get_backend()  # doctest: +SKIP
        'gloo'
    """
    g = _group(group, "get_backend")
    if g is None:
        raise RuntimeError("get_backend: this rank is not a member of the group")
    return g.backend()


def get_global_rank(group, group_rank):
    """Returns the global rank of the member at position ``group_rank`` of ``group``.

    Args:
        group (ProcessGroup): the group.
        group_rank (int): a rank within the group.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.get_global_rank(dist.new_group([1, 3]), 1)  # doctest: +SKIP
        3
    """
    g = _group(group, "get_global_rank")
    return g.ranks[group_rank]


def get_process_group_ranks(group):
    """Returns the global ranks of ``group``'s members, in group order.

    Args:
        group (ProcessGroup): the group (``None``: the default group).

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> dist.get_process_group_ranks(dist.new_group([1, 3]))  # doctest: +SKIP
        [1, 3]
    """
    g = _group(group, "get_process_group_ranks")
    return list(g.ranks)
