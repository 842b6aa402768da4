"""Running NKI kernels as users do, both generations: install() and `python3 -m nsim.nki`,
kernel(...) with NumPy or torch, nki.simulate(k)[lnc], Beta 1's baremetal/benchmark/profile,
environment switches, and simulator options that never shadow a kernel parameter."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from nki_testing import ROOT

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


@nki.jit
def double(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=t)
    return out


@pytest.fixture
def installed():
    nki.install()
    yield
    nki.uninstall()
    assert "torch_xla" not in sys.modules
    for name in [m for m in sys.modules if m.startswith("nki.") or m == "nki"]:
        assert not sys.modules[name].__name__.startswith("nsim")


def test_install_resolves_both_generations(installed):
    import neuronxcc.nki as beta1
    import neuronxcc.nki.language as beta1_nl
    import neuronxcc.nki.typing as nt
    import nki as nki3
    import nki.collectives as ncc
    import nki.isa.constants as consts
    import nki.language as nl3
    from nki.compiler import skip_middle_end_transformations  # noqa: F401
    from nki.isa import dge_mode, engine, oob_mode, reduce_cmd  # noqa: F401
    from nki.language import NKIObject, affine_range, static_range  # noqa: F401
    assert nki3 is nki and beta1 is nki and nl3 is nl and beta1_nl is nl
    assert consts.oob_mode is nisa.oob_mode and nt.mutable_tensor is not None and ncc.ReplicaGroup
    assert isinstance(nki3.dtype, type) and nl.tile_size.pmax == 128  # outside a kernel: the default config


def test_tutorial_torch_scripts_run_on_the_xla_stand_in(installed):
    """The NKI tutorials' *_torch.py scripts put tensors on `xm.xla_device()` and call the kernel:
    without torch-neuronx that device is the CPU, and a kernel given torch tensors returns torch tensors."""
    import torch
    from torch_xla.core import xla_model as xm
    device = xm.xla_device()
    a = torch.arange(512, dtype=torch.bfloat16).reshape(128, 4).to(device=device)
    out = double(a)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
    assert torch.equal(out, 2 * a) and xm.xrt_world_size() == 1 and xm.mark_step() is None
    assert isinstance(double(a.float().numpy()), np.ndarray)  # NumPy in, NumPy out


def test_torch_neuronx_trace_is_the_function_itself(installed):
    """The tutorials' scripts compile their torch reference with torch_neuronx.trace: without
    torch-neuronx the traced callable is the function, its kernels run on the simulator."""
    import torch
    import torch_neuronx
    traced = torch_neuronx.trace(double, (torch.ones(128, 4),))
    assert torch.equal(traced(torch.ones(128, 4)), torch.full((128, 4), 2.0))
    assert isinstance(torch_neuronx.nki_jit(lambda a: a), nki.Kernel)
    with pytest.raises(TypeError, match="expected a function or torch.nn.Module"):
        torch_neuronx.trace(42, ())


def test_docs_examples_import_the_file_beside_the_script(installed, tmp_path, monkeypatch):
    """`from neuronxcc.nki.docs.examples.D.M import k` (layernorm_torch.py) imports M.py from sys.path;
    without it, the ImportError says which file to put where."""
    (tmp_path / "my_example_kernel.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from neuronxcc.nki.docs.examples.layernorm.my_example_kernel import VALUE
    assert VALUE == 7
    with pytest.raises(ImportError, match="put no_such_kernel.py beside the script"):
        import neuronxcc.nki.docs.examples.layernorm.no_such_kernel  # noqa: F401


def test_module_runs_an_unmodified_script(tmp_path):
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        from neuronxcc import nki
        import neuronxcc.nki.language as nl

        @nki.jit
        def add(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.add(nl.load(a), nl.load(b)))
            return out

        a = np.ones((4, 8), np.float32)
        print("sum", float(nki.simulate_kernel(add, a, a).sum()), sys.argv[1], nki.isa.get_nc_version().name)
        """))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), NEURON_PLATFORM_TARGET_OVERRIDE="trn1",
               NSIM_PROFILE_DIR=str(tmp_path / "prof"))
    out = subprocess.run([sys.executable, "-m", "nsim.nki", str(script), "arg1"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["sum", "64.0", "arg1", "gen2"]  # trn1 from the environment: NeuronCore-v2
    runs = os.listdir(tmp_path / "prof")
    assert runs == ["add_0"] and "trace.json" in os.listdir(tmp_path / "prof" / "add_0")


def test_call_with_numpy_and_torch_and_simulate_forms():
    torch = pytest.importorskip("torch")
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    np.testing.assert_array_equal(double(a), 2 * a)
    np.testing.assert_array_equal(nki.simulate(double)(torch.from_numpy(a)), 2 * a)
    np.testing.assert_array_equal(nki.simulate(double)[2](a), 2 * a)  # LNC=2: both programs, same result
    bf = torch.ones((8, 4), dtype=torch.bfloat16)
    assert double(bf).dtype == torch.bfloat16 and double(bf).float().tolist() == [[2.0] * 4] * 8  # torch in, torch out


def test_a_kernel_parameter_named_config_wins():
    @nki.jit
    def k(a, config=3.0):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.multiply(nl.load(a), config))
        return out
    a = np.ones((4, 4), np.float32)
    np.testing.assert_array_equal(k(a, config=5.0), 5 * a)
    r = nki.benchmark(k, a, config=7.0, nsim_config="trn1")
    assert r.config == "trn1" and r.outputs[0, 0] == 7.0


def test_beta1_decorators():
    a = np.ones((128, 4), np.float32)
    bench = nki.benchmark(warmup=2, iters=5)(double)
    np.testing.assert_array_equal(bench(a), 2 * a)
    p50 = bench.benchmark_result.nc_latency.get_latency_percentile(50)
    assert p50 == bench.benchmark_result.device_time_us > 0
    np.testing.assert_array_equal(nki.baremetal(double)(a), 2 * a)


def test_profile_writes_the_working_directory(tmp_path):
    a = np.ones((128, 4), np.float32)
    np.testing.assert_array_equal(nki.profile(working_directory=str(tmp_path), save_neff_name="k.neff")(double)(a),
                                  2 * a)
    assert "trace.json" in os.listdir(tmp_path)


def test_nested_jit_call_is_inlined():
    @nki.jit
    def outer(a):
        return double(a)  # a @nki.jit kernel called inside another kernel's trace
    a = np.ones((128, 4), np.float32)
    np.testing.assert_array_equal(outer(a), 2 * a)


def test_jit_options_are_kept():
    @nki.jit(mode="trace", debug_kernel=True, platform_target="trn2")
    def k(a):
        return double.fn(a)
    assert k.nki_options == {"mode": "trace", "debug_kernel": True, "platform_target": "trn2"}


def test_nkiobject_fields_and_nc_version():
    class Cfg(nl.NKIObject):
        tile: int = 128
        scale: float = 1.0
    c = Cfg(64, scale=2.0)
    assert (c.tile, c.scale) == (64, 2.0) and Cfg().tile == 128

    @nki.jit
    def k(a):
        assert nisa.get_nc_version() == nisa.nc_version.gen4 and nl.program_ndim() == 0
        return double.fn(a)
    nki.simulate_kernel(k, np.ones((4, 4), np.float32), config="trn3")


def test_compiler_directives_and_mod_alloc():
    import nsim.nki.compiler as ncc

    @ncc.skip_middle_end_transformations
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(4):
            t = nl.ndarray((32, 4), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(3,)))
            nisa.dma_copy(dst=t, src=a[i * 32:(i + 1) * 32])
            nisa.dma_copy(dst=out[i * 32:(i + 1) * 32], src=t)
        return out
    assert k.nki_directives == {"skip_middle_end_transformations": True}
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    r = nki.benchmark(k, a)
    np.testing.assert_array_equal(r.outputs, a)
    # num_free_tiles=(3,) is honoured exactly: the four tiles rotate over three buffers
    assert len({line.split()[1] for line in r.kernel_text.splitlines() if line.startswith("tensor") and " sbuf " in line}) == 3


def test_alloc_callback_places_every_block_once():
    """ncc.psum.alloc(func): func(block_index, pdim_size, fdim_bytes) is asked for each block, as in
    Beta 1's allocated attention; each block keeps its place across iterations (one buffer)."""
    import nsim.nki.compiler as ncc
    asked = []

    def bank(idx, pdim_size, fdim_size):
        asked.append((idx, pdim_size, fdim_size))
        return (idx[0] + 1, 0, 0)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):
            t = nl.ndarray((2, nl.par_dim(64), 4), dtype=nl.float32, buffer=ncc.psum.alloc(bank))
            for j in nl.affine_range(2):
                t[j] = nl.load(a[i * 128 + j * 64:i * 128 + (j + 1) * 64])
                nl.store(out[i * 128 + j * 64:i * 128 + (j + 1) * 64], t[j])
        return out
    a = np.arange(256 * 4, dtype=np.float32).reshape(256, 4)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a)
    assert asked[:2] == [((0,), 64, 16), ((1,), 64, 16)]

    @nki.jit
    def bad(a):
        nl.ndarray((2, nl.par_dim(64), 4), dtype=nl.float32, buffer=ncc.sbuf.alloc(lambda idx, pdim_size, fdim_size: 0))
        return a
    with pytest.raises(nki.KernelError, match=r"callback returned 0 for block \(0,\); expected 2 integers") as e:
        nki.simulate_kernel(bad, a)
    assert "test_nki_entry.py" in str(e.value)


def test_beta1_benchmark_of_typed_placeholders_is_timing_only():
    """The matmul tutorial times its kernels on `nt.tensor[shape, dtype]` placeholders: no values, the
    device time of the same arrays."""
    nt = nki.typing
    bench = nki.benchmark(warmup=1, iters=1)(double)
    assert bench(nt.tensor[[128, 4], nl.bfloat16]) is None
    placeholder = bench.benchmark_result.nc_latency.get_latency_percentile(99)
    assert placeholder == nki.benchmark(double, np.zeros((128, 4), nl.bfloat16.dtype)).device_time_us
    with pytest.raises(nki.KernelError, match=r"nki.typing.tensor\[shape, dtype\]: shape"):
        nt.tensor[[0, 4], nl.float32]


def test_beta1_profile_names_its_artifacts_as_nki_does(tmp_path):
    """nki.profile(save_neff_name=, save_trace_name=, num_execs=, profile_nth=): the NEFF under its name,
    one trace and one json report per profiled execution (<stem>_exec_N.ntff beyond the first)."""
    a = np.ones((128, 4), np.float32)
    prof = nki.profile(working_directory=str(tmp_path), save_neff_name="k.neff", save_trace_name="t.ntff",
                       num_execs=20, profile_nth=10)(double)
    np.testing.assert_array_equal(prof(a), 2 * a)
    assert {"k.neff", "t_exec_10.ntff", "t_exec_20.ntff"} <= set(os.listdir(tmp_path))
    assert sorted(os.listdir(tmp_path / "json_reports")) == ["t_exec_10.json", "t_exec_20.json"]
    assert not [f for f in os.listdir(tmp_path) if f[0].isdigit()]
    with pytest.raises(nki.KernelError, match="k.neff, t_exec_10.ntff, t_exec_20.ntff already in .*overwrite=True"):
        prof(a)
    nki.profile(working_directory=str(tmp_path), overwrite=True)(double)(a)
    assert {"file.neff", "profile.ntff"} <= set(os.listdir(tmp_path))


def test_nkiobject_dataclass_takes_plain_class_attributes_as_fields():
    """The NKI Library's attention_cte: @dataclass class SectionParams(nl.NKIObject) with `section_idx = None`
    (no annotation) is built as SectionParams(section_idx=...)."""
    import dataclasses

    @dataclasses.dataclass
    class Params(nl.NKIObject):
        idx = None
        size: int = 4
        offset = 0
    p = Params(idx=3, offset=7)
    assert (p.idx, p.size, p.offset) == (3, 4, 7) and Params().idx is None
