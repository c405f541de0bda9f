"""The protocol's one schema, `protocol.schema.json` beside this file (JSON Schema, draft 7):
every comm request and message between the kernel and the JupyterLab extension, and every MIME
bundle the views write. Read here, below the notebook layer, so the views take their MIME types
from it (`mime_type`) and notebook/protocol.py checks requests against it; the extension's
TypeScript is generated from the same file (labextension/scripts/gen-protocol.mjs).

    >>> mime_type("JaxprBundle")
    'application/vnd.jxkernel.jaxpr+json'
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("protocol.schema.json")


@functools.cache
def schema() -> dict:
    """The protocol's JSON Schema (read once)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def definition(name: str) -> dict:
    """One of the schema's definitions ("StateMessage", "JaxprBundle", ...)."""
    return schema()["definitions"][name]


def resolve(node: dict) -> dict:
    """`node`, or the definition its `$ref` names."""
    ref = node.get("$ref", "")
    return definition(ref.rsplit("/", 1)[1]) if ref.startswith("#/definitions/") else node


def merged(node: dict) -> dict:
    """An `allOf` of object schemas as the one object schema it means (their properties and
    required fields together; the node's own description kept): CompileEvent, a ReportEvent
    with three fields more.

        >>> sorted(merged(definition("CompileEvent"))["properties"])[:3]
        ['backend', 'cache', 'cell_id']
    """
    if "allOf" not in node:
        return node
    out = {"type": "object", "properties": {}, "required": []}
    if "description" in node:
        out["description"] = node["description"]
    for part in map(merged, map(resolve, node["allOf"])):
        out["properties"].update(part.get("properties", {}))
        out["required"] += [f for f in part.get("required", ()) if f not in out["required"]]
    return out


def _table(kind: str) -> dict:
    """type (or MIME type) -> definition name, for "requests", "messages" or "bundles"."""
    return {key: ref["$ref"].rsplit("/", 1)[1]
            for key, ref in schema()["properties"][kind]["properties"].items()}


def requests() -> dict:
    return _table("requests")


def messages() -> dict:
    return _table("messages")


def bundles() -> dict:
    return _table("bundles")


def mime_type(name: str) -> str:
    """The MIME type of bundle definition `name`, from the schema's table.

        >>> mime_type("JaxprBundle")
        'application/vnd.jxkernel.jaxpr+json'
    """
    (found,) = [mime for mime, d in bundles().items() if d == name]
    return found
