"""pytest set-up: import `nsim` from this checkout (python/, see nki_testing.py)."""
import numpy as np
import pytest

import nki_testing  # noqa: F401  (puts python/ and examples/nki/ on sys.path)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
