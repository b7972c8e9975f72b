/**
 * `pnpm start`'s port settings (scripts/start-ports.mjs, issue 43.1): one per port, checked before
 * anything starts; with the defaults the services get their own defaults and the generated
 * secrets are left to speak, a moved port moves the addresses and origins that name it (the whole
 * stack with every port moved runs in chromium: e2e/browser/start-moved-ports.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
// @ts-expect-error a plain ESM script of the repository, without types
import { PORT_DEFAULTS, serviceEnv, stackPorts } from '../../scripts/start-ports.mjs';

describe('pnpm start ports', () => {
  it('defaults: the services are told their own defaults, nothing over the generated secrets', () => {
    const env = serviceEnv(stackPorts({}), { CAPTION_ALLOWED_ORIGINS: 'https://lan.example' });
    expect(stackPorts({})).toEqual(PORT_DEFAULTS);
    expect(env.speech).toEqual({ RELAY_URL: 'ws://127.0.0.1:8080/ws', CAPTION_PORT: '8765' });
    expect(env.ui).toMatchObject({
      RELAY_URL: 'ws://localhost:8080/ws',
      CAPTURE_URL: 'http://localhost:8765/',
      CALENDAR_API_URL: 'http://localhost:8082/wp-json/cal/events/v1/',
    });
    expect(env.sources.SOURCES_ALLOWED_ORIGINS).toBe('http://localhost:8081,http://127.0.0.1:8081');
  });

  it('a moved UI and relay: every address and origin that names them follows; caption-local.env origins kept', () => {
    const env = serviceEnv(stackPorts({ UI_PORT: '9081', RELAY_PORT: '9080', APERTIUM_PORT: '9737' }), {
      CAPTION_ALLOWED_ORIGINS: 'http://localhost:8081,https://lan.example',
    });
    expect(env.speech).toMatchObject({
      RELAY_URL: 'ws://127.0.0.1:9080/ws',
      RELAY_ADDRESS: 'ws://localhost:9080/ws',
      RELAY_SITE: 'http://localhost:9081/',
      CAPTION_ALLOWED_ORIGINS:
        'http://localhost:8081,https://lan.example,http://localhost:9081,http://127.0.0.1:9081',
    });
    expect(env.relay.RELAY_ALLOWED_ORIGINS).toBe(
      'http://localhost:9081,http://127.0.0.1:9081,http://localhost:8765,http://127.0.0.1:8765',
    );
    expect(env.relay.RELAY_PORT).toBe('9080');
    expect(env.ui).toMatchObject({ UI_PORT: '9081', RELAY_URL: 'ws://localhost:9080/ws' });
    expect(serviceEnv(stackPorts({ CALENDAR_PORT: '9082' })).ui.CALENDAR_API_URL).toBe(
      'http://localhost:9082/wp-json/cal/events/v1/',
    );
    expect(env.outputs).toMatchObject({
      OUTPUTS_ALLOWED_ORIGINS: 'http://localhost:9081,http://127.0.0.1:9081',
      OUTPUTS_APERTIUM_URL: 'http://127.0.0.1:9737',
      RELAY_URL: 'ws://127.0.0.1:9080/ws',
    });
    // The scheduler's links name the moved UI; its calendar and archive stay where they are.
    expect(env.sources).toMatchObject({
      SOURCES_PUBLIC_UI_URL: 'http://localhost:9081/',
      SOURCES_CALENDAR_URL: 'http://127.0.0.1:8082/wp-json/cal/events/v1/',
      SOURCES_OUTPUTS_URL: 'http://127.0.0.1:8083/',
    });
  });

  it('a wrong or repeated port stops it with one line each', () => {
    expect(() => stackPorts({ CAPTION_PORT: 'x', UI_PORT: '70000' })).toThrow(
      /CAPTION_PORT="x": must be a port number[\s\S]*UI_PORT="70000"/,
    );
    expect(() => stackPorts({ UI_PORT: '8080' })).toThrow(
      'UI_PORT and RELAY_PORT are both 8080: give each its own port',
    );
  });
});
