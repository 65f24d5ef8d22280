# Declarations of the C++ core used by _C.pyx.
from cpython.object cimport PyObject
from libc.stdint cimport int8_t, int16_t, int64_t, uint64_t
from libcpp cimport bool as cbool
from libcpp.map cimport map as cmap
from libcpp.memory cimport shared_ptr
from libcpp.optional cimport optional
from libcpp.pair cimport pair
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from "_errors.h" namespace "monoflow_py":
    void translate_exception()
    enum:
        kOutOfMemoryError
        kDynamicShapeError
        kIndexRuntimeError
        kValueRuntimeError
        kZeroDivisionRuntimeError
    void set_error_class(int which, object t)
    void install_warning_handler(object callable)
    void release_pyobject(void* obj)
    ctypedef PyObject* (*MessageHook)(PyObject* message) noexcept
    void set_message_hook(MessageHook h)

cdef extern from "monoflow/small_vector.h" namespace "monoflow":
    cdef cppclass Dims:
        Dims()
        void push_back(int64_t v)
        size_t size()
        int64_t& operator[](size_t i)

cdef extern from "monoflow/dtype.h" namespace "monoflow":
    cdef enum class DType(int8_t):
        pass
    size_t itemsize(DType t)
    DType c_promote_types "monoflow::promote_types"(DType a, DType b)
    cbool c_can_cast "monoflow::can_cast"(DType a, DType b)
    DType default_float_dtype()
    void set_default_float_dtype(DType t)

cdef extern from "monoflow/device.h" namespace "monoflow":
    cdef cppclass Device:
        int16_t type
        int16_t index
        cbool is_cpu()
        string str() except +translate_exception
    Device parse_device(const string& spec) except +translate_exception

cdef extern from "monoflow/storage.h" namespace "monoflow":
    cdef cppclass Storage:
        void* data
        size_t nbytes
        Device device
        int64_t version
        cbool host_visible
        void retire_if_exported(shared_ptr[Storage] old)
        void begin_export()
        void end_export()
    shared_ptr[Storage] borrow "monoflow::Storage::borrow"(Device d, void* data, size_t nbytes,
                                                          void (*release)(void*), void* ctx) except +translate_exception

cdef extern from "monoflow/tensor.h" namespace "monoflow":
    cdef cppclass TensorImpl:
        shared_ptr[Storage] storage
        Dims shape
        Dims strides
        int64_t offset
        DType dtype
        cbool wrapped_number
        cbool global_shard
        shared_ptr[TensorImpl] view_base
        int64_t dim()
        int64_t numel()
        const Device& device()
        cbool is_contiguous()
        cbool has_internal_overlap()
        void* data_ptr()
        int64_t version()
    ctypedef shared_ptr[TensorImpl] Tensor
    Tensor c_empty "monoflow::empty"(const Dims& shape, DType dtype, Device device) except +translate_exception
    Tensor make_view(const Tensor& base, Dims shape, Dims strides, int64_t offset) except +translate_exception

cdef extern from "monoflow/scalar.h" namespace "monoflow":
    cdef cppclass Scalar:
        int kind
        int64_t i
        double f
    Scalar scalar_from_bool "monoflow::Scalar::from_bool"(cbool v)
    Scalar scalar_from_int "monoflow::Scalar::from_int"(int64_t v)
    Scalar scalar_from_float "monoflow::Scalar::from_float"(double v)

cdef extern from "monoflow/op_registry.h" namespace "monoflow":
    int find_op(const string& name)
    cdef enum OpId:
        kOp_add, kOp_sub, kOp_mul, kOp_div, kOp_floor_divide, kOp_maximum, kOp_minimum
        kOp_add_scalar, kOp_sub_scalar, kOp_rsub_scalar, kOp_mul_scalar, kOp_div_scalar, kOp_rdiv_scalar
        kOp_eq, kOp_ne, kOp_lt, kOp_le, kOp_gt, kOp_ge, kOp_neg

cdef extern from "monoflow/indexing.h" namespace "monoflow":
    cdef enum IndexKind "monoflow::IndexItem::Kind":
        IDX_INT "monoflow::IndexItem::Int"
        IDX_SLICE "monoflow::IndexItem::Slice"
        IDX_NONE "monoflow::IndexItem::None"
        IDX_ELLIPSIS "monoflow::IndexItem::Ellipsis"
    cdef cppclass IndexItem:
        IndexItem()
        IndexKind kind
        int64_t index
        optional[int64_t] start
        optional[int64_t] stop
        int64_t step
    Tensor index_basic(const Tensor& t, const vector[IndexItem]& items) except +translate_exception

cdef extern from "monoflow/ops.h" namespace "monoflow":
    Tensor c_full "monoflow::full"(const Dims& shape, Scalar value, DType dtype, Device device) except +translate_exception
    Tensor c_arange "monoflow::arange"(Scalar start, Scalar end, Scalar step, optional[DType] dtype, Device device) except +translate_exception
    Tensor from_host(const void* src, const Dims& shape, DType dtype, Device device) except +translate_exception
    Tensor to(const Tensor& t, Device device, DType dtype, cbool copy) except +translate_exception
    Tensor contiguous(const Tensor& t) except +translate_exception
    Tensor clone(const Tensor& t) except +translate_exception
    void copy_(const Tensor& dst, const Tensor& src) except +translate_exception
    void fill_(const Tensor& t, Scalar value) except +translate_exception
    void copy_to_host(const Tensor& t, void* dst) except +translate_exception
    Scalar item(const Tensor& t) except +translate_exception
    void c_synchronize "monoflow::synchronize"(Device device) except +translate_exception
    void relocate_storage(const Tensor& t, Device device) except +translate_exception
    Tensor binary(int op, const Tensor& a, const Tensor& b) except +translate_exception
    void binary_(int op, const Tensor& a, const Tensor& b) except +translate_exception
    Tensor binary_scalar(int op, const Tensor& a, Scalar s) except +translate_exception
    void binary_scalar_(int op, const Tensor& a, Scalar s) except +translate_exception
    Tensor unary(int op, const Tensor& x) except +translate_exception
    Tensor scalar_operand(const Tensor& other, Scalar s) except +translate_exception
    Tensor sum(const Tensor& x, const Dims& dims, cbool keepdim, optional[DType] dtype) except +translate_exception
    Tensor matmul(const Tensor& a, const Tensor& b) except +translate_exception
    Tensor view(const Tensor& t, const Dims& shape) except +translate_exception
    Tensor reshape(const Tensor& t, const Dims& shape) except +translate_exception
    Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) except +translate_exception
    Tensor permute(const Tensor& t, const Dims& dims) except +translate_exception
    Tensor expand(const Tensor& t, const Dims& shape) except +translate_exception
    Tensor squeeze(const Tensor& t, optional[int64_t] dim) except +translate_exception
    Tensor unsqueeze(const Tensor& t, int64_t dim) except +translate_exception
    Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) except +translate_exception
    Tensor select(const Tensor& t, int64_t dim, int64_t index) except +translate_exception
    Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) except +translate_exception
    Tensor flatten(const Tensor& t, int64_t start, int64_t end) except +translate_exception
    Tensor as_strided(const Tensor& t, const Dims& shape, const Dims& strides, int64_t offset) except +translate_exception
    Dims c_broadcast_shapes "monoflow::broadcast_shapes"(const Dims& a, const Dims& b, const char* op) except +translate_exception

cdef extern from "monoflow/allocator.h" namespace "monoflow":
    cdef cppclass AllocatorStats:
        int64_t allocated_bytes, reserved_bytes, peak_allocated_bytes, peak_reserved_bytes
        int64_t num_allocs, cache_hits, num_raw_allocs, num_raw_frees, num_oom_retries, active_blocks
    cdef cppclass CachingAllocator:
        void empty_cache() except +translate_exception
        void reset_peak()
        AllocatorStats stats()

cdef extern from "monoflow/plugin.h":
    cdef cppclass MFDeviceProperties:
        char name[128]
        unsigned long long total_memory
        int multiprocessor_count
        int runs_on_host_cpu

cdef extern from "monoflow/backend.h" namespace "monoflow":
    cdef cppclass Backend:
        const string& name()
        const string& path()
        int device_count()
        cbool host_memory()
        CachingAllocator& allocator(int index) except +translate_exception
        MFDeviceProperties properties(int index) except +translate_exception
        void synchronize_all() except +translate_exception
        int num_threads() except +translate_exception
        void set_num_threads(int n) except +translate_exception
    cdef cppclass DeviceRegistry:
        string load(const string& path) except +translate_exception
        Backend& backend(int16_t type_id) except +translate_exception
        Backend* find(const string& name)
        vector[string] names()
        void defer(const string& name, const string& path) except +translate_exception
        void load_deferred() except +translate_exception
        string deferred_failure(const string& name)
        cmap[pair[string, string], int64_t] fallback_counts()
    DeviceRegistry& registry "monoflow::DeviceRegistry::get"()

cdef extern from "monoflow/autograd.h" namespace "monoflow::autograd":
    cdef cppclass GradHook:
        pass
    cdef cppclass BackwardFn:
        pass
    cdef cppclass Edge:
        shared_ptr[Node_t] fn
        int input_nr
    cdef cppclass Node_t "monoflow::autograd::Node":
        string name()
        vector[Edge] next_edges
    cbool grad_enabled()
    void set_grad_enabled(cbool enabled)
    cbool ag_requires_grad "monoflow::autograd::requires_grad"(const Tensor& t)
    cbool ag_is_leaf "monoflow::autograd::is_leaf"(const Tensor& t)
    void ag_set_requires_grad "monoflow::autograd::set_requires_grad"(const Tensor& t, cbool v) except +translate_exception
    Tensor ag_grad "monoflow::autograd::grad"(const Tensor& t)
    void ag_set_grad "monoflow::autograd::set_grad"(const Tensor& t, const Tensor& g) except +translate_exception
    shared_ptr[Node_t] ag_grad_fn "monoflow::autograd::grad_fn"(const Tensor& t)
    Tensor ag_detach "monoflow::autograd::detach"(const Tensor& t)
    Tensor ag_formal_input "monoflow::autograd::formal_input"(const string& op, const Tensor& out, const Tensor& x) except +translate_exception
    void ag_detach_ "monoflow::autograd::detach_"(const Tensor& t) except +translate_exception
    void ag_retain_grad "monoflow::autograd::retain_grad"(const Tensor& t) except +translate_exception
    cbool ag_retains_grad "monoflow::autograd::retains_grad"(const Tensor& t)
    int64_t ag_register_hook "monoflow::autograd::register_hook"(const Tensor& t, GradHook hook) except +translate_exception
    int64_t ag_register_post_accumulate_hook "monoflow::autograd::register_post_accumulate_hook"(const Tensor& t, GradHook hook) except +translate_exception
    void ag_remove_hook "monoflow::autograd::remove_hook"(const Tensor& t, int64_t id)
    void ag_backward "monoflow::autograd::backward"(const vector[Tensor]& roots, const vector[Tensor]& grads,
                                                  cbool retain_graph, cbool create_graph,
                                                  const vector[Tensor]& inputs) except +translate_exception
    vector[Tensor] ag_grad_of "monoflow::autograd::grad"(const vector[Tensor]& roots, const vector[Tensor]& inputs,
                                                       const vector[Tensor]& grads, cbool retain_graph,
                                                       cbool create_graph, cbool allow_unused) except +translate_exception
    vector[Tensor] ag_record_custom "monoflow::autograd::record_custom"(const string& name, const vector[Tensor]& inputs,
                                                                     const vector[Tensor]& outputs,
                                                                     BackwardFn fn) except +translate_exception

cdef extern from "_autograd_py.h" namespace "monoflow_py":
    ctypedef Tensor (*HookCall)(object fn, const Tensor& g) noexcept
    ctypedef vector[Tensor] (*BackwardCall)(object fn, const vector[Tensor]& grads) noexcept
    GradHook make_hook(object fn, HookCall call)
    BackwardFn make_backward(object fn, BackwardCall call)
    ctypedef PyObject* (*PackCall)(object fn, const Tensor& t) noexcept
    ctypedef Tensor (*UnpackCall)(object fn, PyObject* packed) noexcept
    cppclass SavedTensorHooks "monoflow::autograd::SavedTensorHooks":
        pass
    shared_ptr[SavedTensorHooks] make_saved_hooks(object pack_fn, object unpack_fn, PackCall pack,
                                                  UnpackCall unpack)

cdef extern from "monoflow/autograd.h" namespace "monoflow::autograd":
    void ag_push_saved_hooks "monoflow::autograd::push_saved_tensor_hooks"(
        shared_ptr[SavedTensorHooks] hooks) except +translate_exception
    void ag_pop_saved_hooks "monoflow::autograd::pop_saved_tensor_hooks"() except +translate_exception

cdef extern from "monoflow/ops_nn.h" namespace "monoflow":
    Tensor c_conv2d "monoflow::conv2d"(const Tensor& x, const Tensor& w, const Tensor& bias, const Dims& stride,
                                       const Dims& padding, const Dims& dilation, int64_t groups) except +translate_exception
    Tensor c_conv_transpose2d "monoflow::conv_transpose2d"(const Tensor& x, const Tensor& w, const Tensor& bias,
                                                           const Dims& stride, const Dims& padding,
                                                           const Dims& output_padding, int64_t groups,
                                                           const Dims& dilation) except +translate_exception
    Tensor c_conv2d_weight_grad "monoflow::conv2d_weight_grad"(const Tensor& x, const Tensor& gy, const Dims& weight_shape,
                                                               const Dims& stride, const Dims& padding,
                                                               const Dims& dilation, int64_t groups) except +translate_exception
    pair[Tensor, Tensor] c_max_pool2d "monoflow::max_pool2d"(const Tensor& x, const Dims& kernel_size, const Dims& stride,
                                                             const Dims& padding, const Dims& dilation,
                                                             cbool ceil_mode) except +translate_exception
    Tensor c_avg_pool2d "monoflow::avg_pool2d"(const Tensor& x, const Dims& kernel_size, const Dims& stride,
                                               const Dims& padding, cbool ceil_mode, cbool count_include_pad,
                                               int64_t divisor_override) except +translate_exception
    Tensor c_adaptive_avg_pool2d "monoflow::adaptive_avg_pool2d"(const Tensor& x, const Dims& output_size) except +translate_exception
    Tensor c_layer_norm "monoflow::layer_norm"(const Tensor& x, int64_t normalized_ndim, const Tensor& weight,
                                                const Tensor& bias, double eps) except +translate_exception
    pair[Tensor, Tensor] c_adaptive_max_pool2d "monoflow::adaptive_max_pool2d"(const Tensor& x, const Dims& output_size) except +translate_exception

cdef extern from "monoflow/ops_rnn.h" namespace "monoflow":
    pair[Tensor, Tensor] c_lstm_cell "monoflow::lstm_cell"(const Tensor& gates, const Tensor& c) except +translate_exception
    pair[Tensor, Tensor] c_lstm_cell_backward "monoflow::lstm_cell_backward"(const Tensor& gh, const Tensor& gc, const Tensor& gates, const Tensor& c, const Tensor& c_new) except +translate_exception

cdef extern from "monoflow/ops_fused.h" namespace "monoflow":
    Tensor c_add_alpha "monoflow::add_alpha"(const Tensor& a, const Tensor& b, Scalar alpha) except +translate_exception
    void c_add_alpha_ "monoflow::add_alpha_"(const Tensor& self, const Tensor& b, Scalar alpha) except +translate_exception
    Tensor c_addcmul "monoflow::addcmul"(const Tensor& self, const Tensor& t1, const Tensor& t2,
                                         Scalar value) except +translate_exception
    void c_addcmul_ "monoflow::addcmul_"(const Tensor& self, const Tensor& t1, const Tensor& t2,
                                         Scalar value) except +translate_exception
    Tensor c_addcdiv "monoflow::addcdiv"(const Tensor& self, const Tensor& t1, const Tensor& t2,
                                         Scalar value) except +translate_exception
    void c_addcdiv_ "monoflow::addcdiv_"(const Tensor& self, const Tensor& t1, const Tensor& t2,
                                         Scalar value) except +translate_exception
    void c_sgd_momentum_ "monoflow::sgd_momentum_"(const Tensor& p, const Tensor& buf, const Tensor& g, double momentum,
                                                   double scale, double lr) except +translate_exception

cdef extern from "monoflow/profiler.h" namespace "monoflow::profiler":
    cdef enum class Kind "monoflow::profiler::Kind":
        pass
    cdef cppclass Event:
        Kind kind
        string name
        int64_t start_ns, end_ns, thread
        string device
        uint64_t stream, correlation
        int64_t bytes, allocated, reserved, extra
        string shapes
    void profiler_start "monoflow::profiler::start"(cbool record_shapes, cbool profile_memory) except +translate_exception
    vector[Event] profiler_stop "monoflow::profiler::stop"() except +translate_exception
    cbool profiler_active "monoflow::profiler::active"()
