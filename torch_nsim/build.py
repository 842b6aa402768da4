"""Builds torch_nsim._C, the PyTorch extension, in place (torch_nsim/_C*.so).

Run from anywhere after `bazel build //torch_nsim:libnsim_core.so` (tools/setup.sh
does both). The simulator itself comes from Bazel as one shared library,
copied next to the extension (found through rpath $ORIGIN); the extension
adds only the PyTorch glue in torch_nsim/csrc, compiled against the
installed torch with its own flags (C++11 ABI, as the torch wheels).
"""
import glob
import os
import shutil
import sys

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, include_paths

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORE = "libnsim_core.so"


def main():
    built = os.path.join(ROOT, "bazel-bin", "torch_nsim", CORE)
    if not os.path.exists(built):
        sys.exit(f"torch_nsim/build.py: {built} is missing; run `bazel build //torch_nsim:{CORE}` first")
    dst = os.path.join(HERE, CORE)
    if os.path.exists(dst):
        os.chmod(dst, 0o755)
    shutil.copyfile(built, dst)
    kineto = [os.path.join(p, "kineto") for p in include_paths() if os.path.isdir(os.path.join(p, "kineto"))]
    ext = CppExtension(
        "torch_nsim._C",
        sources=sorted(glob.glob(os.path.join("torch_nsim", "csrc", "*.cc"))),
        include_dirs=[ROOT] + kineto,
        library_dirs=[HERE],
        libraries=[CORE[3:-3]],
        extra_compile_args=["-DUSE_KINETO", "-O1", "-g0", "-Wno-unused-parameter"],
        extra_link_args=["-Wl,-rpath,$ORIGIN"],
    )
    os.chdir(ROOT)
    setup(name="torch_nsim", ext_modules=[ext], cmdclass={"build_ext": BuildExtension},
          script_args=["build_ext", "--inplace", "--build-temp", os.path.join("torch_nsim", "build"),
                       "--build-lib", os.path.join("torch_nsim", "build", "lib")])


if __name__ == "__main__":
    main()
