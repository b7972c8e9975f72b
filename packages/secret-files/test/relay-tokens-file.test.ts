import { parseEnv } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { generateSecrets, readRelayTokens, relayTokensText, secretsFromTokens } from '../src/index.js';

describe('relay-tokens.env', () => {
  it('reads back every field it writes, and the secrets they came from', () => {
    const secrets = generateSecrets();
    const vars = parseEnv(relayTokensText(secrets));
    expect(readRelayTokens(vars)).toEqual({
      relayAddress: 'ws://localhost:8080/ws',
      relaySite: 'http://localhost:8081/',
      sourceRoom: secrets.sourceRoom,
      outputRoom: secrets.outputRoom,
      sourceRead: secrets.tokens.sourceRead,
      sourceWrite: secrets.tokens.sourceWrite,
      outputRead: secrets.tokens.outputRead,
      outputWrite: secrets.tokens.outputWrite,
    });
    expect(secretsFromTokens(vars)).toMatchObject({
      sourceRoom: secrets.sourceRoom,
      outputRoom: secrets.outputRoom,
      tokens: secrets.tokens,
    });
  });

  it('treats empty variables as missing', () => {
    const vars = parseEnv(relayTokensText(generateSecrets()));
    expect(readRelayTokens({ ...vars, RELAY_SITE: '' }).relaySite).toBeUndefined();
    expect(secretsFromTokens({ ...vars, RELAY_OUTPUT_WRITE: '' })).toBeUndefined();
  });
});
