"""python3 -m nsim.nki FILE.py [ARGS] / python3 -m nsim.nki -m MODULE [ARGS]: runs an NKI script, or a
module such as pytest over a kernel repository's own tests, unchanged on the simulator
(nsim.nki.install(), then the script or module as __main__)."""
import os
import runpy
import sys

from .install import install


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print("usage: python3 -m nsim.nki FILE.py [ARGS...]\n"
              "       python3 -m nsim.nki -m MODULE [ARGS...]   (e.g. -m pytest tests/)\n"
              "Runs an NKI kernel script (or module) unchanged on the simulator (`import nki` and `neuronxcc.nki` resolve "
              "to nsim.nki).\nEnvironment: NEURON_PLATFORM_TARGET_OVERRIDE=trn1|trn2|trn3 picks the config; "
              "NSIM_PROFILE_DIR=DIR writes each simulated call's profile under DIR; NSIM_PASSES=licm=off,... turns the "
              "compiler model's passes off; NSIM_EXPLAIN=1 prints their decisions.", file=sys.stderr)
        return 2
    install()
    if argv[1] == "-m":
        if len(argv) < 3:
            print("python3 -m nsim.nki -m: name the module to run", file=sys.stderr)
            return 2
        sys.argv = argv[2:]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[1])))  # as `python3 FILE.py`: its folder's modules import
    runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
