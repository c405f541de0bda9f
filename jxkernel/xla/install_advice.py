"""What a machine needs installed to use its accelerator: jxkernel's GPU and TPU extras,
the accelerator found on the PCI bus (and the NVIDIA driver's version), and the install
line that adds it, read without starting any backend.

    >>> install_line("gpu", "/nonexistent")
    'pip install "jax-cuda12-plugin[with-cuda]==0.10.2"'
"""
from __future__ import annotations

import glob
import os
import re


# jxkernel's GPU and TPU extras (pyproject.toml's, named as JAX 0.10.2 names its own): what each
# adds to jaxlib (tests/release/test_extras.py holds them equal to pyproject.toml's)
EXTRAS = {
    "cuda12": ("jax-cuda12-plugin[with-cuda]==0.10.2",),
    "cuda13": ("jax-cuda13-plugin[with-cuda]==0.10.2",),
    "cuda12-local": ("jax-cuda12-plugin==0.10.2",),
    "cuda13-local": ("jax-cuda13-plugin==0.10.2",),
    "tpu": ("libtpu==0.0.42.*", "requests"),
}
_CUDA13_DRIVER = 580       # the oldest NVIDIA driver CUDA 13 runs on (JAX's installation guide)


def _sysfs_read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def machine_accelerator(root: str = "/") -> tuple[str | None, str]:
    """(the extra this machine's accelerator needs, what was seen), from the PCI bus and the
    NVIDIA driver's version, without starting anything: ("cuda13", ...) where an NVIDIA GPU's
    driver is 580 or newer, ("cuda12", ...) for an older one (or none loaded yet), ("tpu", ...)
    for a Google TPU, (None, ...) where there is neither (as JAX's TPU detection reads the bus).

        >>> machine_accelerator("/nonexistent")
        (None, 'no NVIDIA GPU or Google TPU on its PCI bus')
    """
    vendors = set()
    for path in glob.glob(os.path.join(root, "sys/bus/pci/devices/*/vendor")):
        vendors.add((_sysfs_read(path) or "").strip().lower())
    if "0x1ae0" in vendors:
        return "tpu", "a Google TPU on its PCI bus"
    if "0x10de" not in vendors:
        return None, "no NVIDIA GPU or Google TPU on its PCI bus"
    text = _sysfs_read(os.path.join(root, "proc/driver/nvidia/version")) or ""
    found = re.search(r"\s(\d{3,})\.\d+(?:\.\d+)?\s", text)
    if found is None:
        return "cuda12", "an NVIDIA GPU, no NVIDIA driver loaded (CUDA 12 needs 525 or newer)"
    driver = int(found.group(1))
    if driver >= _CUDA13_DRIVER:
        return "cuda13", f"an NVIDIA GPU with driver {driver} (CUDA 13 needs {_CUDA13_DRIVER})"
    return "cuda12", f"an NVIDIA GPU with driver {driver} (CUDA 13 needs {_CUDA13_DRIVER})"


def _extra_for(platform: str, root: str = "/") -> tuple[str, str]:
    """(the extra that adds `platform` here, what this machine has)."""
    extra, seen = machine_accelerator(root)
    if platform == "tpu":
        return "tpu", seen
    return (extra if extra in ("cuda12", "cuda13") else "cuda12"), seen


def install_line(platform: str, root: str = "/") -> str:
    """The command that adds `platform` ("gpu", "tpu") on this machine: what jxkernel's extra
    for it adds (a CUDA 13 plugin where the NVIDIA driver runs CUDA 13, else CUDA 12's).

        >>> install_line("gpu", "/nonexistent")
        'pip install "jax-cuda12-plugin[with-cuda]==0.10.2"'
    """
    extra, _ = _extra_for(platform, root)
    return "pip install " + " ".join(f'"{r}"' for r in EXTRAS[extra] if r != "requests")


def install_advice(platform: str, root: str = "/") -> str:
    """install_line with the extra it stands for and what the machine has."""
    extra, seen = _extra_for(platform, root)
    return f"{install_line(platform, root)} (jxkernel[{extra}]'s addition; this machine has {seen})"
