"""jxkernel._src.cudnn.fused_attention_stablehlo, as JAX's, for the one name JAX's tests import
from it: `check_cudnn_version`, cuDNN's version from the CUDA plugin, a RuntimeError without one
(JAX's cuDNN tests skip on that). jxkernel's attention has no cuDNN implementation
(nn/attention.py), so nothing else of JAX's module is here.

    >>> from jxkernel._src.lib import cuda_versions
    >>> try:
    ...     found = check_cudnn_version()
    ... except RuntimeError as e:
    ...     found = str(e)
    >>> found == "cuDNN is not detected." if cuda_versions is None else found > 0
    True
"""
from ....xla import gpu_solver as _gpu_solver


def check_cudnn_version() -> int:
    """cuDNN's version as the CUDA plugin reports it (e.g. 91000 for 9.10.0); RuntimeError
    where no CUDA plugin is installed, as JAX's."""
    versions = _gpu_solver.cuda_versions()
    if versions is None:
        raise RuntimeError("cuDNN is not detected.")
    return versions.cudnn_get_version()
