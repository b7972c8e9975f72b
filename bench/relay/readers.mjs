// Worker thread of the relay benchmark (plain JS: workers do not get tsx): opens its share of the
// readers, records the latency of every caption and reports when asked.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { WebSocket } = createRequire(new URL('../../services/relay/package.json', import.meta.url))('ws');

// urls: the nodes; reader i reads from urls[(first + i) % urls.length] (split across nodes).
const { urls, first, count, kind, join } = workerData;
const now = () => performance.timeOrigin + performance.now();
let latencies = [];
let delivered = 0;
let gaps = 0;
let closed = 0;
/** Beat frames (readers that asked for them in their join): counted, not captions. */
let beats = 0;
const sockets = [];

for (let i = 0; i < count; i++) {
  const ws = new WebSocket(urls[(first + i) % urls.length], { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const ready = new Promise((resolve) => ws.once('message', resolve));
  ws.send(kind === 'bare' ? 'read' : join);
  await ready;
  let last = -1;
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.beat) {
      beats += 1;
      return;
    }
    if (frame.gap) {
      // A gap frame (captions this reader will not get): counted, the replay follows.
      gaps += 1;
      last = frame.next - 1;
      return;
    }
    latencies.push(now() - Number(frame.id));
    delivered += 1;
    if (kind !== 'bare') {
      if (last !== -1 && frame.relay.sequence !== last + 1) gaps += 1;
      last = frame.relay.sequence;
    }
  });
  // A socket the server closes (or an error) must not take the thread down with it.
  ws.on('error', () => {});
  ws.on('close', (code) => {
    if (code !== 1006 && code !== 1005) closed += 1;
  });
  sockets.push(ws);
}
parentPort.postMessage({ type: 'ready' });
parentPort.on('message', (message) => {
  if (message === 'count') {
    parentPort.postMessage({ type: 'count', delivered, beats });
  } else if (message === 'stop') {
    for (const ws of sockets) ws.terminate();
    parentPort.postMessage({
      type: 'result',
      latencies: Float64Array.from(latencies),
      delivered,
      gaps,
      closed,
    });
    latencies = [];
  }
});
