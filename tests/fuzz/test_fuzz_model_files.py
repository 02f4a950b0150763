"""Fuzzing saved-model files: byte mutations, structural mutations of the program, hostile shapes of creation and
expansion ops, and small load budgets. Every mutant must load and run, or be rejected with a clear error naming
the file, within the time and memory limits of `fuzzlib`.

A CI run does ``OAR_FUZZ_CASES`` cases (default 240); a longer run:
``OAR_FUZZ_CASES=5000 OAR_FUZZ_SEED=1 pytest tests/fuzz -s`` prints the outcome counts and peak memory.
"""
import os
import resource

import pytest

from fuzzlib import build_seeds, campaign, frozen_heap

CASES = int(os.environ.get("OAR_FUZZ_CASES", "240"))
SEED = int(os.environ.get("OAR_FUZZ_SEED", "0"))


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return build_seeds(str(tmp_path_factory.mktemp("seeds")))


def test_seed_models_run_unmutated(seeds, tmp_path):
    import random
    from fuzzlib import trial
    rng = random.Random(0)
    with frozen_heap():
        for name, prefix in seeds.items():
            for _ in range(4):
                outcome, detail, _ = trial(rng, prefix)
                assert outcome == "ran", (name, detail)


def test_fuzz_model_files(seeds, tmp_path):
    with frozen_heap():
        result = campaign(str(tmp_path), seeds, CASES, SEED)
    counts = result["counts"]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\nfuzz: {CASES} cases (seed {SEED}): {counts}; max traced peak per case "
          f"{result['max_peak'] / 2 ** 20:.1f} MiB; process max RSS {rss / 1024:.0f} MiB")
    for peak, case in result["top"]:
        print(f"  peak {peak / 2 ** 20:.1f} MiB: {case[:200]}")
    for f in result["failures"][:20]:
        print("  " + f)
    assert not result["failures"], "\n".join(result["failures"][:20])
    assert counts.get("rejected", 0) > CASES // 4 and counts.get("ran", 0) > CASES // 20, counts
