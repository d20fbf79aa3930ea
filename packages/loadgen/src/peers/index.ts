import { dbhub } from './dbhub.js';
import { faucet } from './faucet/index.js';
import { ours } from './ours.js';
import type { PeerProfile } from './profile.js';
import { sqlToolProfile } from './sql-tool.js';

export { DIALECTS, type SqlDialect } from './dialects/index.js';
export { faucetFilter } from './faucet/index.js';
export {
  PeerClient,
  type PeerOption,
  type PeerOptions,
  type PeerProfile,
  type RawSink,
  toolError,
} from './profile.js';
export { filterSql, portableType } from './sql.js';

/** Every profile by name; adding a server is its file and a line here. */
export const PEERS: Readonly<Record<string, PeerProfile>> = {
  ours,
  dbhub,
  faucet,
  'sql-tool': sqlToolProfile,
};
