/**
 * `POST /transcribe` of 16-bit PCM on a local gateway (`X-Caption-Local`), timed: the HTTP round
 * trip and the gateway's own queue and inference seconds. Rejects on any status but 200.
 */
import { type Agent, request as httpRequest } from 'node:http';
import type { TranscribeResponse } from '@live-captions/protocol';

export interface Timed {
  ms: number;
  queueSeconds: number;
  inferenceSeconds: number;
  /** Words of the answer's text: how much the decoder had to say. */
  words: number;
}

export function postTranscribe(
  port: number,
  query: string,
  body: Buffer,
  streamId: string,
  agent?: Agent,
): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/transcribe${query}`,
        ...(agent ? { agent } : {}),
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': body.length,
          'X-Caption-Local': '1',
          'X-Stream-ID': streamId,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          const parsed = JSON.parse(text) as TranscribeResponse;
          resolve({
            ms: performance.now() - started,
            queueSeconds: parsed.queue_seconds,
            inferenceSeconds: parsed.inference_seconds,
            words: parsed.text.split(/\s+/).filter(Boolean).length,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
