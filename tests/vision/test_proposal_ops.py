"""matrix_nms, distribute_fpn_proposals and generate_proposals against loop references."""
import math
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import vision_reference as ref  # noqa: E402

V = oar.vision.ops


def _boxes(rng, *lead, span=10.0):
    xy = rng.uniform(0, span, lead + (2,))
    return np.concatenate([xy, xy + rng.uniform(1, 4, lead + (2,))], -1)


@pytest.mark.parametrize("gaussian,normalized,background,keep", [(False, True, 0, -1), (True, False, -1, 5)])
def test_matrix_nms(gaussian, normalized, background, keep):
    rng = np.random.default_rng(4)
    boxes, scores = _boxes(rng, 2, 12, span=6.0), rng.uniform(size=(2, 3, 12))
    out, num, index = V.matrix_nms(oar.to_tensor(boxes), oar.to_tensor(scores), 0.2, 0.3, 8, keep,
                                   use_gaussian=gaussian, gaussian_sigma=2.0, background_label=background,
                                   normalized=normalized, return_index=True)
    want_out, want_index, want_num = ref.matrix_nms(boxes, scores, 0.2, 0.3, 8, keep, gaussian, 2.0, background,
                                                    normalized)
    assert len(want_out) > 3
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-12)
    np.testing.assert_array_equal(index.numpy(), want_index)
    np.testing.assert_array_equal(num.numpy(), want_num)
    assert V.matrix_nms(oar.to_tensor(boxes), oar.to_tensor(scores), 0.2, 0.3, 8, keep, return_rois_num=False)[1] \
        is None


def test_distribute_fpn_proposals():
    rng = np.random.default_rng(5)
    rois = _boxes(rng, 20, span=50.0)
    rois[:, 2:] = rois[:, :2] + rng.uniform(2, 300, (20, 2))
    multi, restore, nums = V.distribute_fpn_proposals(oar.to_tensor(rois), 2, 5, 4, 224, pixel_offset=True,
                                                      rois_num=oar.to_tensor(np.array([12, 8], np.int32)))
    lvl = [min(max(math.floor(math.log2(math.sqrt((r[2] - r[0] + 1) * (r[3] - r[1] + 1)) / 224 + 1e-8) + 4), 2), 5)
           for r in rois]
    for k, level in enumerate(range(2, 6)):
        want = rois[[i for i in range(20) if lvl[i] == level]]
        np.testing.assert_array_equal(multi[k].numpy(), want)
        np.testing.assert_array_equal(nums[k].numpy(), [sum(lvl[i] == level for i in range(12)),
                                                        sum(lvl[i] == level for i in range(12, 20))])
    cat = np.concatenate([m.numpy() for m in multi])
    np.testing.assert_array_equal(cat[restore.numpy().ravel()], rois)


def _ref_proposals(scores, deltas, img, anchors, var, pre, post, thr, min_size):
    rois, nums = [], []
    for b in range(scores.shape[0]):
        s = scores[b].transpose(1, 2, 0).ravel()
        d = deltas[b].transpose(1, 2, 0).reshape(-1, 4)
        a, v = anchors.reshape(-1, 4), var.reshape(-1, 4)
        cands = []
        for i in np.argsort(-s, kind="stable")[:pre]:
            aw, ah = a[i, 2] - a[i, 0], a[i, 3] - a[i, 1]
            cx, cy = v[i, 0] * d[i, 0] * aw + a[i, 0] + aw / 2, v[i, 1] * d[i, 1] * ah + a[i, 1] + ah / 2
            w = math.exp(min(v[i, 2] * d[i, 2], math.log(1000 / 16))) * aw
            h = math.exp(min(v[i, 3] * d[i, 3], math.log(1000 / 16))) * ah
            box = [min(max(cx - w / 2, 0), img[b, 1]), min(max(cy - h / 2, 0), img[b, 0]),
                   min(max(cx + w / 2, 0), img[b, 1]), min(max(cy + h / 2, 0), img[b, 0])]
            if box[2] - box[0] >= max(min_size, 1) and box[3] - box[1] >= max(min_size, 1):
                cands.append((box, s[i]))
        if cands:
            bx = np.array([c[0] for c in cands])
            keep = ref.nms(bx, np.arange(len(cands), 0, -1.0), thr)[:post]
            rois.append(bx[keep])
        nums.append(len(keep) if cands else 0)
    return np.concatenate(rois), np.array(nums)


def test_generate_proposals():
    rng = np.random.default_rng(6)
    A, H, W = 3, 4, 5
    cy, cx = np.meshgrid(np.arange(H) * 8.0, np.arange(W) * 8.0, indexing="ij")
    sizes = np.array([8.0, 16.0, 24.0])
    anchors = np.stack([cx[..., None] - sizes / 2, cy[..., None] - sizes / 2, cx[..., None] + sizes / 2,
                        cy[..., None] + sizes / 2], -1)  # [H, W, A, 4]
    var = np.full((H, W, A, 4), 1.0)
    var[..., 2:] = 0.5
    scores, deltas = rng.uniform(size=(2, A, H, W)), rng.normal(0, 0.5, (2, 4 * A, H, W))
    img = np.array([[30.0, 38.0], [25.0, 40.0]])
    rois, probs, num = V.generate_proposals(*(oar.to_tensor(a) for a in (scores, deltas, img, anchors, var)),
                                            pre_nms_top_n=40, post_nms_top_n=12, nms_thresh=0.5, min_size=2.0,
                                            return_rois_num=True)
    want, want_num = _ref_proposals(scores, deltas, img, anchors, var, 40, 12, 0.5, 2.0)
    np.testing.assert_allclose(rois.numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(num.numpy(), want_num)
    assert probs.shape == [rois.shape[0], 1] and (np.diff(probs.numpy()[:num.numpy()[0], 0]) <= 0).all()
