/**
 * The clients the services themselves use, loaded from their workspace packages (e2e has no
 * dependencies of its own): ws, pg and ioredis.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { SocketConstructor } from '@live-captions/relay-client';
import { repoRoot } from './compose.js';

const requireFrom = (workspacePackage: string) =>
  createRequire(join(repoRoot, workspacePackage, 'package.json'));
export const { WebSocket } = requireFrom('packages/relay-client')('ws') as { WebSocket: SocketConstructor };
interface SqlClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
export const pg = requireFrom('services/calendar')('pg') as {
  Client: new (options: { host: string; port: number; user: string; database: string }) => SqlClient;
};
interface RedisClient {
  keys(pattern: string): Promise<string[]>;
  del(...keys: string[]): Promise<number>;
  disconnect(): void;
}
export const { Redis } = requireFrom('packages/inference')('ioredis') as {
  Redis: new (url: string) => RedisClient;
};
