"""Build step of the torch_nsim package (`pip install --no-build-isolation
[-e] torch_nsim`, after `bazel build //torch_nsim:libnsim_core.so`).

The simulator comes from Bazel as one shared library, copied into the
package next to the extension (found through rpath $ORIGIN,
tools/python_packages.py); the extension torch_nsim._C adds only the PyTorch
glue in csrc/, compiled against the installed torch with its own flags
(C++11 ABI, as the torch wheels). Objects stay in build/ so a rebuild
compiles only what changed (ninja).
"""
import glob
import os
import sys

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, include_paths

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.append(os.path.join(ROOT, "tools"))
import python_packages  # noqa: E402

CORE = "libnsim_core.so"
TARGET = "//torch_nsim:" + CORE


class BuildExt(BuildExtension, python_packages.InstallingBuildExt):
    def finalize_options(self):
        super().finalize_options()
        self.build_temp = os.path.join(HERE, "build", "temp")

    def build_extensions(self):
        core = python_packages.built(TARGET)
        package_dir = os.path.dirname(self.get_ext_fullpath("torch_nsim._C"))
        python_packages.install(core, os.path.join(package_dir, CORE))
        self.extra_files = {CORE: core}
        for ext in self.extensions:
            ext.library_dirs = [package_dir, *ext.library_dirs]
            ext.depends = [core, *glob.glob(os.path.join(HERE, "csrc", "*.h"))]
        super().build_extensions()


def extension():
    kineto = [os.path.join(p, "kineto") for p in include_paths() if os.path.isdir(os.path.join(p, "kineto"))]
    return CppExtension(
        "torch_nsim._C",
        sources=sorted(glob.glob(os.path.join("csrc", "*.cc"))),
        include_dirs=[ROOT] + kineto,
        libraries=[CORE[3:-3]],
        extra_compile_args=["-DUSE_KINETO", "-O1", "-g0", "-Wno-unused-parameter"],
        extra_link_args=["-Wl,-rpath,$ORIGIN"],
    )


os.chdir(HERE)
setup(ext_modules=[extension()], cmdclass={"build_ext": BuildExt})
