"""warpred: header-only CUDA reduction primitives, packaged for Python build tools.

The package holds no compiled code: only the headers (package data) and where they are, for the
tools that compile CUDA at run time or build extensions:

    import warpred
    warpred.get_include()   # the folder that holds warpred/*.cuh: pass it as -I (NVRTC, nvcc)
    warpred.__version__     # the headers' version (warpred/version.h)

CuPy:       cupy.RawModule(code=src, options=("-std=c++17", "-I" + warpred.get_include()))
PyTorch:    torch.utils.cpp_extension.load_inline(..., extra_include_paths=[warpred.get_include()])
numba-cuda: NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS=warpred.get_include() in the environment before
            numba compiles a linked .cu file (see samples/python in the repository).
"""
import os
import re

__all__ = ["get_include", "__version__"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def get_include():
    """The folder to put on the include path: it holds warpred/warpred.cuh and the other headers.

    Installed (pip install .): the headers copied into this package. Run from a checkout without
    installing (python/ on sys.path): the repository root, which holds warpred/.
    """
    for candidate in (os.path.join(_HERE, "include"), os.path.dirname(os.path.dirname(_HERE))):
        if os.path.isfile(os.path.join(candidate, "warpred", "version.h")):
            return candidate
    raise RuntimeError("warpred: the headers are missing from %s (reinstall the package)" % _HERE)


def _version():
    with open(os.path.join(get_include(), "warpred", "version.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#\s*define\s+WARPRED_VERSION_%s\s+(\d+)" % p, text) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "unknown"


__version__ = _version()
