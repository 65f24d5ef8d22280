"""The ONNX graph being written during an export: values by tensor identity,
nodes, and initializers (parameters and constants met while tracing)."""

import numpy as np

_NP_TO_ONNX = {"float32": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 6, "int64": 7,
               "bool": 9, "float16": 10, "float64": 11}


def to_numpy(t):
    return np.asarray(np.asarray(t.detach().numpy()), order="C")


class GraphBuilder:
    def __init__(self, opset=17):
        self.opset = opset
        from onnx import helper, numpy_helper
        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes, self.initializers = [], []
        self._names = {}      # id(tensor) -> value name
        self._keep = []       # keeps traced tensors alive so their ids stay unique
        self._count = 0
        self._const_of = {}   # id(tensor) -> initializer name (parameters, buffers)

    def fresh(self, hint="v"):
        self._count += 1
        return f"{hint}_{self._count}"

    def is_traced(self, t):
        return id(t) in self._names

    def bind(self, t, name):
        self._names[id(t)] = name
        self._keep.append(t)

    def const(self, array, hint="const"):
        name = self.fresh(hint)
        self.initializers.append(self.numpy_helper.from_array(np.asarray(array), name))
        return name

    def name(self, t, like=None):
        """The value name of a tensor; a tensor the trace did not produce
        (a parameter, a buffer, a constant) becomes an initializer once.
        A Python number becomes a constant of the dtype of ``like``."""
        if id(t) in self._names:
            return self._names[id(t)]
        if isinstance(t, (bool, int, float)):
            dtype = to_numpy(like).dtype if like is not None else np.float32
            return self.const(np.array(t, dtype=dtype), "scalar")
        if id(t) not in self._const_of:
            self._const_of[id(t)] = self.const(to_numpy(t), "param")
            self._keep.append(t)
        return self._const_of[id(t)]

    def node(self, op, inputs, n_out=1, **attrs):
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op, list(inputs), outs, name=self.fresh("n_" + op), **attrs))
        return outs[0] if n_out == 1 else outs

    def ints(self, values):
        return self.const(np.array(list(values), dtype=np.int64), "ints")
