export {
  BLOCKING,
  bullConnection,
  type ConnectionState,
  FAIL_FAST,
  logOtherErrors,
  settleWithin,
  watchConnection,
} from './connection.js';
