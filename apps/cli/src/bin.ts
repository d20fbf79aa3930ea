#!/usr/bin/env node
// The version check first, alone: on an older Node.js the rest fails deep inside a dependency.
import { exitIfNodeTooOld } from '@mcp-db-bench/server/node-version';

exitIfNodeTooOld('mcp-db-bench');
await import('./main.js');
