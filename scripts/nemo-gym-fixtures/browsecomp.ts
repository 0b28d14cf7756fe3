// The BrowseComp advanced harness: the browsecomp agent (responses_api_agents/browsecomp_agent, configured as
// browsecomp_advanced_harness_agent) searching and browsing the web with the resources server's `search{queries}`
// and `browse{urls,goal}` tools, graded by an LLM judge (resources_servers/browsecomp_advanced_harness). NeMo Gym's
// example_rollouts.jsonl for it holds placeholder rows only, so the layout here is read off that code:
// - the line is the agent's BaseVerifyResponse (extra="allow") over the server's TavilySearchVerifyResponse, so
//   `responses_create_params, response, reward` come first, then the server's other fields in pydantic's order
//   (JudgeEvaluation's before the request's `ground_truth, question`), then the collector's indices and agent_ref;
// - `response` is the policy's last vLLM response with `output` replaced by the whole trajectory (reasoning,
//   messages, function calls, and the agent's function_call_output items with the turns-remaining note), `usage`
//   summed over the turns (cached and reasoning counts null: vLLM reports none), and the agent's counters
//   `reset_count, num_tool_calls, pre_reset_warning_steps` after its fields;
// - `reasoning` is the judge's whole verdict text, `extracted_final_answer` what it read from the last answer;
// - `metrics.async_tavily_calls` has one record per search query and per browse call, in the order they ended.
import type { Rng } from '../../lib/demo/random';
import { dumps, float, type Py } from './py-json';
import { createParams, functionCall, functionCallOutput, functionTool, message, modelServerResponse, reasoningItem, userMessage } from './responses';
import { prose } from './text';

type Obj = { [key: string]: Py };

const POLICY_MODEL = 'Qwen/Qwen3-235B-A22B-Thinking-2507';
const JUDGE_MODEL = 'Qwen/Qwen3-235B-A22B-Instruct-2507';
const MAX_STEPS = 400;

const SYSTEM =
  "You are a General Agent. Today's date: 2026-04-16. Your mission is to leverage a diverse set of tools to help the user conduct an in-depth " +
  'investigation of their question, continuously reflect, and ultimately deliver a precise answer.\n\nThroughout the investigation, strictly ' +
  'observe the following principles:\n1. Whenever you encounter uncertain information, proactively invoke search tools to verify it.\n2. You can ' +
  'only invoke one tool in each round.\n3. Prioritize high-credibility sources (authoritative websites, academic databases, professional media) and ' +
  'maintain a critical stance toward low-credibility ones. Cite the source of any information you use with a format [^index^].\n4. You should not ' +
  'respond to the user with a counter-question, but instead do your best to provide an accurate answer.\n5. When providing the final answer, begin ' +
  'by explaining the reasoning process. Avoid presenting only the final answer, as this makes it difficult to understand.';

const FORMAT =
  '\n\nYour response should be in the following format:\nExplanation: {your explanation for your final answer}\nExact Answer: {your succinct, ' +
  'final answer}\nConfidence: {your confidence score between 0% and 100% for your answer}';

const TOOLS: Py[] = [
  functionTool('search', 'Web Search API, works like Google Search. All queries will be searched in parallel. If you want to search with multiple keywords, put them in a single query.', {
    type: 'object', properties: { queries: { type: 'array', items: { type: 'string' }, description: 'Search queries. All queries are executed in parallel.' } }, required: ['queries'],
  }, false),
  functionTool('browse', 'Visit specific webpage(s) and return their full text content. Use this to read the complete content of web pages found during search.', {
    type: 'object',
    properties: { urls: { type: 'array', items: { type: 'string' }, description: 'URL(s) of webpage(s) to visit.' }, goal: { type: 'string', description: 'What specific information you are looking for.' } },
    required: ['urls'],
  }, false),
];

// The judge's prompt (judge_prompt.py, from OpenAI's simple-evals).
const JUDGE_PROMPT = (question: string, correct: string, response: string) =>
  `Judge whether the following [response] to [question] is correct or not based on the precise and unambiguous [correct_answer] below.\n\n` +
  `[question]: ${question}\n\n[response]: ${response}\n\nYour judgement must be in the format and criteria specified below:\n\n` +
  `extracted_final_answer: The final exact answer extracted from the [response]. Put the extracted answer as 'None' if there is no exact, final answer to extract from the response.\n\n` +
  `[correct_answer]: ${correct}\n\n` +
  `reasoning: Explain why the extracted_final_answer is correct or incorrect based on [correct_answer], focusing only on if there are meaningful differences between [correct_answer] and the extracted_final_answer. Do not comment on any background to the problem, do not attempt to solve the problem, do not argue for any answer different than [correct_answer], focus only on whether the answers match.\n\n` +
  `correct: Answer 'yes' if extracted_final_answer matches the [correct_answer] given above, or is within a small margin of error for numerical problems. Answer 'no' otherwise, i.e. if there is any inconsistency, ambiguity, non-equivalency, or if the extracted answer is incorrect.\n\n` +
  `confidence: The extracted confidence score between 0% and 100% from [response]. Put 100 if there is no confidence score available.`;

interface Page {
  title: string;
  url: string;
  /** The sentence that matters; made-up prose is added around it. */
  fact: string;
}

type Step =
  | { think: string; say?: string; tool: 'search'; queries: string[]; pages: Page[][] }
  | { think: string; say?: string; tool: 'browse'; urls: string[]; goal: string; pages: Page[] };

interface Task {
  task: number;
  question: string;
  groundTruth: string;
  steps: Step[];
  /** The step after which the context was reset (the trajectory keeps every item). */
  resetAfter?: number;
  explanation: string;
  answer: string;
  confidence: number;
  extracted: string;
  correct: boolean;
  verdict: string;
  /** 429s the search provider answered on this rollout's n-th provider call. */
  retries429?: { call: number; count: number };
}

const page = (title: string, url: string, fact: string): Page => ({ title, url, fact });

// In completion order (task indices 3, 0, 4, 1, 2).
const TASKS: Task[] = [
  {
    task: 3,
    question: 'I am looking for the name of a lighthouse that meets these conditions: - It was first lit between 1850 and 1870 (exclusive at the endpoints). - A keeper’s daughter later published a book of poems in the 1920s. - It was automated in the same decade in which a nearby ferry line closed. Can you tell me the name of the lighthouse?',
    groundTruth: 'Skerrow Point Lighthouse',
    steps: [
      {
        think: 'Start broad: lighthouses first lit in the 1850s–60s whose keeper’s daughter was a poet.', tool: 'search',
        queries: ['lighthouse keeper daughter book of poems 1920s', 'lighthouse first lit 1858 automated ferry closed'],
        pages: [
          [page('Keepers’ children who became writers', 'https://coastalhistory.example.org/keepers-children', 'Isla Marr, raised at Skerrow Point where her father kept the light, published “Salt Hours” (1924).')],
          [page('Skerrow Point Lighthouse — history', 'https://lights.example.net/skerrow-point', 'Skerrow Point was first lit in 1858 and automated in 1971, the decade the Skerrow–Innish ferry stopped running (1974).')],
        ],
      },
      {
        think: 'Both conditions point to Skerrow Point; confirm the ferry closure date.', tool: 'browse',
        urls: ['https://lights.example.net/skerrow-point'], goal: 'the year the light was automated and when the ferry closed',
        pages: [page('Skerrow Point Lighthouse — history', 'https://lights.example.net/skerrow-point', 'Automation: 1971. The Skerrow–Innish ferry closed in 1974.')],
      },
    ],
    explanation: 'Skerrow Point was first lit in 1858 [^2^]; the keeper’s daughter Isla Marr published “Salt Hours” in 1924 [^1^]; it was automated in 1971 and the nearby ferry closed in 1974 [^3^].',
    answer: 'Skerrow Point Lighthouse', confidence: 88, extracted: 'Skerrow Point Lighthouse', correct: true,
    verdict: 'The extracted answer names the same lighthouse as the correct answer.',
  },
  {
    task: 0,
    question: 'An album was released between 2003 and 2009 (exclusive at the endpoints) by a band whose drummer had earlier played in a folk duo. Its title track mentions an orchard, and its cover was painted by the bassist’s sister. What is the title of the album?',
    groundTruth: 'The Quiet Orchard',
    steps: [
      {
        think: 'Search for albums with an orchard title track, cover painted by a band member’s sister.', say: 'I will start with the cover art, the most distinctive clue.', tool: 'search',
        queries: ['album cover painted by bassist\'s sister orchard title track', 'drummer formerly of folk duo band album 2006'],
        pages: [
          [page('Liner notes: The Quiet Orchard (2006)', 'https://discography.example.com/quiet-orchard', 'Cover painting by Maren Holt, sister of bassist Tove Holt. Title track: “Quiet Orchard”.')],
          [page('Fenwick & Rue — folk duo', 'https://folkarchive.example.org/fenwick-rue', 'After the duo split, Sam Rue joined Low Meadow as their drummer in 2004.')],
        ],
      },
    ],
    explanation: 'Low Meadow’s drummer Sam Rue was half of the folk duo Fenwick & Rue [^2^]; their 2006 album has the title track “Quiet Orchard” and a cover by the bassist’s sister Maren Holt [^1^].',
    answer: 'Quiet Orchard', confidence: 80, extracted: 'Quiet Orchard', correct: true,
    verdict: 'The extracted answer omits the leading article "The" but names the same album; this is not a meaningful difference.',
  },
  {
    task: 4,
    question: 'Which company, founded in the 1990s in a city that hosted a Winter Universiade, made the sensor that flew on a 2010s student satellite whose name is an anagram of the city’s river?',
    groundTruth: 'Brightwater Instruments Ltd',
    steps: [
      {
        think: 'List Winter Universiade host cities and their rivers; then student satellites with anagram names.', tool: 'search',
        queries: ['student satellite 2010s sensor supplier anagram river name', 'Winter Universiade host city instrument company founded 1990s'],
        pages: [
          [page('RENAV-1 CubeSat mission page', 'https://space.example.edu/renav-1', 'RENAV-1 (2016) carried a magnetometer built by Brightwater Instruments Ltd.')],
          [page('Brightwater Instruments — about us', 'https://brightwater.example.com/about', 'Founded 1994 in Ravenholm, host of the 1985 Winter Universiade, on the banks of the Varen.')],
        ],
      },
      {
        think: '“RENAV” is an anagram of “Varen”. Confirm the sensor supplier on the mission page.', tool: 'browse',
        urls: ['https://space.example.edu/renav-1', 'https://brightwater.example.com/about'], goal: 'who built the magnetometer',
        pages: [
          page('RENAV-1 CubeSat mission page', 'https://space.example.edu/renav-1', 'Payload: a fluxgate magnetometer supplied by Brightwater Instruments Ltd.'),
          page('Brightwater Instruments — about us', 'https://brightwater.example.com/about', 'Brightwater Instruments Ltd was founded in 1994 in Ravenholm.'),
        ],
      },
    ],
    explanation: 'Ravenholm hosted the 1985 Winter Universiade and lies on the Varen [^2^]; RENAV-1 (an anagram of Varen) flew a magnetometer built by Brightwater Instruments Ltd, founded there in 1994 [^1^][^3^].',
    answer: 'Brightwater Instruments Ltd', confidence: 91, extracted: 'Brightwater Instruments Ltd', correct: true,
    verdict: 'The extracted answer is identical to the correct answer.',
    retries429: { call: 1, count: 2 },
  },
  {
    task: 1,
    question: 'In what year did a botanical garden, founded by a physician who also wrote a treatise on mineral springs, open its first glasshouse, if the garden’s founder died less than a decade after the garden opened?',
    groundTruth: '1938',
    steps: [
      {
        think: 'Physician + mineral springs treatise + botanical garden founder.', tool: 'search',
        queries: ['physician treatise mineral springs founded botanical garden'],
        pages: [[page('Dr. Anselm Koráč and the Lindow garden', 'https://gardens.example.org/lindow', 'Dr. Anselm Koráč, author of a treatise on the Lindow springs, founded the garden in 1931 and died in 1939.')]],
      },
      {
        think: 'Find when the first glasshouse opened.', tool: 'browse',
        urls: ['https://gardens.example.org/lindow'], goal: 'the year the first glasshouse opened',
        pages: [page('Dr. Anselm Koráč and the Lindow garden', 'https://gardens.example.org/lindow', 'The palm house was completed in 1941; an earlier fern house had opened in 1938.')],
      },
    ],
    explanation: 'The garden was founded by Dr. Anselm Koráč in 1931 [^1^]; the palm house, its glasshouse, was completed in 1941 [^2^].',
    answer: '1941', confidence: 70, extracted: '1941', correct: false,
    verdict: 'The correct answer is 1938 (the fern house); the response gives 1941, the year of the palm house.',
  },
  {
    task: 2,
    question: 'A chess composer who published under a pseudonym in the 1950s later became a judge at a national court. Her great-niece is a marine biologist who named a nudibranch species after her. What is the composer’s full birth name?',
    groundTruth: 'Helena Marguerite Vasquez',
    steps: [
      {
        think: 'Nudibranch species named after a great-aunt who composed chess problems.', tool: 'search',
        queries: ['nudibranch named after great-aunt chess composer', 'chess problem composer pseudonym 1950s later judge'],
        pages: [
          [page('New species of Doriopsis from the Azores', 'https://marinebio.example.org/doriopsis-2019', 'The species is named for the author’s great-aunt, “a composer of chess problems and later a judge”.')],
          [page('Pseudonymous problemists of the 1950s', 'https://chessproblems.example.net/pseudonyms', '“H. Marguerite” signed problems in the 1950s; her identity has not been confirmed.')],
        ],
      },
      {
        think: 'The paper does not print her name. Look for the species epithet.', tool: 'browse',
        urls: ['https://marinebio.example.org/doriopsis-2019'], goal: 'the etymology of the species name',
        pages: [page('New species of Doriopsis from the Azores', 'https://marinebio.example.org/doriopsis-2019', 'Etymology: vasquezae, for the author’s great-aunt.')],
      },
      {
        think: 'Context was reset; the notes so far: epithet vasquezae, pseudonym H. Marguerite. Search court records.', tool: 'search',
        queries: ['judge Vasquez national court chess problems'],
        pages: [[page('Court history: judges 1960–1990', 'https://courts.example.gov/history', 'Judge H. M. Vásquez served from 1971 to 1988.')]],
      },
    ],
    resetAfter: 1,
    explanation: 'The species epithet vasquezae honours the great-aunt [^2^], and a Judge H. M. Vásquez served from 1971 [^3^], but no source gives her full birth name.',
    answer: 'Unable to determine', confidence: 10, extracted: 'None', correct: false,
    verdict: 'The response gives no final answer, so there is nothing that matches the correct answer.',
  },
];

/** The text a source page gives: its fact among made-up prose. */
const pageText = (rng: Rng, p: Page) => `${prose(rng, rng.int(80, 240))}\n\n${p.fact}\n\n${prose(rng, rng.int(60, 160))}`;

/** The resources server's results_string for a search (one block per query) or a browse, unwrapped by the agent. */
function toolResult(rng: Rng, step: Step): string {
  if (step.tool === 'search') {
    return step.queries
      .map((q, i) => [`[Search Query]: ${q}`, ...step.pages[i].map((p) => `[Title]: ${p.title}\n[URL]: ${p.url}\n[Content]:\n${pageText(rng, p)}\n`)].join('\n'))
      .join('\n\n');
  }
  return step.pages.map((p) => `[URL]: ${p.url}\n[Content]:\n${pageText(rng, p)}\n`).join('\n\n');
}

interface Clock {
  /** Now, in microseconds since the epoch (the records hold Python's time() as seconds). */
  us: number;
}

/** One metering record per provider request (a search query, a browse call), appended when it ends. */
interface ProviderCall {
  end: number;
  num429: number;
  record: Obj;
}

function providerCalls(rng: Rng, clock: Clock, step: Step, retries: Map<number, number>, counter: { n: number }): ProviderCall[] {
  const requests = step.tool === 'search' ? step.queries.length : 1;
  const out: ProviderCall[] = [];
  for (let i = 0; i < requests; i++) {
    const n = counter.n++;
    const start = clock.us + rng.int(200, 4000);
    const num429 = retries.get(n) ?? 0;
    const end = start + rng.int(600_000, 6_000_000) + num429 * 500_000;
    const [s, e] = [start / 1e6, end / 1e6];
    out.push({
      end,
      num429,
      record: {
        function: step.tool, provider: 'tavily', status: 'success', start_time: float(s), end_time: float(e), time_taken: float(e - s),
        num_429_retries: num429, num_other_retries: 0,
      },
    });
  }
  return out;
}

export function browsecomp(rng: Rng): Py[] {
  return TASKS.map((t, line) => {
    const r = rng.fork('task', t.task);
    const input = [userMessage(SYSTEM, 'system'), userMessage(t.question + FORMAT)];
    const params = createParams(input, { tools: TOOLS });
    const clock: Clock = { us: Date.UTC(2026, 3, 16, 9, 12 + line * 7, r.int(0, 59)) * 1000 + r.int(0, 999_999) };
    const retries = new Map(t.retries429 ? [[t.retries429.call, t.retries429.count]] : []);
    const counter = { n: 0 };
    const output: Py[] = [];
    const records: ProviderCall[] = [];
    let [tokensIn, tokensOut, context] = [0, 0, 2100];
    const turn = (out: number) => {
      context += out;
      tokensIn += context;
      tokensOut += out;
      clock.us += r.int(4_000_000, 40_000_000);
    };
    t.steps.forEach((step, k) => {
      const id = `chatcmpl-tool-${r.hex(32)}`;
      const args: Obj = step.tool === 'search' ? { queries: step.queries } : { urls: step.urls, goal: step.goal };
      output.push(reasoningItem(`rs_${r.hex(32)}`, step.think));
      if (step.say) output.push(message(`msg_${r.hex(32)}`, step.say, null));
      output.push(functionCall(id, step.tool, dumps(args, 'spaced')));
      turn(r.int(150, 900));
      const calls = providerCalls(r, clock, step, retries, counter);
      records.push(...calls);
      clock.us = Math.max(...calls.map((c) => c.end));
      const result = toolResult(r, step);
      output.push(functionCallOutput(id, `${result}\n\n[${MAX_STEPS - (k + 1)} turns remaining out of ${MAX_STEPS}]`, null));
      context = t.resetAfter === k ? 2400 : context + Math.ceil(result.length / 4);
    });
    const finalText = `Explanation: ${t.explanation}\n\nExact Answer: ${t.answer}\n\nConfidence: ${t.confidence}%`;
    output.push(reasoningItem(`rs_${r.hex(32)}`, `I have what I need. ${prose(r, r.int(200, 500))}`));
    output.push(message(`msg_${r.hex(32)}`, finalText, null));
    turn(r.int(300, 700));
    const createdAt = Math.floor(clock.us / 1e6);
    const numToolCalls = t.steps.length;
    const response = {
      ...modelServerResponse({
        id: `resp_${r.hex(32)}`, createdAt, model: POLICY_MODEL, output, params,
        usage: { input_tokens: tokensIn, input_tokens_details: { cached_tokens: null }, output_tokens: tokensOut, output_tokens_details: { reasoning_tokens: null }, total_tokens: tokensIn + tokensOut },
      }),
      reset_count: t.resetAfter === undefined ? 0 : 1,
      num_tool_calls: numToolCalls,
      pre_reset_warning_steps: [],
    };
    const judgeParams = createParams([userMessage(JUDGE_PROMPT(t.question, t.groundTruth, finalText))], { max_output_tokens: 10240, temperature: float(1) });
    const verdict = `extracted_final_answer: ${t.extracted}\n\nreasoning: ${t.verdict}\n\ncorrect: ${t.correct ? 'yes' : 'no'}\n\nconfidence: ${t.confidence}%`;
    const judgeIn = r.int(900, 1400);
    const judgeOut = r.int(60, 180);
    const judgeResponse = modelServerResponse({
      id: `resp_${r.hex(32)}`, createdAt: createdAt + r.int(2, 9), model: JUDGE_MODEL, output: [message(`msg_${r.hex(32)}`, verdict, null)],
      params: judgeParams,
      usage: { input_tokens: judgeIn, input_tokens_details: { cached_tokens: null }, output_tokens: judgeOut, output_tokens_details: { reasoning_tokens: null }, total_tokens: judgeIn + judgeOut },
    });
    const calls = records.sort((a, b) => a.end - b.end);
    const num429 = calls.reduce((n, c) => n + c.num429, 0);
    return {
      responses_create_params: params,
      response,
      reward: float(t.correct ? 1 : 0),
      judge_response_create_params: judgeParams,
      reasoning: verdict,
      extracted_final_answer: t.extracted,
      judge_response: judgeResponse,
      ground_truth: t.groundTruth,
      question: t.question,
      num_tool_calls: numToolCalls,
      reset_count: response.reset_count,
      metrics: { async_tavily_calls: calls.map((c) => c.record) },
      num_provider_429s: num429,
      num_provider_other_retries: 0,
      _ng_task_index: t.task,
      _ng_rollout_index: 0,
      agent_ref: { type: 'responses_api_agents', name: 'browsecomp_advanced_harness_agent' },
    };
  });
}
