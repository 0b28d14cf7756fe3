// The anyswe agent running the Claude Code harness on one SWE-bench-style instance: five rollouts of task 0 in
// completion order, each a long run of Read/Edit/Bash calls whose outputs (numbered source files) make the
// lines large; the request metadata names the instance, and `instance_config` repeats the request as `body`.
import type { Rng } from '../../lib/demo/random';
import { dumps, float, type Py } from './py-json';
import { agentResponse, createParams, functionCall, functionCallOutput, message, usage, type Usage } from './responses';
import { diff, numberedSource, prose } from './text';

export const ANYSWE_INSTANCE = 'quillpress__quillpress-3318';
const REPO = 'quillpress/quillpress';
const FILE = 'quillpress/layout/compose.py';

interface Attempt {
  rollout: number;
  reward: number;
  usage: Usage;
  /** Tool rounds, and the numbered-source lines each Read returns: what makes the line large. */
  rounds: number;
  readLines: number;
  runTime: number;
}

// In completion order: the resolved attempt ran longest (its line is the large one, over 64 KiB).
const ATTEMPTS: Attempt[] = [
  { rollout: 0, reward: 1, usage: { input: 163841, output: 18275 }, rounds: 9, readLines: 440, runTime: 291.8170023918152 },
  { rollout: 2, reward: 0, usage: { input: 29870, output: 2914 }, rounds: 3, readLines: 45, runTime: 118.40512776374817 },
  { rollout: 4, reward: 0, usage: { input: 48213, output: 4988 }, rounds: 2, readLines: 35, runTime: 97.66301345825195 },
  { rollout: 1, reward: 0, usage: { input: 35102, output: 4417 }, rounds: 2, readLines: 45, runTime: 104.2290871143341 },
  { rollout: 3, reward: 0, usage: { input: 30655, output: 3306 }, rounds: 2, readLines: 40, runTime: 109.93417453765869 },
];

function problemStatement(rng: Rng): string {
  return (
    "`compose_columns` drops the gutter when nested layouts are stacked\nGiven two stacked layouts:\r\n\r\n```python\r\n" +
    'from quillpress.layout import compose\r\n\r\nouter = compose.stack(compose.Column(2), compose.Column(3) × 2)\r\n```\r\n\r\n' +
    `${prose(rng, 300)}\r\n\r\nIs this expected, or am I missing something?\n`
  );
}

function instanceDict(statement: string): string {
  // Python's json.dumps of the dataset row, as the agent stores it (a string inside the metadata).
  return dumps(
    {
      repo: REPO, instance_id: ANYSWE_INSTANCE, base_commit: 'c0ffee1d2e3f405162738495a6b7c8d9e0f1a2b3', patch: '', test_patch: '',
      problem_statement: statement, hints_text: '', created_at: '2024-03-18T09:12:44Z', version: '4.2',
      FAIL_TO_PASS: '["tests/test_compose.py::test_nested_gutter"]', PASS_TO_PASS: '["tests/test_compose.py::test_flat"]',
      environment_setup_commit: '0123456789abcdef0123456789abcdef01234567', difficulty: '15 min - 1 hour',
    },
    'spaced',
  );
}

function attemptOutput(rng: Rng, a: Attempt): Py[] {
  const out: Py[] = [message('msg-0', `Looking at this issue, I need to see how \`compose_columns\` handles nested stacks. ${prose(rng, 500)}`, null)];
  const tools = ['Read', 'Grep', 'Bash', 'Edit'];
  for (let r = 0; r < a.rounds; r++) {
    const tool = r === 0 ? 'Read' : tools[r % tools.length];
    const id = `call_${rng.hex(24)}`;
    const args: { [key: string]: Py } =
      tool === 'Read' ? { file_path: `/testbed/${FILE}` }
      : tool === 'Grep' ? { pattern: 'def _gutter', path: '/testbed/quillpress' }
      : tool === 'Bash' ? { command: 'cd /testbed && python -m pytest tests/test_compose.py -x -q', description: 'Run the compose tests' }
      : { file_path: `/testbed/${FILE}`, old_string: 'op="stack")', new_string: 'op="stack", copy=True)' };
    const result =
      tool === 'Read' ? numberedSource(rng, a.readLines, `${FILE}: layout composition`)
      : tool === 'Grep' ? `quillpress/layout/compose.py:${rng.int(40, 300)}:def _gutter(left, right):`
      : tool === 'Bash' ? `..F.\n${'='.repeat(20)} FAILURES ${'='.repeat(20)}\n${prose(rng, 300)}\n1 failed, 3 passed in ${(rng.int(80, 400) / 100).toFixed(2)}s ✅ after the fix`
      : `The file /testbed/${FILE} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file → ok`;
    out.push(functionCall(id, tool, dumps(args, 'spaced')), functionCallOutput(id, result));
    out.push(message(`msg-${out.length}`, `${prose(rng, 300)} — next I will ${r + 1 < a.rounds ? 'check the caller' : 'summarize the change'}.`, null));
  }
  return out;
}

export function anysweClaudeCode(rng: Rng): Py[] {
  const statement = problemStatement(rng.fork('statement'));
  const metadata = { instance_id: ANYSWE_INSTANCE, dataset_name: 'example-org/QuillBench_Verified', split: 'test', problem_statement: statement, instance_dict: instanceDict(statement) };
  const params = () => createParams([], { max_output_tokens: 12288, metadata, model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct', temperature: float(0.7), top_p: float(0.8) });
  return ATTEMPTS.map((a) => {
    const r = rng.fork('attempt', a.rollout);
    const session = `1786200${r.int(100000, 999999)}_${r.hex(8)}`;
    const results = `/workspace/Gym/responses_api_agents/anyswe_agent/anyswe_results_${session}`;
    return {
      responses_create_params: params(),
      response: agentResponse({ id: `anyswe-${ANYSWE_INSTANCE}`, createdAt: 1786201377 + a.rollout * 61, model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct', output: attemptOutput(r, a), usage: usage(a.usage) }),
      reward: float(a.reward),
      resolved: a.reward === 1,
      patch_exists: true,
      model_patch: diff(r, FILE, a.reward === 1 ? 4 : 2),
      agent_timed_out: false,
      agent_error_kind: 'other',
      eval_timed_out: false,
      error_kind: null,
      mask_sample: false,
      agent_run_time: float(a.runTime),
      instance_config: {
        run_session_id: session, base_results_dir: results, model_server_url: 'http://127.0.0.1:18020', agent_deps_archive: null, agent_deps_url: null,
        resolved_sandbox_provider: {
          apptainer: {
            exec: { fakeroot_for_root: false, concurrency: 8 },
            create: { mount_point: '/sandbox', start_timeout_s: 1800, apply_resource_limits: false, extra_start_args: ['--writable-tmpfs'] },
            probe: { command: 'printf apptainer-sandbox-ready', expected_stdout: 'apptainer-sandbox-ready', deadline_s: 300, stable_count: 2, stable_delay_s: float(1) },
          },
        },
        sandbox_default_metadata: { 'sandbox-api': 'apptainer' },
        host: '127.0.0.1', port: 12741, num_workers: null, entrypoint: 'app.py', domain: 'coding', name: 'anyswe_claude_code',
        model_server: { type: 'responses_api_models', name: 'policy_model' },
        agent_server_module: 'responses_api_agents.claude_code_agent.app', agent_server_class: 'ClaudeCodeAgent', agent_config_class: 'ClaudeCodeAgentConfig',
        agent_kwargs: { model: 'model', max_turns: 100, timeout: 1800, system_prompt: 'You are fixing a bug in the repository at /testbed. Edit the files in place; do not just describe the fix.' },
        container_formatter: 'registry.example.com/anyswe/quillbench:{instance_id}-anyswe-v1', sandbox_provider: 'sandbox', sandbox_spec: {},
        sandbox_model_base_url: null, agent_runtime_source: 'baked', swebench_tests_timeout: 1800, swebench_agent_timeout: 2700, concurrency: 4,
        problem_info: { ...metadata, container_formatter: 'registry.example.com/anyswe/quillbench:{instance_id}-anyswe-v1' },
        body: params(),
        persistent_dir: `${results}/${ANYSWE_INSTANCE}_${a.rollout}_${session}`,
        metrics_fpath: `${results}/${ANYSWE_INSTANCE}_${a.rollout}_${session}/nemo_gym_metrics.json`,
        container: 'registry.example.com/anyswe/quillbench:quillpress_1776_quillpress-3318-anyswe-v1',
        mask_sample: false,
      },
      _ng_task_index: 0,
      _ng_rollout_index: a.rollout,
      agent_ref: { name: 'anyswe_claude_code' },
    };
  });
}
