"""monoflow.utils.vision (OneFlow's oneflow.utils.vision, which its quickstart imports): the
transforms against numpy references, on PIL images, arrays and tensors; MNIST / FashionMNIST
reading IDX files (gzipped or not) and downloading them from a source_url."""
import gzip
import os

import numpy as np
import pytest

import monoflow as flow
from monoflow.utils.vision import datasets, transforms

PIL = pytest.importorskip("PIL.Image")


def _idx(array):
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    return header + array.astype(np.uint8).tobytes()


def _write_mnist(folder, n, gz, seed=0):
    rng = np.random.default_rng(seed)
    images, labels = rng.integers(0, 256, (n, 28, 28)), rng.integers(0, 10, n)
    os.makedirs(folder, exist_ok=True)
    for name, arr in (("t10k-images-idx3-ubyte", images), ("t10k-labels-idx1-ubyte", labels),
                      ("train-images-idx3-ubyte", images), ("train-labels-idx1-ubyte", labels)):
        data = _idx(arr)
        path = os.path.join(folder, name + (".gz" if gz else ""))
        with (gzip.open if gz else open)(path, "wb") as f:
            f.write(data)
    return images, labels


def test_to_tensor_and_normalize_match_numpy():
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (5, 7, 3)).astype(np.uint8)
    for pic in (rgb, PIL.fromarray(rgb)):
        t = transforms.ToTensor()(pic)
        assert t.dtype == flow.float32 and tuple(t.shape) == (3, 5, 7)
        np.testing.assert_allclose(t.numpy(), rgb.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    gray = transforms.ToTensor()(PIL.fromarray(rgb[:, :, 0]))
    assert tuple(gray.shape) == (1, 5, 7)
    floats = rng.standard_normal((4, 4)).astype(np.float32)  # non-uint8 arrays are not scaled
    np.testing.assert_array_equal(transforms.ToTensor()(floats).numpy()[0], floats)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    t = transforms.ToTensor()(rgb)
    want = (t.numpy() - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(transforms.Normalize(mean, std)(t).numpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="std"):
        transforms.Normalize([0.0], [0.0])
    with pytest.raises(TypeError, match="ToTensor"):
        transforms.Normalize([0.0], [1.0])(rgb)


def test_geometry_transforms_on_images_arrays_and_tensors():
    img = np.arange(6 * 8, dtype=np.uint8).reshape(6, 8)
    t = flow.tensor(img.astype(np.float32)).unsqueeze(0)
    np.testing.assert_array_equal(np.asarray(transforms.CenterCrop((2, 4))(PIL.fromarray(img))), img[2:4, 2:6])
    np.testing.assert_array_equal(transforms.CenterCrop(2)(t).numpy()[0], img[2:4, 3:5])
    assert PIL.fromarray(img).size == (8, 6)
    assert transforms.Resize(3)(PIL.fromarray(img)).size == (4, 3)  # the smaller edge to 3, ratio kept
    assert tuple(transforms.Resize((3, 4))(t).shape) == (1, 3, 4)
    np.testing.assert_array_equal(transforms.Resize((3, 4), "nearest")(t).numpy()[0], img[::2, ::2])
    np.testing.assert_array_equal(transforms.RandomHorizontalFlip(1.0)(t).numpy()[0], img[:, ::-1])
    np.testing.assert_array_equal(np.asarray(transforms.RandomVerticalFlip(1.0)(PIL.fromarray(img))), img[::-1])
    assert transforms.RandomHorizontalFlip(0.0)(t) is t
    flow.manual_seed(3)
    crops = {tuple(transforms.RandomCrop(4, padding=2)(t).numpy().ravel()[:2]) for _ in range(20)}
    assert len(crops) > 1  # random offsets
    flow.manual_seed(3)
    again = {tuple(transforms.RandomCrop(4, padding=2)(t).numpy().ravel()[:2]) for _ in range(20)}
    assert crops == again  # from monoflow's generator: seeded
    crop = transforms.RandomCrop((6, 8))(img)
    np.testing.assert_array_equal(crop, img)
    with pytest.raises(ValueError, match="larger than the image"):
        transforms.CenterCrop(10)(t)
    pipeline = transforms.Compose([transforms.Resize((3, 4)), transforms.ToTensor(), transforms.Lambda(lambda x: x * 2)])
    assert tuple(pipeline(PIL.fromarray(img)).shape) == (1, 3, 4) and "Resize" in repr(pipeline)


@pytest.mark.parametrize("gz", [True, False])
def test_mnist_reads_its_idx_files(tmp_path, gz):
    images, labels = _write_mnist(str(tmp_path / "MNIST" / "raw"), 12, gz)
    ds = datasets.MNIST(str(tmp_path), train=False, transform=transforms.ToTensor(),
                        target_transform=lambda y: y + 100)
    assert len(ds) == 12
    x, y = ds[3]
    assert tuple(x.shape) == (1, 28, 28) and y == labels[3] + 100
    np.testing.assert_allclose(x.numpy()[0], images[3] / 255.0, rtol=1e-6)
    raw, _ = datasets.MNIST(str(tmp_path))[0]
    assert raw.mode == "L" and np.array_equal(np.asarray(raw), images[0])
    loader = flow.utils.data.DataLoader(ds, batch_size=5)
    xb, yb = next(iter(loader))
    assert tuple(xb.shape) == (5, 1, 28, 28) and yb.dtype == flow.int64
    with pytest.raises(RuntimeError, match="download=True"):
        datasets.FashionMNIST(str(tmp_path))


def test_download_from_a_source_url(tmp_path):
    _, labels = _write_mnist(str(tmp_path / "mirror"), 4, gz=True, seed=5)
    url = (tmp_path / "mirror").as_uri() + "/"
    ds = datasets.FashionMNIST(str(tmp_path / "data"), train=True, download=True, source_url=url)
    assert len(ds) == 4 and ds[1][1] == labels[1]
    assert sorted(os.listdir(tmp_path / "data" / "FashionMNIST" / "raw")) == [
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    with pytest.raises(RuntimeError, match="could not download"):
        datasets.MNIST(str(tmp_path / "other"), download=True, source_url=(tmp_path / "nowhere").as_uri())


def test_the_quickstart_imports_through_an_oneflow_alias():
    import subprocess
    import sys

    program = ("import sys, monoflow; sys.modules['oneflow'] = monoflow\n"
               "import oneflow as flow\nimport oneflow.utils.vision.transforms as transforms\n"
               "print(type(transforms.ToTensor()).__name__, flow.utils.vision.datasets.MNIST.__name__)")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["ToTensor", "MNIST"], out.stderr
