"""Colab's GPU runtime as Google publishes its package list (issue 46), as far as the workshop's
first cell meets it: its JAX, its notebook server and kernel, the libraries that import JAX.
Colab runs Python 3.13; tests/release/test_colab.py simulates it on 3.11 (where these install),
tests/release/test_first_cell.py resolves the first cell's install against them on 3.13."""
PYTHON = "3.13"
PACKAGES = {"jax": "0.7.2", "jaxlib": "0.7.2", "jax-cuda12-plugin": "0.7.2",
            "ipywidgets": "7.7.1", "notebook": "6.5.7", "ipykernel": "6.17.1",
            "ipython": "7.34.0", "flax": "0.11.2", "optax": "0.2.8"}
# what the simulation installs: all but the CUDA plugin (with its CUDA libraries, gigabytes)
SIMULATED = {name: v for name, v in PACKAGES.items() if name != "jax-cuda12-plugin"}
