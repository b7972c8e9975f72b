import { gatewayHeaders, randomId } from '../src/gateway-headers.js';

describe('gatewayHeaders', () => {
  it('names the stream, the caption room (its turn at the decode slots) and the token', () => {
    expect(
      gatewayHeaders({ streamId: 'cap-1', room: 'main-hall', apiKey: 'k'.repeat(24) }, { A: 'b' }),
    ).toEqual({
      'X-Caption-Local': '1',
      'X-Stream-ID': 'cap-1',
      'X-Caption-Room': 'main-hall',
      Authorization: `Bearer ${'k'.repeat(24)}`,
      A: 'b',
    });
  });

  it('leaves out a room the relay could not have (a typo must not cost the stream its windows)', () => {
    for (const room of ['main hall', '', 'x'.repeat(129), 'salle-é'])
      expect(gatewayHeaders({ streamId: 'cap-1', room }, {})).toEqual({
        'X-Caption-Local': '1',
        'X-Stream-ID': 'cap-1',
      });
  });

  it('makes prefixed 96-bit ids', () => {
    expect(randomId('req')).toMatch(/^req-[0-9a-f]{24}$/);
    expect(randomId('req')).not.toBe(randomId('req'));
  });
});
