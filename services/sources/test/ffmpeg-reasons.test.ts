import { describe, expect, test } from '@jest/globals';
import { explainReason, type ReasonInput, reasonInputOf } from '../src/domain/ffmpeg-reasons.js';

const rtmp = { kind: 'pull', scheme: 'rtmp' } as const;
const http = { kind: 'pull', scheme: 'http' } as const;
const srt = { kind: 'pull', scheme: 'srt' } as const;

describe("ffmpeg's wording turned into what to check", () => {
  test("the issue's four: what to check first, the original kept in brackets", () => {
    expect(explainReason('<url>: Invalid data found when processing input', http)).toBe(
      'the address answers with no audio stream: check that it is the stream itself (a playlist ending in .m3u8, or audio), not a web page (<url>: Invalid data found when processing input)',
    );
    expect(explainReason('<url>: Input/output error', rtmp)).toMatch(
      /^the server closed the stream: check the stream name or key in the address, and that it is being published \(<url>: Input\/output error\)$/,
    );
    expect(explainReason('<url>: Input/output error', { kind: 'rtmp-push' })).toMatch(
      /^the encoder stopped sending: check that it streams to this address with this key/,
    );
    expect(explainReason('<url>: Invalid argument', srt)).toMatch(
      /^the SRT connection failed: check the port, the passphrase/,
    );
    expect(explainReason('<url>: Invalid argument', { kind: 'srt-push' })).toMatch(
      /^the SRT connection failed/,
    );
    expect(explainReason('getaddrinfo ENOTFOUND stream.example.invalid', rtmp)).toBe(
      'the host name does not resolve: check its spelling in the address, and the DNS (getaddrinfo ENOTFOUND stream.example.invalid)',
    );
  });

  test('the other common failures', () => {
    const advice = (line: string, input: ReasonInput = rtmp) => explainReason(line, input).split(' (')[0];
    expect(advice('Connection to tcp://10.0.0.1:1935 failed: Connection refused')).toMatch(
      /^nothing answers/,
    );
    expect(advice('<url>: Connection timed out')).toMatch(/^no answer from the host/);
    expect(advice('<url>: No route to host')).toMatch(/^the host cannot be reached/);
    expect(advice('Peer certificate failed verification', http)).toMatch(/SOURCES_CA_FILE/);
    expect(advice('<url>: Server returned 404 Not Found', http)).toMatch(
      /^the server has nothing at that address/,
    );
    expect(advice('<url>: Server returned 403 Forbidden', http)).toMatch(/^the server refused access/);
    expect(advice("Stream map '0:a:0' matches no streams.")).toMatch(/^the stream has no audio track/);
  });

  test('what the service says itself passes through unchanged', () => {
    for (const reason of [
      'no audio within 20 s',
      'no audio for 6 s',
      'refused: 127.0.0.2 resolves to 127.0.0.2, a private or loopback address not in SOURCES_ALLOWED_HOSTS',
      'ffmpeg ended (exit 0)',
    ])
      expect(explainReason(reason, http)).toBe(reason);
  });

  test('the input a stored source reads', () => {
    expect(reasonInputOf({ kind: 'pull', url: 'srt://10.0.0.1:9000' })).toEqual(srt);
    expect(reasonInputOf({ kind: 'rtmp-push', url: null })).toEqual({ kind: 'rtmp-push' });
  });
});
