"""signature_changes/nearest.py ranks a function's earlier signatures without their fixes: one
of the same structure (compare.same_structure) by its configuration's, statics' and
constants' changes and its input types alone, every comparison unfixed(). It names the
signature that comparing each in full (explain_changes, jax_order, change_distance) names."""
import dataclasses
import itertools

import numpy as np

import jxkernel
from jxkernel.core.avals import ShapedArray
from jxkernel.views.signature_changes.change import Signature
from jxkernel.views.signature_changes.compare import (explain_changes, same_structure,
                                                      unstructured_changes)
from jxkernel.views.signature_changes.fixes import unfixed
from jxkernel.views.signature_changes.nearest import change_distance, jax_order, nearest


def _nearest_in_full(history, new):
    """nearest() as it was: each earlier signature compared in full, fixes and all."""
    ranked = [(jax_order(old, new, explain_changes(old, new)), i, old)
              for i, old in enumerate(history)]
    least = min(order for order, _, _ in ranked)
    return min(((change_distance(old, new), -i, old) for order, i, old in ranked
                if order == least), key=lambda e: e[:2])[2]


def _signatures():
    """Signatures of one function of `x` (a leaf or a dict of two) and a static `n`, under two
    values of an option, with a closed-over constant: each differing from the others in some
    of those."""
    tree = jxkernel.tree_util.tree_structure
    out = []
    for shape, dtype, weak, n, option, const, nested in itertools.product(
            [(3,), (4,), (4, 2)], [np.float32, np.int32], [False, True], [2, 3.0],
            ["allow", "raise"], [0.0, 1.0], [False, True]):
        a = ShapedArray(shape, dtype, weak_type=weak)
        named = (("x['a']", a), ("x['b']", a)) if nested else (("x", a),)
        out.append(Signature(named, tree((({"a": 1, "b": 1} if nested else 1,), {})),
                             (("n", n),), (("jax_numpy_rank_promotion", option),),
                             (("c", np.float32(const)),)))
    return out


def test_the_nearest_is_the_one_a_comparison_in_full_names():
    signatures = _signatures()
    rng = np.random.default_rng(0)
    for _ in range(40):
        picked = [signatures[i] for i in rng.choice(len(signatures), 9, replace=False)]
        history, new = picked[:-1], picked[-1]
        assert nearest(history, new) is _nearest_in_full(history, new)


def test_unfixed_changes_are_the_fixed_ones_less_their_fixes():
    signatures = _signatures()
    for old, new in zip(signatures[::7], signatures[3::7]):
        with unfixed():
            plain = explain_changes(old, new)
            apart = unstructured_changes(old, new) if same_structure(new)(old) else None
        fixed = explain_changes(old, new)
        assert plain == tuple(dataclasses.replace(c, fix="", snippet="") for c in fixed)
        assert any(c.fix for c in fixed)
        if apart is not None:        # the same changes, less the input types'
            assert apart == tuple(c for c in plain if c.kind not in ("shape", "dtype",
                                                                      "weak_type"))


def test_dataclasses_of_other_types_alike_in_meta_fields_are_another_structure():
    # equal treedefs (jaxlib compares two registered dataclasses' nodes by their meta fields
    # alone), other node types: explain_changes names the node, so the ranking must not read
    # the pair as one structure
    @dataclasses.dataclass
    class A:
        w: object

    @dataclasses.dataclass
    class B:
        w: object

    for kind in (A, B):
        jxkernel.tree_util.register_dataclass(kind, data_fields=["w"], meta_fields=[])
    a = ShapedArray((3,), np.float32)
    old, new = (Signature((("p.w", a),), jxkernel.tree_util.tree_structure(((kind(1.0),), {})))
                for kind in (A, B))
    assert old.treedef == new.treedef
    assert not same_structure(new)(old)
    assert [c.kind for c in explain_changes(old, new)] == ["structure"]
    assert same_structure(new)(dataclasses.replace(new))
