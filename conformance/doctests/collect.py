"""The docstrings with ``>>>`` examples in JAX's source at a tag, read from a git mirror.

The files are those JAX's CI runs as doctests (.github/workflows/documentation.yml at
jax-v0.10.2: ``pytest --doctest-modules jax`` less its ``--ignore`` list). Docstrings are read
with ``ast`` from the source text, where pytest's finder (``doctest.DocTestFinder``) walks the
imported module: the module's docstring, its functions' and classes' (top level, also under
``if``/``try``), and their methods' and nested classes', which is what the finder reaches.
Docstrings assigned at run time (``f.__doc__ = ...``) are not seen.
"""
import ast
import subprocess

TAG = "jax-v0.10.2"

# documentation.yml's --ignore list at jax-v0.10.2
IGNORES = ("jax/config.py", "jax/experimental/jax2tf", "jax/_src/lib/mlir", "jax/_src/lib/triton.py",
           "jax/_src/lib/mosaic_gpu.py", "jax/interpreters/mlir.py",
           "jax/experimental/array_serialization", "jax/collect_profile.py",
           "jax/_src/tpu_custom_call.py", "jax/experimental/mosaic", "jax/experimental/pallas",
           "jax/_src/pallas", "jax/lib")


def _ignored(path):
    return any(path == i or path.startswith(i + "/") for i in IGNORES)


def source_files(mirror, tag=TAG):
    names = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "--name-only", tag, "jax/"],
                           capture_output=True, text=True, check=True).stdout.split()
    names = [n for n in names if n.endswith(".py") and not _ignored(n)]
    batch = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch"],
                           input="".join(f"{tag}:{n}\n" for n in names).encode(),
                           capture_output=True, check=True).stdout
    files, pos = {}, 0
    for name in names:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        files[name] = batch[header_end + 1:header_end + 1 + size].decode()
        pos = header_end + 1 + size + 1
    return files


def _module_name(path):
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _walk(body, prefix, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}.{node.name}"
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                out.append((name, node.body[0].lineno, doc))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, name, out)
        elif isinstance(node, ast.If):
            _walk(node.body, prefix, out)
            _walk(node.orelse, prefix, out)
        elif isinstance(node, ast.Try):
            _walk(node.body, prefix, out)
            for handler in node.handlers:
                _walk(handler.body, prefix, out)
            _walk(node.orelse, prefix, out)


def docstrings(files):
    """[{"name", "module", "file", "lineno", "text"}] of the docstrings with examples, in
    file order."""
    items = []
    for path in sorted(files):
        try:
            tree = ast.parse(files[path])
        except SyntaxError:
            continue
        module = _module_name(path)
        found = []
        doc = ast.get_docstring(tree, clean=False)
        if doc is not None:
            found.append((module, 1, doc))
        _walk(tree.body, module, found)
        for name, lineno, text in found:
            if ">>>" in text:
                items.append({"name": name, "module": module, "file": path,
                              "lineno": lineno, "text": text, "globals": public_module(path)})
    return items


def area(path):
    """The public module a file's docstrings document, for the report."""
    table = [("jax/_src/numpy/", "jax.numpy"), ("jax/numpy/", "jax.numpy"),
             ("jax/_src/scipy/", "jax.scipy"), ("jax/scipy/", "jax.scipy"),
             ("jax/_src/lax/", "jax.lax"), ("jax/lax/", "jax.lax"),
             ("jax/_src/nn/", "jax.nn"), ("jax/nn/", "jax.nn"),
             ("jax/_src/random/", "jax.random"), ("jax/_src/random.py", "jax.random"), ("jax/_src/prng.py", "jax.random"),
             ("jax/random.py", "jax.random"),
             ("jax/_src/tree_util.py", "jax.tree_util"), ("jax/_src/tree.py", "jax.tree"),
             ("jax/tree", "jax.tree_util"),
             ("jax/_src/ops/", "jax.ops"), ("jax/_src/image/", "jax.image"),
             ("jax/_src/dtypes.py", "jax.dtypes"), ("jax/_src/debugging.py", "jax.debug"),
             ("jax/_src/custom_", "jax (custom derivatives)"),
             ("jax/_src/api.py", "jax (api)"), ("jax/_src/pjit.py", "jax (api)"),
             ("jax/_src/ad_checkpoint.py", "jax (api)"), ("jax/_src/interpreters/", "jax.interpreters"),
             ("jax/_src/core.py", "jax.core"), ("jax/_src/export/", "jax.export"),
             ("jax/experimental/", "jax.experimental"), ("jax/_src/sharding", "jax.sharding"),
             ("jax/_src/named_sharding", "jax.sharding"), ("jax/_src/mesh", "jax.sharding"),
             ("jax/_src/example_libraries/", "jax.example_libraries"),
             ("jax/example_libraries/", "jax.example_libraries")]
    for prefix, name in table:
        if path.startswith(prefix):
            return name
    return "jax (other)"


_PUBLIC = [("jax/_src/numpy/", "jax.numpy"), ("jax/_src/lax/", "jax.lax"), ("jax/_src/nn/", "jax.nn"),
           ("jax/_src/random/", "jax.random"), ("jax/_src/ops/", "jax.ops"),
           ("jax/_src/tree_util.py", "jax.tree_util"), ("jax/_src/tree.py", "jax.tree"),
           ("jax/_src/dtypes.py", "jax.dtypes"), ("jax/_src/debugging.py", "jax.debug"),
           ("jax/_src/image/", "jax.image"), ("jax/_src/export/", "jax.export"),
           ("jax/_src/checkify.py", "jax.experimental.checkify"),
           ("jax/_src/third_party/scipy/interpolate.py", "jax.scipy.interpolate"),
           ("jax/_src/third_party/scipy/linalg.py", "jax.scipy.linalg"),
           ("jax/_src/scipy/stats/", "jax.scipy.stats"), ("jax/_src/example_libraries/", None)]


def public_module(path):
    """The public module whose names stand in for the defining module's globals (pytest runs
    a docstring in its module's globals; jxkernel has no ``jax._src`` modules, so both sides
    get the public module's names instead): ``jax/_src/lax/slicing.py`` -> ``jax.lax``."""
    if not path.startswith("jax/_src/"):
        return _module_name(path)
    if path.startswith("jax/_src/scipy/"):
        parts = path[len("jax/_src/"):-3].split("/")
        return ".".join(["jax"] + (parts[:-1] if parts[-1].startswith("_") else parts))
    for prefix, name in _PUBLIC:
        if path.startswith(prefix):
            return name
    return "jax"
