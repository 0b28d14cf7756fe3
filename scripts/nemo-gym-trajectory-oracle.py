#!/usr/bin/env python3
"""Reference outputs for lib/rollouts/ from NeMo Gym's own code (the strongest oracle for the trajectory core).

Runs upstream's observation models, join, claude_code compaction association and the collector's projection
standalone: pydantic 2 and orjson are the only packages needed. The OpenAI SDK (2.7.2, the version upstream pins)
is loaded from its source with its HTTP dependencies stubbed, because only its pydantic types are used.

usage: python3 scripts/nemo-gym-trajectory-oracle.py NEMO_GYM_GIT_DIR OPENAI_PYTHON_GIT_DIR CASES.json OUT.json
  (git dirs are bare mirrors; NeMo Gym at HEAD, openai-python at tag v2.7.2)
Each case is {"name", "op": "bundle"|"merge"|"project", ...}; see tests/fixtures/trajectory/cases.json.
"""
import ast, json, os, sys, types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nemo_gym_oracle_env import setup  # noqa: E402

ng_git, oai_git, cases_path, out_path = sys.argv[1:5]
obs, corr, show = setup(ng_git, oai_git)
cc = sys.modules["responses_api_agents.claude_code_agent.observability"]

import logging, orjson  # noqa: E402
logging.disable(logging.CRITICAL)
from nemo_gym.config_types import ModelServerRef  # noqa: E402

# The collector's projection functions, lifted from rollout_collection.py by name.
collection_src = show("nemo_gym/rollout_collection.py")
wanted = {"_nonnegative_int", "_has_observation_gap", "_trajectory_identity", "_build_trajectory_record",
          "_strip_capture_payloads", "_attach_trajectory_record"}
tree = ast.parse(collection_src)
body = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in wanted]
coll = {"Any": object, "Optional": __import__("typing").Optional, "logger": logging.getLogger("oracle"),
        "NG_TRAJECTORY_KEY": "ng_trajectory", "_MODEL_CALL_PAYLOAD_KEYS": ("request", "response", "request_raw", "response_raw"),
        "TASK_INDEX_KEY_NAME": "_ng_task_index", "ROLLOUT_INDEX_KEY_NAME": "_ng_rollout_index",
        "maybe_rollout_id_from_run_body": corr.maybe_rollout_id_from_run_body}
coll.update({k: getattr(obs, k) for k in dir(obs) if not k.startswith("__")})
exec(compile(ast.Module(body=body, type_ignores=[]), "rollout_collection", "exec"), coll)


class Call(types.SimpleNamespace):
    """Stands in for ModelCallRecord: the attributes the join and the association read."""


def call_of(raw):
    ref = raw.get("model_ref")
    fields = {k: raw.get(k) for k in ("model_call_id", "response_id", "call_index", "dialect", "status_code",
                                      "error_category", "request", "response")}
    return Call(**fields, model_ref=ModelServerRef.model_validate(ref) if ref is not None else None)


def dumps(v):
    return orjson.dumps(v).decode()


def merge_step3(line, raw_calls):
    """merge_model_call_capture_into_record's observation step (§5.1 step 3) on given calls."""
    calls = [call_of(c) for c in raw_calls]
    gaps = []
    observations = line.get("ng_agent_observations")
    if observations is not None:
        try:
            bundle = obs.AgentObservationBundle.model_validate(observations)
            if bundle.source == "claude_code":
                try:
                    bundle = cc.associate_claude_code_compaction_calls(bundle, calls)
                except Exception:
                    bundle.gaps.append(obs.ObservationGap(code="compaction_model_call_join_failed"))
            bundle = obs.join_model_call_observations(bundle, calls)
            line["ng_agent_observations"] = bundle.model_dump(mode="json")
        except Exception:
            gaps.append(obs.ObservationGap(code="agent_observation_join_failed").model_dump(mode="json", exclude_none=True))
    return gaps


out = []
for case in json.load(open(cases_path)):
    entry = {"name": case["name"]}
    if case["op"] == "bundle":
        try:
            entry["json"] = dumps(obs.AgentObservationBundle.model_validate(case["input"]).model_dump(mode="json"))
        except Exception as exc:
            entry["error"] = type(exc).__name__
    elif case["op"] == "trajectory":
        try:
            entry["json"] = dumps(obs.TrajectoryRecord.model_validate(case["input"]).model_dump(mode="json"))
        except Exception as exc:
            entry["error"] = type(exc).__name__
    elif case["op"] == "merge":
        line = case["line"]
        entry["gaps"] = merge_step3(line, case["calls"])
        entry["json"] = dumps(line)
    elif case["op"] == "project":
        line = case["line"]
        coll["_attach_trajectory_record"](line, line)
        entry["json"] = dumps(line)
    out.append(entry)
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"{len(out)} cases -> {out_path}")
