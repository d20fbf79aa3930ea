import type { PeerProfile } from './profile.js';

/** Our own server: our tools as they are (the default profile). */
export const ours: PeerProfile = {
  name: 'ours',
  summary: 'mcp-db-bench serve: every tool as the simulator calls it',
  cannot: {},
};
