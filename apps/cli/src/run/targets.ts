/**
 * Other servers to benchmark: `--target URL` and `--target-cmd CMD`, each as often as wanted,
 * each followed by its own `--profile NAME[:ENGINE]` (pairs by position: a profile applies to
 * the target before it; a target without one is our own server's, `ours`).
 */
import { PROFILES, type Profile, type ProfileOptions, type Target } from '@mcp-db-bench/agent';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';

export interface PeerTarget {
  target: Target;
  /** what the result file records: the URL, or null for a command */
  url: string | null;
  profile: Profile;
  /** the profile as given; undefined when defaulted to ours */
  given?: string;
  options: ProfileOptions;
}

interface Entry {
  target: Target;
  url: string | null;
  profile?: string;
}

/** Records --target, --target-cmd and --profile in the order they were given; `read` pairs and checks them. */
export function trackTargets(command: Command): { read(shared: Omit<ProfileOptions, 'engine'>): PeerTarget[] } {
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
    if (last.profile) throw new UsageError(`two profiles (${last.profile}, ${name}) for one target: give --profile once after each --target or --target-cmd`);
    last.profile = name;
  });
  return {
    read: (shared) =>
      entries.map((entry) => {
        const [name = 'ours', engine] = (entry.profile ?? 'ours').split(':');
        const profile = PROFILES[name];
        if (!profile) throw new UsageError(`unknown profile ${name}; profiles: ${Object.keys(PROFILES).join(', ')}`);
        const options = { ...shared, engine };
        const problem = profile.check?.(options);
        if (problem) throw new UsageError(problem);
        return { target: entry.target, url: entry.url, profile, given: entry.profile, options };
      }),
  };
}
