"""What JAX's smaller runtime and tooling test files (monitoring_test.py, lazy_loader_test.py
and the others added with them, conformance/jax_tests) found: `jax._src.monitoring` is
jxkernel's monitoring module, whose listener getters hand out copies, and
`jax._src.lazy_loader.attach` loads a package's submodules on first access."""
import pytest

from jxkernel._jax._src import monitoring as src_monitoring
from jxkernel.core import monitoring


def test_private_monitoring_is_the_public_one():
    # JAX's monitoring_test registers through jax.monitoring and reads jax._src.monitoring
    assert src_monitoring is monitoring


@pytest.mark.parametrize("register, get, unregister", [
    (monitoring.register_event_listener, monitoring.get_event_listeners,
     monitoring.unregister_event_listener),
    (monitoring.register_event_duration_secs_listener, monitoring.get_event_duration_listeners,
     monitoring.unregister_event_duration_listener)])
def test_listener_getters_hand_out_copies(register, get, unregister):
    def callback(*args, **kwargs):
        return None
    before = get()
    before.append(callback)                  # a copy: the registry does not change
    assert callback not in get()
    register(callback)
    assert callback in get()
    unregister(callback)
    assert callback not in get()
    with pytest.raises(AssertionError):      # JAX's error for a listener never registered
        unregister(callback)
