"""affine_grid and grid_sample (spatial transformer networks), 2-D and 3-D
affine grids, 2-D and 3-D sampling (3-D: bilinear, i.e. trilinear, and nearest), torch's conventions.

grid_sample is a composite: the sampling positions are unnormalised from
[-1, 1], the corner pixels gathered from the flattened image, and the
result is the sum of the corners times their weights. The weights are
differentiable functions of the grid and the gather's gradient is a
scatter-add, so autograd gives both gradients (input and grid) with no
kernel of its own.
"""
import warnings

from monoflow import _C, _creation
from monoflow._composite import int_tuple
from monoflow._dtypes import int64
from monoflow.ops_random import linspace
from monoflow.ops_shape import stack

__all__ = ["affine_grid", "grid_sample"]


def _base_coords(steps, align_corners, like):
    """The normalised centres of ``steps`` pixels, as torch's affine_grid."""
    if steps <= 1:
        return _creation.zeros(max(steps, 1), dtype=like.dtype, device=like.device)
    coords = linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    return coords if align_corners else coords * ((steps - 1) / steps)


def _align_corners(align_corners):
    """``align_corners`` as a bool; ``None`` is ``False``, with torch's warning that the default changed."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=_C._caller_outside_package())
        return False
    return bool(align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, for :func:`grid_sample`: normalised ``(x, y)`` (or
    ``(x, y, z)``) coordinates in ``[-1, 1]``.

    Args:
        theta (Tensor): ``(N, 2, 3)`` for 2-d, ``(N, 3, 4)`` for 3-d affine matrices.
        size (sequence of int): the output size ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners (bool, optional): ``-1`` and ``1`` are the centres of the corner pixels (``True``)
            or their outer edges (``False``). Default: ``None`` (``False``).

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Example::

        >>> theta = flow.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        tensor([[[[-0.5000, -0.5000],
                  [ 0.5000, -0.5000]],
        <BLANKLINE>
                 [[-0.5000,  0.5000],
                  [ 0.5000,  0.5000]]]])
    """
    if not isinstance(theta, _C.TensorBase):
        raise TypeError(f"affine_grid(): argument 'theta' must be Tensor, not {type(theta).__name__}")
    if not theta.is_floating_point():
        raise ValueError(f"affine_grid(): Expected theta to have floating point type, but got {theta.dtype}")
    align_corners = _align_corners(align_corners)
    size = int_tuple("affine_grid", "size", size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, h, w = size
        xs = _base_coords(w, align_corners, theta).reshape(1, w).expand(h, w)
        ys = _base_coords(h, align_corners, theta).reshape(h, 1).expand(h, w)
        base = stack([xs, ys, _creation.ones((h, w), dtype=theta.dtype, device=theta.device)], -1)
        return base.reshape(1, h * w, 3).matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, d, h, w = size
        xs = _base_coords(w, align_corners, theta).reshape(1, 1, w).expand(d, h, w)
        ys = _base_coords(h, align_corners, theta).reshape(1, h, 1).expand(d, h, w)
        zs = _base_coords(d, align_corners, theta).reshape(d, 1, 1).expand(d, h, w)
        base = stack([xs, ys, zs, _creation.ones((d, h, w), dtype=theta.dtype, device=theta.device)], -1)
        return base.reshape(1, d * h * w, 4).matmul(theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                              f"respectively. Got size {list(size)}.")


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples ``input`` at the normalised positions of ``grid`` (``-1`` and ``1`` are the input's
    borders), e.g. for spatial transformers.

    Args:
        input (Tensor): ``(N, C, H, W)`` (or ``(N, C, D, H, W)``).
        grid (Tensor): ``(N, H_out, W_out, 2)`` of ``(x, y)`` positions (``(N, D_out, H_out, W_out, 3)``
            for 5-d inputs).
        mode (str): ``'bilinear'``, ``'nearest'`` or ``'bicubic'``. Default: ``'bilinear'``.
        padding_mode (str): the value outside the input: ``'zeros'``, ``'border'`` or ``'reflection'``.
            Default: ``'zeros'``.
        align_corners (bool, optional): as in :func:`affine_grid`. Default: ``None`` (``False``).

    Returns:
        Tensor: ``(N, C, H_out, W_out)``.

    Example::

        >>> x = flow.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = F.affine_grid(flow.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 2, 2), align_corners=False)
        >>> F.grid_sample(x, grid, align_corners=False)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    _C.check_tensor(input, "grid_sample", "input", 1)
    if not isinstance(input, _C.TensorBase) or not isinstance(grid, _C.TensorBase):
        raise TypeError("grid_sample(): input and grid must be Tensors")
    if not isinstance(mode, str) or mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if not isinstance(padding_mode, str) or padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners(align_corners)
    if input.dim() in (4, 5) and grid.dim() != input.dim():  # (OneFlow's phrases in the messages: its programs look for them)
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)} (Grid and "
                           f"input MUST have same dimention)")
    if input.dim() == 5:
        return _grid_sample_3d(input, grid, mode, padding_mode, align_corners)
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} (MUST be 4D or 5D input)")
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid of shape [{input.shape[0]}, H, W, 2] for 4-D input, "
                           f"but got {list(grid.shape)} (Grid shape MUST (N, H_out, W_out, 2))")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    ix = _unnormalize(grid[..., 0], w, align_corners)
    iy = _unnormalize(grid[..., 1], h, align_corners)
    flat = input.reshape(n, c, h * w)

    def corner(px, py):
        """input at integer positions (px, py) (N, Ho, Wo), zero outside the image."""
        inside = (px >= 0) & (px <= w - 1) & (py >= 0) & (py <= h - 1)
        index = (py.clamp(0, h - 1) * w + px.clamp(0, w - 1)).to(int64).reshape(n, 1, ho * wo)
        values = flat.gather(2, index.expand(n, c, ho * wo)).reshape(n, c, ho, wo)
        return values * inside.to(input.dtype).unsqueeze(1)

    if mode == "bicubic":
        # torch: the taps around the unpadded source position, each tap's position padded on its own
        with _no_grad():
            x0, y0 = ix.floor(), iy.floor()
        cx, cy = _cubic_coefficients(ix - x0), _cubic_coefficients(iy - y0)
        with _no_grad():
            xs = [_pad_coordinate(x0 + (i - 1), w, padding_mode, align_corners).trunc() for i in range(4)]
            ys = [_pad_coordinate(y0 + (j - 1), h, padding_mode, align_corners).trunc() for j in range(4)]
        out = None
        for j in range(4):
            row = None
            for i in range(4):
                term = corner(xs[i], ys[j]) * cx[i].unsqueeze(1)
                row = term if row is None else row + term
            term = row * cy[j].unsqueeze(1)
            out = term if out is None else out + term
        return out
    ix = _pad_coordinate(ix, w, padding_mode, align_corners)
    iy = _pad_coordinate(iy, h, padding_mode, align_corners)
    if mode == "nearest":
        with _no_grad():
            px, py = ix.round(), iy.round()
        out = corner(px, py)
        if grid.requires_grad:  # torch gives the grid a zero gradient (not none): a 0 that keeps the link
            from monoflow import where

            out = out + where(px != px, ix, 0.0).unsqueeze(1)  # (never true; inf/nan-safe)
        return out
    with _no_grad():
        x0, y0 = ix.floor(), iy.floor()
    x1, y1 = x0 + 1, y0 + 1
    wx1, wy1 = ix - x0, iy - y0
    wx0, wy0 = x1 - ix, y1 - iy
    return (corner(x0, y0) * (wx0 * wy0).unsqueeze(1) + corner(x1, y0) * (wx1 * wy0).unsqueeze(1)
            + corner(x0, y1) * (wx0 * wy1).unsqueeze(1) + corner(x1, y1) * (wx1 * wy1).unsqueeze(1))


def _grid_sample_3d(input, grid, mode, padding_mode, align_corners):
    """grid_sample of a volume (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) of (x, y, z) positions."""
    if grid.dim() != 5 or grid.shape[-1] != 3 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid of shape [{input.shape[0]}, D, H, W, 3] for 5-D "
                           f"input, but got {list(grid.shape)} (Grid shape MUST (N, H_out, W_out, 3))")
    if mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c, d, h, w = input.shape
    do, ho, wo = grid.shape[1], grid.shape[2], grid.shape[3]
    m = do * ho * wo
    ix = _pad_coordinate(_unnormalize(grid[..., 0], w, align_corners), w, padding_mode, align_corners)
    iy = _pad_coordinate(_unnormalize(grid[..., 1], h, align_corners), h, padding_mode, align_corners)
    iz = _pad_coordinate(_unnormalize(grid[..., 2], d, align_corners), d, padding_mode, align_corners)
    flat = input.reshape(n, c, d * h * w)

    def corner(px, py, pz):
        inside = (px >= 0) & (px <= w - 1) & (py >= 0) & (py <= h - 1) & (pz >= 0) & (pz <= d - 1)
        index = ((pz.clamp(0, d - 1) * h + py.clamp(0, h - 1)) * w + px.clamp(0, w - 1)).to(int64)
        values = flat.gather(2, index.reshape(n, 1, m).expand(n, c, m)).reshape(n, c, do, ho, wo)
        return values * inside.to(input.dtype).unsqueeze(1)

    if mode == "nearest":
        with _no_grad():
            px, py, pz = ix.round(), iy.round(), iz.round()
        out = corner(px, py, pz)
        if grid.requires_grad:  # a zero gradient for the grid, as in 2-D
            from monoflow import where

            out = out + where(px != px, ix, 0.0).unsqueeze(1)
        return out
    with _no_grad():
        x0, y0, z0 = ix.floor(), iy.floor(), iz.floor()
    out = None
    for dz in (0, 1):
        wz = (iz - z0) if dz else (z0 + 1 - iz)
        for dy in (0, 1):
            wy = (iy - y0) if dy else (y0 + 1 - iy)
            for dx in (0, 1):
                wx = (ix - x0) if dx else (x0 + 1 - ix)
                term = corner(x0 + dx, y0 + dy, z0 + dz) * (wx * wy * wz).unsqueeze(1)
                out = term if out is None else out + term
    return out


def _reflect(coord, twice_low, twice_high):
    """torch's reflect_coordinates: ``coord`` folded into ``[twice_low / 2, twice_high / 2]`` (differentiable:
    the gradient flips its sign on every odd fold)."""
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    extra = dist.fmod(span)
    with _no_grad():
        even = (dist / span).floor().fmod(2) == 0
    from monoflow import where

    return where(even, extra + low, (span - extra) + low)


def _pad_coordinate(coord, size, padding_mode, align_corners):
    """torch's compute_coordinates: a pixel coordinate brought inside ``[0, size - 1]`` by the padding mode
    (``'zeros'`` leaves it; out-of-image corners then read 0)."""
    if padding_mode == "border":
        return coord.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return coord.clamp(0, size - 1)
    return coord


def _cubic_coefficients(t, a=-0.75):
    """The four cubic-convolution weights (torch's, A = -0.75) of the taps at -1, 0, 1, 2 for fraction ``t``."""
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _no_grad():
    from monoflow.autograd import no_grad

    return no_grad()
