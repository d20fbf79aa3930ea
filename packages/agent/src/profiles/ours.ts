import type { Profile } from './profile.js';

/** Our own server: our tools as they are (the default profile). */
export const ours: Profile = {
  name: 'ours',
  summary: 'mcp-db-bench serve: every tool as the simulator calls it',
  cannot: {},
};
