// Why a rollout line could not be read, as stored (`line_problem`) and shown. A line that is not JSON or not an
// object yields nothing else; a line whose only problem is its rollout id (rollout-line.ts) is read otherwise.
export const notJson = (message: string): string => `not JSON: ${message}`;
export const NOT_AN_OBJECT = 'not a JSON object';

/** Whether nothing but the line number could be read from a line with this problem. */
export function nothingRead(problem: string): boolean {
  return problem === NOT_AN_OBJECT || problem.startsWith(notJson(''));
}
