#!/usr/bin/env python3
"""Harvests the ng_agent_observations bundles NeMo Gym's own producers build in their unit tests.

Runs upstream's tests/test_observability.py of claude_code_agent, hermes_agent and openclaw_agent standalone
(nemo_gym_oracle_env.py), records every AgentObservationBundle they construct, and writes each as NeMo Gym
serializes it (model_dump(mode="json") then orjson): producer-shaped inputs for the trajectory conformance test.

usage: python3 scripts/nemo-gym-producer-bundles.py NEMO_GYM_GIT_DIR OPENAI_PYTHON_GIT_DIR OUT.json
"""
import json, logging, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nemo_gym_oracle_env import setup  # noqa: E402

ng_git, oai_git, out_path = sys.argv[1:4]
AGENTS = ("claude_code_agent", "hermes_agent", "openclaw_agent")
obs, _, show = setup(ng_git, oai_git, AGENTS)
logging.disable(logging.CRITICAL)

import orjson  # noqa: E402
import pytest  # noqa: E402

recorded = []
current = {"test": None}
original_init = obs.AgentObservationBundle.__init__


def recording_init(self, *args, **kwargs):
    original_init(self, *args, **kwargs)
    recorded.append((current["test"], self))


obs.AgentObservationBundle.__init__ = recording_init


class Recorder:
    def pytest_runtest_setup(self, item):
        current["test"] = item.nodeid.split("::", 1)[-1]


tests_dir = tempfile.mkdtemp(prefix="ng-producer-tests-")
files = []
for agent in AGENTS:
    path = os.path.join(tests_dir, f"test_{agent}_observability.py")
    with open(path, "w") as f:
        f.write(show(f"responses_api_agents/{agent}/tests/test_observability.py"))
    files.append(path)
code = pytest.main(["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "-o", "addopts=", *files], plugins=[Recorder()])

seen = set()
out = []
for test, bundle in recorded:
    try:
        text = orjson.dumps(bundle.model_dump(mode="json")).decode()
    except Exception:
        continue
    if text in seen:
        continue
    seen.add(text)
    out.append({"test": test, "json": text})
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"pytest exit {int(code)}; {len(out)} distinct bundles -> {out_path}")
