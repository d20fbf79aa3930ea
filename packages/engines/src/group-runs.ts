/** Splits rows that arrive sorted by `key` into runs with the same key (one run per constraint or index). */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): T[][] {
  const groups: T[][] = [];
  let last: string | undefined;
  for (const row of rows) {
    const k = key(row);
    if (k !== last || groups.length === 0) groups.push([]);
    groups[groups.length - 1]!.push(row);
    last = k;
  }
  return groups;
}
