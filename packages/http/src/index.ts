export { listenMetrics, type ServiceMetrics, serviceMetrics } from './metrics.js';
export { securityHeaders } from './security-headers.js';
