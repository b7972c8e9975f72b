/**
 * Why a source is not live, in words an operator can act on (pure). ffmpeg's own last error line
 * ("Invalid data found when processing input", "Input/output error") and Node's resolver errors
 * ("getaddrinfo ENOTFOUND host") say what failed, not what to check; the common ones are turned
 * into what to check, with the original kept in brackets for whoever reads the logs. Anything
 * else passes through unchanged.
 */
import { type InputKind, type PullScheme, parsePullUrl } from './source-input.js';

/** What the source reads, for advice that depends on it. */
export type ReasonInput = { kind: Exclude<InputKind, 'pull'> } | { kind: 'pull'; scheme: PullScheme };

interface Rule {
  test: RegExp;
  advice: (input: ReasonInput) => string;
}

const pushed = (input: ReasonInput) => input.kind !== 'pull';
const scheme = (input: ReasonInput) => (input.kind === 'pull' ? input.scheme : input.kind);

const RULES: Rule[] = [
  {
    test: /getaddrinfo (ENOTFOUND|EAI_AGAIN)|Name or service not known|Temporary failure in name resolution/i,
    advice: () => 'the host name does not resolve: check its spelling in the address, and the DNS',
  },
  {
    test: /Connection refused/i,
    advice: () => 'nothing answers at that host and port: check the port, and that the server runs',
  },
  {
    test: /timed out|Operation timed out/i,
    advice: () => 'no answer from the host: check the address, and any firewall between',
  },
  {
    test: /No route to host|Network is unreachable/i,
    advice: () => 'the host cannot be reached from this server: check the address and the network',
  },
  {
    test: /certificate/i,
    advice: () =>
      "the server's certificate is not signed by an authority in SOURCES_CA_FILE, or not for its name",
  },
  {
    test: /Server returned 401|Server returned 403/i,
    advice: () => 'the server refused access: check the credentials or the token in the address',
  },
  {
    test: /Server returned 404/i,
    advice: () => 'the server has nothing at that address: check the path, or whether the stream is on air',
  },
  {
    test: /Server returned 5\d\d/i,
    advice: () => 'the server failed: try again later, or ask its operator',
  },
  {
    test: /matches no streams|does not contain any stream/i,
    advice: () => 'the stream has no audio track: check that the encoder sends audio',
  },
  {
    test: /Invalid data found when processing input/i,
    advice: (input) =>
      scheme(input) === 'http' || scheme(input) === 'https'
        ? 'the address answers with no audio stream: check that it is the stream itself (a playlist ending in .m3u8, or audio), not a web page'
        : 'what arrives is not a stream ffmpeg can read: check the address and what the encoder sends',
  },
  {
    test: /Input\/output error|Connection reset by peer|End of file/i,
    advice: (input) =>
      pushed(input)
        ? 'the encoder stopped sending: check that it streams to this address with this key'
        : scheme(input) === 'rtmp' || scheme(input) === 'rtmps'
          ? 'the server closed the stream: check the stream name or key in the address, and that it is being published'
          : 'the connection was closed: check the address, and that the stream is on air',
  },
  {
    test: /Invalid argument/i,
    advice: (input) =>
      scheme(input) === 'srt' || input.kind === 'srt-push'
        ? "the SRT connection failed: check the port, the passphrase (10-79 characters) and the caller's options"
        : 'the address or its options are not accepted: check them',
  },
];

/** `reason` with what to check in front, when it is one of the common failures. */
export function explainReason(reason: string, input: ReasonInput): string {
  const rule = RULES.find((r) => r.test.test(reason));
  return rule ? `${rule.advice(input)} (${reason})` : reason;
}

/** What a stored source reads (a pull URL that no longer parses gives general advice). */
export function reasonInputOf(source: { kind: InputKind; url: string | null }): ReasonInput {
  if (source.kind !== 'pull') return { kind: source.kind };
  try {
    return { kind: 'pull', scheme: parsePullUrl(source.url ?? '').scheme };
  } catch {
    return { kind: 'pull', scheme: 'rtsp' };
  }
}
