export { securityHeaders } from './security-headers.js';
