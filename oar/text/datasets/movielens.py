"""MovieLens 1M (``ml-1m.zip``: users.dat, movies.dat, ratings.dat), as Paddle's recommender tutorial reads it."""
import re
import zipfile

import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

AGE_TABLE = [1, 18, 25, 35, 45, 50, 56]
_TITLE = re.compile(r"^(.*)\((\d+)\)$")


class Movielens(Dataset):
    """One sample per rating: ``(user id, gender 0/1, age bucket, job id, movie id, category ids, title word ids,
    rating * 2 - 5)`` as int64 / float arrays. A rating goes to 'test' when a uniform draw from
    ``RandomState(rand_seed)`` is below `test_ratio` (Paddle's split). Category and title-word ids follow sorted
    order (Paddle numbers them in set order, which changes between Python processes).

    Example:
        >>> import zipfile
        >>> with zipfile.ZipFile("ml-1m.zip", "w") as z:
        ...     z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\\n")
        ...     z.writestr("ml-1m/users.dat", "1::F::1::10::48067\\n")
        ...     z.writestr("ml-1m/ratings.dat", "1::1::5::978300760\\n")
        >>> ds = paddle.text.Movielens(data_file="ml-1m.zip", mode="train", test_ratio=0.0)
        >>> [a.tolist() for a in ds[0]]
        [[1], [1], [0], [10], [1], [0, 1], [1, 0], [5.0]]
    """

    URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
    MD5 = "c4d9eecfca2ab87c1945afe126590906"

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0, download=True):
        self.mode = check_mode("Movielens", mode)
        self.data_file = resolve("Movielens", data_file, "sentiment", self.URL, self.MD5, download)
        self.test_ratio, self.rand_seed = test_ratio, rand_seed
        try:
            with zipfile.ZipFile(self.data_file) as z:
                self._load_meta(z)
                self.data = self._load_ratings(z)
        except (zipfile.BadZipFile, KeyError, ValueError) as e:
            raise ValueError(f"Movielens: {self.data_file!r} is not a readable ml-1m archive ({e})") from None

    @staticmethod
    def _lines(z, name):
        with z.open(name) as f:
            return [line.decode("latin").strip().split("::") for line in f if line.strip()]

    def _load_meta(self, z):
        self.movie_info, words, cats = {}, set(), set()
        for movie_id, title, categories in self._lines(z, "ml-1m/movies.dat"):
            categories = categories.split("|")
            m = _TITLE.match(title)
            title = m.group(1) if m else title
            self.movie_info[int(movie_id)] = (int(movie_id), categories, title)
            cats.update(categories)
            words.update(w.lower() for w in title.split())
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(cats))}
        self.user_info = {}
        for uid, gender, age, job, _ in self._lines(z, "ml-1m/users.dat"):
            self.user_info[int(uid)] = [[int(uid)], [0 if gender == "M" else 1], [AGE_TABLE.index(int(age))],
                                        [int(job)]]

    def _load_ratings(self, z):
        draw, is_test, out = np.random.RandomState(self.rand_seed), self.mode == "test", []
        for uid, mov_id, rating, _ in self._lines(z, "ml-1m/ratings.dat"):
            if (draw.random_sample() < self.test_ratio) != is_test:
                continue
            idx, categories, title = self.movie_info[int(mov_id)]
            movie = [[idx], [self.categories_dict[c] for c in categories],
                     [self.movie_title_dict[w.lower()] for w in title.split()]]
            out.append(self.user_info[int(uid)] + movie + [[float(rating) * 2 - 5.0]])
        return out

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
