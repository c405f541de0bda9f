"""A deleted Array: what it holds in place of its buffer, and the errors that touching it raises.

JAX 0.10.2's text is kept (a learner compares it with JAX's, and doctests compare the class):
every way of reading a deleted Array (an eager operation, a jit's first call, print, repr,
`np.asarray`, `jax.device_get`, `jnp.copy`) raises a plain RuntimeError, "Array has been deleted
with shape=float32[3]."; a jit that already ran called again with an Array donated since raises
ValueError with XLA's text ("INVALID_ARGUMENT: Invalid buffer passed to Execute() ..."), as JAX's
compiled fast path does; `block_until_ready` raises jaxlib's own error. jxkernel adds one
sentence to each: why the Array is gone (donated to which computation, or `.delete()`), which
JAX does not say.

Why a stand-in for the buffer: jaxlib logs every execution handed a deleted buffer on stderr
("ExecutePrepareWithOomRetries failed: ... Buffer has been deleted or donated.") before it
raises, so an eager `x + 1` on a donated `x` printed XLA's log line where JAX prints nothing.
A `Gone` in the Array's `_buf` slot is no jaxlib buffer: the execution refuses it when it
converts its arguments, before XLA sees it, and no check is added to any live call.
"""
from __future__ import annotations

from .client import JaxRuntimeError, xc

DELETED = ".delete() was called on it."


class Gone:
    """A deleted Array's `_buf`: the deleted jaxlib buffer (every attribute read goes on to it:
    `_sharding`, `is_deleted()`, `delete()`), why it is gone and the Array's type."""
    __slots__ = ("deleted_buf", "why", "array_aval")

    def __init__(self, buf, why: str, aval):
        self.deleted_buf, self.why, self.array_aval = buf, why, aval

    def __getattr__(self, name):
        return getattr(self.deleted_buf, name)


def mark(array, why: str) -> None:
    """Put a Gone in a deleted `array`'s place of a buffer (once: the first reason stays)."""
    if type(array._buf) is not Gone:
        array._buf = Gone(array._buf, why, array.aval)


def donated(what: str, arg_name: str) -> str:
    """The reason of an Array donated to `what` ("jit(f)") as its argument `arg_name`."""
    return (f"It was donated to {what} as its {arg_name}: use that call's result in its place, "
            f"or do not donate it.")


def why_text(buf) -> str:
    return buf.why if type(buf) is Gone else \
        "It was donated to a computation, or .delete() was called on it."


def shape_text(aval) -> str:
    """JAX's: the dtype's full name and the dimensions, with the mesh axes that split them
    ('float32[3]', 'float32[4@x]': JAX's `aval.str_short()`)."""
    if aval is None or not hasattr(aval, "dtype"):    # (a buffer jaxlib made knows no type)
        return "?"
    if hasattr(aval, "str_short"):
        return aval.str_short(short_dtypes=False)
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def aval_of(buf):
    return buf.array_aval if type(buf) is Gone else getattr(buf, "aval", None)


def deleted_error(aval, buf) -> RuntimeError:
    """JAX's error for a deleted Array read, then why."""
    return RuntimeError(f"Array has been deleted with shape={shape_text(aval)}. {why_text(buf)}")


def reused_error(index: int, buf) -> ValueError:
    """JAX's error when a jit that already ran gets a donated Array (its compiled fast path
    hands the buffer to XLA, which refuses it), then why."""
    return ValueError(f"INVALID_ARGUMENT: Invalid buffer passed to Execute() as argument "
                      f"{index} to replica 0: INVALID_ARGUMENT: Buffer has been deleted or "
                      f"donated. {why_text(buf)}")


def wait_error(buf) -> Exception:
    """`block_until_ready` of a deleted Array: jaxlib's error, as in JAX, then why."""
    return xc.XlaRuntimeError("INVALID_ARGUMENT: BlockHostUntilReady() called on deleted or "
                              f"donated buffer. {why_text(buf)}")


# jaxlib's texts when a `.delete()`d buffer and a donated one are asked `method`; None: the
# donated buffer still answers (jaxlib keeps a donated buffer's size)
_ASKED = {
    "on_device_size_in_bytes": ("GetOnDeviceSizeInBytes() called on deleted or donated buffer",
                                None),
    "unsafe_buffer_pointer": ("UnsafeBufferPointer( called on deleted or donated buffer",
                              "Buffer has been deleted or donated."),
}


def asked_error(method: str, buf) -> Exception | None:
    """A deleted NumPy buffer asked `method` as a jaxlib one is: jaxlib's error, as JAX
    raises it, then why; None where jaxlib still answers (a donated buffer's size).

        >>> asked_error("unsafe_buffer_pointer", None).args[0][:57]
        'INVALID_ARGUMENT: UnsafeBufferPointer( called on deleted '
    """
    deleted_text, donated_text = _ASKED[method]
    said = deleted_text if getattr(buf, "why", DELETED) == DELETED else donated_text
    if said is None:
        return None
    return JaxRuntimeError(f"INVALID_ARGUMENT: {said}{' ' if said.endswith('.') else '. '}"
                           f"{why_text(buf)}")


def ready_error(buf) -> Exception:
    """`is_ready` of a deleted Array: jaxlib's error for a donated one, as in JAX, then why.
    Raised without asking jaxlib: its `is_ready` of a `.delete()`d buffer crashes the process
    (JAX 0.10.2's `x.is_ready()` after `x.delete()` is a segmentation fault)."""
    return xc.XlaRuntimeError(f"INVALID_ARGUMENT: Array has been deleted. {why_text(buf)}")
