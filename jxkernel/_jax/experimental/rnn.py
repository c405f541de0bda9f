"""jax.experimental.rnn: the LSTM of cuDNN's packed-weight layout, and a reference LSTM written
with `lax.scan` that runs everywhere.

cuDNN keeps all of an LSTM's parameters in one flat float32 vector: first, for each
pseudo-layer (layer 0 forward, layer 0 reverse when bidirectional, layer 1 forward, ...), its
input weights W_ih (4 * hidden, inputs) then its recurrent weights W_hh (4 * hidden, hidden);
then, in the same order, the biases b_ih and b_hh (4 * hidden each). Each block stacks the
gates input, forget, cell, output along its first axis, as PyTorch's LSTM.

    >>> w = init_lstm_weight(jax.random.key(0), 2, 3, 1, False)
    >>> w.shape, [a.shape for a in unpack_lstm_weights(w, 2, 3, 1, False)[0].values()]
    ((84,), [(12, 2)])

`lstm` itself is cuDNN's kernel, which jxkernel has not: it raises, naming `lstm_ref`.
"""
import functools
import math

import numpy as np

from ... import lax
from ... import numpy as jnp
from ... import random
from ...nn import sigmoid, tanh
from ...transforms.batching import vmap
from ...transforms.jit import jit

__all__ = ["get_num_params_in_lstm", "init_lstm_weight", "lstm", "lstm_ref",
           "swap_lstm_gates", "unpack_lstm_weights"]


def _parameter_shapes(input_size, hidden_size, num_layers, bidirectional) -> list:
    """The shapes of the flat vector's blocks, in its order (the module's docstring)."""
    directions = 2 if bidirectional else 1
    pseudo_layers = num_layers * directions
    weights, biases = [], []
    for layer in range(pseudo_layers):
        inputs = input_size if layer < directions else directions * hidden_size
        weights += [(4 * hidden_size, inputs), (4 * hidden_size, hidden_size)]
        biases += [(4 * hidden_size,), (4 * hidden_size,)]
    return weights + biases


def get_num_params_in_lstm(input_size: int, hidden_size: int, num_layers: int,
                           bidirectional: bool) -> int:
    """The length of the flat parameter vector."""
    return sum(math.prod(s) for s in _parameter_shapes(input_size, hidden_size, num_layers,
                                                       bidirectional))


def init_lstm_weight(rng, input_size: int, hidden_size: int, num_layers: int,
                     bidirectional: bool):
    """A flat parameter vector drawn from U(-k, k), k = sqrt(1 / hidden_size)."""
    k = np.sqrt(1.0 / hidden_size)
    count = get_num_params_in_lstm(input_size, hidden_size, num_layers, bidirectional)
    return random.uniform(rng, shape=(count,), dtype=jnp.float32, minval=-k, maxval=k)


def _blocks(weights, shapes):
    """The flat vector's blocks, reshaped, in order."""
    offset = 0
    for shape in shapes:
        size = math.prod(shape)
        yield offset, weights[offset:offset + size].reshape(shape)
        offset += size


def swap_lstm_gates(weights, input_size, hidden_size, num_layers, bidirectional):
    """The flat vector with the cell and output gates swapped in every block (the gate order
    of another LSTM convention)."""
    weights = jnp.asarray(weights)
    for offset, block in list(_blocks(weights, _parameter_shapes(
            input_size, hidden_size, num_layers, bidirectional))):
        i, f, g, o = jnp.split(block, 4, axis=0)
        swapped = jnp.concatenate([i, f, o, g], axis=0).reshape(-1)
        weights = weights.at[offset:offset + swapped.shape[0]].set(swapped)
    return weights


def unpack_lstm_weights(weights, input_size: int, hidden_size: int, num_layers: int,
                        bidirectional: bool):
    """(W_ih, W_hh, b_ih, b_hh): dicts from pseudo-layer to its block; `W_ih[2][1]` (of a
    bidirectional LSTM) is layer 1's reverse direction's input weights."""
    shapes = _parameter_shapes(input_size, hidden_size, num_layers, bidirectional)
    blocks = [block for _, block in _blocks(weights, shapes)]
    pseudo_layers = len(shapes) // 4
    weight_blocks, bias_blocks = blocks[:2 * pseudo_layers], blocks[2 * pseudo_layers:]
    return ({l: weight_blocks[2 * l] for l in range(pseudo_layers)},
            {l: weight_blocks[2 * l + 1] for l in range(pseudo_layers)},
            {l: bias_blocks[2 * l] for l in range(pseudo_layers)},
            {l: bias_blocks[2 * l + 1] for l in range(pseudo_layers)})


def _cell(carry, x, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: the gates from the input and the last state, the new (h, c)."""
    h, c = carry
    z = x @ W_ih.T + b_ih[None] + h @ W_hh.T + b_hh[None]
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    return h, c


def _run_layer(params, h0, c0, xs, seq_lengths):
    """One direction of one layer over time-major `xs`: its outputs, zero past each sequence's
    length, and its (h, c) at each sequence's last step (length 0: the last step's)."""
    def step(carry, x):
        carry = _cell(carry, x, *params)
        return carry, carry

    _, (hs, cs) = lax.scan(step, (h0, c0), xs)
    batch = jnp.arange(hs.shape[1])
    last = (hs[seq_lengths - 1, batch], cs[seq_lengths - 1, batch])
    live = seq_lengths[None] > jnp.arange(xs.shape[0], dtype=jnp.int32)[:, None]
    return jnp.where(live[..., None], hs, 0), last


def _reverse_each(xs, seq_lengths):
    """Time-major `xs` with each sequence's first `length` steps reversed, padding kept last."""
    rolled = vmap(functools.partial(jnp.roll, axis=0), in_axes=(1, 0), out_axes=1)(
        xs, xs.shape[0] - seq_lengths)
    return rolled[::-1]


@functools.partial(jit, static_argnums=(8, 9, 10, 11, 12))
def lstm_ref(x, h_0, c_0, W_ih, W_hh, b_ih, b_hh, seq_lengths, input_size: int,
             hidden_size: int, num_layers: int, dropout: float, bidirectional: bool):
    """A multi-layer LSTM over batch-first `x` (batch, steps, inputs), with `unpack_lstm_weights`'
    dicts: (y, h_n, c_n), y (batch, steps, directions * hidden) zero past each sequence's
    length, h_n and c_n (directions * layers, batch, hidden). Without dropout."""
    if seq_lengths.dtype != jnp.dtype("int32"):
        raise NotImplementedError("`seq_lengths` can only be int32.")
    if dropout != 0.0:
        raise NotImplementedError("Dropout not supported in LSTM reference because we cannot "
                                  "determine CUDNN dropout mask.")
    directions = 2 if bidirectional else 1
    xs = x.transpose(1, 0, 2)
    h_n, c_n = [], []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            l = layer * directions + d
            params = (W_ih[l], W_hh[l], b_ih[l], b_hh[l])
            inputs = xs if d == 0 else _reverse_each(xs, seq_lengths)
            ys, (h, c) = _run_layer(params, h_0[l], c_0[l], inputs, seq_lengths)
            outputs.append(ys if d == 0 else _reverse_each(ys, seq_lengths))
            h_n.append(h)
            c_n.append(c)
        xs = jnp.concatenate(outputs, axis=-1) if directions == 2 else outputs[0]
    return xs.transpose(1, 0, 2), jnp.stack(h_n), jnp.stack(c_n)


def lstm(x, h_0, c_0, weights, seq_lengths, input_size: int, hidden_size: int,
         num_layers: int, dropout: float, bidirectional: bool, precision=None):
    """cuDNN's LSTM over the flat weights: not in jxkernel (no cuDNN RNN kernel)."""
    raise NotImplementedError(
        "jax.experimental.rnn.lstm is cuDNN's LSTM kernel, which jxkernel has not; compute "
        "the same LSTM with rnn.lstm_ref(x, h_0, c_0, *rnn.unpack_lstm_weights(weights, "
        "input_size, hidden_size, num_layers, bidirectional), seq_lengths, ...)")
