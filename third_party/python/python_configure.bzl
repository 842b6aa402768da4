"""Finds the Python that runs the `nsim` package and its pybind11 headers.

The extension module //python:_nsim_core.so must be built against the headers
of the interpreter that imports it: `python3` on PATH (pyenv or Debian), with
pybind11 installed by tools/setup.sh. Nothing is downloaded.
"""

_PROBE = """
import sysconfig
try:
    import pybind11
except ImportError:
    raise SystemExit("pybind11 is not installed for this python3: run `bash tools/setup.sh`")
print(sysconfig.get_paths()["include"])
print(pybind11.get_include())
"""

def _python_configure_impl(ctx):
    python = ctx.which("python3")
    if python == None:
        fail("python3 not found on PATH; the nsim Python module needs it (run `bash tools/setup.sh`)")
    res = ctx.execute([python, "-c", _PROBE])
    if res.return_code != 0:
        fail("probing %s for Python and pybind11 headers failed: %s%s" % (python, res.stdout, res.stderr))
    python_include, pybind11_include = res.stdout.strip().split("\n")
    ctx.symlink(python_include, "python_include")
    ctx.symlink(pybind11_include, "pybind11_include")
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "pybind11",
    hdrs = glob(["python_include/**/*.h", "pybind11_include/**/*.h"]),
    includes = ["python_include", "pybind11_include"],
)
""")

python_configure = repository_rule(
    implementation = _python_configure_impl,
    environ = ["PATH", "PYENV_VERSION"],
    local = True,
)
