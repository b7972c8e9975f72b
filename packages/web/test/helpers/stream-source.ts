import type { StreamSource } from '@live-captions/protocol';

/** A stream source as the sources service lists it: a live push encoder unless `fields` say else. */
export function streamSource(fields: Partial<StreamSource> = {}): StreamSource {
  return {
    id: '6f1c2d3e-0000-4000-8000-000000000000',
    room: 'captions',
    name: 'Council encoder',
    input: { kind: 'rtmp-push', url: 'rtmp://captions.example.org:1935/live/ab…yz' },
    settings: {
      language: 'en',
      mode: 'transcribe',
      vocabulary: '',
      replacements: [],
      maskProfanity: false,
      sensitivity: 'normal',
      intervalSeconds: 3,
    },
    running: true,
    state: 'live',
    reason: null,
    level: 0.4,
    behindSeconds: 2.345,
    captionsSent: 12,
    since: null,
    node: null,
    ...fields,
  };
}
