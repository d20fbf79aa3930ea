/**
 * `--peer NAME[=COMMAND]`: the peers a run can start, by name, and the flag's value read into
 * the command that starts one. Adding a peer is its launcher's file and a line in LAUNCHERS (its
 * profile, which drives it, is in the load generator's peers/).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { dbhub } from './dbhub.js';
import { faucet } from './faucet.js';
import type { PeerLauncher } from './launcher.js';

export type { PeerLaunch, PeerLauncher } from './launcher.js';

/** Every peer `--peer` can start, by the name of the profile that drives it. */
export const LAUNCHERS: Readonly<Record<string, PeerLauncher>> = { faucet, dbhub };

/** One --peer as given: its launcher and its command line (the launcher's default when none was given). */
export interface PeerSpec {
  launcher: PeerLauncher;
  /** the command line as given (or the default): the result file records it */
  given: string;
  /** the words to run, a package resolved to npx (`resolvePeerCommand`) */
  command: readonly string[];
}

/** `NAME` or `NAME=COMMAND` (commander's parser: a mistake is its usage error). */
export function parsePeer(value: string): Omit<PeerSpec, 'command'> {
  const at = value.indexOf('=');
  const name = at < 0 ? value : value.slice(0, at);
  const launcher = LAUNCHERS[name];
  if (!launcher) throw new InvalidArgumentError(`no peer ${name}: --peer starts ${Object.keys(LAUNCHERS).join(', ')}`);
  const given = at < 0 ? launcher.command : value.slice(at + 1).trim();
  if (!given) throw new InvalidArgumentError(`--peer ${name}= names no command: give one, or leave out the =`);
  return { launcher, given };
}

/** An npm package as npx takes it: `@scope/name`, `@scope/name@version` or `name@version`. */
const PACKAGE = /^(?:@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*(?:@[^\s@/]+)?|[a-z0-9][\w.-]*@[^\s@/]+)$/i;

/**
 * The words that start a peer: a path to a program, or a program on PATH, followed by its own
 * arguments as given; an npm package (not a file) run with `npx --yes`. A string: why none of these.
 */
export function resolvePeerCommand(given: string): string[] | string {
  const [first = '', ...rest] = given.split(/\s+/).filter(Boolean);
  // absolute, since the peer runs in a directory of its own
  if (first.includes('/') && isFile(first)) return [resolve(first), ...rest];
  if (!first.includes('/') && onPath(first)) return [first, ...rest];
  if (PACKAGE.test(first)) return ['npx', '--yes', first, ...rest];
  return first.includes('/')
    ? `${first} is not a file`
    : `${first} is not a program on PATH, nor an npm package (@scope/name or name@version)`;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return isFile(join(dir, name));
    } catch {
      return false;
    }
  });
}
