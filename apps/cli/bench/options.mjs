// The bench scripts' command line: their options plus -h/--help, and a one-line error (exit 2)
// for an option they do not take, instead of a Node.js stack trace.
// @ts-check
import { parseArgs } from 'node:util';

/**
 * `script`'s option values; prints `help` and exits 0 on --help.
 * @param {string} script
 * @param {string} help
 * @param {NonNullable<import('node:util').ParseArgsConfig['options']>} options
 * @returns {Record<string, any>}
 */
export function scriptOptions(script, help, options) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    process.stderr.write(`${script}: ${/** @type {Error} */ (error).message} (--help for usage)\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
  return values;
}
