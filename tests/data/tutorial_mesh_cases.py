"""JAX 0.10.2's shard_map tutorial (docs/notebooks/shard_map.md, cells 52-59: 8 CPU devices), the
calls of `jax.jit(loss)` that compile again there, run alike by real JAX
(reference/make_tutorial_mesh_reference.py writes tutorial_mesh_reference.json) and by
jxkernel (tests/notebook/test_tutorial_notes.py, in a subprocess of 8 CPU devices).

The page calls `jax.set_mesh(mesh)` as a function (no `with` block), first with an 8-device
mesh, then with a 4-device one, and calls `jax.jit(loss)` under each, with the batch split
over the first and replicated under the second. `run(jax, miss_logger, compiles)` returns per
step JAX's "* ..." miss lines (jax_explain_cache_misses) and how many times loss compiled
(`compiles()`, a count so far):

- "predict_no_mesh", "predict_under_set_mesh" (not the page's): `jax.jit(predict)` called
  before cell 55's `jax.set_mesh(mesh)`, then after it: the trace context's mesh, None before;
- "first": under the 8-device mesh, the batch split over 'batch' (cell 56);
- "new_mesh": under the 4-device mesh, everything replicated (cell 59): the mesh changed;
- "split_again": under the 4-device mesh, the batch split over 'batch' again (what a note's
  "split it as before" would give): still another program, the mesh is not the first's;
- "back": the 8-device mesh set again and cell 56's arguments: the first program, reused.
"""
import logging

from recompile_mesh_cases import MissLines   # (tests/data: the miss lines, one handler)

# cells 52-54, verbatim (jax.random and jnp from the `jax` given)
SOURCE = '''
def predict(params, inputs):
  for W, b in params:
    outputs = jnp.dot(inputs, W) + b
    inputs = jax.nn.relu(outputs)
  return outputs

def loss(params, batch):
  inputs, targets = batch
  predictions = predict(params, inputs)
  return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

def init_layer(key, n_in, n_out):
  k1, k2 = jax.random.split(key)
  W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
  b = jax.random.normal(k2, (n_out,))
  return W, b

def init(key, layer_sizes, batch_size):
  key, *keys = jax.random.split(key, len(layer_sizes))
  params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))

  key, *keys = jax.random.split(key, 3)
  inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
  targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))

  return params, (inputs, targets)

layer_sizes = [784, 128, 128, 128, 128, 128, 8]
batch_size = 32

params, batch = init(jax.random.key(0), layer_sizes, batch_size)
'''


def run(jax, miss_logger="jax._src.interpreters.partial_eval", compiles=None, after=None):
    """{step: {"misses": [...], "compiles": n}} for the steps above; `after(step, f)`, if
    given, runs after each step (jxkernel's side reads its note there)."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    names = {"jax": jax, "jnp": jax.numpy}
    exec(SOURCE, names)
    params, batch, loss = names["params"], names["batch"], names["loss"]
    jax.config.update("jax_explain_cache_misses", True)
    handler, log = MissLines(), logging.getLogger(miss_logger)
    log.addHandler(handler)
    out, f, g = {}, jax.jit(loss), jax.jit(names["predict"])

    def step(name, *args, fun=f):
        handler.lines = []
        fun(*args)
        out[name] = {"misses": handler.lines, "compiles": compiles()}
        if after:
            after(name, fun)
    try:
        step("predict_no_mesh", params, batch[0], fun=g)          # (not the page's)
        mesh = jax.make_mesh((8,), ('batch',))                      # cell 55
        jax.set_mesh(mesh)
        step("predict_under_set_mesh", params, batch[0], fun=g)
        batch8 = jax.device_put(batch, NamedSharding(mesh, P('batch')))
        params8 = jax.device_put(params, NamedSharding(mesh, P()))
        step("first", params8, batch8)                               # cell 56
        mesh = jax.make_mesh((4,), ('batch',))                      # cell 58
        jax.set_mesh(mesh)
        batch4 = jax.device_put(batch8, P('batch'))
        params4 = jax.device_put(params8, P('batch'))
        repl_params = jax.device_put(params4, P())                   # cell 59
        repl_batch = jax.device_put(batch4, P())
        step("new_mesh", repl_params, repl_batch)
        step("split_again", repl_params,
             tuple(jax.device_put(x, P('batch', None)) for x in repl_batch))
        jax.set_mesh(jax.make_mesh((8,), ('batch',)))
        step("back", params8, batch8)
    finally:
        log.removeHandler(handler)
        jax.config.update("jax_explain_cache_misses", False)
    return out
