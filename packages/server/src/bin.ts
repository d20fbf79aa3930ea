#!/usr/bin/env node
// The version check first, alone: on an older Node.js the rest fails deep inside a dependency.
import { exitIfNodeTooOld } from './node-version.js';

exitIfNodeTooOld('mcp-db-server');
await import('./start.js');
