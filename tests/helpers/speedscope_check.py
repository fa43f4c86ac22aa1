#!/usr/bin/env python3
# Check a speedscope JSON file (perfring_profile_write()'s PERFRING_PROFILE_SPEEDSCOPE) and print what it holds.
#
#   speedscope_check.py FILE [SCHEMA]
#
# Parses FILE with python's json (strict: UTF-8, no NaN), checks the fields the
# speedscope file format requires (src/lib/file-format-spec.ts; with SCHEMA,
# speedscope's own file-format-schema.json from its npm package, validated by a
# small draft-07 subset validator below, or by the jsonschema module when it is
# installed), and that every sample's frame indexes exist and weights match
# samples. Then prints, one per line:
#   profile <TAB> name <TAB> unit <TAB> endValue <TAB> sum of weights
#   stack <TAB> profile name <TAB> root;...;leaf <TAB> weight      (summed per distinct stack)
# Exit status 1 with "error: ..." on the first problem.
import json
import sys
from collections import defaultdict


def fail(msg):
    print("error: " + msg)
    sys.exit(1)


TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "number": (int, float),
    "integer": int,
    "boolean": bool,
}


def validate(value, schema, root, path):
    """The parts of JSON schema draft-07 speedscope's schema uses."""
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            fail(f"{path}: unsupported $ref {ref}")
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        validate(value, target, root, path)
    if "anyOf" in schema:
        errors = []
        for alt in schema["anyOf"]:
            try:
                validate_quiet(value, alt, root, path)
                break
            except ValueError as e:
                errors.append(str(e))
        else:
            fail(f"{path}: matches none of anyOf: {errors}")
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        ok = any(isinstance(value, TYPES[x]) and not (x != "boolean" and isinstance(value, bool)) for x in types)
        if not ok:
            fail(f"{path}: {value!r:.40} is not {t}")
    if "const" in schema and value != schema["const"]:
        fail(f"{path}: {value!r:.40} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        fail(f"{path}: {value!r:.40} not in {schema['enum']}")
    if isinstance(value, dict):
        for req in schema.get("required", []):
            if req not in value:
                fail(f"{path}: missing required field {req!r}")
        for k, sub in schema.get("properties", {}).items():
            if k in value:
                validate(value[k], sub, root, f"{path}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], root, f"{path}[{i}]")


def validate_quiet(value, schema, root, path):
    global fail
    saved = fail

    def raise_(msg):
        raise ValueError(msg)

    fail = raise_
    try:
        validate(value, schema, root, path)
    finally:
        fail = saved


def main():
    if len(sys.argv) < 2:
        fail("usage: speedscope_check.py FILE [SCHEMA]")
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=lambda c: fail(f"non-JSON constant {c}"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"not JSON: {e}")

    # The format's required fields, whether or not the schema is at hand.
    if doc.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        fail("$schema is not speedscope's")
    frames = doc.get("shared", {}).get("frames")
    if not isinstance(frames, list):
        fail("shared.frames is not a list")
    for i, fr in enumerate(frames):
        if not isinstance(fr, dict) or not isinstance(fr.get("name"), str):
            fail(f"frame {i} has no name")
    profiles = doc.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        fail("no profiles")
    for p in profiles:
        for req in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
            if req not in p:
                fail(f"profile {p.get('name')!r} lacks {req}")
        if p["type"] != "sampled":
            fail(f"profile type {p['type']}")
        if p["unit"] not in ("none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"):
            fail(f"unit {p['unit']}")
        if len(p["samples"]) != len(p["weights"]):
            fail(f"profile {p['name']!r}: {len(p['samples'])} samples, {len(p['weights'])} weights")
        if not p["startValue"] <= p["endValue"]:
            fail(f"profile {p['name']!r}: startValue > endValue")
    idx = doc.get("activeProfileIndex", 0)
    if not 0 <= idx < len(profiles):
        fail(f"activeProfileIndex {idx} out of range")

    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            schema = json.load(f)
        try:
            import jsonschema  # noqa: F401  (an independent validator when installed)

            jsonschema.validate(doc, schema)
        except ImportError:
            pass
        except Exception as e:  # jsonschema.ValidationError
            fail(f"schema: {str(e).splitlines()[0]}")
        validate(doc, schema, schema, "$")

    for p in profiles:
        stacks = defaultdict(int)
        for s, w in zip(p["samples"], p["weights"]):
            for i in s:
                if not isinstance(i, int) or not 0 <= i < len(frames):
                    fail(f"profile {p['name']!r}: frame index {i!r}")
            stacks[";".join(frames[i]["name"] for i in s)] += w
        print(f"profile\t{p['name']}\t{p['unit']}\t{p['endValue']}\t{sum(p['weights'])}")
        for k in sorted(stacks):
            print(f"stack\t{p['name']}\t{k}\t{stacks[k]}")


main()
