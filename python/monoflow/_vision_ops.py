"""The torchvision operators monoflow implements itself, as ``ops.torchvision.*``.

torchvision's Python layer registers fake kernels for ``torchvision::nms`` and
``torchvision::qnms`` when it is imported, whether or not its C++ extension
loaded; on monoflow that extension cannot load (monoflow._ops.load_library), so
these operators come from monoflow: nms and roi_align run monoflow's own
kernels (OneFlow's nms and roi_align, which match torchvision's values).
The others are declared with no kernel, so calling them raises
NotImplementedError as torch's dispatcher does for a backend an operator
has no kernel for (qnms has kernels only for quantized tensors, which monoflow
lacks). torchvision.extension._has_ops() stays False, so torchvision's own
wrappers (torchvision.ops.nms ...) still say that its C++ ops did not load."""
from . import library, ops_detection, ops_extra_names

_lib = library.Library("torchvision", "DEF")
for _schema in (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio, bool aligned) -> Tensor",
    "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio) -> (Tensor, Tensor)",
    "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, "
    "SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
    "SymInt offset_groups, bool use_mask) -> Tensor",
):
    _lib.define(_schema)
_lib.impl("nms", ops_extra_names.nms, "CompositeExplicitAutograd")
_lib.impl("roi_align", ops_detection.roi_align, "CompositeImplicitAutograd")
