"""Stax, as jax.example_libraries.stax: a tiny neural-net library where a layer is a pair of
functions ``(init_fun, apply_fun)``.

``init_fun(rng, input_shape) -> (output_shape, params)`` draws the parameters;
``apply_fun(params, inputs, **kwargs) -> outputs`` runs the layer (``rng=`` is the only
keyword the layers read: Dropout needs it). The same key gives JAX's parameters, drawn in the
same order with the same initializers.

    >>> init_fun, apply_fun = serial(Dense(3), Relu, Dense(3), LogSoftmax)
    >>> out_shape, params = init_fun(jax.random.PRNGKey(0), (-1, 4))
    >>> out_shape, [jax.tree.map(jnp.shape, p) for p in params]
    ((-1, 3), [((4, 3), (3,)), (), ((3, 3), (3,)), ()])
    >>> apply_fun(params, jnp.ones((5, 4))).shape
    (5, 3)
"""
from __future__ import annotations

import functools
import math

from .. import lax, random
from .. import numpy as jnp
from ..nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from ..nn.initializers import glorot_normal, normal, ones, zeros

__all__ = ["Dense", "GeneralConv", "Conv", "GeneralConvTranspose", "Conv1DTranspose",
           "ConvTranspose", "BatchNorm", "elementwise", "Tanh", "Relu", "Exp", "LogSoftmax",
           "Softmax", "Softplus", "Sigmoid", "Elu", "LeakyRelu", "Selu", "Gelu", "MaxPool",
           "SumPool", "AvgPool", "Flatten", "Identity", "FanOut", "FanInSum", "FanInConcat",
           "Dropout", "serial", "parallel", "shape_dependent",
           # the nn functions and initializers the layers use, under stax's names too
           "relu", "log_softmax", "softmax", "softplus", "sigmoid", "elu", "leaky_relu", "selu",
           "gelu", "standardize", "glorot_normal", "normal", "ones", "zeros", "glorot", "randn",
           "logsoftmax"]

# The older names that early JAX examples use.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def _no_params(rng, input_shape):
    """The init_fun of a layer without parameters: the shape passes through."""
    return input_shape, ()


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: ``inputs @ W + b`` on the last axis.

    >>> init_fun, apply_fun = Dense(3)
    >>> init_fun(jax.random.PRNGKey(0), (2, 4))[0]
    (2, 3)
    """
    def init_fun(rng, input_shape):
        k_w, k_b = random.split(rng)
        params = W_init(k_w, (input_shape[-1], out_dim)), b_init(k_b, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape):
    """The kernel's shape in its layout: 'O' is out_chan, 'I' the input's channel count, the
    spatial letters take `filter_shape` in order."""
    lhs_spec, rhs_spec, _ = dimension_numbers
    spatial = iter(filter_shape)
    in_chan = input_shape[lhs_spec.index("C")]
    return [out_chan if c == "O" else in_chan if c == "I" else next(spatial) for c in rhs_spec]


def _conv_layer(shape_tuple, apply_conv):
    """A convolution layer builder (GeneralConv, GeneralConvTranspose) from the function giving
    its output shape and the one applying it."""
    def layer(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
              W_init=None, b_init=normal(1e-6)):
        _, rhs_spec, out_spec = dimension_numbers
        strides = strides or (1,) * len(filter_shape)
        W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

        def init_fun(rng, input_shape):
            kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
            output_shape = shape_tuple(input_shape, kernel_shape, strides, padding,
                                       dimension_numbers)
            bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
            k_w, k_b = random.split(rng)
            return output_shape, (W_init(k_w, kernel_shape), b_init(k_b, bias_shape))

        def apply_fun(params, inputs, **kwargs):
            W, b = params
            return apply_conv(inputs, W, strides, padding, dimension_numbers) + b
        return init_fun, apply_fun
    return layer


def _conv(inputs, W, strides, padding, dimension_numbers):
    one = (1,) * (inputs.ndim - 2)
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers)


def _conv_transpose(inputs, W, strides, padding, dimension_numbers):
    return lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)


GeneralConv = _conv_layer(lax.conv_general_shape_tuple, _conv)
GeneralConv.__name__ = GeneralConv.__qualname__ = "GeneralConv"
GeneralConv.__doc__ = """A convolution layer in any layout: ``dimension_numbers`` is
    (lhs_spec, rhs_spec, out_spec), e.g. ('NHWC', 'HWIO', 'NHWC'); the bias has out_chan entries
    along out_spec's 'C'.

    >>> init_fun, _ = GeneralConv(('NCHW', 'HWIO', 'NCHW'), 4, (2, 2), padding='SAME')
    >>> init_fun(jax.random.PRNGKey(0), (1, 3, 5, 5))[0]
    (np.int64(1), np.int64(4), np.int64(5), np.int64(5))
    """
GeneralConvTranspose = _conv_layer(lax.conv_transpose_shape_tuple, _conv_transpose)
GeneralConvTranspose.__name__ = GeneralConvTranspose.__qualname__ = "GeneralConvTranspose"
GeneralConvTranspose.__doc__ = """A transposed-convolution layer in any layout (as
    GeneralConv, through lax.conv_transpose).

    >>> init_fun, _ = GeneralConvTranspose(('NHWC', 'HWIO', 'NHWC'), 4, (2, 2), (2, 2))
    >>> init_fun(jax.random.PRNGKey(0), (1, 4, 4, 3))[0]
    (np.int64(1), np.int64(8), np.int64(8), np.int64(4))
    """
Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Standardize over `axis` (the batch statistics of the inputs themselves), then scale by
    gamma and shift by beta, which have the shape of the axes kept.

    >>> init_fun, _ = BatchNorm()
    >>> out_shape, (beta, gamma) = init_fun(jax.random.PRNGKey(0), (8, 4, 4, 3))
    >>> out_shape, beta.shape, gamma
    ((8, 4, 4, 3), (3,), Array([1., 1., 1.], dtype=float32))
    """
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k_beta, k_gamma = random.split(rng)
        beta = beta_init(k_beta, shape) if center else ()
        gamma = gamma_init(k_gamma, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        kept = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[kept] * z + beta[kept]
        if center:
            return z + beta[kept]
        if scale:
            return gamma[kept] * z
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer without parameters applying ``fun(inputs, **fun_kwargs)``.

    >>> _, apply_fun = elementwise(jnp.clip, min=0.0, max=1.0)
    >>> apply_fun((), jnp.array([-1.0, 0.5, 2.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return _no_params, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _non_spatial_axes(spec, ndim):
    """Where N and C are: `spec` names them ('NCHW'); without one the layout is N...C."""
    return (0, ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))


def _with_ones_at(dims, axes):
    """`dims` with a 1 inserted at each of `axes` (positions in the result)."""
    dims = tuple(dims)
    for i in sorted(axes):
        dims = dims[:i] + (1,) + dims[i:]
    return dims


def _window_sizes(inputs, window_shape, strides, padding, spec):
    """How many real (unpadded) inputs each output of a spatial window covers, with unit
    axes at N and C so that it broadcasts against the pooled outputs."""
    axes = _non_spatial_axes(spec, inputs.ndim)
    spatial = tuple(d for i, d in enumerate(inputs.shape) if i not in axes)
    counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0.0, lax.add, window_shape,
                               strides, padding)
    for i in sorted(axes):
        counts = jnp.expand_dims(counts, i)
    return counts


def _pooling_layer(name, reducer, init_val, average=False):
    """A pooling layer builder: `reducer` over windows (divided by the window's count of real
    inputs when `average`)."""
    def layer(window_shape, strides=None, padding="VALID", spec=None):
        spatial_strides = strides or (1,) * len(window_shape)
        axes = _non_spatial_axes(spec, len(window_shape) + 2)
        dims = _with_ones_at(window_shape, axes)
        steps = _with_ones_at(spatial_strides, axes)

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, dims, steps, padding)
            unit = (1,) * len(dims)
            return lax.reduce_window_shape_tuple(input_shape, dims, steps, pads, unit, unit), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, dims, steps, padding)
            if not average:
                return out
            return out / _window_sizes(inputs, window_shape, spatial_strides, padding, spec)
        return init_fun, apply_fun
    layer.__name__ = layer.__qualname__ = name
    layer.__doc__ = f"""{name} over spatial windows; `spec` ('NHWC' when None) says where the
        batch and channel axes are.

        >>> init_fun, apply_fun = {name}((2, 2), strides=(2, 2))
        >>> init_fun(jax.random.PRNGKey(0), (1, 4, 4, 3))[0]
        (1, 2, 2, 3)
        """
    return layer


MaxPool = _pooling_layer("MaxPool", lax.max, -jnp.inf)
SumPool = _pooling_layer("SumPool", lax.add, 0.0)
AvgPool = _pooling_layer("AvgPool", lax.add, 0.0, average=True)


def _flatten():
    """Flatten all axes but the first.

    >>> Flatten[0](jax.random.PRNGKey(0), (2, 3, 4))
    ((2, 12), ())
    """
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


def _identity():
    """The identity layer."""
    return _no_params, lambda params, inputs, **kwargs: inputs


def FanOut(num):
    """Hand the input on as a list of `num` copies (to a `parallel` layer).

    >>> FanOut(2)[0](jax.random.PRNGKey(0), (3,))
    ([(3,), (3,)], ())
    """
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()
    return init_fun, lambda params, inputs, **kwargs: [inputs] * num


def _fan_in_sum():
    """Sum a list of inputs (of one shape)."""
    def init_fun(rng, input_shape):
        return input_shape[0], ()
    return init_fun, lambda params, inputs, **kwargs: sum(inputs)


def FanInConcat(axis=-1):
    """Concatenate a list of inputs along `axis`.

    >>> FanInConcat()[0](jax.random.PRNGKey(0), [(2, 3), (2, 5)])
    ((2, 8), ())
    """
    def init_fun(rng, input_shape):
        first = tuple(input_shape[0])
        ax = axis % len(first)
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


Flatten = _flatten()
Identity = _identity()
FanInSum = _fan_in_sum()


def Dropout(rate, mode="train"):
    """In mode 'train', keep each input with probability `rate` (scaled by 1 / rate) and zero
    the rest; in any other mode pass the inputs through. apply_fun needs ``rng=key``.

    >>> _, apply_fun = Dropout(0.5)
    >>> apply_fun((), jnp.ones(4), rng=jax.random.PRNGKey(0)).shape
    (4,)
    """
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError("Dropout's apply_fun was called without a PRNG key: call it as "
                             "apply_fun(params, inputs, rng=key) with a key from "
                             "jax.random.key (serial and parallel hand their rng= on)")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return _no_params, apply_fun


def _layer_keys(rng, n):
    """One key per sublayer for apply_fun (None for each when no key was given)."""
    return (None,) * n if rng is None else random.split(rng, n)


def serial(*layers):
    """Chain layers: each takes the previous one's output; params is the list of theirs.

    >>> init_fun, _ = serial(Dense(3), Relu, Flatten)
    >>> init_fun(jax.random.PRNGKey(0), (2, 4))[0]
    (2, 3)
    """
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, layer_params = init(layer_rng, input_shape)
            params.append(layer_params)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_keys(kwargs.pop("rng", None), len(apply_funs))
        for fun, layer_params, rng in zip(apply_funs, params, rngs):
            inputs = fun(layer_params, inputs, rng=rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Run layers side by side: the i-th takes the i-th of a sequence of inputs (FanOut makes
    one) and the outputs come back as a list (FanInSum, FanInConcat merge them).

    JAX's init_fun returns the pairs zipped (an iterator); this returns the same two tuples
    (output shapes, params) as a tuple, which unpacks the same way.

    >>> init_fun, _ = parallel(Dense(3), Identity)
    >>> init_fun(jax.random.PRNGKey(0), [(1, 4), (1, 4)])[0]
    ((1, 3), (1, 4))
    """
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(init_funs))
        pairs = [init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]
        return tuple(zip(*pairs))

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_keys(kwargs.pop("rng", None), len(apply_funs))
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built only once the input shape is known: ``make_layer(shape)`` gives the
    (init_fun, apply_fun) pair, for the shape at init and for ``inputs.shape`` at apply.

    >>> init_fun, _ = shape_dependent(lambda shape: Dense(shape[-1] - 1))
    >>> init_fun(jax.random.PRNGKey(0), (2, 4))[0]
    (2, 3)
    """
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
