import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readResultFile, writeResultFile, writeWhole } from '../src/files.js';
import { result, step } from '../src/testing.js';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-files-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A study rewrites its segment files and findings for hours: a write is whole or absent. */
describe('writing result files', () => {
  it('replaces a file by renaming a whole new one over it, leaving nothing beside it', () => {
    const dir = scratch();
    const file = join(dir, 'segment.json');
    writeResultFile(file, result([step({ workload: 'point-read', agents: 1, calls: 10 })]));
    const before = statSync(file).ino;
    // a reader that opened the first file keeps reading it whole while the second is written
    const reader = openSync(file, 'r');
    writeResultFile(file, result([step({ workload: 'point-read', agents: 10, calls: 99 })]));

    expect(statSync(file).ino).not.toBe(before);
    const old = JSON.parse(readFileSync(reader, 'utf8'));
    closeSync(reader);
    expect(old.steps[0].agents).toBe(1);
    expect(readResultFile(file).steps[0]?.agents).toBe(10);
    expect(readdirSync(dir)).toEqual(['segment.json']);
  });

  it('removes its temporary file when the write cannot land, and says why', () => {
    const dir = scratch();
    const file = join(dir, 'findings.md');
    mkdirSync(file); // a directory where the file should go: the rename fails
    expect(() => writeWhole(file, 'new findings\n')).toThrow(/EISDIR|ENOTEMPTY|EEXIST|EPERM/);
    expect(readdirSync(dir)).toEqual(['findings.md']);
    expect(statSync(file).isDirectory()).toBe(true);
  });
});
