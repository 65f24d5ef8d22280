"""Image transforms (OneFlow's ``oneflow.utils.vision.transforms``, torchvision's
names and rules): each is a callable object; an image is a PIL image or an
``(H, W[, C])`` numpy array before :class:`ToTensor`, a ``(C, H, W)`` tensor after.
Random choices draw from monoflow's default generator, so ``manual_seed`` repeats them."""
import numbers

import numpy as np

from monoflow import _creation
from monoflow._tensor import Tensor

__all__ = ["Compose", "ToTensor", "Normalize", "Resize", "CenterCrop", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Lambda"]


def _uniform():
    from monoflow.ops_random import rand

    return float(rand(1).item())


def _size_pair(size, what):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{what}: size must be an int or a pair (h, w), got {size!r}")


def _is_pil(img):
    return hasattr(img, "getbands") and hasattr(img, "crop")


def _hw(img):
    if _is_pil(img):
        return img.size[1], img.size[0]
    return tuple(img.shape[-2:]) if isinstance(img, Tensor) else tuple(img.shape[:2])


def _crop(img, top, left, h, w):
    if _is_pil(img):
        return img.crop((left, top, left + w, top + h))
    if isinstance(img, Tensor):
        return img[..., top:top + h, left:left + w]
    return img[top:top + h, left:left + w]


def _flip(img, horizontal):
    if _is_pil(img):
        from PIL import Image

        return img.transpose(Image.FLIP_LEFT_RIGHT if horizontal else Image.FLIP_TOP_BOTTOM)
    if isinstance(img, Tensor):
        return img.flip(-1 if horizontal else -2)
    return np.asarray(img[:, ::-1] if horizontal else img[::-1], order="C")


class Compose:
    """Applies transforms one after another.

    Args:
        transforms (list): the transforms, in order.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> t = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])
        >>> t(np.full((2, 2), 255, np.uint8))
        tensor([[[1., 1.],
                 [1., 1.]]])
    """

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return f"{type(self).__name__}(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class ToTensor:
    """A PIL image or ``(H, W[, C])`` array as a float32 ``(C, H, W)`` tensor; uint8 images are
    scaled from [0, 255] to [0, 1].

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.ToTensor()(np.array([[0, 255]], np.uint8))
        tensor([[[0., 1.]]])
    """

    def __call__(self, pic):
        if isinstance(pic, Tensor):
            raise TypeError("ToTensor: pic should be a PIL image or a numpy array, got a Tensor")
        arr = np.array(pic, copy=True) if _is_pil(pic) else np.asarray(pic)
        if not isinstance(arr, np.ndarray) or arr.ndim not in (2, 3):
            raise ValueError(f"ToTensor: pic should be 2 or 3 dimensional, got {getattr(arr, 'ndim', '?')} dims")
        if arr.ndim == 2:
            arr = arr[:, :, None]
        scale = arr.dtype == np.uint8
        arr = np.asarray(arr.transpose(2, 0, 1), order="C").astype(np.float32)
        return _creation.tensor(arr / 255.0 if scale else arr)

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    """``(x - mean) / std`` per channel of a ``(C, H, W)`` or ``(N, C, H, W)`` tensor.

    Args:
        mean (sequence): one mean per channel.
        std (sequence): one standard deviation per channel (nonzero).
        inplace (bool): write into the input. Default: ``False``.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.Normalize([0.5], [0.25])(flow.ones(1, 1, 2))
        tensor([[[2., 2.]]])
    """

    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = list(mean), list(std), inplace
        if any(s == 0 for s in self.std):
            raise ValueError(f"Normalize: std evaluated to zero, leading to division by zero: {self.std}")

    def __call__(self, tensor):
        if not isinstance(tensor, Tensor) or not tensor.dtype.is_floating_point:
            raise TypeError("Normalize: the input should be a floating-point tensor (apply ToTensor first)")
        mean = _creation.tensor(self.mean, dtype=tensor.dtype).reshape(-1, 1, 1)
        std = _creation.tensor(self.std, dtype=tensor.dtype).reshape(-1, 1, 1)
        out = (tensor - mean) / std
        return tensor.copy_(out) if self.inplace else out

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"


class Resize:
    """Resizes to ``size``: an ``(h, w)`` pair, or an int for the smaller edge (the aspect ratio kept).
    PIL images use PIL's bilinear filter, tensors ``nn.functional.interpolate``.

    Args:
        size (int or (int, int)): the target size.
        interpolation (str): ``"bilinear"`` or ``"nearest"``. Default: ``"bilinear"``.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.Resize((2, 4))(flow.ones(1, 4, 8)).shape
        monoflow.Size([1, 2, 4])
    """

    def __init__(self, size, interpolation="bilinear"):
        if isinstance(size, (tuple, list)) and len(size) == 1:
            size = size[0]
        self.size = size if isinstance(size, numbers.Integral) else _size_pair(size, "Resize")
        self.interpolation = str(getattr(interpolation, "value", interpolation)).lower()
        if self.interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"Resize: interpolation must be 'bilinear' or 'nearest', got {interpolation!r}")

    def _target(self, h, w):
        if not isinstance(self.size, numbers.Integral):
            return self.size
        short, long = (h, w) if h <= w else (w, h)
        new_long = int(self.size * long / short)
        return (self.size, new_long) if h <= w else (new_long, self.size)

    def __call__(self, img):
        h, w = _hw(img)
        th, tw = self._target(h, w)
        if _is_pil(img):
            from PIL import Image

            return img.resize((tw, th), Image.BILINEAR if self.interpolation == "bilinear" else Image.NEAREST)
        from monoflow.nn.functional import interpolate

        x = img if isinstance(img, Tensor) else ToTensor()(img)
        batched = x.unsqueeze(0) if x.dim() == 3 else x
        out = interpolate(batched.float() if not x.dtype.is_floating_point else batched, size=(th, tw),
                          mode=self.interpolation, **({"align_corners": False} if self.interpolation == "bilinear"
                                                      else {}))
        return out.squeeze(0) if x.dim() == 3 else out

    def __repr__(self):
        return f"Resize(size={self.size}, interpolation={self.interpolation})"


class CenterCrop:
    """Crops the central ``size`` region.

    Args:
        size (int or (int, int)): the output ``(h, w)``; no larger than the image.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.CenterCrop(2)(flow.arange(16.0).reshape(1, 4, 4))
        tensor([[[ 5.,  6.],
                 [ 9., 10.]]])
    """

    def __init__(self, size):
        self.size = _size_pair(size, "CenterCrop")

    def __call__(self, img):
        (h, w), (th, tw) = _hw(img), self.size
        if th > h or tw > w:
            raise ValueError(f"CenterCrop: crop size {self.size} is larger than the image ({h}, {w})")
        return _crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)

    def __repr__(self):
        return f"CenterCrop(size={self.size})"


class RandomCrop:
    """Crops a random ``size`` region, after optional zero padding on every side.

    Args:
        size (int or (int, int)): the output ``(h, w)``.
        padding (int, optional): pixels of zeros added to each side first. Default: ``None``.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.RandomCrop(2, padding=1)(flow.ones(1, 3, 3)).shape
        monoflow.Size([1, 2, 2])
    """

    def __init__(self, size, padding=None):
        self.size, self.padding = _size_pair(size, "RandomCrop"), padding

    def __call__(self, img):
        if self.padding:
            p = int(self.padding)
            if _is_pil(img):
                img = np.asarray(img)
            if isinstance(img, Tensor):
                from monoflow.nn.functional import pad

                img = pad(img, (p, p, p, p))
            else:
                img = np.pad(img, ((p, p), (p, p)) + ((0, 0),) * (img.ndim - 2))
        (h, w), (th, tw) = _hw(img), self.size
        if th > h or tw > w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the image ({h}, {w})")
        top = int(_uniform() * (h - th + 1))
        left = int(_uniform() * (w - tw + 1))
        return _crop(img, min(top, h - th), min(left, w - tw), th, tw)

    def __repr__(self):
        return f"RandomCrop(size={self.size}, padding={self.padding})"


class _RandomFlip:
    """A mirror image with probability ``p`` (``horizontal``: left-right, else top-bottom)."""

    horizontal = True

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        return _flip(img, self.horizontal) if _uniform() < self.p else img

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomFlip):
    """Mirrors the image left-right with probability ``p``.

    Args:
        p (float): the probability of the flip. Default: ``0.5``.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.RandomHorizontalFlip(p=1.0)(flow.tensor([[[1.0, 2.0]]]))
        tensor([[[2., 1.]]])
    """

    horizontal = True


class RandomVerticalFlip(_RandomFlip):
    """Mirrors the image top-bottom with probability ``p``.

    Args:
        p (float): the probability of the flip. Default: ``0.5``.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.RandomVerticalFlip(p=1.0)(flow.tensor([[[1.0], [2.0]]]))
        tensor([[[2.],
                 [1.]]])
    """

    horizontal = False


class Lambda:
    """A user function as a transform.

    Args:
        lambd (callable): called with the image; its result is the output.

    Example::

        >>> from monoflow.utils.vision import transforms
        >>> transforms.Lambda(lambda x: x * 2)(flow.ones(1))
        tensor([2.])
    """

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Lambda: argument should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return "Lambda()"
