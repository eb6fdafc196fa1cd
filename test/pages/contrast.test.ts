/**
 * The pages' colours meet WCAG 2.1 AA in light and dark mode, read from views/static/style.css itself: text,
 * muted text, links and errors ≥ 4.5:1 on the card and the page background; white button text ≥ 4.5:1 on the
 * button; input borders and the focus ring (the link colour) ≥ 3:1 on the card.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const css = readFileSync(path.join(ROOT, 'views/static/style.css'), 'utf8');

function variables(block: string): Record<string, string> {
  return Object.fromEntries([...block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/gi)].map(([, name, value]) => [name!, value!.toLowerCase()]));
}
const light = variables(/:root\s*\{([^}]*)\}/.exec(css)![1]!);
const dark = { ...light, ...variables(/prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{([^}]*)\}/.exec(css)![1]!) };

const luminance = (hex: string) => {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};
const contrast = (a: string, b: string) => {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
};

describe.each([
  ['light', light],
  ['dark', dark],
] as const)('%s mode', (_mode, colours) => {
  test.each([
    ['text', 'card'],
    ['text', 'bg'],
    ['muted', 'card'],
    ['link', 'card'],
    ['error', 'card'],
    ['ok', 'card'],
    ['button-text', 'button'],
  ])('%s on %s is at least 4.5:1', (fg, bg) => {
    expect(contrast(colours[fg]!, colours[bg]!)).toBeGreaterThanOrEqual(4.5);
  });

  test.each([
    ['input-border', 'card'],
    ['link', 'card'],
    ['link', 'bg'],
  ])('%s (input border, focus ring) on %s is at least 3:1', (fg, bg) => {
    expect(contrast(colours[fg]!, colours[bg]!)).toBeGreaterThanOrEqual(3);
  });
});

test('inputs use the contrasting border and the focus ring the link colour', () => {
  expect(css).toMatch(/input\[type="email"\][^{]*\{[^}]*border: 1px solid var\(--input-border\)/);
  expect(css).toMatch(/:focus-visible[^{]*\{[^}]*outline: 2px solid var\(--link\)/);
});
