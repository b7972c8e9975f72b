/**
 * A pino destination that keeps a service's JSON log lines in memory, for tests that assert what
 * a request or job logged (`createLogger(name, { level: 'debug' }, capture.stream)`).
 */

export interface LogCapture {
  readonly stream: { write(line: string): void };
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** The lines whose `msg` matches. */
  matching(msg: RegExp): Record<string, unknown>[];
  /** Everything written so far, as written (to look for what must never be logged). */
  text(): string;
}

export function logCapture(): LogCapture {
  let text = '';
  const lines = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    stream: {
      write(line) {
        text += line;
      },
    },
    lines,
    matching: (msg) => lines().filter((entry) => msg.test(String(entry.msg))),
    text: () => text,
  };
}
