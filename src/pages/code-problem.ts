/** What a person reads when a mailed code did not work, on every page that takes one. */
import { text, type Text } from '../i18n/messages.js';

export type CodeProblem =
  { reason: 'wrong'; triesLeft: number } | { reason: 'expired' | 'exhausted' | 'missing' | 'taken'; triesLeft?: undefined };

/**
 * The message for a code that did not work, from the page's own catalogue keys: `{keys}.wrong` ("That code is not
 * right. {tries_left} of {tries} tries left."), `{keys}.expired`, `{keys}.exhausted`, `{keys}.missing` (each saying
 * how this page gets a new code) and `{keys}.taken`; e.g. `sign_in.setup.code`.
 */
export function codeProblemMessage(problem: CodeProblem, tries: number, keys: string): Text {
  return problem.reason === 'wrong' ? text(`${keys}.wrong`, { tries_left: problem.triesLeft, tries }) : text(`${keys}.${problem.reason}`);
}
