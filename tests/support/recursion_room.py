"""The interpreter's recursion room, for tests that a call gives back the depth it takes
(jaxlib 0.10.2's pytree flatten does not when it raises below a tree's top:
docs/contributing.md, "When a worker crashes")."""


def recursion_room() -> int:
    """How many more Python frames this thread can push before RecursionError.

        >>> recursion_room() == recursion_room()
        True
    """
    depth = [0]

    def dive():
        depth[0] += 1
        dive()
    try:
        dive()
    except RecursionError:
        pass
    return depth[0]
