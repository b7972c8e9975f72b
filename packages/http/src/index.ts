export { listenMetrics, type ServiceMetrics, serviceMetrics } from './metrics.js';
export { type AccessFields, correlationId, logAccess, pathOf, requestLog } from './request-log.js';
export { securityHeaders } from './security-headers.js';
