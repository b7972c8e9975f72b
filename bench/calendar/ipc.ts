// The bench's side of server.ts's IPC: send `message` (none: only wait) and resolve with the
// first reply that carries `key`.
import type { ChildProcess } from 'node:child_process';

export function ask<T>(child: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (reply: Record<string, unknown>) => {
      if (key in reply) {
        child.off('message', listener);
        resolve(reply as T);
      }
    };
    child.on('message', listener);
    if (message) child.send(message);
  });
}
