/**
 * The scenarios `bench:cpu` and `bench:profile` can run by name: every protocol scenario (32 loops) and the
 * password sign-in (8 loops, as `npm run bench` measures it), so a sign-in's CPU can be split and profiled too.
 */
import { LOOPS, SIGN_IN_LOOPS, type BenchFixture } from './fixture.js';
import { protocolScenarios } from './protocol-scenarios.js';
import { passwordSignIn } from './sign-in-flow.js';

export interface NamedScenario {
  loops: number;
  op: (loop: number) => Promise<void>;
}

export const SIGN_IN = 'password sign-in';

export const scenarioNames = () => [...Object.keys(protocolScenarios), SIGN_IN];

export function namedScenario(name: string, f: BenchFixture): NamedScenario | undefined {
  if (name === SIGN_IN) return { loops: SIGN_IN_LOOPS, op: (loop) => passwordSignIn(f, f.extras!.people[loop]!, f.extras!.password) };
  const scenario = protocolScenarios[name];
  return scenario && { loops: LOOPS, op: scenario(f) };
}
