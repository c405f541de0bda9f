"""Error cards: the errors learners hit most, explained at their own line.

`card_for(exc)` reads a raised exception (its class, its JAX-worded message, what the core
attached when it raised it: `exc.provenance`, see `jxkernel.core.errors.provenance`, and its
traceback) and returns an `ErrorCard`, or None for an error it does not know. The exception
itself is left as it is (JAX's class, JAX's message); the card is only its display. It needs
no IPython: in a script, `print(card_for(e))` shows the text.

    >>> try:
    ...     jax.jit(lambda x: x if x > 0 else -x)(1.0)
    ... except Exception as e:
    ...     card = card_for(e)
    >>> card.kind, card.origin["argument"]
    ('bool-conversion', 'x')

The kinds, each with the errors it explains, are listed in `registry.py`.

Where things are: `registry.py` (which card an exception gets, and the kinds), `card.py` (the
card, its JSON and how it renders), `reading.py` (the
user's lines, the value's origin), `static_fixes.py` (the static_argnames fix of the user's own
call),
`frame_names.py` (what the user's frame holds under a name: a value, one example of a vmap),
`rewrites.py` (the user's code read back and rewritten: branches, loops), `returns.py` (a
function's own `return` read back and rewritten), `magics.py` (a line magic's code as typed),
then one module
per family of errors: `tracer.py`, `static.py`, `vmap.py`, `control_flow.py` (with
`carries.py`: a carry's or the branches' structure in the learner's terms), `shapes.py`,
`keys.py` (and `missing_keys.py`, `seed_keys.py`, `random_arguments.py`), `key_reuse.py`,
`grad.py` (and `autodiff_calls.py`),
`scalars.py`,
`operand_shapes.py`, `reshapes.py`, `update_shapes.py` (an .at update's value),
`solve_shapes.py` (and a symmetric matrix's squareness),
`operand_dtypes.py` (and `int_overflow.py`: a Python int past int32),
`torch_habits.py` (PyTorch's names; `one_hot.py`: its class count),
`in_place_methods.py` (NumPy's
in-place ways), `numpy_names.py` (NumPy 1.x's; `removed_names.py`: older JAX's),
`debug_prints.py`, `trees.py` (and
`tree_arithmetic.py`), `methods.py`,
`axes.py`, `scan_lengths.py`, `einsum_labels.py`,
`einsum_axes.py` and `einsum_output.py` (jnp.einsum's subscripts), `ragged.py`,
`list_arguments.py`,
`truth.py`, `loop_conditions.py`, `slice_indices.py`, `joins.py` (and `join_shapes.py`,
`join_arguments.py`: arrays given one by one; `shape_arguments.py`: a shape's;
`keyword_options.py`: an option by position),
`custom_rules.py`, `lowered_calls.py`, `objects.py` (and `state_classes.py`), `checks.py`,
`jnp_statics.py`,
`hashes.py`, `collectives.py`,
`in_axes_keys.py` (vmap's in_axes dict of other keys),
`body_arguments.py` (a body or branch given other arguments than lax passes),
`call_arity.py` (a function given to grad, jit or vmap called with other arguments),
`conv_layouts.py` (a convolution's arrays in another layout than NCHW/OIHW),
`image_shapes.py` (jax.image.resize given the spatial axes' sizes alone),
`optimizers.py` (Optax as a PyTorch learner writes it: integer labels, lr=, step()),
`nans.py` (the values that made a NaN under jax_debug_nans),
`meshes.py`, `devices.py` (and `device_names.py`), `layers.py`, `dropout.py` (and
`flax_rngs.py`: a seed where Flax takes nnx.Rngs; `flax_optimizer.py`: nnx.Optimizer as before
Flax 0.11),
`closed_modules.py`, `equinox.py`,
`check_arguments.py`, `real_jax.py`,
`conversions.py` (a conversion of a traced value rewritten: int(i) as
i.astype(int), a formatted number as jax.debug.print).
`registry.CARDS` says which card an exception gets, in order: the first whose test passes.

With `%load_ext jxkernel`, the exception handler of notebook/tracebacks.py shows the card
after the filtered traceback (also for `%%jit` cells and `%jaxpr`, through
`CellError.original`).

The MIME bundle `application/vnd.jxkernel.error+json` (`ErrorCard.to_json()`):

    version      1
    kind         one of the kinds registry.py lists
    error        the exception's class name, e.g. "TracerBoolConversionError"
    title        one line saying what went wrong
    message      the first line of the exception's message
    where        the user's line: {"file": "In[3]" or "f.py", "line": 2, "function": "f",
                 "code": "if y > 0:"}, or null when no user frame is known
    called_from  the outermost user line when it differs from `where` (same fields), or null
    origin       where the offending value came from, or null: {"function", "transformation"
                 ("jit", ...), "argument" (the input it came from, e.g. "x" or
                 "params['w']"; null in a loop or branch body, whose inputs have no
                 names), "arguments" (all inputs it depends on), "input_index" (among the
                 flat inputs), "input_type" ("f32[3]"), "value_type", "steps":
                 [{"primitive", "where" ("In[3], line 2" or null), "code" (that line's text
                 or null), "type"}]} from the input to the value; for vmap-sizes, pmap-sizes
                 (and scan-lengths: xs's leaves, axis 0)
                 {"arguments": [{"name", "axis", "size", "type"}]}, for loop-carry
                 {"loop", "body", "path", "input_type", "output_type",
                 "mismatch" ("shapes", "dtypes" or "structure")}, for unhashable-static
                 {"argument", "value_type", "value", "function"}
    why          why it fails, in a sentence or two
    fix          what to do, in words
    rewrite      the suggested code (Python, several lines possible)
    docs         JAX's page for the error, or null
    traceback    the filtered traceback, ending with the exception's whole message (plain
                 text), shown folded; null when the card was made without the shell's
                 exception handler
"""
from __future__ import annotations

from .card import MIME, VERSION, ErrorCard, origin_lines, render_html, render_text
from .reading import (_first_line, _operation_lines, _public, _user_frame, _user_lines,
                      spelled_for)
from .registry import AT_THE_OPERATION, CARDS

__all__ = ["MIME", "VERSION", "ErrorCard", "card_for", "origin_lines", "render_html",
           "render_text"]


def card_for(exc: BaseException) -> ErrorCard | None:
    """The card for `exc`, or None when it is not one of the errors cards explain.

        >>> card_for(ValueError("mine")) is None
        True
    """
    original = getattr(exc, "original", None)          # a %%jit cell's CellError
    if isinstance(original, BaseException) and original is not exc:
        return card_for(original)
    for test, build in CARDS:
        if test(exc):
            # a card whose error is the staged operation's: its line, the call under it
            where, called_from = _operation_lines(exc) if build in AT_THE_OPERATION \
                else _user_lines(exc)
            card = build(exc, where, called_from)
            # what every card says the same way: the error, and the user's lines it points at
            card.error, card.message = type(exc).__name__, _first_line(exc)
            card.where, card.called_from = _public(where), _public(called_from)
            card.rewrite = spelled_for(card.rewrite, _user_frame(exc))
            return card
    return None
