import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The CLI's commands stand alone: a command file imports shared modules (options, parse/,
 * serving/, render/, results, warnings), never another command, and only program.ts, which
 * registers them, imports commands/.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every relative module a file imports or re-exports, resolved against the source folder. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g)].map(
    (m) => m[1]!,
  );
  const dynamic = [...text.matchAll(/import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map((m) => m[1]!);
  return [...specifiers, ...dynamic].map((s) => relative(SRC, join(file, '..', s)));
}

describe('the CLI layout', () => {
  const all = files(SRC);

  it('finds the command files and their imports', () => {
    const commands = all.filter((f) => relative(SRC, f).startsWith('commands/'));
    expect(commands.length).toBeGreaterThan(5);
    expect(imports(join(SRC, 'program.ts')).filter((i) => i.startsWith('commands/')).length).toBe(commands.length);
  });

  it('no file but program.ts imports a command file', () => {
    const offending = all
      .filter((f) => relative(SRC, f) !== 'program.ts')
      .flatMap((f) =>
        imports(f)
          .filter((i) => i.startsWith('commands/'))
          .map((i) => `${relative(SRC, f)} imports ${i}`),
      );
    expect(offending).toEqual([]);
  });
});
