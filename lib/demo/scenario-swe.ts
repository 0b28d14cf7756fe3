// SWE-bench with Claude Code (NeMo Gym's `anyswe_agent` harness): Anthropic Messages, always streamed, with
// extended thinking, prompt caching and the Grep/Read/Edit/Bash tools; rewarded by the repository's tests.
import { pyFloat, type JsonObject } from '../capture/json-value';
import type { ToolDef } from './conversation';
import type { Rng } from './random';
import type { Scenario, StepCall, Task } from './scenario';

/** A JSON Schema object of string properties. */
export const stringSchema = (properties: Record<string, string>, required: string[]): JsonObject => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([k, d]) => [k, { type: 'string', description: d }])),
  required,
  additionalProperties: false,
});

export const SWE_TOOLS: ToolDef[] = [
  { name: 'Bash', description: 'Runs a bash command in a persistent shell.', parameters: stringSchema({ command: 'The command', description: 'What it does, in 5-10 words' }, ['command']) },
  { name: 'Grep', description: 'Searches file contents with ripgrep.', parameters: stringSchema({ pattern: 'Regular expression', path: 'File or directory' }, ['pattern']) },
  { name: 'Read', description: 'Reads a file, with line numbers.', parameters: stringSchema({ file_path: 'Absolute path' }, ['file_path']) },
  { name: 'Edit', description: 'Replaces an exact string in a file.', parameters: stringSchema({ file_path: 'Absolute path', old_string: 'Text to replace', new_string: 'Replacement' }, ['file_path', 'old_string', 'new_string']) },
];

export interface SweInstance {
  id: string;
  repo: string;
  file: string;
  fn: string;
  bug: string;
  before: string;
  after: string;
  test: string;
}

export const SWE_INSTANCES: SweInstance[] = [
  { id: 'astropy__astropy-12907', repo: 'astropy/astropy', file: 'astropy/modeling/separable.py', fn: '_cstack', bug: "separability_matrix does not compute separability correctly for nested CompoundModels", before: 'cright[-right.shape[0]:, -right.shape[1]:] = 1', after: 'cright[-right.shape[0]:, -right.shape[1]:] = right', test: 'astropy/modeling/tests/test_separable.py' },
  { id: 'django__django-11099', repo: 'django/django', file: 'django/contrib/auth/validators.py', fn: 'ASCIIUsernameValidator', bug: 'UsernameValidator allows a trailing newline in usernames', before: "regex = r'^[\\w.@+-]+$'", after: "regex = r'\\A[\\w.@+-]+\\Z'", test: 'tests/auth_tests/test_validators.py' },
  { id: 'sympy__sympy-20590', repo: 'sympy/sympy', file: 'sympy/core/_print_helpers.py', fn: 'Printable', bug: 'Symbol instances have __dict__ since 1.7', before: 'class Printable:', after: 'class Printable:\n    __slots__ = ()', test: 'sympy/core/tests/test_basic.py' },
  { id: 'pytest-dev__pytest-7373', repo: 'pytest-dev/pytest', file: 'src/_pytest/mark/evaluate.py', fn: 'cached_eval', bug: 'Incorrect caching of skipif/xfail string condition evaluation', before: 'evalcache = config._store.setdefault(evalcache_key, {})', after: '# evaluated per item: globals differ between modules', test: 'testing/test_mark.py' },
  { id: 'psf__requests-2317', repo: 'psf/requests', file: 'requests/sessions.py', fn: 'Session.request', bug: 'method = builtin_str(method) turns b"GET" into "b\'GET\'"', before: 'method = builtin_str(method)', after: 'method = to_native_string(method)', test: 'test_requests.py' },
  { id: 'scikit-learn__scikit-learn-13142', repo: 'scikit-learn/scikit-learn', file: 'sklearn/mixture/base.py', fn: 'BaseMixture.fit_predict', bug: 'GaussianMixture predict and fit_predict disagree when n_init>1', before: 'return log_resp.argmax(axis=1)', after: '_, log_resp = self._e_step(X)\n        return log_resp.argmax(axis=1)', test: 'sklearn/mixture/tests/test_gaussian_mixture.py' },
];

const SYSTEM =
  'You are Claude Code, an interactive CLI tool that helps users with software engineering tasks. Use the available tools to ' +
  'investigate the repository, make minimal changes, and verify them by running the relevant tests. Keep answers concise.\n\n' +
  '<env>\nWorking directory: /testbed\nIs directory a git repo: Yes\nPlatform: linux\n</env>';

function numbered(start: number, lines: string[]): string {
  return lines.map((l, i) => `${String(start + i).padStart(6)}\t${l}`).join('\n');
}

export function sweTask(rng: Rng, taskIndex: number): Task {
  const inst = SWE_INSTANCES[taskIndex % SWE_INSTANCES.length];
  const line = rng.int(120, 380);
  const path = `/testbed/${inst.file}`;
  const passed = rng.int(12, 64);
  const context = ['', `def ${inst.fn.split('.').pop()}(left, right):`, '    """Function corresponding to \'&\' operation."""', '    noutp = _compute_n_outputs(left, right)', `    ${inst.before}`, '    return np.hstack([cleft, cright])'];
  const steps: StepCall[] = [
    { name: 'Grep', args: { pattern: inst.fn.split('.').pop()!, path: '/testbed' }, output: `${inst.file}:${line}:def ${inst.fn.split('.').pop()}(left, right):\n${inst.test}:${rng.int(20, 200)}:    ${inst.fn.split('.').pop()}` },
    { name: 'Read', args: { file_path: path }, output: numbered(line - 2, context) },
    { name: 'Edit', args: { file_path: path, old_string: inst.before, new_string: inst.after }, output: `The file ${path} has been updated successfully.` },
    { name: 'Bash', args: { command: `cd /testbed && python -m pytest ${inst.test} -q 2>&1 | tail -5`, description: 'Run the affected tests' }, output: `${'.'.repeat(Math.min(passed, 60))}\n${passed} passed in ${rng.float(0.4, 9).toFixed(2)}s` },
  ];
  return {
    system: SYSTEM,
    user: `<uploaded_files>\n/testbed\n</uploaded_files>\nI've uploaded a python code repository in /testbed. Consider the following issue:\n\n<issue_description>\n${inst.bug}\n</issue_description>\n\nMake the minimal changes to non-test files in /testbed so that the issue is resolved.`,
    plannedSteps: steps.length,
    expected: inst.after,
    wrongAnswer: inst.before,
    extra: { file: inst.file },
    toolStep(r, step) {
      if (step < steps.length) {
        const call = steps[step];
        const why = ['find where the behaviour is implemented', 'read the surrounding code', 'apply the minimal fix', 'confirm the tests pass'][step];
        return { reasoning: `I need to ${why}.`, text: step === 0 ? `I'll start by locating \`${inst.fn}\`.` : null, calls: [call] };
      }
      const command = r.pick(['git status --short', `git diff ${inst.file}`, `python -m pytest ${inst.test} -q -x -k "not slow" 2>&1 | tail -3`, 'grep -rn "TODO" --include=*.py . | head -5']);
      const why = r.pick(['Let me double-check the working tree before finishing.', 'I should make sure nothing else changed.', 'One more check on the related tests.', 'Let me confirm the diff is minimal.']);
      return { reasoning: why, text: null, calls: [{ name: 'Bash', args: { command, description: 'Inspect the change' }, output: command.startsWith('git status') ? ` M ${inst.file}` : `${r.int(3, 40)} passed, ${r.int(0, 3)} deselected in ${r.float(0.3, 5).toFixed(2)}s` }] };
    },
    finalStep(_r, success) {
      return {
        reasoning: success ? 'The tests pass and the diff is minimal. Time to summarize.' : 'I could not get the edge case working, but the main path is patched.',
        text: success
          ? `Fixed \`${inst.fn}\` in \`${inst.file}\`: ${inst.bug.toLowerCase()} no longer happens. The change is \`${inst.after.split('\n').pop()!.trim()}\`, and the tests in \`${inst.test}\` pass.`
          : `I patched \`${inst.fn}\` in \`${inst.file}\`, but some tests in \`${inst.test}\` still fail; the fix may be incomplete.`,
      };
    },
  };
}

export const sweScenario: Scenario = {
  key: 'swe',
  agentName: 'anyswe_claude_code',
  policy: { name: 'policy_model', dialect: 'messages', model: 'claude-sonnet-4-5-20250929', vllm: false, reasoning: true, streamingShare: 0.9 },
  tools: SWE_TOOLS,
  successRate: 0.55,
  toolSeconds: 3,
  task: sweTask,
  createParams(_task, taskIndex) {
    const inst = SWE_INSTANCES[taskIndex % SWE_INSTANCES.length];
    return { input: [], max_output_tokens: 12288, metadata: { instance_id: inst.id, dataset_name: 'princeton-nlp/SWE-bench_Verified', split: 'test', repo: inst.repo }, tools: [] };
  },
  resultFields(task, outcome) {
    const file = task.extra?.file ?? 'unknown';
    const minus = task.wrongAnswer.split('\n').map((l) => `-    ${l}`).join('\n');
    const plus = task.expected.split('\n').map((l) => `+    ${l}`).join('\n');
    const patch = `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,1 +1,1 @@\n${minus}\n${plus}\n`;
    return {
      resolved: outcome.success,
      patch_exists: !outcome.noCalls,
      model_patch: outcome.noCalls ? null : patch,
      agent_timed_out: false,
      agent_error_kind: outcome.noCalls ? 'sandbox_start_failed' : null,
      eval_timed_out: false,
      error_kind: outcome.noCalls ? 'agent_error' : null,
      mask_sample: outcome.noCalls,
      agent_run_time: pyFloat(outcome.durationS),
    };
  },
};
