"""A Jupyter kernel in which `import jax` is jxkernel: pick it in JupyterLab's launcher or a
notebook's kernel menu and a notebook written for JAX (or Flax, Optax, Equinox) runs unchanged,
with jxkernel's views.

    python -m jxkernel.notebook.kernelspec            # installs "Python 3 (JAX on jxkernel)"
                                                      # into this interpreter's prefix
    python -m jxkernel.notebook.kernelspec --user     # into the user's Jupyter folder

By default it goes under the running interpreter's prefix (sys.prefix: a venv's own
share/jupyter/kernels, where the venv's JupyterLab looks), not the system's folder
(/usr/local/share/jupyter, which a normal user cannot write to).

It is IPython's own kernel with JXKERNEL_AS_JAX=1 in its environment (jxkernel/as_jax.py), and
the extension loaded at start, so the status bar and the Compilations panel work from the first
cell.
"""
import argparse
import os
import sys
import tempfile

from ipykernel import kernelspec
from jupyter_client.kernelspec import KernelSpecManager

from ..as_jax import ENVIRONMENT_VARIABLE

KERNEL_NAME = "jxkernel-as-jax"
DISPLAY_NAME = "Python 3 (JAX on jxkernel)"


def install(user: bool = False, prefix: str | None = None) -> str:
    """Install the kernel spec under `prefix` (default sys.prefix), or the user's Jupyter
    folder with `user`; returns the folder it went to."""
    if not user and prefix is None:
        prefix = sys.prefix
    with tempfile.TemporaryDirectory() as scratch:
        folder = os.path.join(scratch, KERNEL_NAME)     # write_kernel_spec makes it
        # ipykernel's own spec (its logos, its launcher), with the alias switched on and the
        # extension loaded before the first cell, as the status bar expects
        kernelspec.write_kernel_spec(folder, overrides={
            "display_name": DISPLAY_NAME, "env": {ENVIRONMENT_VARIABLE: "1"},
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.extensions=jxkernel"]})
        return KernelSpecManager().install_kernel_spec(folder, KERNEL_NAME, user=user,
                                                       prefix=prefix)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m jxkernel.notebook.kernelspec",
                                     description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="install into this user's Jupyter folder")
    where.add_argument("--prefix", help=f"install under this prefix (default: this "
                                        f"interpreter's, {sys.prefix})")
    args = parser.parse_args(argv)
    folder = install(user=args.user, prefix=args.prefix)
    print(f"Installed the kernel {DISPLAY_NAME!r} ({KERNEL_NAME}) in {folder}")


if __name__ == "__main__":
    main()
