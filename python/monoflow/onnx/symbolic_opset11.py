"""torch.onnx.symbolic_opset11: a module that symbolic functions import at definition time
(``from torch.onnx import symbolic_opset11 as opset11``). Its TorchScript builders (``opset11.unsqueeze(g, ...)``)
are used only inside symbolic functions, which monoflow's exporter does not run (see _custom_symbolics), so it
defines none: a symbolic that did run would fail on the missing name."""
