import type { Command } from 'commander';
import { type LoadedConfig, loadConfig } from './load.js';

/**
 * Loads the file `--config` names into the parsed options, below the command line and the
 * environment: a value is taken from the file only where commander has none or its default.
 * Throws ConfigError.
 */
export function applyConfig(program: Command, file: string): LoadedConfig {
  const config = loadConfig(file);
  for (const [key, value] of Object.entries(config.options)) {
    const source = program.getOptionValueSource(key);
    if (source === undefined || source === 'default') program.setOptionValueWithSource(key, value, 'config');
  }
  return config;
}
