"""docs/nki-api.md is what tools/nki_api_doc/generate.py writes from the frontend's code."""
import os
import sys

from nki_testing import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "nki_api_doc"))
import generate  # noqa: E402


def test_generated_api_table_is_current():
    with open(os.path.join(ROOT, "docs", "nki-api.md")) as f:
        assert f.read() == generate.generate(), "docs/nki-api.md is stale: run python3 tools/nki_api_doc/generate.py"


def test_every_unsupported_name_raises_when_used():
    """The table's Unsupported rows are real: calling each raises nki.Unsupported, not another error."""
    import pytest

    import nsim.nki as nki
    for title, module in generate.SECTIONS:
        for name, obj in generate.public_names(module):
            if getattr(obj, "nsim_unsupported", False):
                with pytest.raises(nki.Unsupported, match=name):
                    obj()
