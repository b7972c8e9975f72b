import { parseEnv, portVar } from '@live-captions/runtime';
import { z } from 'zod';
import { parseTrustedProxies } from './domain/client-ip.js';

/** Process settings of the relay (environment). The rooms, tokens and limits are in the config file. */
export const relayEnvSchema = z.object({
  /** Listen address; 0.0.0.0 in a container. */
  RELAY_BIND: z.string().min(1).default('127.0.0.1'),
  RELAY_PORT: portVar().default(8080),
  /** Path of the private configuration. */
  CAPTION_RELAY_CONFIG: z.string().min(1).default('secrets/relay.private.json'),
  /** Comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is believed. */
  RELAY_TRUSTED_PROXIES: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      try {
        parseTrustedProxies(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
});

export type RelayEnv = z.infer<typeof relayEnvSchema>;

export function loadRelayEnv(env: NodeJS.ProcessEnv = process.env): RelayEnv {
  return parseEnv(relayEnvSchema, env);
}
