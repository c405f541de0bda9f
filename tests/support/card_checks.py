"""What the error-card tests check of a card against JAX's recorded facts for the same line
(tests/notebook/test_einsum_*_cards.py, test_card_gaps.py): the card a line gets in an IPython
shell, JAX's error kept in it, and a rewrite's code without its comments, to paste."""
from ipython_shell import ran_failing, ran_ok


def card_of(shell, setup: str, line: str, kind: str) -> dict:
    """The card of `kind` that `line` gets in `shell`, after `setup` ran there."""
    if setup:
        ran_ok(shell, setup)
    ran = ran_failing(shell, line)
    assert ran.card is not None and ran.card["kind"] == kind, ran.printed
    return ran.card


def assert_said_as_jax(card: dict, said: dict, title: str, listed) -> None:
    """JAX's class and message kept, the traceback ending where JAX's does (`said`: the case's
    recorded class, message and "file, function" it ends in), the card's title, and each
    entry of `listed` in its why."""
    assert (card["error"], card["message"]) == (said["class"], said["message"])
    assert said["ends_in"].split(", ")[1] in card["traceback"]
    assert card["title"] == title
    for entry in listed:
        assert entry in card["why"], card["why"]


def rewrite_code(rewrite: str) -> str:
    """A rewrite's lines without their trailing comments.

        >>> rewrite_code("y = f(x)    # the result: (3,)")
        'y = f(x)'
    """
    return "\n".join(line.split("    # ")[0] for line in rewrite.splitlines())
