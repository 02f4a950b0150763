"""oar.audio (issue 23): the functional pieces against NumPy references of their formulas (Slaney/HTK mel scales,
triangular filters, decibels, DCT-II, NumPy's windows), the feature layers against a NumPy STFT pipeline, and WAV
input/output round trips."""
import math

import numpy as np
import pytest

import oar

F = oar.audio.functional
rng = np.random.default_rng(2)


def slaney_mel(f):
    return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-9) / 1000) / (math.log(6.4) / 27), f * 3 / 200)


def test_mel_scales():
    f = np.array([50.0, 999.0, 1000.0, 4000.0, 8000.0])
    np.testing.assert_allclose(F.hz_to_mel(oar.to_tensor(f)).numpy(), slaney_mel(f), rtol=1e-12)
    assert F.hz_to_mel(4000.0) == pytest.approx(slaney_mel(np.array(4000.0)))
    assert F.hz_to_mel(440.0, htk=True) == pytest.approx(2595 * math.log10(1 + 440 / 700))
    np.testing.assert_allclose(F.mel_to_hz(F.hz_to_mel(oar.to_tensor(f))).numpy(), f, rtol=1e-10)
    assert F.mel_to_hz(F.hz_to_mel(440.0, htk=True), htk=True) == pytest.approx(440.0)
    mels = F.mel_frequencies(5, 20.0, 8000.0, dtype="float64").numpy()
    np.testing.assert_allclose(slaney_mel(mels), np.linspace(slaney_mel(np.array(20.0)),
                                                             slaney_mel(np.array(8000.0)), 5), rtol=1e-10)
    np.testing.assert_allclose(F.fft_frequencies(16000, 8).numpy(), [0, 2000, 4000, 6000, 8000])


def test_fbank_matrix_is_librosas_triangles():
    sr, n_fft, n_mels = 16000, 64, 6
    fb = F.compute_fbank_matrix(sr, n_fft, n_mels, f_min=0.0, dtype="float64").numpy()
    edges = F.mel_frequencies(n_mels + 2, 0.0, sr / 2, dtype="float64").numpy()
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    for m in range(n_mels):
        lo, c, hi = edges[m:m + 3]
        tri = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
        np.testing.assert_allclose(fb[m], tri * 2 / (hi - lo), rtol=1e-10, atol=1e-14)
    unit = F.compute_fbank_matrix(sr, n_fft, n_mels, norm=2.0, dtype="float64").numpy()
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1.0, rtol=1e-10)


def test_power_to_db_and_dct():
    x = rng.uniform(1e-12, 100, size=(3, 5))
    db = 10 * np.log10(np.maximum(x, 1e-10)) - 10 * np.log10(2.0)
    np.testing.assert_allclose(F.power_to_db(oar.to_tensor(x), ref_value=2.0, top_db=None).numpy(), db, rtol=1e-10)
    np.testing.assert_allclose(F.power_to_db(oar.to_tensor(x), top_db=20.0).numpy(),
                               np.maximum(db + 10 * np.log10(2.0), (db + 10 * np.log10(2.0)).max() - 20), rtol=1e-10)
    d = F.create_dct(5, 8, dtype="float64").numpy()
    n, k = np.arange(8), np.arange(5)[:, None]
    ref = np.cos(np.pi / 8 * (n + 0.5) * k) * np.sqrt(2 / 8)
    ref[0] /= np.sqrt(2)
    np.testing.assert_allclose(d, ref.T, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(F.create_dct(5, 8, norm=None, dtype="float64").numpy(),
                               2 * np.cos(np.pi / 8 * (n + 0.5) * k).T, atol=1e-12)


@pytest.mark.parametrize("name,ref", [("hann", np.hanning), ("hamming", np.hamming), ("blackman", np.blackman),
                                      ("bartlett", np.bartlett), (("kaiser", 5.0), lambda m: np.kaiser(m, 5.0))])
def test_windows(name, ref):
    np.testing.assert_allclose(F.get_window(name, 9, fftbins=False).numpy(), ref(9), atol=1e-12)
    np.testing.assert_allclose(F.get_window(name, 8).numpy(), ref(9)[:8], atol=1e-12)  # periodic
    with pytest.raises(ValueError, match="unknown window"):
        F.get_window("tukey", 8)


def test_feature_layers_against_numpy_stft():
    wav = rng.normal(size=(2, 1000)).astype("float32")
    n_fft, hop = 128, 32
    padded = np.pad(wav, [(0, 0), (n_fft // 2, n_fft // 2)], mode="reflect")
    frames = np.stack([padded[:, i:i + n_fft] for i in range(0, padded.shape[1] - n_fft + 1, hop)], -1)
    win = np.hanning(n_fft + 1)[:n_fft]
    spec = np.abs(np.fft.rfft(frames * win[None, :, None], axis=1)) ** 2
    got = oar.audio.features.Spectrogram(n_fft=n_fft, hop_length=hop, power=2.0)(oar.to_tensor(wav)).numpy()
    np.testing.assert_allclose(got, spec, rtol=2e-4, atol=1e-3)
    mel_layer = oar.audio.features.MelSpectrogram(sr=8000, n_fft=n_fft, hop_length=hop, n_mels=16)
    fb = F.compute_fbank_matrix(8000, n_fft, 16, f_min=50.0).numpy()
    mel = mel_layer(oar.to_tensor(wav)).numpy()
    np.testing.assert_allclose(mel, fb @ spec, rtol=2e-4, atol=1e-3)
    logmel = oar.audio.features.LogMelSpectrogram(sr=8000, n_fft=n_fft, hop_length=hop, n_mels=16)
    ref_db = 10 * np.log10(np.maximum(fb @ spec, 1e-10))
    np.testing.assert_allclose(logmel(oar.to_tensor(wav)).numpy(), ref_db, rtol=1e-3, atol=1e-3)
    mfcc = oar.audio.features.MFCC(sr=8000, n_mfcc=10, n_fft=n_fft, hop_length=hop, n_mels=16)
    dct = F.create_dct(10, 16).numpy()
    np.testing.assert_allclose(mfcc(oar.to_tensor(wav)).numpy(), np.einsum("bmt,mk->bkt", ref_db, dct),
                               rtol=1e-3, atol=2e-3)
    with pytest.raises(ValueError, match="n_mfcc"):
        oar.audio.features.MFCC(n_mfcc=80, n_mels=64)


def test_wav_round_trip(tmp_path):
    wav = np.round(rng.uniform(-0.9, 0.9, size=(2, 300)) * 2 ** 15) / 2 ** 15
    path = tmp_path / "x.wav"
    oar.audio.save(str(path), oar.to_tensor(wav.astype("float32")), 8000)
    i = oar.audio.info(str(path))
    assert (i.sample_rate, i.num_samples, i.num_channels, i.bits_per_sample, i.encoding) == (8000, 300, 2, 16, "PCM_S")
    back, sr = oar.audio.load(str(path))
    assert sr == 8000 and back.dtype == oar.float32
    np.testing.assert_allclose(back.numpy(), wav, atol=1e-6)
    part, _ = oar.audio.load(str(path), frame_offset=10, num_frames=5, normalize=False, channels_first=False)
    np.testing.assert_allclose(part.numpy(), (wav.T[10:15] * 2 ** 15), atol=1e-3)
    oar.audio.save(str(path), oar.to_tensor([[1.0, -1.0]]), 8000)  # 1.0 clips to 32767 (Paddle's cast wraps)
    np.testing.assert_allclose(oar.audio.load(str(path), normalize=False)[0].numpy(), [[32767, -32768]])
    assert oar.audio.backends.list_available_backends() == ["wave_backend"]
    with pytest.raises(NotImplementedError, match="soundfile"):
        oar.audio.backends.set_backend("soundfile")


def test_esc50_and_tess_read_their_folders(tmp_path, monkeypatch):
    from oar.dataset import common
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    root = tmp_path / "ESC-50-master"
    (root / "meta").mkdir(parents=True)
    (root / "audio").mkdir()
    rows = ["filename,fold,target,category,esc10,src_file,take"]
    for i, (fold, target) in enumerate([(1, 3), (2, 7), (1, 0)]):
        oar.audio.save(str(root / "audio" / f"{i}.wav"), oar.to_tensor(np.full((1, 400), 0.1 * (i + 1))), 8000)
        rows.append(f"{i}.wav,{fold},{target},x,False,y,A")
    (root / "meta" / "esc50.csv").write_text("\n".join(rows) + "\n")
    train, dev = oar.audio.datasets.ESC50("train", split=1), oar.audio.datasets.ESC50("dev", split=1)
    assert len(train) == 1 and len(dev) == 2
    wav, label = train[0]
    assert label == 7 and wav.shape == [400]
    np.testing.assert_allclose(wav.numpy(), 0.2, atol=1e-4)
    feat, _ = oar.audio.datasets.ESC50("dev", split=1, feat_type="mfcc", n_mfcc=8, n_fft=128, n_mels=16)[1]
    assert feat.shape == [8, 13]
    tess = tmp_path / "TESS_Toronto_emotional_speech_set" / "OAF_angry"
    tess.mkdir(parents=True)
    for w in ["back", "bar", "base"]:
        oar.audio.save(str(tess / f"OAF_{w}_ps.wav"), oar.zeros([1, 100]), 8000)
    t = oar.audio.datasets.TESS("dev", n_folds=3, split=2)
    assert len(t) == 1 and t[0][1] == 5
    with pytest.raises(ValueError, match="split"):
        oar.audio.datasets.TESS("dev", n_folds=3, split=4)
