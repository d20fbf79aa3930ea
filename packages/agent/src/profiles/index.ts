import { dbhub } from './dbhub.js';
import { faucet } from './faucet/index.js';
import { ours } from './ours.js';
import type { Profile } from './profile.js';
import { sqlToolProfile } from './sql-tool.js';

export { DIALECTS, type SqlDialect } from './dialects/index.js';
export { faucetFilter } from './faucet/index.js';
export {
  type Profile,
  ProfileClient,
  type ProfileOption,
  type ProfileOptions,
  type RawSink,
  toolError,
} from './profile.js';
export { filterSql, portableType } from './sql.js';

/** Every profile by name; adding a server is its file and a line here. */
export const PROFILES: Readonly<Record<string, Profile>> = {
  ours,
  dbhub,
  faucet,
  'sql-tool': sqlToolProfile,
};
