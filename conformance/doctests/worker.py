"""Run JAX's docstring examples, one docstring per namespace, and write how each went
(NumPy and stdlib only: the same file runs under real JAX and under jxkernel as ``jax``).

    python -m conformance.doctests.worker DOCSTRINGS.json OUT.jsonl

``DOCSTRINGS.json`` is ``[{"name", "file", "lineno", "text"}]``; each docstring's record is a
line of ``OUT.jsonl`` written as soon as it ends (a worker that crashes keeps the ones it
finished, and the driver starts a new one after the crash):
``{"name", "examples", "failed", "first": {"line", "source", "want", "got"} | null}``.

The namespace and the checking are those of JAX's CI (``pytest --doctest-modules jax`` with
JAX's conftest.py and pyproject.toml): ``jax``, ``lax``, ``jnp`` and ``np`` injected, the
flags ``NUMBER`` and ``NORMALIZE_WHITESPACE``, warnings raised as errors. One thing differs:
pytest's namespace is the defining module's globals too; here it is the public module's names
instead (``jax.lax``'s for ``jax/_src/lax/slicing.py``: jxkernel has no ``jax/_src`` modules),
the same on both sides.
"""
import doctest
import io
import json
import re
import signal
import sys
import warnings

# pytest's own option flags: NUMBER is used by JAX's config; the others only need to parse
NUMBER = doctest.register_optionflag("NUMBER")
doctest.register_optionflag("ALLOW_UNICODE")
doctest.register_optionflag("ALLOW_BYTES")

_FLOAT = re.compile(r"""
    (?P<number>
      (?P<mantissa>
        (?P<integer1> [+-]?\d*)\.(?P<fraction>\d+)
        |
        (?P<integer2> [+-]?\d+)\.
      )
      (?:[Ee](?P<exponent1>[+-]?\d+))?
      |
      (?P<integer3> [+-]?\d+)
      (?:[Ee](?P<exponent2>[+-]?\d+))
    )""", re.VERBOSE)


class Checker(doctest.OutputChecker):
    """doctest's checker with pytest's NUMBER: a float written in the expected output matches
    a float in the output that equals it to the precision written (``3.14`` matches
    ``3.14159``; the number of digits after the point, less the exponent, sets the bound)."""

    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags):
            return True
        if not optionflags & NUMBER:
            return False
        return super().check_output(want, self._round_numbers(want, got), optionflags)

    @staticmethod
    def _round_numbers(want, got):
        wants, gots = list(_FLOAT.finditer(want)), list(_FLOAT.finditer(got))
        if len(wants) != len(gots):
            return got
        offset = 0
        for w, g in zip(wants, gots):
            fraction = w.group("fraction")
            exponent = w.group("exponent1") or w.group("exponent2") or "0"
            precision = (len(fraction) if fraction else 0) - int(exponent)
            if abs(float(w.group()) - float(g.group())) <= 10 ** -precision * (1 + 1e-12) + 1e-12 * abs(float(w.group())):
                got = got[:g.start() + offset] + w.group() + got[g.end() + offset:]
                offset += len(w.group()) - (g.end() - g.start())
        return got


def _public_names(module_name):
    """The public module's names (see collect.public_module); none where it does not import."""
    if not module_name:
        return {}
    import importlib
    try:
        module = importlib.import_module(module_name)
    except Exception:   # noqa: BLE001 -- a module this side lacks: the examples meet NameError
        return {}
    # dir() and getattr, not vars(): jxkernel loads some names on first use (jnp.interp,
    # jax.vmap); for a plain module (JAX's) the two agree
    names = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in dir(module):
            if k.startswith("_"):
                continue
            try:
                names[k] = getattr(module, k)
            except Exception:   # noqa: BLE001 -- a deprecated or unavailable name: left out
                pass
    return names


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("docstring ran past its time limit")


class Runner(doctest.DocTestRunner):
    """Keeps the first failing example (its expected and actual output, or its exception)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = None

    def report_failure(self, out, test, example, got):
        if self.first is None:
            self.first = {"line": example.lineno, "source": example.source,
                          "want": example.want, "got": got}

    def report_unexpected_exception(self, out, test, example, exc_info):
        if self.first is None:
            kind, value = exc_info[:2]
            text = f"{kind.__name__}: {str(value).strip().splitlines()[0] if str(value).strip() else ''}"
            self.first = {"line": example.lineno, "source": example.source,
                          "want": example.want, "got": "raised " + text}


def run_docstring(item, globs_base, timeout):
    parser = doctest.DocTestParser()
    globs = dict(_public_names(item.get("globals")), **globs_base)
    test = parser.get_doctest(item["text"], dict(globs, __name__=item["module"]),
                              item["name"], item["file"], item["lineno"])
    runner = Runner(checker=Checker(), optionflags=NUMBER | doctest.NORMALIZE_WHITESPACE,
                    verbose=False)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # JAX's pyproject.toml: filterwarnings = ["error"]
            result = runner.run(test, out=io.StringIO().write, clear_globs=True)
    except _Timeout as e:
        signal.alarm(0)
        return {"name": item["name"], "examples": len(test.examples), "failed": len(test.examples),
                "first": {"line": None, "source": "", "want": "", "got": f"raised {e}"}}
    finally:
        signal.alarm(0)
    ran = sum(1 for ex in test.examples if not ex.options.get(doctest.SKIP))
    return {"name": item["name"], "examples": len(test.examples), "ran": ran,
            "failed": result.failed, "first": runner.first}


def main(argv):
    with open(argv[0]) as f:
        items = json.load(f)
    start = int(argv[2]) if len(argv) > 2 else 0
    timeout = int(argv[3]) if len(argv) > 3 else 120
    import numpy
    import jax
    import jax.numpy
    globs = {"jax": jax, "lax": jax.lax, "jnp": jax.numpy, "np": numpy}
    with open(argv[1], "a") as out:
        for item in items[start:]:
            out.write(json.dumps({"start": item["name"]}) + "\n")
            out.flush()
            record = run_docstring(item, globs, timeout)
            out.write(json.dumps(record) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
