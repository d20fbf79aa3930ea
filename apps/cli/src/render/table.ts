import Table from 'cli-table3';

/** A titled table of text cells: rendered for a terminal or as Markdown from the same data. */
export interface Section {
  title: string;
  note?: string;
  head: string[];
  rows: string[][];
}

export function toTerminal(sections: readonly Section[]): string {
  return sections
    .map((s) => {
      const t = new Table({ head: s.head, style: { head: [], border: [], compact: true }, colAligns: s.head.map((_, i) => (i === 0 ? 'left' : 'right')) });
      for (const r of s.rows) t.push(r);
      return `${s.title}\n${s.note ? `${s.note}\n` : ''}${t.toString()}\n`;
    })
    .join('\n');
}

export function toMarkdown(sections: readonly Section[]): string {
  return sections
    .map((s) => {
      const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
      const rule = `|${s.head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
      return [`### ${s.title}`, ...(s.note ? ['', s.note] : []), '', line(s.head), rule, ...s.rows.map(line), ''].join('\n');
    })
    .join('\n');
}
