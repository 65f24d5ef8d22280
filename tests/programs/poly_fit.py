"""The "Learning PyTorch with Examples" tutorial in small: fit sin(x) on
[-pi, pi] by a third-order polynomial five ways -- raw tensors with
hand-written gradients, autograd with a manual update under no_grad, a custom
autograd.Function (a Legendre polynomial P3 with save_for_backward), an
nn.Sequential(Linear, Flatten(0, 1)) with MSELoss(reduction='sum') updated by
hand and then by RMSprop, and a custom nn.Module whose forward reuses one
parameter a random number of times (python random), trained by SGD with momentum.

run(torch, init=None) -> dict(losses={stage: [loss per step]}, init=...): with
init (a previous run's) every stage starts from the same numbers."""
import math
import random


def run(torch, init=None, steps=60, seed=0):
    torch.manual_seed(seed)
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = torch.sin(x)
    start = {} if init is None else init
    out = {}

    def scalars(name, n, requires_grad=False):
        if name not in start:
            start[name] = [torch.randn((), dtype=dtype).item() for _ in range(n)]
        return [torch.tensor(v, dtype=dtype, requires_grad=requires_grad) for v in start[name]]

    # 1. tensors and hand-written gradients
    a, b, c, d = scalars("tensor", 4)
    lr, losses = 1e-5, []
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        losses.append((y_pred - y).pow(2).sum().item())
        grad_y_pred = 2.0 * (y_pred - y)
        a -= lr * grad_y_pred.sum()
        b -= lr * (grad_y_pred * x).sum()
        c -= lr * (grad_y_pred * x ** 2).sum()
        d -= lr * (grad_y_pred * x ** 3).sum()
    out["tensor"] = losses + [a.item(), b.item(), c.item(), d.item()]

    # 2. autograd
    a, b, c, d = scalars("autograd", 4, requires_grad=True)
    losses = []
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    out["autograd"] = losses

    # 3. a custom autograd.Function
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    losses = []
    for t in range(steps):
        P3 = LegendrePolynomial3.apply
        loss = (a + b * P3(c + d * x) - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-5 * p.grad
                p.grad = None
    out["function"] = losses

    # 4. nn, by hand then with an optimizer
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    if "nn" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["nn"].items()})
    else:
        start["nn"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    loss_fn = torch.nn.MSELoss(reduction="sum")
    losses = []
    for t in range(steps):
        loss = loss_fn(model(xx), y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= lr * param.grad
    linear_layer = model[0]
    out["nn"] = losses + [linear_layer.bias.item(), linear_layer.weight[:, 0].item()]
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    losses = []
    for t in range(steps):
        loss = loss_fn(model(xx), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out["optim"] = losses

    # 5. a custom Module with dynamic control flow
    class DynamicNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = (torch.nn.Parameter(torch.randn(())) for _ in range(5))

        def forward(self, x):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, random.randint(4, 6)):
                y = y + self.e * x ** exp
            return y

        def string(self):
            return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 "
                    f"+ {self.e.item()} x^4 ? + {self.e.item()} x^5 ?")

    model = DynamicNet()
    if "dynamic" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["dynamic"].items()})
    else:
        start["dynamic"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    random.seed(seed)
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    losses = []
    for t in range(steps):
        loss = criterion(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out["dynamic"] = losses
    assert model.string().startswith("y = ")
    return {"losses": out, "init": start}
