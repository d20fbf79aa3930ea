import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every relative link in the docs a user reads points at a file of the repository, and every
// `#anchor` at a heading of its page, as GitHub names them: a renamed page or heading fails here
// with the page and line of each link it broke.

const ROOT = resolve(import.meta.dirname, '../../..');

/** The README, docs/, the CHANGELOG, and the READMEs of each package and of deploy/. */
function pages(): string[] {
  const readmes = ['packages', 'apps', 'deploy'].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => join(group, name, 'README.md')),
  );
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'CHANGELOG.md', ...docs, ...readmes].filter((file) => existsSync(join(ROOT, file)));
}

/** Markdown text outside fenced code blocks, line by line (links inside code are not links). */
function proseLines(text: string): [number, string][] {
  const out: [number, string][] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push([i + 1, line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '' : code))]);
  });
  return out;
}

/** GitHub's anchor for a heading: lowercased, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page: its headings' (a repeated one gets -1, -2, ...) and explicit `id`s. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, line] of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const id of line.matchAll(/\b(?:id|name)="([^"]+)"/g)) out.add(id[1]!);
  }
  return out;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

function links(page: string): Link[] {
  const out: Link[] = [];
  for (const [line, text] of proseLines(readFileSync(join(ROOT, page), 'utf8'))) {
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      out.push({ page, line, target });
    }
  }
  return out;
}

/** Why a link is broken, or undefined when it holds. */
function broken(link: Link, root = ROOT): string | undefined {
  const [path = '', anchor] = link.target.split('#');
  const file = path === '' ? join(root, link.page) : resolve(dirname(join(root, link.page)), decodeURI(path));
  if (!existsSync(file)) return `no file ${relative(root, file)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  if (!anchors(file).has(decodeURIComponent(anchor))) return `no heading #${anchor} in ${relative(root, file)}`;
  return undefined;
}

describe('the links in the docs', () => {
  const all = pages().flatMap(links);

  it('finds the links of every page it reads', () => {
    expect(pages()).toEqual(expect.arrayContaining(['README.md', 'docs/server.md', 'docs/benchmark.md']));
    expect(all.length).toBeGreaterThan(100);
    expect(all.some((l) => l.target.includes('#'))).toBe(true);
  });

  it('points every relative link at a file, and every anchor at a heading of its page', () => {
    const failures = all.flatMap((link) => {
      const why = broken(link);
      return why ? [`${link.page}:${link.line}: (${link.target}) ${why}`] : [];
    });
    expect(failures).toEqual([]);
  });

  it('names headings as GitHub does, and catches a broken page or heading', () => {
    expect(slug("Where a call's time goes: `run --trace-split`")).toBe('where-a-calls-time-goes-run---trace-split');
    expect(slug('Load stages: spike and soak (`run --stages`, `--rate-stages`, `soak`)')).toBe(
      'load-stages-spike-and-soak-run---stages---rate-stages-soak',
    );
    expect(broken({ page: 'README.md', line: 1, target: 'docs/server.md#opentelemetry' })).toBeUndefined();
    expect(broken({ page: 'README.md', line: 1, target: 'docs/server.md#no-such-heading' })).toMatch(/no heading/);
    expect(broken({ page: 'README.md', line: 1, target: 'docs/no-such-page.md' })).toMatch(/no file/);
    expect(broken({ page: 'docs/server.md', line: 1, target: '#opentelemetry' })).toBeUndefined();
  });
});
