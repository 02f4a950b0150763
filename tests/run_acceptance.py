"""Runs every acceptance script listed in tests/acceptance.txt (paths under ../shared/acceptance/).

When that folder is absent, says so in one line and counts every script as skipped in the closing summary
(``acceptance: 0 passed, 0 failed, N skipped``); exits non-zero when any script fails. Each script runs with
its own TMPDIR, removed afterwards, so the temporary folders the scripts make (`tempfile.mkdtemp()` for their
saved models) do not pile up in /tmp."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "acceptance"))


def main(root=ROOT):
    listed = [l.split("#")[0].strip() for l in open(os.path.join(HERE, "acceptance.txt"))]
    listed = [l for l in listed if l]
    if not os.path.isdir(root):
        print(f"acceptance: the folder {root} is absent, so the {len(listed)} scripts listed in "
              "tests/acceptance.txt were NOT run")
        print(f"acceptance: 0 passed, 0 failed, {len(listed)} skipped")
        return 0
    failed = []
    for rel in listed:
        path = os.path.join(root, rel)
        t0 = time.time()
        scratch = tempfile.mkdtemp(prefix="oar-acceptance-")
        try:
            r = subprocess.run([sys.executable, path], cwd=os.path.dirname(path), capture_output=True, text=True,
                               env={**os.environ, "TMPDIR": scratch})
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        status = "ok" if r.returncode == 0 else "FAILED"
        print(f"acceptance {rel}: {status} ({time.time() - t0:.1f}s)")
        if r.returncode:
            failed.append(rel)
            print(r.stdout[-3000:], r.stderr[-3000:])
    print(f"acceptance: {len(listed) - len(failed)} passed, {len(failed)} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
