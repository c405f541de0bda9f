"""Optimizers, as jax.example_libraries.optimizers: an optimizer is a triple of functions
``(init_fun, update_fun, get_params)`` over pytrees of parameters.

``init_fun(params) -> opt_state``; ``update_fun(step, grads, opt_state) -> opt_state`` (grads
with the structure of params); ``get_params(opt_state) -> params``. The state is an
`OptimizerState`, a pytree, so it passes through jit, scan and fori_loop.

    >>> opt_init, opt_update, get_params = sgd(0.1)
    >>> state = opt_init({"w": jnp.array([1.0, 2.0])})
    >>> state = jax.jit(opt_update)(0, {"w": jnp.array([1.0, -1.0])}, state)
    >>> get_params(state)
    {'w': Array([0.9, 2.1], dtype=float32)}
"""
from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from .. import numpy as jnp
from .. import tree_util

__all__ = ["OptimizerState", "Optimizer", "optimizer", "sgd", "momentum", "nesterov", "adagrad",
           "rmsprop", "rmsprop_momentum", "adam", "adamax", "sm3", "constant",
           "exponential_decay", "inverse_time_decay", "polynomial_decay", "piecewise_constant",
           "make_schedule", "l2_norm", "clip_grads", "JoinPoint", "unpack_optimizer_state",
           "pack_optimizer_state"]

Array = Any
Params = Any
State = Any
Updates = Params
Step = int
Schedule = Callable[[Step], float]

# The state of a whole parameter tree: `packed_state` holds, per parameter leaf, the flat
# leaves of that leaf's own state; the two treedefs (static: they go to the pytree's aux data,
# so jit keys on them) rebuild the parameter tree and each per-leaf state.
OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], *aux))

InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def _flatten_states(states):
    """Per-leaf states -> (tuple of their flat leaves, tuple of their treedefs)."""
    flat = [tree_util.tree_flatten(s) for s in states]
    return tuple(leaves for leaves, _ in flat), tuple(treedef for _, treedef in flat)


def _unflatten_states(subtree_defs, states_flat):
    return [tree_util.tree_unflatten(d, leaves) for d, leaves in zip(subtree_defs, states_flat)]


def _check_same_structure(what, expected, got, hint):
    if expected != got:
        raise TypeError(f"optimizer update_fun: {what} {got} does not match {expected}; {hint}")


def optimizer(opt_maker):
    """Lift an optimizer written for one array to pytrees of arrays.

    `opt_maker(*args)` returns ``(init, update, get_params)`` acting on a single array (its
    state may be any pytree of arrays); the decorated maker returns an `Optimizer` whose
    functions take parameter pytrees and an `OptimizerState`.

    >>> @optimizer
    ... def halve():
    ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> init_fun, update_fun, get_params = halve()
    >>> get_params(update_fun(0, (1.0, 1.0), init_fun((jnp.float32(4), jnp.float32(2)))))
    (Array(2., dtype=float32), Array(1., dtype=float32))
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_states([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = tree_util.tree_flatten(grad_tree)
            _check_same_structure("the gradient tree", tree, grad_tree_def,
                                  "pass gradients with the structure of the parameters the "
                                  "state was initialized with")
            states = _unflatten_states(subtrees, states_flat)
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states)]
            new_flat, new_subtrees = _flatten_states(new_states)
            for subtree, new_subtree in zip(subtrees, new_subtrees):
                _check_same_structure("the state that update returned", subtree, new_subtree,
                                      "an optimizer's update must keep its state's structure")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            params = [get_params(s) for s in _unflatten_states(subtrees, states_flat)]
            return tree_util.tree_unflatten(tree, params)

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# The optimizers keep JAX's expressions operation for operation (under jit XLA does not
# reassociate floats, so the same order gives the same numbers) and its function names (the
# Optimizer's functions wrap them: opt.update_fn.__qualname__ == "adam.<locals>.update").

def _init_with_zeros(moments: int):
    """The `init` of an optimizer whose state is x and `moments` zero arrays like it (its
    velocity, its averages of g and g²)."""
    def init(x0):
        return (x0,) + tuple(jnp.zeros_like(x0) for _ in range(moments))
    return init


def _first(state):
    """The `get_params` of an optimizer whose state starts with x."""
    return state[0]


@optimizer
def sgd(step_size):
    """Gradient descent: ``x - step_size(i) * g``. `step_size` is a number or a schedule."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x
    return init, update, get_params


def _with_velocity(step_size: Schedule, mass: float, lookahead: bool):
    """momentum's (init, update, get_params); with `lookahead`, each step goes along
    ``mass * v + g`` (where the velocity is about to take x: Nesterov's) instead of ``v``."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g if lookahead else velocity), velocity
    return _init_with_zeros(1), update, _first


@optimizer
def momentum(step_size: Schedule, mass: float):
    """SGD with momentum: ``v = mass * v + g; x = x - step_size(i) * v``."""
    return _with_velocity(step_size, mass, lookahead=False)


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """SGD with Nesterov momentum: as `momentum`, stepping along ``mass * v + g``."""
    return _with_velocity(step_size, mass, lookahead=True)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011) with momentum on the scaled gradient."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m
    return _init_with_zeros(2), update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: divide the step by the root of a decaying mean of squared gradients."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
    return _init_with_zeros(1), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose scaled steps accumulate in a momentum term."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom
    return _init_with_zeros(2), update, _first


def _bias_correction(beta, like, i):
    """1 - beta ** (i + 1), with beta in the moments' dtype (i is the 0-based step)."""
    return 1 - jnp.asarray(beta, like.dtype) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba 2015): bias-corrected first and second moment estimates.

    >>> init_fun, update_fun, get_params = adam(0.1)
    >>> get_params(update_fun(0, jnp.array([2.0]), init_fun(jnp.array([1.0]))))
    Array([0.9000007], dtype=float32)
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / _bias_correction(b1, m, i)
        vhat = v / _bias_correction(b2, m, i)
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
    return _init_with_zeros(2), update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the second moment replaced by a decaying infinity norm."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / _bias_correction(b1, m, i)) * m / (u + eps)
        return x, m, u
    return _init_with_zeros(2), update, _first


def _along(v, axis, ndim):
    """The vector `v` as an array of `ndim` axes that varies along `axis` only."""
    return v[tuple(slice(None) if a == axis else None for a in range(ndim))]


def _max_over_all_but(x, axis):
    return x.max(tuple(a for a in range(x.ndim) if a != axis))


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): Adagrad whose squared-gradient accumulator is covered by one
    vector per axis (their broadcast minimum), with momentum. Scalars are kept as shape (1,).
    """
    step_size = make_schedule(step_size)

    def init(x0):
        x_shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        vs = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), vs, x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        covers = [_along(v, axis, g.ndim) for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, covers) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [_max_over_all_but(accum, axis) for axis in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return x.reshape(x_shape)
    return init, update, get_params


# Learning-rate schedules: functions of the step index i (a Python int or a traced integer).

def constant(step_size) -> Schedule:
    """The same step size at every step.

    >>> constant(0.1)(7)
    0.1
    """
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``.

    >>> exponential_decay(1.0, 2, 0.25)(4)
    0.0625
    """
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``; with `staircase` the quotient
    i / decay_steps is floored.

    >>> inverse_time_decay(1.0, 4, 1.0, staircase=True)(6)
    Array(0.5, dtype=float32, weak_type=True)
    """
    if staircase:
        def schedule(i):
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    else:
        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From `step_size` down to `final_step_size` over `decay_steps` steps along
    ``(1 - i / decay_steps) ** power``, then constant.

    >>> polynomial_decay(1.0, 4, 0.0)(2)
    Array(0.5, dtype=float32, weak_type=True)
    """
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` where k is the number of boundaries that i exceeds.

    >>> piecewise_constant([2, 4], [1.0, 0.5, 0.1])(3)
    Array(0.5, dtype=float32)
    """
    boundaries, values = jnp.array(boundaries), jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError(f"piecewise_constant: boundaries and values must be 1-d sequences, got "
                         f"shapes {boundaries.shape} and {values.shape}")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError(f"piecewise_constant: boundaries must have one entry fewer than values, "
                         f"got {boundaries.shape[0]} boundaries and {values.shape[0]} values")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule as it is, a scalar as `constant`.

    >>> make_schedule(0.5)(3)
    0.5
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"a step size must be a scalar or a schedule (a function of the step "
                    f"index), got {type(scalar_or_schedule).__name__} of shape "
                    f"{jnp.shape(scalar_or_schedule)}")


def l2_norm(tree):
    """The l2 norm of all the leaves of a pytree together (e.g. for weight decay).

    >>> l2_norm({"a": jnp.array([3.0]), "b": jnp.array(4.0)})
    Array(5., dtype=float32)
    """
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Scale a pytree of gradients down to l2 norm `max_norm` when its norm exceeds it.

    >>> clip_grads([jnp.array([3.0, 4.0])], 1.0)
    [Array([0.6, 0.8], dtype=float32)]
    """
    norm = l2_norm(grad_tree)

    def clip(g):
        return jnp.where(norm < max_norm, g, g * (max_norm / norm))
    return tree_util.tree_map(clip, grad_tree)


class JoinPoint:
    """Where a parameter leaf's own state tree hangs in an unpacked optimizer state (a pytree
    leaf itself, so that the two levels stay apart)."""

    def __init__(self, subtree):
        self.subtree = subtree

    # Iterable like a container of arrays, so that serializers walking sequences see inside.
    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An `OptimizerState` as the parameter tree with a `JoinPoint` holding each leaf's state
    (plain Python containers: for pickling and other serialization).

    >>> unpacked = unpack_optimizer_state(momentum(0.1, 0.9)[0]({"w": jnp.array(1.0)}))
    >>> unpacked["w"].subtree
    (Array(1., dtype=float32, weak_type=True), Array(0., dtype=float32, weak_type=True))
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = _unflatten_states(subtree_defs, states_flat)
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The `OptimizerState` that `unpack_optimizer_state` unpacked."""
    joins, tree_def = tree_util.tree_flatten(marked_pytree)
    strays = [type(j).__name__ for j in joins if not isinstance(j, JoinPoint)]
    if strays:
        # JAX asserts here; the class stays AssertionError for code that catches it.
        raise AssertionError(f"pack_optimizer_state: every leaf must be a JoinPoint (as "
                             f"unpack_optimizer_state makes them), got leaves of types {strays}")
    states_flat, subtree_defs = _flatten_states([j.subtree for j in joins])
    return OptimizerState(states_flat, tree_def, subtree_defs)
