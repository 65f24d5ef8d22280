"""MNIST and Fashion-MNIST (OneFlow's ``oneflow.utils.vision.datasets``, torchvision's
layout): the four IDX files under ``root/<ClassName>/raw/`` (gzipped or not), fetched
from ``source_url`` (or the data set's usual mirror) with ``download=True``. Items are
``(image, label)``: a PIL ``L`` image (a uint8 ``(28, 28)`` array without PIL) through
``transform``, an int through ``target_transform``."""
import gzip
import os
import urllib.request

import numpy as np

from monoflow.utils.data import Dataset

__all__ = ["MNIST", "FashionMNIST"]

_FILES = {True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def _read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[:4], "big")
    if magic >> 8 != 0x08:  # (0x08: unsigned bytes, the only type these files use)
        raise RuntimeError(f"{path}: not an IDX file of unsigned bytes (magic number {magic:#x})")
    ndim = magic & 0xFF
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)


class MNIST(Dataset):
    """The MNIST digits: 60,000 training and 10,000 test images of 28 x 28, labels 0-9.

    Args:
        root (str): the folder holding ``MNIST/raw/`` (made by ``download``).
        train (bool): the training split, else the test split. Default: ``True``.
        transform (callable, optional): applied to each image (e.g. ``transforms.ToTensor()``).
        target_transform (callable, optional): applied to each label.
        download (bool): fetch the files that are missing. Default: ``False``.
        source_url (str, optional): a base URL holding the four ``.gz`` files (OneFlow's keyword);
            default: the data set's usual mirror.

    Example::

        >>> from monoflow.utils.vision import datasets
        >>> ds = datasets.MNIST("data", train=False, download=True)  # doctest: +SKIP
        >>> image, label = ds[0]  # doctest: +SKIP
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/"]
    classes = [f"{i} - {name}" for i, name in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False, source_url=None):
        self.root, self.train = os.path.expanduser(str(root)), bool(train)
        self.transform, self.target_transform = transform, target_transform
        self.raw_folder = os.path.join(self.root, type(self).__name__, "raw")
        paths = [self._find(name) for name in _FILES[self.train]]
        if any(p is None for p in paths):
            if not download:
                raise RuntimeError(f"{type(self).__name__}: dataset not found in {self.raw_folder}. You can use "
                                   f"download=True to download it")
            paths = [p or self._download(name, source_url) for p, name in zip(paths, _FILES[self.train])]
        self.data, self.targets = _read_idx(paths[0]), _read_idx(paths[1]).astype(np.int64)
        if len(self.data) != len(self.targets):
            raise RuntimeError(f"{type(self).__name__}: {len(self.data)} images but {len(self.targets)} labels")

    def _find(self, name):
        for candidate in (name, name + ".gz"):
            path = os.path.join(self.raw_folder, candidate)
            if os.path.isfile(path):
                return path
        return None

    def _download(self, name, source_url):
        os.makedirs(self.raw_folder, exist_ok=True)
        path = os.path.join(self.raw_folder, name + ".gz")
        errors = []
        for base in ([source_url] if source_url else self.mirrors):
            url = base.rstrip("/") + "/" + name + ".gz"
            try:
                urllib.request.urlretrieve(url, path + ".part")
                os.replace(path + ".part", path)
                return path
            except OSError as e:
                errors.append(f"{url}: {e}")
        raise RuntimeError(f"{type(self).__name__}: could not download {name}.gz (" + "; ".join(errors) + ")")

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        try:
            from PIL import Image

            img = Image.fromarray(img, mode="L")
        except ImportError:
            pass
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class FashionMNIST(MNIST):
    """Fashion-MNIST: MNIST's format and sizes with ten kinds of clothing (the arguments are MNIST's).

    Args:
        root (str): the folder holding ``FashionMNIST/raw/``.
        train (bool): the training split, else the test split. Default: ``True``.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.
        download (bool): fetch the files that are missing. Default: ``False``.
        source_url (str, optional): a base URL holding the four ``.gz`` files.

    Example::

        >>> from monoflow.utils.vision import datasets
        >>> ds = datasets.FashionMNIST("data", train=False, download=True)  # doctest: +SKIP
    """

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
