import type * as registry from './registry.js';

/**
 * The SQL families, as the registry's engines declare them: a union the compiler checks, so a
 * table keyed by family (`Record<SqlFamily, ...>`) that misses one fails to build. A new family
 * is a new engine folder and its line in the registry; nothing here changes.
 */
export type SqlFamily = (typeof registry)[keyof typeof registry]['family'];
