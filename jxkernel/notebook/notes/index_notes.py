"""The note under a cell whose code read or updated an array at an index past its axis, a
static integer or a value of an index array known when the line ran:
JAX clamps a read's index (a gather's default) and drops an update (a scatter's), and says
nothing, where NumPy raises IndexError, so a learner from NumPy gets the last element, or the
array unchanged, and no error.

    x = jnp.arange(3)
    x[5]        # ⚠ index 5 is past the end of axis 0 (size 3) (at In[4]:2): JAX read x[2] ...
    x.at[5].set(9)      # ⚠ ...: JAX dropped this update, where NumPy raises IndexError
"""
from __future__ import annotations

from ...numpy import indexing
from ...views.source import is_user_file
from ..display import Note, Site, more_lines, not_told, source_label

SHARP_BITS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
              "#out-of-bounds-indexing")


def install() -> None:
    """Have index arrays' values looked at, for the note: at the extension's load."""
    indexing.look_at_index_arrays = True


def uninstall() -> None:
    indexing.look_at_index_arrays = False


def clear() -> None:
    """Forget the indices read so far: at a cell's start."""
    indexing.clamped_indices.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no index out of bounds read by the
    user's code, or only at lines told of before (`told`: (file, line), kept by the loaded
    extension; a cell edited and run again is another file)."""
    read = not_told([r for r in indexing.clamped_indices if is_user_file(r.file)], told)
    indexing.clamped_indices.clear()
    if not read:
        return None
    first, others = read[0], more_lines(read)
    where = "past the end" if first.index >= 0 else "before the start"
    whose = " in an example of a vmapped batch" if first.batched else " in the index array" \
        if first.in_array else ""
    at = f"index {first.index}{whose} is {where} of axis {first.axis} (size {first.size})" \
        f"{_also(first)} (at {source_label(Site(first.file, first.line))}){others}"
    size = first.size
    # (jax_check_static_indices looks at static integers only: JAX 0.10.2 raised nothing for
    # an index array out of bounds with it on, tests/data/index_array_reference.json)
    checked = ("static integer reads only, not vmapped indices" if first.batched else
               "static integer reads only, not index arrays" if first.in_array else "reads only")
    if first.use == "update":
        return Note(
            f"⚠ {at}: JAX dropped this update, where NumPy raises IndexError",
            body=("JAX drops an update at an index out of bounds (a scatter's default) and "
                  "raises nothing, since code running on an accelerator cannot (" + SHARP_BITS +
                  f"): the array is returned unchanged there. Axis {first.axis}'s indices run "
                  f"from 0 to {size - 1} (or -{size} to -1, counted from the end); "
                  f"jax.config.update('jax_check_static_indices', True) checks {checked}, not "
                  "updates. Where dropping is what you mean, say so, and this note is not "
                  "shown: x.at[idx].set(v, mode='drop') (and so .add, .multiply, ...)."),
            kind="info", details=True)
    clamped = size - 1 if first.index >= 0 else 0
    check = ("jax.config.update('jax_check_static_indices', True) checks static integer "
             f"indices only, not {'a vmapped one' if first.batched else 'an index array'}; "
             if first.in_array else
             "To have a static index checked as NumPy checks it: "
             "jax.config.update('jax_check_static_indices', True), then it raises "
             "IndexError; ")
    return Note(
        f"⚠ {at}: JAX read index {clamped} instead, where NumPy raises IndexError",
        body=("JAX clamps an index out of bounds when it reads (a gather's default) and raises "
              "nothing, since code running on an accelerator cannot (" + SHARP_BITS + "). " +
              check + "to read a fill value there instead of the clamped element: "
              "x.at[idx].get(mode='fill', fill_value=...) in place of x[idx]."),
        kind="info", details=True)


def _also(first) -> str:
    """How many more of an index array's indices (a vmapped batch's) are out of bounds, where
    there are more."""
    n, of = first.in_array - 1, "the batch's" if first.batched else "its"
    return f" (and {n} more of {of} indices)" if n > 0 else ""
