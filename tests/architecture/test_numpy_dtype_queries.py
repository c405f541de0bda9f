"""NumPy's finfo, iinfo and issubdtype are asked in one place, jxkernel/core/dtypes.py: NumPy
knows ml_dtypes' types (bfloat16, the float8s, int4, ...) only in part, and how much depends
on ml_dtypes' version: before 0.7 np.finfo(bfloat16) raises, and in each np.issubdtype takes
bfloat16 for no float and int4 for no integer. Everywhere else calls core/dtypes.py's finfo,
iinfo and issubdtype (or jnp's), which know them under every ml_dtypes we accept."""
import ast
import unicodedata

import import_graph as graph

_QUERIES = {"finfo", "iinfo", "issubdtype"}
_HOME = graph.ROOT / "core" / "dtypes.py"


def numpy_queries(source: str) -> list[tuple[int, str]]:
    """(line, name) of each use of NumPy's finfo, iinfo or issubdtype in `source`: as an
    attribute of a name bound to numpy (`np.finfo`, `numpy.iinfo`) or imported from it."""
    tree = ast.parse(source)
    numpy_names = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            numpy_names |= {a.asname or a.name for a in node.names if a.name == "numpy"}
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy" and not node.level:
            found += [(node.lineno, a.name) for a in node.names if a.name in _QUERIES]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _QUERIES and \
                isinstance(node.value, ast.Name) and node.value.id in numpy_names:
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return sorted(found)


def test_the_rule_sees_each_way_of_writing_it():
    source = ("import numpy as np\nimport numpy\nfrom numpy import iinfo\n"
              "np.finfo(x)\nnumpy.issubdtype(a, b)\njnp.finfo(x)\ndtypes.iinfo(x)\n"
              "'np.finfo(x) in a string'\n")
    assert numpy_queries(source) == [(3, "iinfo"), (4, "np.finfo"), (5, "numpy.issubdtype")]


def _may_query(source: str) -> bool:
    """Whether `source` names one of the queries at all: each use numpy_queries finds is an
    identifier of that name, as Python reads it (NFKC-normalized: `np.ﬁnfo` is np.finfo), so
    only those files are parsed (about 80 of ~700; parsing all was most of the check's CPU)."""
    text = unicodedata.normalize("NFKC", source)
    return any(name in text for name in _QUERIES)


def test_numpy_dtype_queries_only_in_core_dtypes():
    with graph.collector_paused():          # (an AST holds no cycle: its docstring)
        found = [f"{path.relative_to(graph.ROOT.parent)}:{line}: {name}"
                 for path in sorted(graph.ROOT.rglob("*.py")) if path != _HOME
                 for source in [path.read_text()] if _may_query(source)
                 for line, name in numpy_queries(source)]
    assert found == [], "call jxkernel.core.dtypes' finfo, iinfo or issubdtype instead"


def test_the_files_left_unparsed_name_no_query():
    # the files left unparsed are those numpy_queries finds nothing in, however it is written
    written = ["import numpy as np\nnp.finfo(x)\n", "import numpy as n\nn.\\\n    iinfo(x)\n",
               "from numpy import (\n    issubdtype)\n", "import numpy as np\nnp.ﬁnfo(x)\n"]
    for source in written:
        assert numpy_queries(source) and _may_query(source), source
    assert not _may_query("import numpy as np\nnp.dtype(x).itemsize\n")
