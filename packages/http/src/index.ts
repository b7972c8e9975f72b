export { embeddedV4, isPrivateAddress } from './addresses.js';
export { corsFor, parseOriginList } from './cors.js';
export { listenMetrics, METRICS_PATH, type ServiceMetrics, serviceMetrics } from './metrics.js';
export { type AccessFields, correlationId, logAccess, pathOf, requestLog } from './request-log.js';
export { securityHeaders } from './security-headers.js';
export { apiKeyProblem, bearerChecker, readApiKey, tokenLookup, tokensEqual } from './token.js';
export {
  clientAddress,
  normalizeAddress,
  parseTrustedProxies,
  type TrustedProxies,
  trustedProxiesVar,
} from './trusted-proxies.js';
export {
  LOOPBACK_HOSTS,
  type OutboundAddress,
  outboundAddress,
  parseHostList,
  parseOrigin,
  relayUrlProblem,
} from './urls.js';
