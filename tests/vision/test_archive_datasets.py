"""Flowers and VOC2012 from small archives in their real layouts (images decoded by Pillow, .mat by SciPy)."""
import io
import tarfile

import numpy as np
import pytest

import oar as paddle

Image = pytest.importorskip("PIL.Image")
sio = pytest.importorskip("scipy.io")


def _png(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")   # lossless, so pixels can be compared exactly
    return buf.getvalue()


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def test_flowers_split_labels_and_pixels(tmp_path):
    rng = np.random.RandomState(0)
    imgs = {i: rng.randint(0, 256, (6, 5, 3)).astype(np.uint8) for i in range(1, 6)}
    with tarfile.open(tmp_path / "102flowers.tgz", "w:gz") as tar:
        for i, a in imgs.items():
            _add(tar, f"jpg/image_{i:05d}.jpg", _png(a))
    sio.savemat(tmp_path / "imagelabels.mat", {"labels": np.array([[3, 1, 4, 1, 5]])})
    sio.savemat(tmp_path / "setid.mat", {"trnid": np.array([[2, 4]]), "valid": np.array([[5]]),
                                         "tstid": np.array([[1, 3]])})
    kw = dict(data_file=str(tmp_path / "102flowers.tgz"), label_file=str(tmp_path / "imagelabels.mat"),
              setid_file=str(tmp_path / "setid.mat"))
    train = paddle.vision.datasets.Flowers(mode="train", **kw)   # Paddle's 'train' is the tstid list
    test = paddle.vision.datasets.Flowers(mode="test", **kw)
    assert len(train) == 2 and len(test) == 2
    img, label = train[1]
    np.testing.assert_array_equal(img, imgs[3].astype("float32"))
    assert label.tolist() == [4] and img.dtype == np.float32
    pil_img, _ = paddle.vision.datasets.Flowers(mode="valid", backend="pil", **kw)[0]
    assert isinstance(pil_img, Image.Image)


def test_voc2012_segmentation_pairs(tmp_path):
    root = "VOCdevkit/VOC2012/"
    rng = np.random.RandomState(1)
    image = rng.randint(0, 256, (4, 6, 3)).astype(np.uint8)
    mask = rng.randint(0, 21, (4, 6)).astype(np.uint8)
    with tarfile.open(tmp_path / "voc.tar", "w") as tar:
        _add(tar, root + "ImageSets/Segmentation/val.txt", b"2007_000001\n")
        _add(tar, root + "ImageSets/Segmentation/trainval.txt", b"2007_000001\n2007_000001\n")
        _add(tar, root + "JPEGImages/2007_000001.jpg", _png(image))
        _add(tar, root + "SegmentationClass/2007_000001.png", _png(mask))
    ds = paddle.vision.datasets.VOC2012(data_file=str(tmp_path / "voc.tar"), mode="valid")
    assert len(ds) == 1 and len(paddle.vision.datasets.VOC2012(data_file=str(tmp_path / "voc.tar"))) == 2
    img, label = ds[0]
    np.testing.assert_array_equal(img, image.astype("float32"))
    np.testing.assert_array_equal(label, mask)
    loader = paddle.io.DataLoader(ds, batch_size=1, num_workers=0)
    assert [b[1].shape for b in loader] == [[1, 4, 6]]
