"""Build step of the Python package (pyproject.toml holds the metadata).

The headers live in warpred/ at the repository root, where C++ users expect them; the build copies
them into the package as warpred/include/warpred/ (what warpred.get_include() returns once
installed), and the version comes from warpred/version.h, the version's one home.
"""
import glob
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
HEADERS = sorted(glob.glob(os.path.join(ROOT, "warpred", "*.cuh")) + glob.glob(os.path.join(ROOT, "warpred", "*.h")))


def version():
    with open(os.path.join(ROOT, "warpred", "version.h"), encoding="utf-8") as f:
        text = f.read()
    return ".".join(re.search(r"#\s*define\s+WARPRED_VERSION_%s\s+(\d+)" % p, text).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


class build_py_with_headers(build_py):
    """build_py, plus the headers copied into the built package."""

    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "warpred", "include", "warpred")
        os.makedirs(dest, exist_ok=True)
        for h in HEADERS:
            shutil.copyfile(h, os.path.join(dest, os.path.basename(h)))
        shutil.copyfile(os.path.join(ROOT, "LICENSE"), os.path.join(self.build_lib, "warpred", "LICENSE"))

    def get_outputs(self, include_bytecode=1):
        dest = os.path.join(self.build_lib, "warpred", "include", "warpred")
        return super().get_outputs(include_bytecode) + [os.path.join(dest, os.path.basename(h)) for h in HEADERS]


if not HEADERS:
    raise SystemExit("setup.py: no headers in %s/warpred (run it from the repository root)" % ROOT)
setup(version=version(), cmdclass={"build_py": build_py_with_headers})
