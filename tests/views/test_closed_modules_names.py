"""The closed-modules card names the Flax objects a traced function reads from outside: the
globals its bytecode loads and its closure variables, not an attribute of the same name
(`trainer.model` reads no global `model`; `co_names` holds both)."""
import sys

from jxkernel.views.error_cards.closed_modules import _flax_objects


class _Module:       # stands for a Flax NNX class: its module is flax.nnx's
    pass


_Module.__module__ = "flax.nnx.module"
model = _Module()
optimizer = _Module()


class _Trainer:
    def __init__(self):
        self.model = _Module()


def _reads_the_global(x):
    return model, sys._getframe()


def _reads_an_attribute(trainer, x):
    return trainer.model, optimizer, sys._getframe()


def test_a_global_read_is_named_and_an_attribute_of_its_name_is_not():
    assert _flax_objects(_reads_the_global(1.0)[1]) == ["model"]
    assert _flax_objects(_reads_an_attribute(_Trainer(), 1.0)[2]) == ["optimizer"]
