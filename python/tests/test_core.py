"""Finding the extension module, and its clear error when it is not built."""
import os
import shutil
import subprocess
import sys

from nki_testing import ROOT


def test_missing_extension_names_the_set_up(tmp_path):
    """A package without its extension (never installed) says what to run."""
    shutil.copytree(os.path.join(ROOT, "python", "nsim"), tmp_path / "nsim",
                    ignore=shutil.ignore_patterns("*.so", "configs"))
    code = "import nsim._core as c\ntry:\n    c.core()\nexcept ImportError as e:\n    print(e)\n"
    env = {k: v for k, v in os.environ.items() if k not in ("NSIM_CORE_SO", "PYTHONPATH")}
    # -S: no site-packages, so no editable install's finder supplies the
    # extension from a checkout.
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True).stdout
    assert f"not installed in {tmp_path / 'nsim'}: run `bash tools/setup.sh`" in out


def test_config_limits():
    from nsim import _core
    info = _core.core().config_info("trn1")
    assert (info["partitions"], info["psum_banks"], info["psum_bank_bytes"], info["semaphores"]) == (128, 8, 2048, 256)


def test_onchip_layout_is_the_loaders_rule():
    """sim/memory/onchip_layout.h through the extension: SBUF at 64 B
    boundaries, PSUM packed without straddling a 2 KiB bank."""
    from nsim import _core
    got = _core.core().onchip_layout(2048, [("sbuf", 100), ("psum", 1024), ("psum", 1536), ("sbuf", 1)])
    assert got == {"offsets": [0, 0, 2048, 128], "sbuf_used": 192, "psum_used": 3584}


def test_onchip_layout_rejects_hbm():
    import pytest
    from nsim import _core
    with pytest.raises(RuntimeError, match="space 'hbm' is not sbuf or psum"):
        _core.core().onchip_layout(2048, [("hbm", 4)])
