/** The sign-in's tickets between pages: genuine, for this interaction, at this stage, unexpired, and nothing more. */
import { ticketSigner } from '../../src/interactions/tickets.js';

const tickets = ticketSigner('a-test-secret-key-of-enough-length-0123456789');
const ticket = { user: '6f1c1d56-3a5e-4d0e-9a59-0d6c1a3b9e21', stage: 'mfa' as const, amr: ['pwd'] };

test('a genuine ticket verifies for its interaction and stage only, until it expires', () => {
  const token = tickets.sign('uid-1', ticket, 1_000);
  expect(tickets.verify('uid-1', token, 'mfa', 2_000)).toEqual(ticket);
  expect(tickets.verify('uid-2', token, 'mfa', 2_000)).toBeUndefined();
  expect(tickets.verify('uid-1', token, 'done', 2_000)).toBeUndefined();
  expect(tickets.verify('uid-1', token, 'mfa', 1_000 + 15 * 60_000)).toBeUndefined();
});

test('anything else is refused: trailing parts, a changed body, a missing signature, not a string', () => {
  const token = tickets.sign('uid-1', ticket, 1_000);
  const [body, mac] = token.split('.');
  for (const forged of [`${token}.x`, `${token}.`, `${body}x.${mac}`, `${body}.`, body, `.${mac}`, '', 42, undefined]) {
    expect(tickets.verify('uid-1', forged, 'mfa', 2_000)).toBeUndefined();
  }
});
