/**
 * The MCP revisions this project speaks, named once for the server, the clients and the tests.
 * Which revisions the server serves is the SDK's to say (it answers every other one); these are
 * the ones we ask for, test and report.
 */

/** The stateless revision: no handshake, `server/discover`, a `_meta` envelope on every request. */
export const MODERN_REVISION = '2026-07-28';

/** The revisions hosts speak today (`initialize`, then calls on a session), newest first. */
export const HOST_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** The 2025-era revision our clients ask for in `initialize`. */
export const LEGACY_REVISION = HOST_REVISIONS[0];

/**
 * The revisions a 2025-era client accepts in answer to `initialize`: the host revisions and the
 * first revision, whose wire is the same for our purposes.
 */
export const INITIALIZE_REVISIONS = [...HOST_REVISIONS, '2024-11-05'] as const;

/**
 * How reports name the protocol era a target was measured in (`sqlite 2025 session`): the 2025
 * era's handshake and session (`legacy`), the stateless revision (`modern`), or whichever the
 * server offered (`auto`).
 */
export const ERA_NAMES = { legacy: '2025 session', modern: '2026', auto: 'auto era' } as const;
