/** The median of `values`: the middle one, or the mean of the middle two for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  const xs = [...values].sort((a, b) => a - b);
  const mid = xs.length >> 1;
  if (xs.length === 0) return Number.NaN;
  return xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}
