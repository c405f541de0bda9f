"""What the docs harness changes in JAX's pages: skipped pages and cells (with why), small
stand-ins for the cells that download data, and the pages that get 8 CPU devices.

A cell is named by its page and a piece of its text (``CELL_SKIPS``, ``STANDINS``), so the
list still reads right when a page gains cells. Stand-ins give the same names the
downloading cell gives (a tiny synthetic MNIST), so the page's later cells run verbatim.
"""

# pages not run at all
PAGE_SKIPS = {
    "notebooks/cute_dsl_jax": "needs an NVIDIA GPU and CUTLASS's CuTe DSL",
    "notebooks/layout": "device-specific layouts of TPUs (JAX's docs build does not run it)",
    "distributed_data_loading": "multi-process data loading (jax.distributed across hosts)",
    "ffi": "builds and loads a C++ XLA FFI library with CMake and a compiler",
    "examples/datasets": "a module that downloads MNIST, not a program; the examples get "
                         "a stand-in (settings.py)",
    "examples/onnx2xla": "downloads an ONNX model and needs the onnx package",
    "examples/differentially_private_sgd": "needs dp_accounting (Google's differential "
                                           "privacy library)",
    # the libraries' tutorials (python -m conformance.docs --library NAME)
    "flax/examples/gemma": "downloads Gemma's weights from Kaggle (kagglehub) and needs "
                           "sentencepiece",
    "flax/mnist_tutorial": "downloads MNIST with tensorflow_datasets (and trains on it)",
    "flax/examples/digits_diffusion_model": "needs diffrax (not among the pinned libraries)",
    "optax/examples/adversarial_training": "downloads MNIST with tensorflow_datasets",
    "optax/examples/cifar10_resnet": "downloads CIFAR-10 with tensorflow_datasets and trains a "
                                     "ResNet (hours on a CPU)",
    "optax/examples/lookahead_mnist": "downloads MNIST with tensorflow_datasets",
    "optax/examples/nanolm": "downloads tiny_shakespeare with tensorflow_datasets and trains "
                             "a transformer",
    "optax/examples/gradient_accumulation_and_microbatching":
        "times a 48M-parameter transformer's training steps (a memory-use demonstration for "
        "accelerators): JAX's run passes 600 s on this CPU before its fifth cell",
    "optax/examples/linear_assignment_problem": "needs networkx (not among the pinned "
                                                "libraries' dependencies)",
    "optax/examples/mlp_mnist": "downloads MNIST with torchvision",
    "equinox/examples/bert": "downloads a dataset and a tokenizer from Hugging Face's hub",
    "equinox/examples/deep_convolutional_gan": "downloads MNIST with torchvision",
    "equinox/examples/unet": "needs einops (not among the pinned libraries' dependencies)",
    "equinox/examples/mnist": "downloads MNIST with torchvision",
    "equinox/examples/vision_transformer": "downloads CIFAR-10 with torchvision",
    "equinox/examples/score_based_diffusion": "downloads MNIST over HTTP and needs diffrax "
                                              "and einops",
}

# (page, a piece of the cell's text) -> why the cell is not run
CELL_SKIPS = {
}

# page -> [(why, pattern, replacement)]: what a page prints of JAX's internals that jxkernel
# prints its own way. Each pattern is replaced (re.sub over a cell's printed text) on both
# sides before the cell is compared, so the rest of what it prints is still compared; the
# table names the cells where one matched.
_AVALS = r"\((?:ShapedArray\([^()]*\)(?:, )?)*,?\)"
ACCEPTED = {
    "jax-primitives": [
        # JAX's LoweringRuleContext is a dataclass whose repr shows its MLIR context, module,
        # insertion point, symbol table and lowering caches; jxkernel lowers to StableHLO
        # text and shows the fields a rule reads (the input and output types, compared)
        ("a lowering rule's context: JAX's MLIR lowering state",
         r"LoweringRuleContext\(module_context=.*?, avals_in=(" + _AVALS + r"), avals_out=(\["
         r"(?:ShapedArray\([^()]*\)(?:, )?)*\]), .*?, platforms=None\)",
         r"LoweringRuleContext(avals_in=\1, avals_out=\2)"),
        # MLIR's Python values: a block argument (jxkernel's `%argN`, the same argument) and an
        # op result printed as an object (jxkernel's `%N: type`)
        ("MLIR's Python value objects",
         r"BlockArgument\(<block argument> of type '[^']*' at index: (\d+)\)", r"%arg\1"),
        ("MLIR's Python value objects",
         r"<jaxlib\.mlir\._mlir_libs\._mlir\.ir\.OpResult object at 0x…>|%\d+: tensor<[^>]*>",
         "<OpResult>"),
        # cell 17: under grad JAX re-binds the tangent equations the JVP rule staged into
        # linearize's tangent trace, whose abstract evaluation is an LRU cache with weak keys
        # (partial_eval._cached_abstract_eval): whether the user's rule is called again
        # depends on what the process traced before and which avals are still alive
        ("abstract_eval called again as JAX's cache decides, after a JVP rule under grad",
         r"(\|<- multiply_add_value_and_jvp = [^\n]*\n)(?:\s*call multiply_add_abstract_eval"
         r"\([^\n]*\n\s*\|<- multiply_add_abstract_eval = [^\n]*\n)+", r"\1"),
    ],
}

# jxkernel's concretization errors add advice to JAX's words (a deliberate choice, tested by
# tests/notebook/test_notebook_error_cards.py and test_notebook_tracebacks.py): the lines are
# read past where a tutorial prints such an error's message
_ADVICE = [
    ("jxkernel's advice after a TracerBoolConversionError's message",
     r"\nPython control flow \(`if`, `while`, `and`, `or`, `not`, `bool\(\)`\) needs a concrete "
     r"value, but under this transformation the value is abstract\.\nTo fix it: [^\n]*", ""),
]
ACCEPTED["flax/key_concepts"] = _ADVICE

# What cannot be the same when jxkernel runs on the NumPy backend (`--backend numpy`, what
# JupyterLite runs) and JAX on XLA's CPU; README.md's "On the NumPy backend" names each with
# its reason. NUMPY_ACCEPTED: (why, pattern, replacement) as in ACCEPTED, for every page:
# the devices are NumPy's (platform "numpy", `NumpyDevice`), not XLA's CPU devices, and a
# learner's notebook says so wherever JAX names the device
_DEVICE = "the device is the NumPy backend's (platform numpy), not XLA's CPU"
NUMPY_ACCEPTED = [
    (_DEVICE, r"\b(?:Cpu|Numpy)Device\(", "<Device>("),
    (_DEVICE, r"\b(?:cpu|numpy):(\d+)", r"<device>:\1"),
    (_DEVICE, r"\b(device_kind|platform)=(?:cpu|numpy)\b", r"\1=<device>"),
    # visualize_array_sharding's boxes: "│ CPU 0 │" where NumPy's fills "│NUMPY 0│"
    (_DEVICE, r"│ *(?:CPU|NUMPY) (\d[\d,]*) *(?=│)", r"│ <DEVICE> \1 "),
    # ... whose width follows the longest label: the borders' lengths are not compared
    (_DEVICE, r"─{2,}", "─…"),
]


def _sorted_lines(match):
    return "\n".join(sorted(match.group().split("\n")))


# page -> [(why, pattern, replacement)] on the NumPy backend only
NUMPY_PAGE_ACCEPTED = {
    # debugging, `jax.lax.map(f, xs)` with two unordered debug.prints in the body: XLA's
    # scheduler runs the independent callbacks in an order of its own (y before x), the NumPy
    # backend in the program's; JAX's page says the order of unordered prints is not promised
    # (`ordered=True` is how to fix it). The lines are compared as a set.
    "debugging": [
        ("the order of unordered jax.debug.print callbacks is XLA's scheduler's",
         r"(?m)^jax\.debug\.print\([xy]\) -> [^\n]*(?:\njax\.debug\.print\([xy]\) -> [^\n]*)+",
         _sorted_lines),
    ],
    # jax-primitives, the cells that jit the guide's own primitive (11, 12, 16, 20, 24): with
    # XLA its lowering rule (mlir.register_lowering) is called once per module and input types
    # and prints its call; the NumPy backend runs no MLIR, so under jit it calls the
    # primitive's impl (def_impl) once per equation, which prints its own (f41714cd). The
    # top-level run of those calls that ends such a cell is read as one line on both sides;
    # everything before it (the traced calls, abstract_eval's, the JVP, transpose and batching
    # rules) is still compared, and an impl called inside a traced call (indented) is not
    # matched.
    "jax-primitives": [
        ("a jitted primitive runs its MLIR lowering under XLA, its impl on the NumPy backend",
         r"(?:^|\n)(?:call multiply_add_(?:lowering|impl)\([^\n]*\n"
         r"\|<- multiply_add_(?:lowering|impl) = [^\n]*(?:\n|$))+$",
         "\n<multiply_add run: its lowering rule (XLA) or its impl (NumPy)>"),
    ],
}

# page -> why: on these pages a cell where jxkernel raises the NumPy backend's own error for
# what it cannot do ("... is not available on the 'numpy' backend", numpy_device.unsupported)
# and JAX does not is counted as XLA-only: named in the table, not a disagreement
NUMPY_XLA_ONLY = {
    "autodidax": "compiles its own StableHLO with XLA (xla_bridge.get_backend()"
                 ".compile_and_load): the NumPy backend has no compiler",
    "parallel": "reads XLA's optimized HLO (Compiled.as_text()) for its collectives",
    "notebooks/host-offloading": "prints XLA's compiled memory sizes "
                                 "(Compiled.memory_analysis())",
}

# pages not run on the NumPy backend (JAX's side is the same; why)
NUMPY_PAGE_SKIPS = {
    "notebooks/colocated-python": "colocated Python runs functions on the CPU backend's "
                                  "devices (jax.devices('cpu')); JAX_PLATFORMS=numpy has none",
}


def accepted(page, backend="cpu"):
    """The accepted differences of `page` when jxkernel runs on `backend`."""
    extra = NUMPY_ACCEPTED + NUMPY_PAGE_ACCEPTED.get(page, []) if backend == "numpy" else []
    return list(ACCEPTED.get(page, ())) + extra


# pages whose printed numbers come out of long training loops: a wider bound (float32 ulps
# and an absolute tolerance, as conformance/compare.py takes them)
TOLERANCE = {
    # grad of a complex Cholesky (the cookbook's last cell): its entries are sums that cancel,
    # and the small ones move by ~1 ulp of the largest entry (~11.6, 1 ulp ~1e-6)
    "notebooks/autodiff_cookbook": {"atol": 4e-6},
    "complex-differentiation": {"atol": 4e-6},       # the same Cholesky gradient
}

# page -> tolerance on the NumPy backend only, where a page's loop carries the last bits of
# NumPy's one-rule-per-equation arithmetic (lax/_xla_formulas.py follows XLA's CPU kernels
# op by op) against XLA's fused kernels (XLA contracts a fusion's multiplies and adds into
# FMAs and rewrites its divisions), each step starting from the last
NUMPY_TOLERANCE = {
    # advi: 100 steps of momentum SGD on a 40-sample ELBO, printed each step. The first
    # differs by 3 ulps (3.8141639 / 3.8141632), and the loop amplifies it: up to 6.8e-4
    # (2.3e-4 of the value, iteration 28) before both reach nan at iteration 30. JAX itself
    # moves by 1.0e-4 between XLA's optimization levels (JAX_DISABLE_MOST_OPTIMIZATIONS=0/1)
    "examples/advi": {"atol": 1e-3},
    # mnist_vae: 100 epochs (800 momentum steps) of an MLP VAE, its test ELBO (-540 to -335)
    # printed each epoch: epoch 0 agrees exactly, epoch 1 within 4 ulps, then the trajectories
    # part, up to 2.55 (0.74%, epoch 22) in the runs of 2026-11-30 and 2026-12-01. Where they
    # part (conformance/docs/numpy_drift.py, 2026-12-01): the initial parameters already
    # differ (660,637 of 1,345,316 by an ulp or a few: glorot_normal's truncated_normal, whose
    # erf_inv polynomial XLA fuses or not by context and optimization level, the NumPy rule as
    # XLA's default code); from the same parameters, step 0's loss agrees bit for bit and its
    # gradient does not (85% of entries, up to 6 ulps): equation by equation on XLA's inputs
    # the first to differ is its first dot_general, and so do all 20 (OpenBLAS's order against
    # Eigen's blocked kernel, whose blocking follows the CPU's caches: no one order to
    # follow), then 6 of its 16 reduce_sums (over arrays of 4,096 elements or more, in an
    # order XLA's CPU code does not share with sequential, pairwise, strided, blocked or tree
    # sums: tried), one erf_inv and one pow by an ulp. Steps 1-5 stay within 14 ulps of each leaf's largest; at step 6
    # one unit's gradient jumps (the encoder's second layer, bias entry 322: -0.04997 /
    # -0.04702), as where a pre-activation a few ulps from 0 falls on the other side of a ReLU;
    # the losses stay within 3 ulps over the first 16 steps
    "examples/mnist_vae": {"atol": 3.0},
}


def tolerance(page, backend="cpu"):
    """The tolerance `page`'s printed numbers are compared within when jxkernel runs on
    `backend` (conformance/compare.py's ulps and atol)."""
    return dict(TOLERANCE.get(page, {}), **(NUMPY_TOLERANCE.get(page, {})
                                             if backend == "numpy" else {}))


# pages run with 8 simulated CPU devices under both (JXKERNEL_CPU_DEVICES=8 /
# XLA_FLAGS=--xla_force_host_platform_device_count=8)
MULTI_DEVICE = {
    "notebooks/shard_map", "parallel", "jax-101/06-parallelism",
    "examples/spmd_mnist_classifier_fromscratch", "notebooks/Writing_custom_interpreters_in_Jax",
}

_MNIST = '''
import numpy as _np
def _synthetic_mnist(n, seed):
    """n 28x28 uint8 images of noise whose brightest quadrant is the label's parity: small,
    learnable, the same under JAX and jxkernel."""
    rng = _np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=n).astype(_np.uint8)
    images = rng.randint(0, 64, size=(n, 28, 28)).astype(_np.uint8)
    for i, label in enumerate(labels):
        r, c = divmod(int(label) % 4, 2)
        images[i, 14 * r:14 * r + 14, 14 * c:14 * c + 14] += _np.uint8(128 + 8 * label)
    return images, labels
'''

_TFDS = _MNIST + '''
import types as _types
class _Dataset:
    def __init__(self, images, labels, batch=None):
        self.images, self.labels, self._batch = images, labels, batch
    def batch(self, n):
        return _Dataset(self.images, self.labels, n)
    def prefetch(self, n):
        return self
    def __iter__(self):
        for i in range(0, len(self.images), self._batch or 1):
            yield self.images[i:i + self._batch, ..., None], self.labels[i:i + self._batch]
def _load(name, split=None, batch_size=None, data_dir=None, with_info=False, as_supervised=False):
    train, test = _synthetic_mnist(256, 0), _synthetic_mnist(64, 1)
    if split is not None:
        return _Dataset(*(train if split == "train" else test))
    data = {"train": {"image": train[0][..., None], "label": train[1]},
            "test": {"image": test[0][..., None], "label": test[1]}}
    info = _types.SimpleNamespace(features={
        "label": _types.SimpleNamespace(num_classes=10),
        "image": _types.SimpleNamespace(shape=(28, 28, 1))})
    return (data, info) if with_info else data
tfds = _types.SimpleNamespace(load=_load, as_numpy=lambda x: x)
data_dir = '/tmp/tfds'
mnist_data, info = tfds.load(name="mnist", batch_size=-1, data_dir=data_dir, with_info=True)
mnist_data = tfds.as_numpy(mnist_data)
train_data, test_data = mnist_data['train'], mnist_data['test']
num_labels = info.features['label'].num_classes
h, w, c = info.features['image'].shape
num_pixels = h * w * c
train_images, train_labels = train_data['image'], train_data['label']
train_images = jnp.reshape(train_images, (len(train_images), num_pixels))
train_labels = one_hot(train_labels, num_labels)
test_images, test_labels = test_data['image'], test_data['label']
test_images = jnp.reshape(test_images, (len(test_images), num_pixels))
test_labels = one_hot(test_labels, num_labels)
'''

_TORCH = _MNIST + '''
import numpy as np
from jax.tree_util import tree_map
class _Tensor(np.ndarray):
    def numpy(self):
        return np.asarray(self)
class MNIST:
    def __init__(self, root, train=True, download=False, transform=None):
        images, labels = _synthetic_mnist(256, 0) if train else _synthetic_mnist(64, 1)
        self.data, self.targets = images.view(_Tensor), labels.astype(np.int64).view(_Tensor)
        self.train_data = self.test_data = self.data
        self.train_labels = self.test_labels = self.targets
        self.transform = transform
    def __len__(self):
        return len(self.data)
    def __getitem__(self, i):
        image = np.asarray(self.data[i])
        return (self.transform(image) if self.transform else image), int(self.targets[i])
def default_collate(batch):
    return [np.stack([np.asarray(b[k]) for b in batch]) for k in range(len(batch[0]))]
class DataLoader:
    def __init__(self, dataset, batch_size=1, collate_fn=default_collate):
        self.dataset, self.batch_size, self.collate_fn = dataset, batch_size, collate_fn
    def __iter__(self):
        for i in range(0, len(self.dataset), self.batch_size):
            n = min(self.batch_size, len(self.dataset) - i)
            yield self.collate_fn([self.dataset[i + j] for j in range(n)])
def numpy_collate(batch):
  return tree_map(np.asarray, default_collate(batch))
def flatten_and_cast(pic):
  return np.ravel(np.array(pic, dtype=jnp.float32))
'''

# examples/datasets.py downloads MNIST: the examples import this module in its place
_EXAMPLES_DATASETS = _MNIST + '''
import sys as _sys, types as _types
def _one_hot(x, k, dtype=_np.float32):
    return _np.array(x[:, None] == _np.arange(k), dtype)
def _partial_flatten(x):
    return _np.reshape(x, (x.shape[0], -1))
def mnist_raw():
    (a, b), (c, d) = _synthetic_mnist(256, 0), _synthetic_mnist(64, 1)
    return a, b, c, d
def mnist(permute_train=False):
    train_images, train_labels, test_images, test_labels = mnist_raw()
    train_images = _partial_flatten(train_images) / _np.float32(255.)
    test_images = _partial_flatten(test_images) / _np.float32(255.)
    train_labels, test_labels = _one_hot(train_labels, 10), _one_hot(test_labels, 10)
    if permute_train:
        perm = _np.random.RandomState(0).permutation(train_images.shape[0])
        train_images, train_labels = train_images[perm], train_labels[perm]
    return train_images, train_labels, test_images, test_labels
_datasets = _types.ModuleType("datasets")
_datasets.__dict__.update(mnist=mnist, mnist_raw=mnist_raw, _one_hot=_one_hot,
                          _partial_flatten=_partial_flatten)
_examples = _types.ModuleType("examples")
_examples.__path__ = []
_examples.datasets = _datasets
_sys.modules.update({"examples": _examples, "examples.datasets": _datasets,
                     "datasets": _datasets})
'''

# (page, a piece of the cell's text) -> the code run in its place
STANDINS = {
    ("notebooks/neural_network_with_tfds_data", "import tensorflow_datasets as tfds"): _TFDS,
    ("notebooks/Neural_Network_and_Data_Loading", "from torchvision.datasets import MNIST"):
        _TORCH,
}

# code run before a page's first cell
PRELUDES = {
    "examples/mnist_classifier": _EXAMPLES_DATASETS,
    "examples/mnist_classifier_fromscratch": _EXAMPLES_DATASETS,
    "examples/mnist_vae": _EXAMPLES_DATASETS,
    "examples/spmd_mnist_classifier_fromscratch": _EXAMPLES_DATASETS,
}
