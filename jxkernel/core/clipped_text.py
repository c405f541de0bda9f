"""A text cut to fit a line: the compile log's signatures, the recompile explanations, the
views and the notebook's notes all show a value's text at most `limit` characters long.

    >>> clipped("Model(k=3, scale=0.5)", 10), clipped("short", 10), clipped("abcdefgh", 6, "...")
    ('Model(k=3…', 'short', 'abc...')
"""


def clipped(text: str, limit: int, mark: str = "…") -> str:
    """`text` where it has at most `limit` characters; else its start, `mark` ending it, the
    two `limit` characters long."""
    return text if len(text) <= limit else text[:limit - len(mark)] + mark
