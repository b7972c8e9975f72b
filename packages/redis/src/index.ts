export {
  BLOCKING,
  bullConnection,
  type ConnectionState,
  FAIL_FAST,
  isConnectionError,
  logOtherErrors,
  settleWithin,
  watchConnection,
} from './connection.js';
export { type Leases, localLeases, redisLeases } from './leases.js';
