"""python3 -m nsim.nki FILE.py [ARGS]: runs an NKI script unchanged on the simulator
(nsim.nki.install(), then the script as __main__)."""
import runpy
import sys

from .install import install


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print("usage: python3 -m nsim.nki FILE.py [ARGS...]\n"
              "Runs an NKI kernel script unchanged on the simulator (`import nki` and `neuronxcc.nki` resolve "
              "to nsim.nki).\nEnvironment: NEURON_PLATFORM_TARGET_OVERRIDE=trn1|trn2|trn3 picks the config; "
              "NSIM_PROFILE_DIR=DIR writes each simulated call's profile under DIR.", file=sys.stderr)
        return 2
    install()
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
