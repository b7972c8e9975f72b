/**
 * The only way ffmpeg reaches HTTP(S): a forward proxy on loopback (ffmpeg's `-http_proxy`, which
 * its HLS demuxer hands on to every playlist, segment and key it opens, and which HTTPS uses as a
 * CONNECT tunnel). For each request it resolves the host itself, refuses it when any address is
 * private or loopback and not listed (SOURCES_ALLOWED_HOSTS), and connects to the address it
 * checked, so neither a playlist's segment URL nor a redirect nor a changed DNS answer can point
 * ffmpeg at the host's own or its network's services. Each run has a token (the proxy URL's user
 * name, which ffmpeg sends when challenged with a 407), so a refusal is told to the source it came
 * from; a request without a known token is refused.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { AllowList } from '../domain/addresses.js';

export interface EgressProxy {
  /** A proxy URL for one ffmpeg run; `onRefused` hears what it was refused. */
  open(onRefused: (reason: string) => void): { url: string; close(): void };
  /** Requests refused so far (for tests and metrics). */
  readonly refused: number;
  /** The loopback port it listens on. */
  readonly port: number;
  close(): Promise<void>;
}

/** The first address of `host` when every address it resolves to is allowed; throws otherwise. */
export async function checkedAddress(host: string, allowed: AllowList): Promise<string> {
  const plain = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(plain)
    ? [plain]
    : (await lookup(plain, { all: true })).map((entry) => entry.address);
  const refused = addresses.find((address) => !allowed.allows(plain, address));
  if (refused !== undefined || addresses.length === 0)
    throw new Error(
      `${plain} resolves to ${refused ?? 'nothing'}, a private or loopback address not in SOURCES_ALLOWED_HOSTS`,
    );
  return addresses[0]!;
}

function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers['proxy-authorization'];
  const basic = typeof header === 'string' ? /^Basic ([A-Za-z0-9+/=]+)$/.exec(header)?.[1] : undefined;
  if (!basic) return undefined;
  return Buffer.from(basic, 'base64').toString().split(':')[0];
}

export async function startEgressProxy(
  allowed: AllowList,
  onRefusal: () => void = () => {},
  /** The loopback port to listen on (SOURCES_EGRESS_PORT); 0: any free one. */
  port = 0,
): Promise<EgressProxy> {
  const runs = new Map<string, (reason: string) => void>();
  let refused = 0;
  const refuse = (token: string | undefined, reason: string) => {
    refused += 1;
    onRefusal();
    if (token) runs.get(token)?.(reason);
  };

  const server: Server = createServer(async (req, res) => {
    const token = tokenOf(req);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!token) {
      // ffmpeg sends the proxy URL's credentials only when challenged.
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="sources"' }).end();
      return;
    }
    if (!runs.has(token) || target.protocol !== 'http:' || !['GET', 'HEAD'].includes(req.method ?? '')) {
      refuse(token, 'the proxy refused a request that was not a plain http GET');
      res.writeHead(403).end();
      return;
    }
    let address: string;
    try {
      address = await checkedAddress(target.hostname, allowed);
    } catch (error) {
      refuse(token, (error as Error).message);
      res.writeHead(403).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(
      {
        host: address,
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: { ...headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    upstream.end();
  });

  server.on('connect', async (req: IncomingMessage, client: Socket, head: Buffer) => {
    const token = tokenOf(req);
    client.on('error', () => undefined);
    const match = /^([^:]+|\[[^\]]+\]):(\d{1,5})$/.exec(req.url ?? '');
    if (!token) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="sources"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (!runs.has(token) || !match) {
      refuse(token, 'the proxy refused a tunnel without a host and port');
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    let address: string;
    try {
      address = await checkedAddress(match[1]!, allowed);
    } catch (error) {
      refuse(token, (error as Error).message);
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const listening = (server.address() as { port: number }).port;
  return {
    open(onRefused) {
      const token = randomBytes(12).toString('hex');
      runs.set(token, onRefused);
      return { url: `http://${token}:x@127.0.0.1:${listening}`, close: () => runs.delete(token) };
    },
    get refused() {
      return refused;
    },
    port: listening,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
