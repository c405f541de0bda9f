"""Cases of jax.experimental.array_serialization run by JAX 0.10.2
(reference/make_array_serialization_reference.py records them into
array_serialization_reference.json) and by jxkernel (tests/api/test_array_serialization.py,
which compares): a sharded and a one-device array written by GlobalAsyncCheckpointManager and
by tensorstore_impl's zarr3 writer, the specs and the metadata files on disk (the contract
with a checkpoint JAX wrote), the bytes read back, the chunk shapes of large shards, and
jax.interpreters.pxla's removed names. Run with two CPU devices."""
import json
import os
import tempfile
import warnings


def _files(root):
    """Each file under `root` (relative path): its JSON when it is a metadata file, else its
    size in bytes (the chunk files: their bytes are compared through the values read back)."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            key = os.path.relpath(path, root)
            if name in (".zarray", "zarr.json"):
                with open(path) as f:
                    out[key] = json.load(f)
            else:
                out[key] = os.path.getsize(path)
    return out


def _spec(spec):
    return json.loads(json.dumps(spec))     # tuples as lists, as on disk


def run(jax):
    import numpy as np
    ser = __import__(jax.__name__ + ".experimental.array_serialization.serialization",
                     fromlist=["x"])
    impl = __import__(jax.__name__ + ".experimental.array_serialization.tensorstore_impl",
                      fromlist=["x"])
    from_sharding = jax.sharding
    out = {}
    mesh = from_sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    named = from_sharding.NamedSharding(mesh, from_sharding.PartitionSpec("x"))
    replicated = from_sharding.NamedSharding(mesh, from_sharding.PartitionSpec())
    one = from_sharding.SingleDeviceSharding(jax.devices()[1])
    arrays = {
        "sharded": jax.device_put(np.arange(24, dtype=np.float32).reshape(8, 3) / 7, named),
        "replicated": jax.device_put(np.arange(6, dtype=np.int32) - 3, replicated),
        "one_device": jax.device_put(np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5),
                                     one),
        "scalar": jax.device_put(np.float32(2.5), jax.devices()[0]),
    }
    out["addressable"] = {k: [d.id for d in a.sharding._addressable_device_assignment]
                          for k, a in arrays.items()}
    root = tempfile.mkdtemp()

    # the manager with serialization's specs (zarr, no OCDBT): Flax's multiprocess arrays
    manager = ser.GlobalAsyncCheckpointManager()
    paths = {k: os.path.join(root, "zarr", k) for k in arrays}
    specs = [ser.get_tensorstore_spec(p) for p in paths.values()]
    out["zarr_specs"] = {k: _spec(s) for k, s in zip(arrays, specs)}
    committed = []
    manager.serialize(list(arrays.values()), specs, on_commit_callback=lambda: committed.append(1))
    manager.wait_until_finished()
    out["committed"] = committed
    out["zarr_specs_after"] = {k: _spec(s) for k, s in zip(arrays, specs)}
    out["zarr_files"] = _files(os.path.join(root, "zarr"))
    back = manager.deserialize_with_paths([a.sharding for a in arrays.values()],
                                          list(paths.values()))
    out["zarr_back"] = {k: {"same_bytes": np.asarray(b).tobytes() == np.asarray(a).tobytes(),
                            "dtype": str(b.dtype), "shape": list(b.shape),
                            "sharding_same": b.sharding == a.sharding,
                            "shards": [[s.device.id, repr(s.index)] for s in b.addressable_shards]}
                        for (k, a), b in zip(arrays.items(), back)}
    # read larger than saved (zeros beyond), cast on the host, other layouts
    big = ser.run_deserialization([named], [ser.get_tensorstore_spec(paths["sharded"])],
                                  [(10, 3)], [np.int32])[0]
    out["padded_cast"] = [str(big.dtype), np.asarray(big).tolist()]
    resharded = ser.run_deserialization(
        [one, replicated], [ser.get_tensorstore_spec(paths["sharded"]),
                            ser.get_tensorstore_spec(paths["one_device"])])
    out["resharded"] = [np.asarray(r).tobytes() == np.asarray(a).tobytes()
                        for r, a in zip(resharded, [arrays["sharded"], arrays["one_device"]])]

    # tensorstore_impl's own default: zarr3, with and without OCDBT's spec
    out["zarr3_spec_ocdbt"] = _spec(impl.get_tensorstore_spec(os.path.join("/ckpt", "a", "w")))
    out["zarr3_spec_process"] = _spec(impl.get_tensorstore_spec(
        "/ckpt/a/w/", ocdbt=False, process_idx=3, arr=arrays["sharded"]))
    out["gcs_spec"] = _spec(impl.get_tensorstore_spec("gs://bucket/dir/w"))
    out["s3_spec"] = _spec(ser.get_tensorstore_spec("s3://bucket/dir/w"))
    try:
        impl.get_tensorstore_spec("relative/w")
        out["relative"] = None
    except ValueError as e:
        out["relative"] = str(e)
    z3 = {k: impl.get_tensorstore_spec(os.path.join(root, "zarr3", k), ocdbt=False)
          for k in arrays}
    impl._run_serialization(list(arrays.values()), list(z3.values()))
    out["zarr3_files"] = _files(os.path.join(root, "zarr3"))
    back3 = impl._run_deserialization([a.sharding for a in arrays.values()], list(z3.values()))
    out["zarr3_back"] = [np.asarray(b).tobytes() == np.asarray(a).tobytes()
                         for a, b in zip(arrays.values(), back3)]
    out["chunks"] = [impl._compute_chunk_shape(shape, dtype, target) for shape, dtype, target in [
        ((1024, 1024), "float32", 1 << 20), ((6, 10, 7), "float64", 100),
        ((3, 0), "float32", 1), ((), "int8", 1), ((9, 4), "float32", 8), ((7, 8), "int8", 3)]]
    out["remote"] = [ser.is_remote_storage(s) for s in (
        "gs://b/x", "s3://b/x", "/tmp/x", {"kvstore": {"driver": "gcs"}},
        {"driver": "zarr", "kvstore": {"driver": "ocdbt", "base": {"driver": "s3"}}},
        {"driver": "zarr", "kvstore": {"driver": "file", "path": "/x"}})]
    out["manager_base"] = isinstance(manager, ser.GlobalAsyncCheckpointManagerBase)

    pxla = __import__(jax.__name__ + ".interpreters.pxla", fromlist=["x"])
    removed = {}
    for name in ("MapTracer", "PmapExecutable", "parallel_callable", "shard_args", "Chunked",
                 "NoSharding", "Replicated", "ShardedAxis", "ShardingSpec", "Unstacked",
                 "spec_to_indices"):
        try:
            getattr(pxla, name)
            removed[name] = None
        except AttributeError as e:
            removed[name] = str(e)
    out["pxla_removed"] = removed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pxla.Index       # noqa: B018  (still given, with JAX's warning)
    out["pxla_index_warning"] = [str(w.message) for w in caught]
    return json.loads(json.dumps(out).replace(root, "ROOT"))     # the folder differs per run
