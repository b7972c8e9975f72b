// How `pnpm start` (start-stack.mjs) shows its services' log lines: on a terminal each JSON line
// as a readable coloured line behind the service's name, otherwise unchanged; and where each
// service listens, read from its `... listening` line.

/**
 * The handler of one line `line` of service `name` (`fromStderr`: it came on stderr). `listeners`
 * gets `{host, port}` of each service that says it listens.
 */
export async function serviceLines({ tty, ansi, listeners }) {
  const colours = {
    speech: ansi('36'),
    relay: ansi('35'),
    ui: ansi('33'),
    calendar: ansi('34'),
    outputs: ansi('94'),
    sources: ansi('96'),
    apertium: ansi('90'),
    worker: ansi('32'),
  };
  const { prettyFactory } = await import('pino-pretty');
  const pretty = prettyFactory({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    // the prefix names the service already
    ignore: 'pid,hostname,service,name',
  });
  return function onLine(name, line, fromStderr) {
    let record;
    if (line.startsWith('{')) {
      try {
        record = JSON.parse(line);
      } catch {
        record = undefined;
      }
    }
    const prefix = (colours[name] ?? ((text) => text))(`${name.padEnd(8)} |`);
    if (typeof record?.level !== 'number') {
      // a plain line (a configuration error, a crash before the logger exists)
      if (tty) console.log(`${prefix} ${line}`);
      else console.error(`${prefix} ${line}`);
      return;
    }
    if (typeof record.port === 'number' && /listening$/.test(record.msg ?? '')) {
      const host = ['0.0.0.0', '::', undefined].includes(record.bind) ? '127.0.0.1' : record.bind;
      listeners.set(name, { host, port: record.port });
    }
    if (tty) console.log(`${prefix} ${pretty(line).trimEnd()}`);
    else (fromStderr ? process.stderr : process.stdout).write(`${line}\n`);
  };
}
