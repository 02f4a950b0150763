"""The added transforms against direct NumPy / colorsys references: Paddle's Normalize shape rule, exact 90-degree
rotations, translations, identity perspectives, colour adjustments, grayscale, resized crops, erasing; CHW Tensors
and HWC arrays give the same pixels."""
import colorsys

import numpy as np
from PIL import Image, ImageEnhance
import pytest

import oar
from oar.vision import transforms as T
from oar.vision.transforms import functional as F

RNG = np.random.RandomState(0)
IMG = RNG.randint(0, 256, (5, 7, 3)).astype(np.uint8)


def test_normalize_grayscale_chw_matches_paddle_shape():
    out = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(np.full((28, 28), 255, np.uint8))
    assert out.shape == (1, 28, 28) and np.allclose(out, 1.0)
    assert T.Normalize(mean=[0.5], std=[0.5])(oar.ones([1, 28, 28])).shape == [1, 28, 28]
    t = T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])(np.zeros((28, 28), np.uint8))
    assert t.shape == [1, 28, 28]
    hwc = T.Normalize(mean=[1.0, 2.0, 3.0], std=2.0, data_format="HWC")(IMG.astype("float32"))
    np.testing.assert_allclose(hwc, (IMG - np.array([1.0, 2.0, 3.0])) / 2.0, rtol=1e-6)


@pytest.mark.parametrize("shape", [(5, 5), (4, 4), (3, 6)])
def test_rotate_multiples_of_90_are_exact(shape):
    a = RNG.randint(0, 100, shape)
    if shape[0] == shape[1]:
        np.testing.assert_array_equal(F.rotate(a, 90), np.rot90(a, 1))
        np.testing.assert_array_equal(F.rotate(a, -90), np.rot90(a, -1))
    np.testing.assert_array_equal(F.rotate(a, 180), np.rot90(a, 2))
    np.testing.assert_array_equal(F.rotate(a, 90, expand=True), np.rot90(a, 1))
    np.testing.assert_array_equal(F.rotate(a.astype(float), 0, interpolation="bilinear"), a)


def test_affine_translation_and_identity():
    out = F.affine(IMG, 0, (2, 1), 1.0, 0, fill=9)
    ref = np.full_like(IMG, 9)
    ref[1:, 2:] = IMG[:-1, :-2]
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(F.affine(IMG, 0, (0, 0), 1.0, 0), IMG)
    chw = F.affine(oar.to_tensor(IMG.transpose(2, 0, 1)), 0, (2, 1), 1.0, 0, fill=9)
    np.testing.assert_array_equal(chw.numpy().transpose(1, 2, 0), ref)
    np.testing.assert_array_equal(F.affine(IMG, 0, (0, 0), 2.0, 0)[2, 3], IMG[2, 3])   # the centre stays


def test_perspective_identity_and_translation():
    h, w = IMG.shape[:2]
    pts = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    np.testing.assert_array_equal(F.perspective(IMG, pts, pts), IMG)
    moved = [[x + 1, y] for x, y in pts]
    np.testing.assert_array_equal(F.perspective(IMG, pts, moved), F.affine(IMG, 0, (1, 0), 1.0, 0))


def test_color_adjustments_match_references():
    f = IMG.astype(np.float64)
    gray = f @ np.array([0.299, 0.587, 0.114])
    # uint8 images: PIL's ImageEnhance bit for bit (float32 blend, truncated)
    pil = Image.fromarray(IMG)
    for fn, enhancer, k in ((F.adjust_brightness, ImageEnhance.Brightness, 1.3),
                            (F.adjust_contrast, ImageEnhance.Contrast, 0.7),
                            (F.adjust_saturation, ImageEnhance.Color, 1.5)):
        np.testing.assert_array_equal(fn(IMG, k), np.asarray(enhancer(pil).enhance(k)))
    np.testing.assert_array_equal(F.to_grayscale(IMG)[..., 0], np.rint(gray))
    assert F.to_grayscale(IMG, 3).shape == (5, 7, 3)
    hue = F.adjust_hue(IMG, 0.2)
    for (y, x) in [(0, 0), (2, 3), (4, 6)]:
        h, s, v = colorsys.rgb_to_hsv(*(IMG[y, x] / 255.0))
        ref = np.array(colorsys.hsv_to_rgb((h + 0.2) % 1.0, s, v)) * 255
        np.testing.assert_allclose(hue[y, x], np.rint(ref), atol=1)
    np.testing.assert_array_equal(F.adjust_hue(IMG, 0.0), IMG)
    t = F.adjust_saturation(oar.to_tensor(IMG.transpose(2, 0, 1).astype("float32") / 255), 1.5)
    np.testing.assert_allclose(t.numpy().transpose(1, 2, 0) * 255,
                               np.clip(gray[..., None] * -0.5 + f * 1.5, 0, 255), atol=1e-3)
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(IMG, 0.7)


def test_random_transforms_shapes_and_seeding():
    oar.seed(5)
    a = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(IMG)
    oar.seed(5)
    b = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(IMG)
    np.testing.assert_array_equal(a, b)
    assert T.Grayscale()(IMG).shape == (5, 7, 1) and T.Pad((1, 2))(IMG).shape == (9, 9, 3)
    full = T.RandomResizedCrop((4, 4), scale=(1.0, 1.0), ratio=(7 / 5, 7 / 5))(IMG)
    np.testing.assert_array_equal(full, F.resize(IMG, (4, 4)))
    for t in (T.RandomRotation(20), T.RandomAffine(10, (0.1, 0.1), (0.9, 1.1), (-5, 5, -5, 5)),
              T.RandomPerspective(prob=1.0), T.HueTransform(0.5), T.ContrastTransform(0.5)):
        assert t(IMG).shape == IMG.shape and t(IMG).dtype == np.uint8
    assert T.RandomRotation(90, expand=True)(oar.ones([3, 4, 6])).shape[0] == 3


def test_random_erasing_erases_one_box_only():
    oar.seed(1)
    img = np.ones((3, 20, 20), np.float32)
    out = T.RandomErasing(prob=1.0, value=0)(oar.to_tensor(img)).numpy()
    rows, cols = np.where(out[0] == 0)
    assert rows.size > 0
    box = out[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert (box == 0).all() and (out == 0).sum() == box.size
    assert T.RandomErasing(prob=0.0)(img) is img
    hwc = T.RandomErasing(prob=1.0, value="random")(np.ones((20, 20, 3), np.float32))
    assert hwc.shape == (20, 20, 3) and (hwc != 1).any()


def test_pil_images_round_trip():
    Image = pytest.importorskip("PIL.Image")
    pil = Image.fromarray(IMG)
    out = F.rotate(pil, 180)
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), np.rot90(IMG, 2))


def test_pil_in_pil_out_for_the_basic_transforms():
    Image = pytest.importorskip("PIL.Image")
    pil = Image.fromarray(IMG)
    for t in (T.Resize((3, 4)), T.CenterCrop(3), T.Pad(1), T.RandomHorizontalFlip(1.0), T.RandomCrop(3),
              T.ColorJitter(0.2, 0.2, 0.2, 0.1), T.Grayscale(), T.RandomRotation(10)):
        assert isinstance(t(pil), Image.Image), type(t).__name__
    np.testing.assert_array_equal(np.asarray(T.RandomHorizontalFlip(1.0)(pil)), IMG[:, ::-1])
    assert T.ToTensor()(pil).shape == [3, 5, 7]
    assert T.Normalize([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], data_format="HWC")(pil).shape == (5, 7, 3)
