"""NumPy's and Python's random draws written as jax.random's: a key passed first, NumPy's
`size` as the shape, the bounds and parameters under jax.random's names. The numpy-random card
(`jnp.random.normal(size=3)`) and the note of a draw baked into a jitted program
(`np.random.normal()` inside jit) write their fix with it.

    >>> import ast
    >>> as_jax_random(ast.parse("np.random.randn(2, 3)").body[0].value, "numpy", "key")
    'jax.random.normal(key, (2, 3))'
    >>> as_jax_random(ast.parse("random.randint(1, 6)").body[0].value, "python", "key")
    'jax.random.randint(key, (), 1, 7)'
"""
from __future__ import annotations

import ast
import random

import numpy as np

_SPREAD = "spread"                      # rand(2, 3), randn(2, 3): the sizes, as arguments
# Each family's draws and their parameters in order: NumPy's legacy functions (np.random and a
# RandomState), a Generator's (np.random.default_rng, NumPy's advice for new code), Python's
# random module (and a random.Random). Python's randint includes its high end (`high_in`).
PARAMETERS = {
    "numpy": {"seed": ("seed",), "rand": _SPREAD, "randn": _SPREAD, "random": ("size",),
              "random_sample": ("size",), "standard_normal": ("size",),
              "normal": ("loc", "scale", "size"), "uniform": ("low", "high", "size"),
              "randint": ("low", "high", "size"), "choice": ("a", "size", "replace", "p"),
              "permutation": ("x",), "shuffle": ("x",)},
    "generator": {"random": ("size",), "standard_normal": ("size",),
                  "normal": ("loc", "scale", "size"), "uniform": ("low", "high", "size"),
                  "integers": ("low", "high", "size"), "choice": ("a", "size", "replace", "p"),
                  "permutation": ("x",), "shuffle": ("x",)},
    "python": {"random": (), "uniform": ("low", "high"), "gauss": ("loc", "scale"),
               "normalvariate": ("loc", "scale"), "randint": ("low", "high_in"),
               "randrange": ("low", "high"), "choice": ("a",), "shuffle": ("x",)},
}
# jax.random's functions that take a key first (JAX 0.10.2's): `jnp.random.normal(key, (3,))`
# is JAX's call under NumPy's module, fixed by the module alone
TAKES_KEY = frozenset({
    "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare",
    "choice", "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
    "generalized_normal", "geometric", "gumbel", "laplace", "loggamma", "logistic",
    "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal", "orthogonal",
    "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh", "split", "t",
    "triangular", "truncated_normal", "uniform", "wald", "weibull_min"})
# the jax.random function that draws as each name does (the others keep their name)
_AS = {"rand": "uniform", "random": "uniform", "random_sample": "uniform", "randn": "normal",
       "standard_normal": "normal", "gauss": "normal", "normalvariate": "normal",
       "integers": "randint", "randrange": "randint", "shuffle": "permutation"}


def family_of(owner) -> str | None:
    """Which of PARAMETERS' families `owner`'s draws are: 'numpy', 'generator', 'python'."""
    if isinstance(owner, np.random.Generator):
        return "generator"
    if isinstance(owner, random.Random) or getattr(owner, "__name__", None) == "random":
        return "python"
    if isinstance(owner, np.random.RandomState) or \
            getattr(owner, "__name__", None) == "numpy.random":
        return "numpy"
    return None


def as_jax_random(call: ast.Call, family: str, key: str) -> str | None:
    """jax.random's code for `call`, a draw of `family`'s (`owner.name(...)`), drawing with
    the key written `key`; None where the call is none this knows or passes what jax.random
    takes no word for (a dtype, `*sizes`)."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    params = PARAMETERS.get(family, {}).get(name)
    if params is None or any(isinstance(a, ast.Starred) for a in call.args) or \
            not all(k.arg for k in call.keywords):
        return None
    if params == _SPREAD:
        shape = ast.unparse(ast.Tuple(call.args, ast.Load()))
        return None if call.keywords else f"jax.random.{_AS[name]}({key}, {shape})"
    if len(call.args) > len(params):
        return None
    given = dict(zip(params, call.args)) | {k.arg: k.value for k in call.keywords}
    if family == "generator" and name == "integers":     # its endpoint=True: high included
        endpoint = given.pop("endpoint", None)
        if endpoint is not None and ast.unparse(endpoint) != "False":
            given["high_in"] = given.pop("high", None)
    if not set(given) <= set(params) | {"high_in"}:
        return None
    return _written(_AS.get(name, name), {k: _text(v, k) for k, v in given.items()}, key)


def _written(name, given, key) -> str | None:
    """jax.random.<name>'s call with NumPy's (or Python's) parameters `given` as text."""
    size = given.pop("size", None)
    shape = "()" if size in (None, "None") else (f"({size},)" if size.isdigit() else size)
    shaped = "" if shape == "()" else f", {shape}"
    if name == "seed":
        return f"jax.random.key({given.get('seed', '0')})"
    if name == "normal":
        draw = f"jax.random.normal({key}{shaped})"
        scale, loc = given.get("scale"), given.get("loc")
        draw = f"{scale} * {draw}" if scale else draw
        return f"{loc} + {draw}" if loc else draw
    if name == "uniform":
        bounds = "".join(f", {jax_name}={given[np_name]}" for np_name, jax_name in
                         (("low", "minval"), ("high", "maxval")) if np_name in given)
        return f"jax.random.uniform({key}{shaped}{bounds})"
    if name == "randint":
        low = given.get("low")
        high = given.get("high") or _plus_one(given.get("high_in"))
        if low is None:
            return None
        low, high = ("0", low) if high in (None, "None") else (low, high)
        return f"jax.random.randint({key}, {shape}, {low}, {high})"
    if name == "choice":
        extra = "".join(f", {k}={given[k]}" for k in ("replace", "p") if k in given)
        return f"jax.random.choice({key}, {given['a']}{shaped}{extra})" if "a" in given \
            else None
    return f"jax.random.permutation({key}, {given['x']})" if "x" in given else None


def _text(node, param) -> str:
    """An argument's code; a list or tuple drawn from written out as an array (jax.random's
    choice and permutation take arrays, and refuse a Python list: JAX's check_arraylike)."""
    code = ast.unparse(node)
    listed = param in ("a", "x", "p") and isinstance(node, (ast.List, ast.Tuple))
    return f"jnp.asarray({code})" if listed else code


def _plus_one(high):
    """The end past an included `high` (Python's randint(1, 6) draws 6 too): 7, or `n + 1`."""
    if high is None:
        return None
    return str(int(high) + 1) if high.isdigit() else f"{high} + 1"


def draws_one(call: ast.Call) -> bool:
    """Whether `call` draws one number (`np.random.normal()`, `random.random()`), not an
    array: no size given, no sizes spread, no sequence permuted."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if name in ("rand", "randn"):
        return not call.args
    if name in ("permutation", "shuffle"):
        return False
    sizes = [k.value for k in call.keywords if k.arg == "size"]
    at = {"normal": 2, "uniform": 2, "randint": 2, "integers": 2, "choice": 1, "random": 0,
          "random_sample": 0, "standard_normal": 0}.get(name)
    sizes += call.args[at:at + 1] if at is not None else []
    return all(ast.unparse(s) == "None" for s in sizes)
