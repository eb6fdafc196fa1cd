/** What a person reads when a mailed code did not work, on every page that takes one. */

export type CodeProblem =
  { reason: 'wrong'; triesLeft: number } | { reason: 'expired' | 'exhausted' | 'missing' | 'taken'; triesLeft?: undefined };

/** `tries`: how many a code allows; `newCode`: how this page gets a new one ("Start again to get a new one."). */
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
