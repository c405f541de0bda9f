"""jxkernel's GPU and TPU extras (issue 46): `pip install "jxkernel[cuda12]"` as
`pip install "jax[cuda12]"`.

Each extra of pyproject.toml names what JAX 0.10.2's extra of the same name names besides jaxlib
(JAX's METADATA, recorded by reference/make_extras_reference.py in
tests/data/jax_extras_reference.json), and jaxlib as JAX's extra pins it; jxkernel.xla.client's
table (what `python -m jxkernel` and the backend errors tell to install) is the same; and the
registry resolves each (uv pip compile for Linux x86-64 with glibc 2.35, Ubuntu 22.04's as on Colab and Cloud TPU
VMs, and Python 3.11; skipped, saying so, where
no registry answers and uv's cache lacks them). Then the install line for the machine: CUDA 13's
plugin where the NVIDIA driver runs it, CUDA 12's before, libtpu on a TPU, read from a made-up
/sys and /proc.
"""
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from jxkernel.xla import client
import locations  # tests/support: the repository's folders
from uv_resolve import resolve  # tests/support

ROOT = Path(locations.ROOT)
GPU_TPU = ("cuda", "cuda12", "cuda13", "cuda12-local", "cuda13-local", "tpu")
# versions around the pins: two requirements are the same where they admit the same of these
AROUND = ["0.10.1", "0.10.2", "0.10.2.post1", "0.10.3", "0.11.0", "0.0.41", "0.0.42",
          "0.0.42.1", "0.0.43", "1.0"]


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def jax_extras() -> dict:
    recorded = locations.recorded("jax_extras_reference.json")
    assert (recorded["jax_version"], recorded["jaxlib_version"]) == ("0.10.2", "0.10.2")
    extras = {}
    for line in recorded["requires_dist"]:
        req = Requirement(line)
        for name in recorded["provides_extra"]:
            if req.marker is not None and req.marker.evaluate({"extra": name}):
                req.marker = None
                extras.setdefault(name, []).append(req)
    return extras


def meaning(req: Requirement) -> tuple:
    return (canonicalize_name(req.name), frozenset(req.extras),
            tuple(req.specifier.contains(v, prereleases=True) for v in AROUND))


def test_each_gpu_and_tpu_extra_names_what_jax_names():
    ours = pyproject()["optional-dependencies"]
    theirs = jax_extras()
    jaxlib_pin, = [Requirement(d) for d in pyproject()["dependencies"] if d.startswith("jaxlib")]
    for extra in GPU_TPU:
        want = [r for r in theirs[extra] if r.name != "jaxlib"]
        assert sorted(map(meaning, map(Requirement, ours[extra]))) == sorted(map(meaning, want)), \
            extra
        # JAX's extra pins jaxlib to its own release; jxkernel pins it for all
        jaxlib, = [r for r in theirs[extra] if r.name == "jaxlib"]
        assert meaning(jaxlib) == meaning(jaxlib_pin), extra
    # JAX's other extras are left out, and rocm7-local on purpose (no ROCm plugin is loaded)
    recorded = locations.recorded("jax_extras_reference.json")
    assert set(recorded["provides_extra"]) - set(ours) == {"minimum-jaxlib", "cpu", "ci",
                                                           "rocm7-local", "k8s", "xprof"}


def test_the_runtime_names_the_same_requirements():
    ours = pyproject()["optional-dependencies"]
    assert {name: list(reqs) for name, reqs in client.EXTRAS.items()} == \
        {name: ours[name] for name in client.EXTRAS}
    assert ours["cuda"] == ours["cuda12"]            # JAX's `cuda` is CUDA 12's


@pytest.mark.parametrize("extra", GPU_TPU)
def test_the_registry_resolves_each_extra(extra, tmp_path):
    jaxlib, = [d for d in pyproject()["dependencies"] if d.startswith("jaxlib")]
    pinned = resolve([jaxlib, *pyproject()["optional-dependencies"][extra]], "3.11", tmp_path)
    assert pinned["jaxlib"] == "0.10.2"
    if extra.startswith("cuda"):
        cuda = "cuda13" if "13" in extra else "cuda12"
        # the plugin and the PJRT library jxkernel loads, both at jaxlib's release
        assert pinned[f"jax-{cuda}-plugin"] == pinned[f"jax-{cuda}-pjrt"] == "0.10.2"
        assert any(n.startswith("nvidia-") for n in pinned) == (not extra.endswith("-local"))
        assert "jax" not in pinned                   # no JAX comes along with the plugin
    else:
        assert pinned["libtpu"].startswith("0.0.42")


def machine(tmp_path, vendors=(), driver=None) -> str:
    """A made-up root with PCI devices of `vendors` and an NVIDIA driver's version file."""
    for i, vendor in enumerate(vendors):
        device = tmp_path / "sys/bus/pci/devices" / f"0000:00:0{i}.0"
        device.mkdir(parents=True)
        (device / "vendor").write_text(vendor + "\n")
    if driver is not None:
        (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
        (tmp_path / "proc/driver/nvidia/version").write_text(
            f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver}  Release Build  "
            f"(dvs-builder@U22-I3-AF03-09-1)  Wed Jul 30 2025\nGCC version:  gcc version 12.3.0\n")
    return str(tmp_path)


@pytest.mark.parametrize("vendors, driver, extra, line", [
    (["0x8086", "0x10de"], "580.65.06", "cuda13", 'pip install "jax-cuda13-plugin[with-cuda]==0.10.2"'),
    (["0x10de"], "550.54.15", "cuda12", 'pip install "jax-cuda12-plugin[with-cuda]==0.10.2"'),
    (["0x10de"], None, "cuda12", 'pip install "jax-cuda12-plugin[with-cuda]==0.10.2"'),
    (["0x1ae0"], None, "tpu", 'pip install "libtpu==0.0.42.*"'),
    (["0x8086", "0x1af4"], None, None, 'pip install "jax-cuda12-plugin[with-cuda]==0.10.2"'),
])
def test_the_install_line_fits_the_machine(tmp_path, vendors, driver, extra, line):
    root = machine(tmp_path, vendors, driver)
    assert client.machine_accelerator(root)[0] == extra
    platform = "tpu" if extra == "tpu" else "gpu"
    assert client.install_line(platform, root) == line
    assert f"jxkernel[{extra or 'cuda12'}]" in client.install_advice(platform, root)


def test_a_plugin_of_another_release_is_named(monkeypatch):
    import importlib.metadata as metadata
    real = metadata.version
    fake = {"jax-cuda12-pjrt": "0.7.2", "jax-cuda12-plugin": "0.7.2", "jaxlib": "0.10.2"}
    monkeypatch.setattr(metadata, "version", lambda name: fake[name] if name in fake
                        else real(name))
    said = client._cuda_plugin_mismatch("/x/jax_plugins/xla_cuda12/xla_cuda_plugin.so")
    assert said == ("jax-cuda12-pjrt 0.7.2 is installed, but jaxlib is 0.10.2: a plugin serves "
                    "only its own jaxlib release")
    fake.update({"jax-cuda12-pjrt": "0.10.2", "jax-cuda12-plugin": "0.10.2"})
    assert client._cuda_plugin_mismatch("/x/jax_plugins/xla_cuda12/xla_cuda_plugin.so") is None


def test_jxbackend_shows_the_install_line_for_this_machine():
    # `%jxbackend` returns the backend selector; a backend that does not start is listed with
    # why, which ends in the command for this machine
    pytest.importorskip("ipywidgets")
    from jxkernel.notebook.widgets.backend import BackendSelector
    selector = BackendSelector()
    if "gpu" not in selector.missing:
        pytest.skip("a GPU backend starts here")
    line = client.install_line("gpu")
    assert line in selector.missing["gpu"] and line in selector.text_repr()
    assert line in selector.html_repr().replace("&quot;", '"')


def test_the_kernel_extra_is_the_notebook_extra_less_its_servers_and_colabs_satisfy_it():
    import colab_runtime  # tests/data
    extras = pyproject()["optional-dependencies"]
    kernel = [Requirement(r) for r in extras["kernel"]]
    names = {canonicalize_name(r.name) for r in kernel}
    assert {canonicalize_name(Requirement(r).name) for r in extras["notebook"]} - names == \
        {"jupyterlab", "notebook"}
    # what Colab has already satisfies it, so pip leaves Colab's IPython, kernel and widgets
    for req in kernel:
        have = colab_runtime.PACKAGES.get(canonicalize_name(req.name))
        assert have is None or req.specifier.contains(have), (req, have)
