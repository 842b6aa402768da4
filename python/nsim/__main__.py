"""python3 -m nsim sweep SPEC --out DIR (and the C++ nsim's other subcommands)."""
import sys

from nsim.sweeps.cli import main

sys.exit(main())
