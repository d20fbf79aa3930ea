import { createRequire } from 'node:module';

/** The package version, read once from package.json so it never drifts from the release. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
