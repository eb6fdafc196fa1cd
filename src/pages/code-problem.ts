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

/**
 * The same in English, for pages not yet on catalogue keys. `tries`: how many a code allows; `newCode`: how this page
 * gets a new one ("Start again to get a new one.").
 */
export function codeProblemText(problem: CodeProblem, tries: number, newCode: string): string {
  switch (problem.reason) {
    case 'wrong':
      return `That code is not right. ${problem.triesLeft} of ${tries} tries left.`;
    case 'expired':
      return `That code has expired. ${newCode}`;
    case 'exhausted':
      return `Too many wrong codes. ${newCode}`;
    case 'missing':
      return `That code is no longer valid. ${newCode}`;
    case 'taken':
      return 'That e-mail address cannot be used.';
  }
}
