import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { clientAddress, correlationId, logAccess, pathOf, type TrustedProxies } from '@live-captions/http';
import type { Logger } from '@live-captions/runtime';
import type { WebSocketServer } from 'ws';
import { addressKey } from '../domain/client-ip.js';
import type { Hub } from '../hub/hub.js';

const STATUS_TEXT: Record<number, string> = {
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** How long a refused client may take to read its answer and close before the relay closes. */
const REFUSAL_GRACE_MS = 2_000;

/**
 * Answers an upgrade with a plain HTTP error and closes; no WebSocket is opened. The answer is
 * flushed before the socket goes (as ws's own refusals do), and what the client still sends is
 * read and dropped meanwhile: a socket closed with unread input is reset, and a reset can take
 * the unread answer with it.
 */
function refuse(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const grace = setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS);
  grace.unref();
  socket.once('close', () => clearTimeout(grace));
  // The client's own close, once it has read the answer, ends it.
  socket.once('end', () => socket.destroy());
  socket.resume();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}

export interface UpgradeContext {
  hub: Hub;
  /** Current WebSocket server (replaced on reload when `payloadBytes` changes). */
  wss: () => WebSocketServer;
  origins: () => ReadonlySet<string>;
  proxies: TrustedProxies;
  onRefused: () => void;
  logger: Logger;
}

/**
 * The `upgrade` handler: only `/ws`, only allowed browser origins (no Origin: non-browser client,
 * allowed), only within the connection caps. Tokens are checked by the join that follows. A
 * refused upgrade gets an access line; an accepted one a line when it opens and when it closes,
 * all with the connection's correlation id.
 */
export function upgradeHandler(context: UpgradeContext) {
  return function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = performance.now();
    const id = correlationId(req.headers);
    const path = pathOf(req.url);
    const refused = (status: number, message: string) => {
      context.onRefused();
      refuse(socket, status, message);
      const ms = Math.round(performance.now() - started);
      logAccess(context.logger, { method: req.method ?? 'GET', path, status, ms, correlationId: id });
    };
    socket.on('error', () => socket.destroy());
    if (path !== '/ws') {
      refused(404, 'Not found');
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !context.origins().has(origin)) {
      refused(403, 'Origin not allowed');
      return;
    }
    // Caps count IPv6 clients per /64 (see addressKey).
    const ip = addressKey(
      clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], context.proxies),
    );
    if (!context.hub.accepting) {
      // Cluster node without Redis: clients go to another node.
      refused(503, 'Relay unavailable');
      return;
    }
    if (context.hub.full(ip)) {
      refused(503, 'Too many connections');
      return;
    }
    context.wss().handleUpgrade(req, socket, head, (ws) => {
      const log = context.logger.child({ correlationId: id });
      log.debug('connection opened');
      ws.once('close', (code) =>
        log.debug({ code, ms: Math.round(performance.now() - started) }, 'connection closed'),
      );
      context.hub.accept(ws, ip, log);
    });
  };
}
