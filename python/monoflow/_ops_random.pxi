# Bindings of the random ops and generators (included by _C.pyx).
from libc.stdint cimport uint64_t


cdef extern from "monoflow/generator.h" namespace "monoflow":
    cdef cppclass CGenerator "monoflow::Generator":
        CGenerator(uint64_t seed)
        void manual_seed(uint64_t seed)
        uint64_t initial_seed()
        uint64_t seed()
        uint64_t offset()
        void set_state(uint64_t seed, uint64_t offset)
    shared_ptr[CGenerator] default_generator(Device device) except +translate_exception
    void manual_seed_all(uint64_t seed)

cdef extern from "monoflow/ops_random.h" namespace "monoflow":
    void c_uniform_ "monoflow::uniform_"(const Tensor& t, double low, double high, CGenerator* gen) except +translate_exception
    void c_normal_ "monoflow::normal_"(const Tensor& t, double mean, double std, CGenerator* gen) except +translate_exception
    void c_random_int_ "monoflow::random_int_"(const Tensor& t, int64_t low, int64_t high, CGenerator* gen) except +translate_exception
    void c_bernoulli_scalar_ "monoflow::bernoulli_scalar_"(const Tensor& t, double p, CGenerator* gen) except +translate_exception
    Tensor c_bernoulli "monoflow::bernoulli"(const Tensor& p, CGenerator* gen) except +translate_exception
    Tensor c_normal_tensor "monoflow::normal_tensor"(const Tensor& mean, const Tensor& std, CGenerator* gen) except +translate_exception
    Tensor c_linspace "monoflow::linspace"(Scalar start, Scalar end, int64_t steps, DType dt, Device dev) except +translate_exception
    Tensor c_eye "monoflow::eye"(int64_t n, int64_t m, DType dt, Device dev) except +translate_exception


@cython.binding(False)
def _auto_generator_device():
    # (monoflow.accelerator's rule: a device type that is the host's own processor, OpenCL on PoCL, is no accelerator)
    for name in device_types():
        if name != "cpu" and device_count(name) > 0 and not all(d["runs_on_host_cpu"]
                                                                for d in device_info(name)["devices"]):
            return name
    return "cpu"


cdef class Generator:
    """Generator(device='cpu')

    A random number generator (Philox, counter-based): the same seed gives
    the same numbers. Give it to random ops as ``generator=`` to draw from a
    stream of one's own instead of the default one.

    Methods: ``manual_seed(seed)`` (returns the generator), ``seed()`` (a
    non-deterministic seed, returned), ``initial_seed()``, ``get_state()``
    and ``set_state(state)`` (a uint8 tensor).

    Args:
        device (str or monoflow.device): the device whose ops it feeds;
            ``"auto"`` (OneFlow's) picks the loaded accelerator, else the CPU.
            Default: ``"cpu"``.

    Example::

        >>> g = flow.Generator().manual_seed(42)
        >>> a = flow.rand(3, generator=g)
        >>> _ = g.manual_seed(42)
        >>> flow.equal(a, flow.rand(3, generator=g))
        True
        >>> g.initial_seed(), g.device
        (42, device(type='cpu', index=0))
    """
    cdef shared_ptr[CGenerator] g
    cdef readonly object device

    def __init__(self, device="cpu"):
        self.g.reset(new CGenerator(67280421310721))
        if isinstance(device, str):
            if device == "auto":  # OneFlow's: the accelerator's when one is loaded, else the CPU's
                device = _auto_generator_device()
            elif device.partition(":")[0] == "cpu":
                device = "cpu"  # OneFlow accepts any CPU index: the host has one CPU device
        try:
            self.device = _wrap_device(_dev(device))
        except TypeError as e:  # (the converter's words name no op: Generator is no Python frame)
            raise TypeError(f"Generator(): argument 'device': {e}") from None
        except RuntimeError as e:  # an unknown device type
            raise RuntimeError(f"Generator(): {e}") from None

    def manual_seed(self, seed):
        self.g.get().manual_seed(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        return self

    def initial_seed(self):
        return self.g.get().initial_seed()

    def seed(self):
        return self.g.get().seed()

    def get_state(self):
        """(seed, offset) as an 16-byte uint8 CPU tensor."""
        import numpy as np
        state = np.array([self.g.get().initial_seed(), self.g.get().offset()], dtype=np.uint64).view(np.uint8)
        return wrap(from_host(<const void*><uintptr_t>state.__array_interface__["data"][0], _dims((16,), "get_state"),
                              <DType>1, _dev("cpu")))

    def set_state(self, new_state):
        import numpy as np
        state = _tensor_obj(new_state, "set_state", "new_state", 1)
        # Through DLPack for host memory: the state is a host-side counter
        # pair, not a kernel result, so setting it inside a graph trace is
        # sound (activation checkpointing restores it around the recompute,
        # Note [Shared random draws] in generator.h); .numpy() is refused there.
        arr = np.asarray(np.from_dlpack(state) if state.device.type == "cpu" else state.numpy(), order="C")
        if arr.dtype != np.uint8 or arr.size != 16:
            raise ValueError("set_state: expected a uint8 tensor of 16 bytes from get_state()")
        seed, offset = (int(v) for v in arr.view(np.uint64))
        self.g.get().set_state(seed, offset)

    def __reduce__(self):
        # pickle and deepcopy (a module holding one is deep-copied): a new
        # generator in the same state, as torch's
        return (_rebuild_generator, (str(self.device), self.g.get().initial_seed(), self.g.get().offset()))


def _rebuild_generator(device, uint64_t seed, uint64_t offset):
    cdef Generator g = Generator(device)
    g.g.get().set_state(seed, offset)
    return g


cdef Generator _wrap_generator(shared_ptr[CGenerator] g, object dev):
    cdef Generator out = Generator.__new__(Generator)
    out.g = g
    out.device = dev
    return out


def default_generator_for(dev=None):
    return _wrap_generator(default_generator(_dev(dev)), _wrap_device(_dev(dev)))


def manual_seed(seed):
    """Seeds the default generator of every device."""
    manual_seed_all(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))


cdef CGenerator* _gen(object generator) except? NULL:
    if generator is None:
        return NULL
    if not isinstance(generator, Generator):
        raise TypeError(name_op_in_progress(f"expected a monoflow.Generator, got {type(generator).__name__}"))
    return (<Generator>generator).g.get()


def uniform_(t, low, high, generator=None):
    c_uniform_(_tt(t, "uniform_", "self"), _float_arg(low, "uniform_", "from"), _float_arg(high, "uniform_", "to"),
               _gen(generator))
    return t


def normal_(t, mean, std, generator=None):
    c_normal_(_tt(t, "normal_", "self"), _float_arg(mean, "normal_", "mean"), _float_arg(std, "normal_", "std"),
              _gen(generator))
    return t


def random_int_(t, low, high, generator=None):
    c_random_int_(_tt(t, "random_", "self"), _int_arg(low, "random_", "from"), _int_arg(high, "random_", "to"),
                  _gen(generator))
    return t


def bernoulli_scalar_(t, p, generator=None):
    c_bernoulli_scalar_(_tt(t, "bernoulli_", "self"), _float_arg(p, "bernoulli_", "p"), _gen(generator))
    return t


def _bernoulli(p, generator=None):
    return wrap(c_bernoulli(_tt(p, "bernoulli", "input", 1), _gen(generator)))


def normal_tensor(mean, std, generator=None):
    return wrap(c_normal_tensor(_tt(mean, "normal", "mean", 1), _tt(std, "normal", "std", 2), _gen(generator)))


def _linspace(start, end, steps, dt, dev=None):
    cdef Scalar a, b
    if not _to_scalar(start, &a):
        raise _arg_error("linspace", "start", 1, "Number", start)
    if not _to_scalar(end, &b):
        raise _arg_error("linspace", "end", 2, "Number", end)
    return wrap(c_linspace(a, b, _int_arg(steps, "linspace", "steps", 3), _dtype_arg(dt, "linspace", "dtype"),
                           _new_dev(dev)))


def _eye(n, m, dt, dev=None):
    return wrap(c_eye(_int_arg(n, "eye", "n", 1), _int_arg(m, "eye", "m", 2), _dtype_arg(dt, "eye", "dtype"),
                      _new_dev(dev)))
