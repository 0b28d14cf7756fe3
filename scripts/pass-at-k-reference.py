#!/usr/bin/env python3
"""Reference values for callscope's pass@k (tests/unit/rollouts/pass-at-k.test.ts).

Runs NeMo Gym's own `compute_pass_majority_metrics` (nemo_gym/reward_profile.py) on a fixed set of task groups and
writes tests/fixtures/pass-at-k/cases.json. The function is taken from upstream's source (the module itself imports
pandas and wandb, which are not needed for it) and run as written. NeMo Gym requires Python >= 3.13, whose float `sum`
is compensated (Neumaier, since 3.12): on an older interpreter that `sum` is emulated, so the values are the ones a
NeMo Gym run computes.

  python3 scripts/pass-at-k-reference.py [path/to/reward_profile.py]
  (default: `git show HEAD:nemo_gym/reward_profile.py` in /work/.mirror/NVIDIA-NeMo+Gym/repo)
"""
import ast
import json
import math
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

MIRROR = "/work/.mirror/NVIDIA-NeMo+Gym/repo"
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pass-at-k" / "cases.json"


def sum312(iterable, start=0):
    """CPython 3.12+ builtin sum (bltinmodule.c): int fast path, then compensated floats."""
    it = iter(iterable)
    result = start
    if type(result) is int:
        for item in it:
            if type(item) in (int, bool):
                result += item
                continue
            result = result + item
            break
        else:
            return result
    if type(result) is float:
        f, c = result, 0.0
        for item in it:
            if type(item) is float:
                t = f + item
                if abs(f) >= abs(item):
                    c += (f - t) + item
                else:
                    c += (item - t) + f
                f = t
            elif type(item) in (int, bool):
                f += float(item)
            else:
                raise TypeError("only ints and floats are summed here")
        if c and math.isfinite(c):
            f += c
        return f
    for item in it:
        result = result + item
    return result


def load_upstream(path: Optional[str]):
    source = Path(path).read_text() if path else subprocess.run(
        ["git", "-C", MIRROR, "show", "HEAD:nemo_gym/reward_profile.py"], check=True, capture_output=True, text=True
    ).stdout
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "compute_pass_majority_metrics")
    namespace: Dict[str, Any] = {"math": math, "Counter": Counter, "Any": Any, "Dict": Dict, "List": List,
                                 "Optional": Optional, "Tuple": Tuple}
    if sys.version_info < (3, 12):
        namespace["sum"] = sum312
    exec(compile(ast.Module(body=[fn], type_ignores=[]), "reward_profile.py", "exec"), namespace)
    return namespace["compute_pass_majority_metrics"]


def cases() -> List[Tuple[str, List[List[float]]]]:
    rng = random.Random(20261202)
    out = [
        ("binary, 3 tasks of 4", [[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]),
        ("binary, one rollout each", [[1.0], [0.0], [0.0]]),
        ("partial group: a task with fewer rollouts", [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0], [1.0, 1.0, 0.0, 0.0]]),
        ("continuous rewards: max of the first k", [[0.25, 0.75, 0.5], [0.1, 0.2, 0.3], [0.9, 0.0, 0.0]]),
        ("a task of 0/1 next to a continuous task", [[1.0, 0.0, 1.0], [0.5, 0.0, 1.0]]),
        ("negative and >1 rewards", [[-1.0, 2.0, 0.0], [3.5, -0.5, 1.0]]),
        ("one task", [[0.0, 1.0, 0.0, 0.0, 1.0]]),
    ]
    # GRPO-sized groups: C(n, k) past 2^53 for n = 64.
    out.append(("binary, 20 tasks of 64", [[float(rng.random() < p) for _ in range(64)] for p in [rng.random() for _ in range(20)]]))
    out.append(("binary, 50 tasks of 16, uneven", [[float(rng.random() < 0.3) for _ in range(rng.choice([16, 16, 16, 8, 3]))] for _ in range(50)]))
    out.append(("continuous, 40 tasks of 8", [[round(rng.random(), 6) for _ in range(8)] for _ in range(40)]))
    out.append(("continuous thirds (inexact floats)", [[1 / 3, 2 / 3, 0.1], [0.7, 0.2, 0.3], [0.1, 0.1, 0.1]]))
    return out


def main() -> None:
    compute = load_upstream(sys.argv[1] if len(sys.argv) > 1 else None)
    result = []
    for name, tasks in cases():
        metrics, _, _, max_k = compute([[{"reward": r} for r in t] for t in tasks])
        metrics.pop("per_sample_aggregate", None)
        result.append({"name": name, "tasks": tasks, "max_k": max_k, "metrics": metrics})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join("  " + json.dumps(case) for case in result)
    OUT.write_text('{"source": "nemo_gym/reward_profile.py compute_pass_majority_metrics", "cases": [\n' + lines + "\n]}\n")
    print(f"wrote {len(result)} cases to {OUT}")


if __name__ == "__main__":
    main()
