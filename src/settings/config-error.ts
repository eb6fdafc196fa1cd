/** How a configuration problem travels: thrown by a rule, collected, reported all together (validate.ts). */
/** One or more configuration problems, each a line starting with `config: `; the message is those lines. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: string[];
  constructor(problems: string | string[]) {
    const lines = typeof problems === 'string' ? [problems] : problems;
    super(lines.join('\n'));
    this.problems = lines;
  }
}

/** Runs each check, collecting the problem it throws: independent rules each report their own. */
export function collect(checks: Array<() => void>): string[] {
  const problems: string[] = [];
  for (const run of checks) {
    try {
      run();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}
