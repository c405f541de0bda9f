"""Write jxkernel/xla/xla_debug_options.py: the names and kinds of XLA's DebugOptions in the
jaxlib that JAX 0.10.2 runs on (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_xla_debug_options.py

`Lowered.compile(compiler_options=...)` sets these by name; XLA refuses a name it has not and a
value its field's kind cannot take. The NumPy backend has no XLA to ask, so it checks against
this table. jaxlib embeds the serialized descriptor of xla/xla.proto in libjax_common.so; this
script reads the DebugOptions message from it (a few lines of protobuf's wire format, so no
protobuf package is needed), and the value names of the enums its fields take.
"""
import glob
import os
import pprint

import jaxlib

# FieldDescriptorProto.Type numbers (google/protobuf/descriptor.proto)
_TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool", 9: "string",
          11: "message", 12: "string", 13: "uint32", 14: "enum", 17: "int32", 18: "int64"}


def _varint(b, i):
    out = shift = 0
    while True:
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return out, i


def _fields(b):
    """(field number, value) of a serialized message: bytes for length-delimited, int for
    varints (the only wire types a descriptor's parts we read use; fixed ones skipped)."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 2:
            n, i = _varint(b, i)
            yield number, b[i:i + n]
            i += n
        elif wire == 0:
            value, i = _varint(b, i)
            yield number, value
        else:
            i += 4 if wire == 5 else 8


def _file(data, name: bytes):
    """The serialized FileDescriptorProto named `name` in `data`: its top-level fields read
    one by one (the file's extent is not stored before it)."""
    start = data.index(b"\n" + bytes([len(name)]) + name)
    i, parts = start, []
    while True:
        key, j = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire != 2 or number not in (1, 2, 3, 4, 5, 8, 10, 12, 14):
            return parts
        n, j = _varint(data, j)
        parts.append((number, data[j:j + n]))
        i = j + n


def _named(parts, number, name):
    for k, body in parts:
        if k == number and dict((f, v) for f, v in _fields(body) if f == 1).get(1) == name:
            return body
    raise LookupError(name)


def _enum_values(body):
    return [dict(_fields(v))[1].decode() for f, v in _fields(body) if f == 2]


def main():
    site = os.path.dirname(jaxlib.__file__)
    data = open(glob.glob(os.path.join(site, "libjax_common.so"))[0], "rb").read()
    proto = _file(data, b"xla/xla.proto")
    debug = list(_fields(_named(proto, 4, b"DebugOptions")))
    nested = {dict(_fields(v))[1].decode(): _enum_values(v) for f, v in debug if f == 4}
    table = {}
    for number, body in debug:
        if number != 2:
            continue
        field = {}
        for k, v in _fields(body):
            field.setdefault(k, v)
        kind = _TYPES[field[5]]
        values = None
        if kind == "enum":
            type_name = field[6].decode()
            short = type_name.rsplit(".", 1)[-1]
            if type_name == f".xla.DebugOptions.{short}":
                values = tuple(nested[short])
            else:               # an enum of another file (xla.autotuner.Backend)
                package, short = type_name[1:].rsplit(".", 1)
                other = _file(data, _proto_file_of(data, package))
                values = tuple(_enum_values(_named(other, 5, short.encode())))
        table[field[1].decode()] = (kind, field.get(4) == 3, values)
    out = os.path.join(os.path.dirname(__file__), "..", "jxkernel", "xla", "xla_debug_options.py")
    with open(out, "w") as f:
        f.write('"""XLA\'s DebugOptions in jaxlib 0.10.2 (JAX 0.10.2\'s): {name: (kind, repeated, enum '
                'value names)}.\n\nWritten by reference/make_xla_debug_options.py from the '
                'descriptor jaxlib embeds; do not edit.\nxla/numpy_backend.py checks a program\'s '
                '`compiler_options` against it as XLA would.\n"""\n\n')
        f.write("# fmt: off\nDEBUG_OPTIONS = ")
        f.write(pprint.pformat(table, width=99, compact=True))
        f.write("\n")
    print(f"{len(table)} options written to {os.path.normpath(out)}")


def _proto_file_of(data, package: str) -> bytes:
    """The name of the embedded .proto file declaring `package` (xla.autotuner's)."""
    marker = b"\x12" + bytes([len(package)]) + package.encode()
    at = data.index(marker)
    # the file's name is the field just before its package: "\n" <len> <name>
    for back in range(2, 200):
        if data[at - back] == 0x0A and data[at - back + 1] == back - 2:
            return data[at - back + 2:at]
    raise LookupError(package)


if __name__ == "__main__":
    main()
