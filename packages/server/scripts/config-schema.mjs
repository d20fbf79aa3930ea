// Writes config.schema.json from the config file's zod schema (run after a build: pnpm run config-schema).
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../dist/config/schema.js';

writeFileSync(new URL('../config.schema.json', import.meta.url), configJsonSchema());
