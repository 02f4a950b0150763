"""`paddle.audio.datasets`: the ESC-50 and TESS sound classification sets, read from their unpacked folders under
``DATA_HOME`` (downloaded and unpacked there first when absent, as Paddle does); items are (feature, label), the
feature the raw waveform or one of `oar.audio.features` (`feat_type`)."""
import os
import zipfile

from ..dataset import common
from ..dataset.download import get_path_from_url
from ..io.dataset import Dataset
from .backends import load
from .features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

__all__ = ["ESC50", "TESS"]

_FEATURES = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC, "logmelspectrogram": LogMelSpectrogram,
             "spectrogram": Spectrogram}


class AudioClassificationDataset(Dataset):
    """(feature, label) of audio files; `feat_type` 'raw' gives the mono waveform, else the named feature layer
    built with the file's sample rate and `kwargs`."""

    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        if feat_type not in _FEATURES:
            raise ValueError(f"{type(self).__name__}: feat_type must be one of {list(_FEATURES)}, got {feat_type!r}")
        self.files, self.labels, self.feat_type, self.sample_rate, self.feat_config = files, labels, feat_type, \
            sample_rate, kwargs

    def __getitem__(self, idx):
        waveform, self.sample_rate = load(self.files[idx])
        if waveform.ndim == 2:
            waveform = waveform[0]  # the first channel, as Paddle's squeeze(0) of a mono file
        feat = _FEATURES[self.feat_type]
        if feat is not None:
            layer = feat(**self.feat_config) if self.feat_type == "spectrogram" else \
                feat(sr=self.sample_rate, **self.feat_config)
            waveform = layer(waveform.unsqueeze(0))[0]
        return waveform, self.labels[idx]

    def __len__(self):
        return len(self.files)


def _folder(who, folder, archive):
    """DATA_HOME/folder, downloaded and unpacked from `archive` (url, md5) first when absent."""
    path = os.path.join(common.DATA_HOME, folder)
    if not os.path.isdir(path):
        zipped = get_path_from_url(archive["url"], common.DATA_HOME, archive.get("md5"))
        with zipfile.ZipFile(zipped) as z:
            z.extractall(common.DATA_HOME)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{who}: {path!r} does not exist after unpacking {archive['url']}")
    return path


def _check_split(who, mode, split, n_folds):
    if mode not in ("train", "dev"):
        raise ValueError(f"{who}: mode must be 'train' or 'dev', got {mode!r}")
    if split not in range(1, n_folds + 1):
        raise ValueError(f"{who}: split must be an int in [1, {n_folds}], got {split!r}")


class ESC50(AudioClassificationDataset):
    """ESC-50 (2000 five-second clips, 50 classes, 5 folds): mode 'train' holds the folds other than `split`,
    'dev' the fold `split`; read from ``DATA_HOME/ESC-50-master`` (its meta/esc50.csv and audio/).

    Example:
        >>> oar.audio.datasets.ESC50.archive["url"].split("/")[-1]  # unpacked into DATA_HOME when absent
        'ESC-50-master.zip'
    """

    archive = {"url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip",
               "md5": "7771e4b9d86d0945acce719c7a59305a"}

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        _check_split("ESC50", mode, split, 5)
        root = _folder("ESC50", "ESC-50-master", archive or self.archive)
        files, labels = [], []
        with open(os.path.join(root, "meta", "esc50.csv")) as f:
            for line in f.readlines()[1:]:
                filename, fold, target = line.strip().split(",")[:3]
                if (int(fold) != split) == (mode == "train"):
                    files.append(os.path.join(root, "audio", filename))
                    labels.append(int(target))
        super().__init__(files, labels, feat_type, **kwargs)


class TESS(AudioClassificationDataset):
    """TESS (Toronto emotional speech, 7 emotions): the WAV files named ``<speaker>_<word>_<emotion>.wav`` in the
    order the folder walk finds them, file i in fold ``i % n_folds + 1``; mode 'train' holds the folds other than
    `split`, 'dev' the fold `split`. Read from ``DATA_HOME/TESS_Toronto_emotional_speech_set``.

    Example:
        >>> oar.audio.datasets.TESS.label_list.index('ps')  # pleasant surprise
        5
    """

    archive = {"url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip",
               "md5": "1465311b24d1de704c4c63e4ccc470c7"}
    label_list = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        if not isinstance(n_folds, int) or n_folds < 1:
            raise ValueError(f"TESS: n_folds must be an int >= 1, got {n_folds!r}")
        _check_split("TESS", mode, split, n_folds)
        root = _folder("TESS", "TESS_Toronto_emotional_speech_set", archive or self.archive)
        wavs = [os.path.join(d, f) for d, _, names in os.walk(root) for f in names if f.endswith(".wav")]
        files, labels = [], []
        for i, path in enumerate(wavs):
            emotion = os.path.basename(path)[:-4].split("_")[2]
            if (i % n_folds + 1 != split) == (mode == "train"):
                files.append(path)
                labels.append(self.label_list.index(emotion))
        super().__init__(files, labels, feat_type, **kwargs)
