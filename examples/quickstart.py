"""A tour of monoflow's tensor API: creation, broadcasting, type promotion,
views, matmul, reductions, devices and the caching allocator.

    python examples/quickstart.py
"""
import numpy as np

import monoflow as flow


def main():
    print("registered devices:", flow.devices.available())

    x = flow.arange(12, dtype=flow.float32).reshape(3, 4)
    print("x =", x)
    print("x.T is a view sharing storage:", x.T.shape, x.T.stride(), x.T._is_view_of(x))

    b = flow.tensor([1.0, 10.0, 100.0, 1000.0])
    print("x * b (broadcast) =", x * b)
    print("int tensor + 2.5 promotes to", (flow.tensor([1, 2]) + 2.5).dtype)

    flow.manual_seed(0)
    w = flow.randn(4, 2)
    y = x @ w
    print("x @ w shape:", y.shape, " softmax over dim 1:", y.softmax(1))
    print("top-2 of each row of x:", x.topk(2, dim=1).values)
    print("rows where x > 5:", x[x.amax(1) > 5])

    # A small least-squares fit by gradient descent, all in monoflow ops.
    rng = np.random.default_rng(0)
    A = flow.from_numpy(rng.standard_normal((256, 8)).astype(np.float32))
    true_w = flow.from_numpy(rng.standard_normal((8, 1)).astype(np.float32))
    target = A @ true_w
    est = flow.zeros(8, 1)
    for step in range(60):
        residual = A @ est - target
        grad = A.T @ residual * (2.0 / 256)
        est -= grad * 0.1
        if step % 10 == 0:
            print(f"step {step:3d}  loss {(residual * residual).sum().item() / 256:.3e}")
    err = (est - true_w)
    print("max |w - w*| =", float(np.abs(err.numpy()).max()))

    stats = flow.memory.memory_stats("cpu")
    print(f"allocator: {stats['num_allocs']} allocations, {stats['cache_hits']} served from the cache, "
          f"{stats['num_raw_allocs']} raw allocation(s)")


if __name__ == "__main__":
    main()
