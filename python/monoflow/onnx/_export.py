"""export(): trace the model once under the recorder and write the ModelProto."""


from ._builder import GraphBuilder, _NP_TO_ONNX
from ._errors import OnnxExporterError
from ._recording import Recorder
from . import _state


def _flat_tensors(obj, what):
    from .._tensor import Tensor
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _flat_tensors(o, what)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _flat_tensors(o, what)]
    raise OnnxExporterError(f"monoflow.onnx.export(): {what} must be tensors (or tuples of them), "
                            f"not {type(obj).__name__}")


def _value_info(helper, name, t, axes):
    arr_dtype = str(t.dtype).replace("monoflow.", "")
    if arr_dtype not in _NP_TO_ONNX:
        raise OnnxExporterError(f"monoflow.onnx.export(): dtype {t.dtype} is not supported")
    dims = list(t.shape)
    if isinstance(axes, dict):
        for i, label in axes.items():
            dims[i] = label
    elif isinstance(axes, (list, tuple)):
        for i in axes:
            dims[i] = f"{name}_dynamic_axes_{i}"
    return helper.make_tensor_value_info(name, _NP_TO_ONNX[arr_dtype], dims)


def export(model, args=(), f=None, export_params=True, verbose=False, training=None, input_names=None,
           output_names=None, dynamic_axes=None, opset_version=None, do_constant_folding=True,
           dynamo=False, **kwargs):
    """Trace ``model`` once on ``args`` and write it to ``f`` (a path or a binary
    file-like object) as an ONNX model, as ``torch.onnx.export`` does.

    Args:
        model (nn.Module, nn.Graph or callable): what to export; run once on ``args`` (an
            ``nn.Graph``: its ``build``, with its modules in the mode ``training`` says).
        args (Tensor or tuple): the example inputs; a trailing dict is passed as keyword arguments.
        f (str, path or file-like): where the model is written.
        export_params (bool): store the parameters in the file; ``False`` is refused. Default: ``True``.
        verbose (bool): print the graph. Default: ``False``.
        training (TrainingMode name, optional): ``EVAL`` (the default) runs the model in eval mode,
            ``TRAINING`` in train mode, ``PRESERVE`` as it is; the mode is restored afterwards.
        input_names (list of str, optional): the graph's input names. Default: ``input``, ``input_1``, ...
        output_names (list of str, optional): the output names. Default: ``output``, ``output_1``, ...
        dynamic_axes (dict, optional): a name to ``{axis: label}`` or a list of axes, written as
            symbolic dims.
        opset_version (int, optional): 17 or newer. Default: 17.
        do_constant_folding (bool): calls that do not depend on the inputs are always stored as
            constants, so folding is always in effect.
        dynamo (bool): accepted and ignored (there is one exporter), as are the other torch options
            in ``kwargs`` (``keep_initializers_as_inputs``, ...).

    Raises:
        OnnxExporterError: a call on a traced tensor has no ONNX converter (the message names the op
        and the module it ran in), or an option is not supported.

    Example::

        >>> import io, onnx
        >>> buf = io.BytesIO()
        >>> flow.onnx.export(nn.Sequential(nn.Linear(4, 2), nn.ReLU()), (flow.randn(1, 4),), buf,
        ...                  input_names=["x"], dynamic_axes={"x": {0: "batch"}}, dynamo=True)
        >>> [n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node]
        ['Gemm', 'Relu']
    """
    try:
        import onnx
        from onnx import helper
    except ImportError as e:
        raise ImportError("monoflow.onnx.export() needs the onnx package: pip install monoflow[onnx]") from e
    from .. import nn
    if f is None:
        raise TypeError("monoflow.onnx.export(): argument 'f' (a path or a file-like object) is required")
    if not export_params:
        raise OnnxExporterError("monoflow.onnx.export(): export_params=False is not supported")
    opset = 17 if opset_version is None else int(opset_version)
    if opset < 17:
        raise OnnxExporterError(f"monoflow.onnx.export(): opset_version {opset} < 17 is not supported")
    kwargs = {}
    if isinstance(args, tuple) and args and isinstance(args[-1], dict):
        args, kwargs = args[:-1], args[-1]
    elif not isinstance(args, tuple):
        args = (args,)
    inputs = _flat_tensors((args, kwargs), "inputs")
    dynamic_axes = dynamic_axes or {}

    b = GraphBuilder(opset)
    in_names = list(input_names or [])
    in_names += [f"input_{i}" if i else "input" for i in range(len(in_names), len(inputs))][:len(inputs)]
    for t, n in zip(inputs, in_names):
        if b.is_traced(t):
            raise OnnxExporterError("monoflow.onnx.export(): the same tensor is passed twice as an input")
        b.bind(t, n)

    # an nn.Graph is exported from its build() run eagerly over its modules (the
    # plan it would compile computes the same), a Module or callable from a call
    if isinstance(model, nn.Graph):
        call, modules = model.build, list(model._modules.values())
    else:
        call, modules = model, [model] if isinstance(model, nn.Module) else []
    was_training = [m.training for m in modules]
    train_mode = str(training).rsplit(".", 1)[-1].upper() if training is not None else "EVAL"
    if train_mode != "PRESERVE":
        for m in modules:
            m.train(train_mode == "TRAINING")
    rec = Recorder(b)
    from .. import no_grad
    rec.install()
    _state.exporting = True
    try:
        with no_grad():
            result = call(*args, **kwargs)
    finally:
        _state.exporting = False
        rec.uninstall()
        for m, mode in zip(modules, was_training):
            m.train(mode)

    outputs = _flat_tensors(result, "model outputs")
    out_names = list(output_names or [])
    out_names += [f"output_{i}" if i else "output" for i in range(len(out_names), len(outputs))][:len(outputs)]
    for t, n in zip(outputs, out_names):
        if not b.is_traced(t):  # an output that does not depend on the inputs: a constant
            b.nodes.append(helper.make_node("Identity", [b.name(t)], [n]))
        else:
            src = b.name(t)
            if src in in_names:
                b.nodes.append(helper.make_node("Identity", [src], [n]))
            else:  # rename the producing node's output to the requested name
                for node in b.nodes:
                    node.input[:] = [n if x == src else x for x in node.input]
                    node.output[:] = [n if x == src else x for x in node.output]
    graph = helper.make_graph(
        b.nodes, type(model).__name__ if model is not None else "graph",
        [_value_info(helper, n, t, dynamic_axes.get(n)) for t, n in zip(inputs, in_names)],
        [_value_info(helper, n, t, dynamic_axes.get(n)) for t, n in zip(outputs, out_names)],
        b.initializers)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="monoflow")
    # the oldest IR version that carries the opset: readable by older onnxruntime releases
    proto.ir_version = min(proto.ir_version, 8 if opset <= 18 else 9 if opset <= 20 else proto.ir_version)
    if verbose:
        print(helper.printable_graph(graph))
    data = proto.SerializeToString()
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(f, "wb") as fh:
            fh.write(data)
    return None
