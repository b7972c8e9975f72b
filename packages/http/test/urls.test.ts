import { describe, expect, it } from '@jest/globals';
import { outboundAddress, parseHostList, parseOrigin, relayUrlProblem } from '../src/urls.js';

describe('parseOrigin', () => {
  it('returns the origin as browsers send it: no trailing slash, lower case, no default port', () => {
    expect(parseOrigin('https://captions.example.org')).toBe('https://captions.example.org');
    expect(parseOrigin('https://captions.example.org/')).toBe('https://captions.example.org');
    expect(parseOrigin('https://Captions.EXAMPLE.org:443/')).toBe('https://captions.example.org');
    expect(parseOrigin('https://captions.example.org:8443')).toBe('https://captions.example.org:8443');
    expect(parseOrigin('http://localhost:8081/')).toBe('http://localhost:8081');
    expect(parseOrigin('http://127.0.0.1:8765')).toBe('http://127.0.0.1:8765');
    expect(parseOrigin('http://[::1]:8081')).toBe('http://[::1]:8081');
  });

  it.each([
    ['https://a.example/path', 'must be a bare origin scheme://host[:port] (no path, query or fragment)'],
    ['https://a.example//', 'must be a bare origin scheme://host[:port] (no path, query or fragment)'],
    ['https://a.example/?x=1', 'must be a bare origin scheme://host[:port] (no path, query or fragment)'],
    ['https://a.example?', 'must be a bare origin scheme://host[:port] (no path, query or fragment)'],
    ['https://a.example#top', 'must be a bare origin scheme://host[:port] (no path, query or fragment)'],
    ['*', 'must not contain a wildcard'],
    ['https://*.example.org', 'must not contain a wildcard'],
    ['https://user:pw@a.example', 'must not contain userinfo'],
    ['http://captions.example.org', 'http is allowed for loopback hosts only'],
    ['ftp://example.org', 'must use https (or http for loopback)'],
    ['captions.example.org', 'must be an origin like https://captions.example.org'],
    ['null', 'must be an origin like https://captions.example.org'],
  ])('refuses %s, quoting it and saying why', (value, problem) => {
    expect(() => parseOrigin(value)).toThrow(`${JSON.stringify(value)} ${problem}`);
  });
});

describe('relayUrlProblem', () => {
  it('accepts ws:// and wss:// addresses with a host', () => {
    for (const value of ['wss://relay.example.org', 'wss://relay.example.org/ws', 'ws://localhost:8080/ws']) {
      expect(relayUrlProblem(value)).toBeUndefined();
      expect(relayUrlProblem(value, { secure: true })).toBeUndefined();
    }
    expect(relayUrlProblem('ws://relay.lan:8080/ws')).toBeUndefined();
  });

  it('says what is wrong with anything else', () => {
    const notWs = 'must be a ws:// or wss:// URL (e.g. wss://relay.example.org)';
    expect(relayUrlProblem('https://relay.example.org')).toBe(notWs);
    expect(relayUrlProblem('nonsense')).toBe(notWs);
    expect(relayUrlProblem('wss://')).toBe(notWs);
    for (const value of [
      'wss://u:p@relay.example.org',
      'wss://relay.example.org/ws?room=a',
      'wss://r.example#x',
    ]) {
      expect(relayUrlProblem(value)).toBe('must not carry userinfo, query or fragment');
    }
  });

  it('secure: ws:// only for loopback hosts', () => {
    expect(relayUrlProblem('ws://relay.example.org/ws', { secure: true })).toBe(
      'must use wss:// (ws:// only for localhost)',
    );
    expect(relayUrlProblem('ws://127.0.0.1:8080/ws', { secure: true })).toBeUndefined();
    expect(relayUrlProblem('ws://[::1]:8080/ws', { secure: true })).toBeUndefined();
  });
});

describe('outboundAddress (the SSRF rule of destinations and translation engines)', () => {
  const listed = new Set(parseHostList(' 127.0.0.1:9000, LocalHost:80 ,[::1]:2737'));

  it('parses the host list lower-cased and refuses entries without a port', () => {
    expect([...listed]).toEqual(['127.0.0.1:9000', 'localhost:80', '[::1]:2737']);
    expect(() => parseHostList('127.0.0.1')).toThrow('"127.0.0.1" must be host:port');
    expect(() => parseHostList('a:0')).toThrow('must be host:port');
  });

  it('says whether host:port (default port filled in) is listed', () => {
    const at = (value: string) => {
      const address = outboundAddress(value, listed);
      return 'problem' in address ? address.problem : address.listed;
    };
    expect(at('http://127.0.0.1:9000/translate')).toBe(true);
    expect(at('http://localhost/x')).toBe(true);
    expect(at('http://[::1]:2737')).toBe(true);
    expect(at('http://127.0.0.1:9001/')).toBe(false);
    expect(at('https://api.deepl.com')).toBe(false);
  });

  it.each([
    ['not a url', 'must be an absolute https URL'],
    ['ftp://127.0.0.1:9000/', 'must be an https URL'],
    ['http://user:SECRET@127.0.0.1:9000/', 'must not carry userinfo'],
    ['http://127.0.0.1:9000/#SECRET', 'must not carry a fragment'],
    ['http://127.0.0.1:9000/#', 'must not carry a fragment'],
  ])('refuses %s without quoting it', (value, problem) => {
    expect(outboundAddress(value, listed)).toEqual({ problem });
  });
});
