"""The "Double Backward with Custom Functions" and "Fusing Convolution and Batch Norm using Custom Function"
tutorials: a custom autograd.Function's backward run under create_graph sees its saved inputs and outputs
with their history (gradgradcheck passes, second derivatives equal torch's), @once_differentiable, extra
trailing None gradients, and gradcheck's torch keywords."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.autograd.function import once_differentiable

torch = pytest.importorskip("torch")


def functions(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(lib.autograd.Function):  # saves its output
        @staticmethod
        def forward(ctx, x):
            result = lib.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out

    class Sinh(lib.autograd.Function):  # saves intermediate results returned as extra outputs
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = lib.exp(x), lib.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, grad_exp, grad_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += grad_exp * expx
            grad_input -= grad_negexp * expnegx
            return grad_input

    class CubeBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return grad_out * 3 * x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, grad_out_prev = ctx.saved_tensors
            return grad_out * 3 * x ** 2, grad_out * grad_out_prev * 6 * x

    class Cube(lib.autograd.Function):  # a backward that is itself a custom Function
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    return {"square": Square.apply, "exp": Exp.apply, "sinh": lambda x: Sinh.apply(x)[0], "cube": Cube.apply}


@pytest.mark.parametrize("name", ["square", "exp", "sinh", "cube"])
def test_second_derivatives_match_torch(name):
    a = np.random.default_rng(0).uniform(0.2, 1.0, (3, 3))
    res = []
    for lib in (torch, flow):
        x = lib.tensor(a, requires_grad=True)
        fn = functions(lib)[name]
        y = fn(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        assert g.requires_grad
        gg, = lib.autograd.grad((g * g).sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
        assert lib.autograd.gradgradcheck(fn, (x,))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12)


def test_saved_output_kept_by_the_caller_is_used_live():
    x = flow.tensor([0.3, 0.7], dtype=flow.float64, requires_grad=True)
    y = functions(flow)["exp"](x)
    g, = flow.autograd.grad(y.sum(), x, create_graph=True)
    gg, = flow.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.3, 0.7]), rtol=1e-12)


def test_first_derivatives_do_not_record_a_graph():
    x = flow.tensor([0.3, 0.7], dtype=flow.float64, requires_grad=True)
    functions(flow)["square"](x).sum().backward()
    assert not x.grad.requires_grad
    np.testing.assert_allclose(x.grad.numpy(), [0.6, 1.4])


def test_once_differentiable_and_extra_none_gradients():
    class Double(flow.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=2.0):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x * scale

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            assert not flow.is_grad_enabled()
            return grad_out * ctx.scale, None, None, None  # torch accepts extra trailing Nones

    x = flow.tensor([1.0, 2.0], requires_grad=True)
    Double.apply(x, 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    x.grad = None
    # as torch: an output gradient that requires grad makes the result differentiable, and differentiating
    # it raises; one that does not leaves the result without history
    v = flow.ones(2, requires_grad=True)
    g, = flow.autograd.grad(Double.apply(x), x, grad_outputs=v, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()
    g, = flow.autograd.grad(Double.apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad

    class TooMany(flow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        TooMany.apply(x).sum().backward()


def test_fused_conv_bn_function_matches_torch():
    # the tutorial's FusedConvBN2DFunction: a hand-written backward under @once_differentiable
    def build(lib):
        F = lib.nn.functional
        from_mod = lib.autograd.function

        def unsqueeze_all(t):
            return t[None, :, None, None]

        def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
            tmp = ((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
            tmp *= -1
            d_denom = tmp / (sqrt_var + eps) ** 2
            d_var = d_denom / (2 * sqrt_var)
            d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
            d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
            grad_input = X * unsqueeze_all(d_var * N)
            grad_input += unsqueeze_all(-d_var * sum)
            grad_input *= 2 / ((N - 1) * N)
            grad_input += d_mean_dx
            grad_input *= unsqueeze_all(sqrt_var + eps)
            grad_input += grad_out
            grad_input /= unsqueeze_all(sqrt_var + eps)
            return grad_input

        class FusedConvBN2DFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, X, conv_weight, eps=1e-3):
                ctx.save_for_backward(X, conv_weight)
                X = F.conv2d(X, conv_weight)
                sum = X.sum(dim=(0, 2, 3))
                var = X.var(unbiased=True, dim=(0, 2, 3))
                N = X.numel() / X.size(1)
                sqrt_var = lib.sqrt(var)
                ctx.eps, ctx.sum, ctx.N, ctx.sqrt_var = eps, sum, N, sqrt_var
                X = X - unsqueeze_all(sum / N)
                X /= unsqueeze_all(sqrt_var + eps)
                return X

            @staticmethod
            @from_mod.once_differentiable
            def backward(ctx, grad_out):
                X, conv_weight = ctx.saved_tensors
                grad_out = batch_norm_backward(grad_out, F.conv2d(X, conv_weight), ctx.sum, ctx.sqrt_var, ctx.N,
                                               ctx.eps)
                grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
                grad_X = F.conv_transpose2d(grad_out, conv_weight)
                return grad_X, grad_input, None, None, None, None, None

        return FusedConvBN2DFunction.apply

    rng = np.random.default_rng(1)
    w, x = rng.random((5, 3, 3, 3)), rng.random((2, 3, 4, 4))
    grads = []
    for lib in (torch, flow):
        W, X = lib.tensor(w, requires_grad=True), lib.tensor(x, requires_grad=True)
        assert lib.autograd.gradcheck(build(lib), (X, W), fast_mode=False)
        out = build(lib)(X, W)
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum().backward()
        grads.append((out.detach().numpy(), X.grad.numpy(), W.grad.numpy()))
    for m, t in zip(grads[1], grads[0]):
        np.testing.assert_allclose(m, t, rtol=1e-9, atol=1e-12)


def test_gradcheck_accepts_torch_keywords():
    x = flow.tensor([0.5, 1.5], dtype=flow.float64, requires_grad=True)
    assert flow.autograd.gradcheck(flow.sin, (x,), fast_mode=True, nondet_tol=0.0, check_undefined_grad=True,
                                   check_grad_dtypes=True, masked=None)
    assert flow.autograd.gradgradcheck(flow.sin, (x,), fast_mode=True, check_grad_dtypes=True)
    assert flow.autograd.gradcheck(lambda t: t.numpy(), (x,), check_backward_ad=False)  # nothing checked
    # inputs (and outputs) given as lists, as torch takes them
    y = flow.tensor([2.0, -1.0], dtype=flow.float64, requires_grad=True)
    assert flow.autograd.gradcheck(lambda a, b: [a * b, a.sin()], [x, y])
    assert flow.autograd.gradgradcheck(lambda a, b: a * b * b, [x, y])
    with pytest.raises(flow.autograd.GradcheckError, match="mismatch"):  # a list input still checked
        flow.autograd.gradcheck(lambda a, b: a * b.detach(), [x, y])
    with pytest.raises(NotImplementedError, match="check_forward_ad"):
        flow.autograd.gradcheck(flow.sin, (x,), check_forward_ad=True)
    with pytest.raises(NotImplementedError, match="check_batched_grad"):
        flow.autograd.gradgradcheck(flow.sin, (x,), check_batched_grad=True)


def setup_context_functions(lib):
    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class MyCube(lib.autograd.Function):  # returns an intermediate as an output, saved in setup_context
        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x

    return LinearFunction.apply, lambda x: MyCube.apply(x)[0]


def test_setup_context_style_functions_match_torch():
    # the "Extending PyTorch" note's forward-without-ctx + setup_context style
    rng = np.random.default_rng(5)
    a, w, b = rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)
    res = []
    for lib in (torch, flow):
        linear, cube = setup_context_functions(lib)
        A, W, B = (lib.tensor(v, requires_grad=True) for v in (a, w, b))
        assert lib.autograd.gradcheck(linear, (A, W, B), eps=1e-6, atol=1e-4)
        assert lib.autograd.gradcheck(linear, (A, W, None))
        assert lib.autograd.gradgradcheck(cube, (B,))
        linear(A, W, B).pow(2).sum().backward()
        g, = lib.autograd.grad(cube(B).sum(), B, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), B)
        res.append([A.grad.numpy(), W.grad.numpy(), B.grad.numpy(), gg.numpy()])
    for m, t in zip(res[1], res[0]):
        np.testing.assert_allclose(m, t, rtol=1e-12)
