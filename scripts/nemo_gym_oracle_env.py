"""Loads NeMo Gym's observation code standalone for the oracle scripts (see nemo-gym-trajectory-oracle.py).

pydantic 2 is the only package needed: the OpenAI SDK (2.7.2, the version upstream pins) is loaded from its
source with its HTTP dependencies stubbed, and NeMo Gym's heavy modules are replaced by the few names used.
"""
import ast, io, os, subprocess, sys, tarfile, tempfile, types


def setup(ng_git, oai_git, agents=("claude_code_agent",)):
    """Returns (rollout_observability, rollout_correlation, show) with upstream's modules importable."""
    root = tempfile.mkdtemp(prefix="ng-oracle-")

    def extract(git_dir, ref, paths, dest):
        data = subprocess.run(["git", "-C", git_dir, "archive", ref, *paths], check=True, capture_output=True).stdout
        tarfile.open(fileobj=io.BytesIO(data)).extractall(dest)

    def show(path):
        return subprocess.run(["git", "-C", ng_git, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True).stdout

    extract(oai_git, "v2.7.2", ["src/openai"], root)
    pkg = os.path.join(root, "src")
    open(os.path.join(pkg, "openai", "__init__.py"), "w").close()
    stub_src = ("class _D:\n  def __init__(s,*a,**k): pass\n  def __class_getitem__(c,i): return c\n"
                "def __getattr__(n):\n  if n.startswith('__'): raise AttributeError(n)\n  return type(n,(_D,),{})\n")
    for name in ("httpx", "distro", "jiter", "anyio", "anyio.to_thread", "anyio.abc"):
        mod = types.ModuleType(name)
        exec(stub_src, mod.__dict__)
        if name == "anyio":
            mod.__path__ = []
        sys.modules[name] = mod
    sys.path.insert(0, pkg)

    ng = types.ModuleType("nemo_gym")
    ng.__path__ = []
    sys.modules["nemo_gym"] = ng

    def load(name, source):
        mod = types.ModuleType(name)
        sys.modules[name] = mod
        exec(compile(source, name, "exec"), mod.__dict__)
        return mod

    load("nemo_gym.server_utils", "_GLOBAL_AIOHTTP_CLIENT_REQUEST_DEBUG=False\nMAX_NUM_TRIES=3\nclass ClientResponse: pass\n"
         "async def get_response_json(*a,**k): pass\ndef raise_for_status(*a,**k): pass\nasync def request(*a,**k): pass\n")
    load("nemo_gym.config_types", "from typing import Literal\nfrom pydantic import BaseModel\nROLLOUT_PATH_PREFIX='ng-rollout'\n"
         "class ModelServerRef(BaseModel):\n    type: Literal['responses_api_models']\n    name: str\n")
    load("nemo_gym.global_config", "TASK_INDEX_KEY_NAME='_ng_task_index'\nROLLOUT_INDEX_KEY_NAME='_ng_rollout_index'\n"
         "ATTEMPT_INDEX_KEY_NAME='_ng_attempt_index'\nROLLOUT_ID_KEY_NAME='_ng_rollout_id'\n")
    load("nemo_gym.openai_utils", show("nemo_gym/openai_utils.py"))
    obs = load("nemo_gym.rollout_observability", show("nemo_gym/rollout_observability.py"))
    corr = load("nemo_gym.rollout_correlation", show("nemo_gym/rollout_correlation.py"))
    # ModelCallRecord, lifted by name; the capture store and merge are not (a test needing them fails, harmlessly)
    base_src = show("nemo_gym/base_responses_api_model.py")
    record_cls = [n for n in ast.parse(base_src).body if isinstance(n, ast.ClassDef) and n.name == "ModelCallRecord"]
    base = types.ModuleType("nemo_gym.base_responses_api_model")
    exec("from typing import Any, Optional\nfrom pydantic import BaseModel, Field\nfrom nemo_gym.config_types import ModelServerRef\n", base.__dict__)
    exec(compile(ast.Module(body=record_cls, type_ignores=[]), "base_responses_api_model", "exec"), base.__dict__)
    for missing in ("CaptureStore", "merge_model_call_capture_into_record"):
        base.__dict__[missing] = None
    sys.modules[base.__name__] = base
    agents_pkg = types.ModuleType("responses_api_agents")
    agents_pkg.__path__ = []
    sys.modules["responses_api_agents"] = agents_pkg
    for agent in agents:
        pkg_mod = types.ModuleType(f"responses_api_agents.{agent}")
        pkg_mod.__path__ = []
        sys.modules[pkg_mod.__name__] = pkg_mod
        setattr(agents_pkg, agent, pkg_mod)  # monkeypatch.setattr("responses_api_agents.x.y.z", ...) walks these
        pkg_mod.observability = load(f"responses_api_agents.{agent}.observability", show(f"responses_api_agents/{agent}/observability.py"))
    return obs, corr, show
