// Node built-ins only, in every module here: `make secrets` runs `scripts/init.ts` unbuilt in a
// bare Node container, without `pnpm install`.
export { CAPTION_LOCAL_VARS, captionLocalText } from './caption-local-file.js';
export {
  initSecrets,
  SECRET_FILES,
  SERVICE_GID,
  SERVICE_UID,
  type SecretsInitOptions,
  type SecretsInitResult,
} from './init.js';
export {
  type RelayConfigFile,
  type RoomTokens,
  relayConfigText,
  secretsFromRelayConfig,
} from './relay-config-file.js';
export {
  DEFAULT_OUTPUT_ROOM,
  DEFAULT_SOURCE_ROOM,
  generateSecrets,
  LOOPBACK_ORIGINS,
  newToken,
  type ProductionHosts,
  productionHosts,
  type RelaySecrets,
} from './relay-secrets.js';
export {
  RELAY_TOKENS_VARS,
  type RelayTokens,
  type RelayTokensField,
  readRelayTokens,
  relayTokensText,
  secretsFromTokens,
} from './relay-tokens-file.js';
