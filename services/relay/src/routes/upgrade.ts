import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { addressKey, clientAddress, type TrustedProxies } from '../domain/client-ip.js';
import type { Hub } from '../hub.js';

const STATUS_TEXT: Record<number, string> = {
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Answers an upgrade with a plain HTTP error and drops the socket; no WebSocket is opened. */
function refuse(socket: Duplex, status: number, message: string): void {
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
  }
  socket.destroy();
}

export interface UpgradeContext {
  hub: Hub;
  /** Current WebSocket server (replaced on reload when `payloadBytes` changes). */
  wss: () => WebSocketServer;
  origins: () => ReadonlySet<string>;
  proxies: TrustedProxies;
  onRefused: () => void;
}

/**
 * The `upgrade` handler: only `/ws`, only allowed browser origins (no Origin: non-browser client,
 * allowed), only within the connection caps. Tokens are checked by the join that follows.
 */
export function upgradeHandler(context: UpgradeContext) {
  return function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/ws') {
      context.onRefused();
      refuse(socket, 404, 'Not found');
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !context.origins().has(origin)) {
      context.onRefused();
      refuse(socket, 403, 'Origin not allowed');
      return;
    }
    // Caps count IPv6 clients per /64 (see addressKey).
    const ip = addressKey(
      clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], context.proxies),
    );
    if (!context.hub.accepting) {
      // Cluster node without Redis: clients go to another node.
      context.onRefused();
      refuse(socket, 503, 'Relay unavailable');
      return;
    }
    if (context.hub.full(ip)) {
      context.onRefused();
      refuse(socket, 503, 'Too many connections');
      return;
    }
    context.wss().handleUpgrade(req, socket, head, (ws) => context.hub.accept(ws, ip));
  };
}
