"""The notes under a cell: what the cell did that a learner would want told, found while it
ran and shown once it ends (notebook/state.py asks each module's `cell_note`, or its watch's
`cell_finished`, in `post_run_cell`).

One module per note: `compile_notes` (a recompile, and why, in JAX's words and ours),
`index_notes` (a static index out of bounds, clamped or dropped), `clamped_start_notes` (a
dynamic slice's start moved to fit), `update_notes` (an `.at[...]` update whose new array
was dropped), `index_calls` (an index out of bounds met inside a jitted call or an eager
loop: the program's index checks run on the calls looked at), `nan_notes` with
`gradient_calls` (a gradient holding NaN where the value is finite, eagerly or inside jit),
`key_notes` with `key_sites` and `key_advice` (a PRNG key reused: where, and what to do),
`print_notes` (a print of a tracer), `effect_notes` with `effect_sources` (a side effect
that ran once, at tracing), `breakpoint_notes` and `layout_notes`. Their shared pieces
(Note, source labels, the told-once lines) are notebook/display.py's.
"""
