"""karpathy/micrograd test_engine.py's torch checks: torch.Tensor([..]).double(), requires_grad set
as an attribute, relu/pow/div/in-place += on non-leaf results, .data.item(), .grad.item()."""


def run(torch, init=None):
    out = {}
    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y
    out["sanity"] = (ypt.data.item(), xpt.grad.item(), str(ypt.dtype).split(".")[-1])

    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    out["more"] = (g.data.item(), a.grad.item(), b.grad.item())
    # the in-place spelling of the same
    a2 = torch.tensor([-4.0], dtype=torch.float64, requires_grad=True)
    d2 = a2 * 2
    d2 += d2 * 2 + a2.relu()
    d2 *= 1.5
    d2.sum().backward()
    out["inplace"] = (d2.item(), a2.grad.item(), d2.grad_fn is not None, d2.is_leaf, a2.is_leaf)
    return out
