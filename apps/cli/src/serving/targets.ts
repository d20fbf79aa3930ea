/**
 * Other servers to benchmark: `--target URL` and `--target-cmd CMD`, each as often as wanted,
 * each followed by its own `--profile NAME[:ENGINE]` (pairs by position: a profile applies to
 * the target before it; a target without one is our own server's, `ours`).
 */
import { PEERS, type PeerOption, type PeerOptions, type PeerProfile, type Target } from '@mcp-db-bench/loadgen';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';

export interface PeerTarget {
  target: Target;
  /** what the result file records: the URL, or null for a command */
  url: string | null;
  profile: PeerProfile;
  /** the profile as given; undefined when defaulted to ours */
  given?: string;
  options: PeerOptions;
}

interface Entry {
  target: Target;
  url: string | null;
  profile?: string;
}

/** The shared flags that set a profile option, by the option's name (commander's attribute name too). */
const FLAGS: Partial<Record<PeerOption, string>> = {
  sqlTool: '--sql-tool',
  sqlArg: '--sql-arg',
  service: '--service',
};

/** The profiles that read an option, for the message that names them. */
const readers = (option: PeerOption) =>
  Object.values(PEERS)
    .filter((p) => p.takes?.includes(option))
    .map((p) => p.name);

/** A usage problem with what was given for one target's profile: an engine it does not read. */
function engineProblem(given: string, profile: PeerProfile, engine: string | undefined): string | undefined {
  if (engine === undefined) return undefined;
  if (!profile.takes?.includes('engine'))
    return `--profile ${given}: ${profile.name} takes no engine (only ${readers('engine').join(', ')} do)`;
  return engine === '' ? `--profile ${given}: name the engine after the colon, or leave the colon out` : undefined;
}

/** A shared flag given on the command line that no target's profile reads: it would be silently ignored. */
function unusedFlag(command: Command, used: readonly PeerTarget[]): string | undefined {
  for (const [option, flag] of Object.entries(FLAGS) as [PeerOption, string][]) {
    if (command.getOptionValueSource(option) !== 'cli' || used.some((t) => t.profile.takes?.includes(option))) continue;
    return `${flag} is for the ${readers(option).join(', ')} profile, and no --target uses it`;
  }
  return undefined;
}

/** Records --target, --target-cmd and --profile in the order they were given; `read` pairs and checks them. */
export function trackTargets(command: Command): { read(shared: Omit<PeerOptions, 'engine'>): PeerTarget[] } {
  const entries: Entry[] = [];
  const profiles: string[] = [];
  command.on('option:target', (url: string) => entries.push({ target: { kind: 'http', url }, url }));
  command.on('option:target-cmd', (line: string) => {
    const [name, ...args] = line.split(/\s+/).filter(Boolean);
    if (!name) throw new UsageError('--target-cmd needs a command');
    entries.push({ target: { kind: 'stdio', command: name, args }, url: null });
  });
  command.on('option:profile', (name: string) => {
    profiles.push(name);
    const last = entries.at(-1);
    if (!last) throw new UsageError(`--profile ${name} comes after the --target or --target-cmd it applies to`);
    if (last.profile)
      throw new UsageError(
        `two profiles (${last.profile}, ${name}) for one target: give --profile once after each --target or --target-cmd`,
      );
    last.profile = name;
  });
  return {
    read: (shared) => {
      const targets = entries.map((entry) => {
        const given = entry.profile ?? 'ours';
        const [name = 'ours', engine] = given.split(':');
        const profile = PEERS[name];
        if (!profile) throw new UsageError(`unknown profile ${name}; profiles: ${Object.keys(PEERS).join(', ')}`);
        const options = { ...shared, engine };
        const problem = engineProblem(given, profile, engine) ?? profile.check?.(options);
        if (problem) throw new UsageError(problem);
        return { target: entry.target, url: entry.url, profile, given: entry.profile, options };
      });
      const unused = unusedFlag(command, targets);
      if (unused) throw new UsageError(unused);
      return targets;
    },
  };
}
