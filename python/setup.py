"""Build step of the nsim package: the simulator extension `nsim._nsim_core`
is //python:_nsim_core.so, built by Bazel (`bazel build
//python:_nsim_core.so` first) and copied into the package
(tools/python_packages.py). Run by `pip install [-e] python`."""
import os
import sys

from setuptools import Extension, setup

sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import python_packages  # noqa: E402

TARGET = "//python:_nsim_core.so"


class BuildExt(python_packages.InstallingBuildExt):
    def build_extension(self, ext):
        python_packages.install(python_packages.built(TARGET), self.get_ext_fullpath(ext.name))


os.chdir(os.path.dirname(os.path.abspath(__file__)))
setup(ext_modules=[Extension("nsim._nsim_core", sources=[])], cmdclass={"build_ext": BuildExt})
