import Table from 'cli-table3';

/** A titled table of text cells: rendered for a terminal or as Markdown from the same data. */
export interface Section {
  title: string;
  note?: string;
  head: string[];
  rows: string[][];
}

/**
 * Sections as boxed tables; with `width` (a terminal's columns), a table wider than that is laid
 * out narrow instead: one block per row, a line per column. Titles and notes are wrapped to
 * `textWidth` (by default `width`): a file or a pipe keeps its tables whole for tools that read
 * them, and its headings to a readable width.
 */
export function toTerminal(sections: readonly Section[], width?: number, textWidth = width): string {
  const text = (s: Section) =>
    [s.title, s.note ?? '']
      .filter(Boolean)
      .map((t) => (textWidth ? wrap(t, textWidth) : t))
      .join('\n');
  return sections
    .map((s) => {
      const t = new Table({
        head: s.head,
        style: { head: [], border: [], compact: true },
        colAligns: s.head.map((_, i) => (i === 0 ? 'left' : 'right')),
      });
      for (const r of s.rows) t.push(r);
      const table = t.toString();
      const fits = width === undefined || table.split('\n').every((line) => line.length <= width);
      return `${text(s)}\n${fits ? table : narrow(s, width!)}\n`;
    })
    .join('\n');
}

/** Each row as a block of `column  value` lines, values wrapped under themselves. */
function narrow(s: Section, width: number): string {
  const keyWidth = Math.min(Math.max(...s.head.map((h) => h.length)), Math.floor(width / 3));
  return s.rows
    .map((row) => {
      const lines = s.head.map((head, i) => {
        const key = head.length > keyWidth ? `${head.slice(0, keyWidth - 1)}…` : head.padEnd(keyWidth);
        const value = wrap(row[i] ?? '', Math.max(10, width - keyWidth - 4)).split('\n');
        return [`  ${key}  ${value[0]}`, ...value.slice(1).map((v) => `  ${' '.repeat(keyWidth)}  ${v}`)].join('\n');
      });
      return ['─'.repeat(Math.min(width, 40)), ...lines].join('\n');
    })
    .join('\n');
}

/** Text broken at spaces into lines of at most `width` (a longer word is cut). */
export function wrap(text: string, width: number): string {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      for (let rest = word; ; ) {
        const room = line ? width - line.length - 1 : width;
        if (rest.length <= room) {
          line = line ? `${line} ${rest}` : rest;
          break;
        }
        if (line) {
          lines.push(line);
          line = '';
          continue;
        }
        lines.push(rest.slice(0, width));
        rest = rest.slice(width);
        if (!rest) break;
      }
    }
    lines.push(line);
  }
  return lines.join('\n');
}

export function toMarkdown(sections: readonly Section[]): string {
  return sections
    .map((s) => {
      const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
      const rule = `|${s.head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
      return [`### ${s.title}`, ...(s.note ? ['', s.note] : []), '', line(s.head), rule, ...s.rows.map(line), ''].join(
        '\n',
      );
    })
    .join('\n');
}
