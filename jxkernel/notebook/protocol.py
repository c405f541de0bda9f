"""The protocol between the kernel and the JupyterLab extension, defined once:
`jxkernel/views/protocol.schema.json` (JSON Schema, draft 7) holds every comm request, every
message the kernel sends and every MIME bundle. The extension's TypeScript types are generated
from it (labextension/src/protocol.generated.ts, `npm run gen:protocol`); the kernel checks each
request against it here, and the tests check what the kernel sends against it
(tests/labextension/test_labextension_protocol.py).

    >>> check({"type": "set_backend", "backend": "cpu"})
    ('set_backend', {'backend': 'cpu', 'device': 0})
    >>> check({"type": "set_backend", "backend": "cpu", "device": "0"})
    Traceback (most recent call last):
    jxkernel.notebook.protocol.BadMessage: set_backend: field 'device' must be an integer, got string '0'

Requests are checked by `errors`, a small interpreter of the JSON Schema keywords the request
definitions use (it refuses any other keyword, so a schema change it cannot honour fails the
tests, which also compare it with the `jsonschema` package's verdicts). Not `jsonschema` itself
at runtime: importing it loads its optional format checkers, seconds in a Jupyter environment
(rfc3987_syntax builds a grammar at import), which the first message after `%load_ext` would
wait for.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .. import __version__
# the schema and its reading sit with the views, which write most of its bundles
from ..views.schema import (SCHEMA_PATH, bundles, definition, merged, messages, mime_type, requests,
                            resolve, schema)

PROTOCOL = 1


class BadMessage(Exception):
    """A message the kernel cannot honour; its text goes back in an `error` reply."""


# ------------------------------------------------------------------ checking a request
def json_type(value) -> str:
    """How the frontend would name the type it sent."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


# What a field must be, as an error message says it. A string with a pattern is a non-empty
# string here: the requests' only pattern is "\\S".
_WANTED = {"integer": "an integer", "string": "a string", "boolean": "true or false"}
_IS = {"integer": lambda v: type(v) is int,   # bool is an int to Python, not to the protocol
       "string": lambda v: isinstance(v, str), "boolean": lambda v: type(v) is bool}
_KEYWORDS = {"type", "const", "minimum", "pattern", "default", "description"}


def errors(kind: str, msg: dict) -> list[str]:
    """What is wrong with request `msg` of type `kind` against its schema, first field first
    (empty: nothing). Fields the schema does not name are ignored."""
    d = definition(requests()[kind])
    unknown = set(d) - {"type", "properties", "required", "description"}
    if unknown:
        raise NotImplementedError(f"protocol.errors cannot check {sorted(unknown)} ({kind})")
    found = []
    for field, rule in d["properties"].items():
        if set(rule) - _KEYWORDS:
            raise NotImplementedError(f"protocol.errors cannot check {sorted(set(rule) - _KEYWORDS)} "
                                      f"({kind}.{field})")
        if field == "type":
            continue                          # how `kind` was found
        if field not in msg:
            if field in d.get("required", ()):
                found.append(f"{kind}: missing field {field!r} ({_WANTED[rule['type']]})")
            continue
        value, want = msg[field], rule["type"]
        if not _IS[want](value) or ("pattern" in rule and not re.search(rule["pattern"], value)):
            wanted = "a non-empty string" if "pattern" in rule else _WANTED[want]
            found.append(f"{kind}: field {field!r} must be {wanted}, got {json_type(value)} "
                         f"{value!r}")
        elif "minimum" in rule and value < rule["minimum"]:
            found.append(f"{kind}: field {field!r} must be >= {rule['minimum']}, got {value}")
        elif "const" in rule and value != rule["const"]:
            found.append(_not_const(kind, field, value, rule["const"]))
    return found


def _not_const(kind, field, value, const) -> str:
    if field == "protocol":
        return (f"{kind}: protocol {value} is not spoken here; this kernel speaks protocol "
                f"{const} (jxkernel {__version__})")
    return f"{kind}: field {field!r} must be {const!r}, got {value!r}"


def check(msg) -> tuple[str, dict]:
    """(type, arguments) of a well-formed request, defaults filled in and strings stripped;
    BadMessage naming the first wrong field otherwise."""
    if not isinstance(msg, dict):
        raise BadMessage(f"a message must be a JSON object, got {json_type(msg)}")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise BadMessage("a message needs a string field 'type'" if kind is None else
                         f"field 'type' must be a string, got {json_type(kind)} {kind!r}")
    if kind not in requests():
        raise BadMessage(f"unknown message type {kind!r}; known: {', '.join(requests())}")
    wrong = errors(kind, msg)
    if wrong:
        raise BadMessage(wrong[0])
    props = definition(requests()[kind])["properties"]
    args = {f: msg.get(f, rule.get("default")) for f, rule in props.items()
            if f not in ("type", "id", "protocol")}
    return kind, {f: v.strip() if isinstance(v, str) else v for f, v in args.items()}


# ------------------------------------------------------------------ the docs' tables
# docs/labextension.md's tables of the requests and of the messages' fields are written from
# the schema: `python -m jxkernel.notebook.protocol docs/labextension.md` rewrites what lies
# between each pair of markers; tests/labextension/test_labextension_protocol.py checks that
# they are what the schema gives.
BEGIN = "<!-- protocol.py {name}: generated from protocol.schema.json, do not edit -->"
END = "<!-- protocol.py {name}: end -->"


def _words(rule: dict) -> str:
    """How a field's type reads in the docs: 'integer >= 0', 'string or null', 'Backend[]'."""
    if "$ref" in rule:
        return f"`{rule['$ref'].rsplit('/', 1)[1]}`"
    if "allOf" in rule or "anyOf" in rule:
        return " or ".join(_words(r) for r in rule.get("allOf", rule.get("anyOf")))
    if "const" in rule:
        return f"`{json.dumps(rule['const'])}`"
    if "enum" in rule:
        return " or ".join(f"`{json.dumps(v)}`" for v in rule["enum"])
    kinds = rule.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    text = " or ".join("array of " + _words(rule["items"]) if k == "array" and isinstance(
        rule.get("items"), dict) else k for k in kinds)
    if "pattern" in rule:
        text = f"non-empty {text}" if rule["pattern"] == "\\S" else f"{text} matching `{rule['pattern']}`"
    if "minimum" in rule:
        text += f" >= {rule['minimum']}"
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _requests_table() -> str:
    rows = ["| request | fields | reply |", "|---|---|---|"]
    for kind, name in requests().items():
        d = definition(name)
        what, _, reply = d.get("description", "").partition("Reply: ")
        fields = []
        for field, rule in d["properties"].items():
            if field in ("type", "id"):
                continue
            text = f"`{field}`: {_words(rule)}"
            if field not in d.get("required", ()):
                text += ", optional" + (f", default {json.dumps(rule['default'])}"
                                        if "default" in rule else "")
            if rule.get("description"):
                text += f" ({rule['description'].rstrip('.')})"
            fields.append(text)
        reply = reply.rstrip(".") + (f" ({what.strip().rstrip('.')})" if what.strip() else "")
        rows.append(f"| `{kind}` | {_cell('; '.join(fields))} | {_cell(reply)} |")
    return "\n".join(rows)


def _fields_table(name: str) -> str:
    d = merged(definition(name))
    rows = [f"`{name}`: {_cell(d.get('description', ''))}", "",
            "| field | type | |", "|---|---|---|"]
    for field, rule in d["properties"].items():
        need = "" if field in d.get("required", ()) else "optional. "
        rows.append(f"| `{field}` | {_cell(_words(rule))} | "
                    f"{_cell(need + rule.get('description', ''))} |")
    return "\n".join(rows)


def _message_definitions() -> list:
    """The messages' definitions and those they refer to, first met first."""
    seen, todo = [], list(messages().values())
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        text = json.dumps(definition(name))
        todo += re.findall(r'"#/definitions/(\w+)"', text)
    return seen


def docs_blocks() -> dict:
    """{marker name: markdown} of the tables docs/labextension.md carries."""
    fields = "\n\n".join(_fields_table(n) for n in _message_definitions()
                         if "properties" in merged(definition(n)))
    return {"requests": _requests_table(), "message-fields": fields}


def write_docs(text: str) -> str:
    """`text` (the docs' markdown) with each generated block replaced by what the schema
    gives now; a ValueError when a block's markers are missing."""
    for name, block in docs_blocks().items():
        begin, end = BEGIN.format(name=name), END.format(name=name)
        if begin not in text or end not in text:
            raise ValueError(f"the docs lack the markers of {name}: {begin} ... {end}")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{begin}\n{block}\n{end}{tail}"
    return text


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m jxkernel.notebook.protocol docs/labextension.md")
    path = Path(sys.argv[1])
    path.write_text(write_docs(path.read_text(encoding="utf-8")), encoding="utf-8")
