/**
 * One colour per meaning, on every chart of a page: the reader learns it once. Okabe–Ito and
 * Tableau hues (distinguishable, also for the colour-blind, on a white page); a hue that has a
 * meaning below is never handed to a server or run.
 */
export const MEANING = {
  baseline: '#E69F00',
  optimized: '#0072B2',
  /** where the time goes: the database alone, the protocol alone, the whole call */
  raw: '#009E73',
  echo: '#CC79A7',
  full: '#1F3A93',
  /** a count of agents: context, not a result */
  agents: '#7F7F7F',
  /** compare: a change for the better, for the worse, within noise */
  good: '#1A7F37',
  bad: '#CF222E',
  noise: '#8C959F',
} as const;

/** Servers and runs, in order of first appearance. */
const SUBJECTS = ['#D55E00', '#56B4E9', '#8C564B', '#BCBD22', '#17BECF', '#B8860B', '#6A3D9A', '#2CA02C'];

/**
 * The colour of a series, by what it stands for. `subjects` lists every server (or run) the page
 * measures, in order, and `others` what else it draws (the bare HTTP floor); with more than one, each has its own colour on every chart (its baseline round
 * paler). With one, its index rounds are told apart: baseline always orange, optimized always
 * blue (and no index set: vermilion).
 */
export function seriesColor(
  series: { subject: string; indexes: string | null },
  subjects: readonly string[],
  others: readonly string[] = [],
): string {
  const i = subjects.indexOf(series.subject);
  // a series of none of them (the bare HTTP floor beside a run's servers, listed in `others`): a colour of its own
  if (i < 0)
    return SUBJECTS[(Math.max(subjects.length, 1) + Math.max(others.indexOf(series.subject), 0)) % SUBJECTS.length]!;
  // several servers: each its colour, its baseline round a paler shade of it
  if (subjects.length > 1) {
    const own = SUBJECTS[i % SUBJECTS.length]!;
    return series.indexes === 'baseline' ? shade(own, 0, 2) : own;
  }
  if (series.indexes === 'baseline') return MEANING.baseline;
  if (series.indexes === 'optimized') return MEANING.optimized;
  return SUBJECTS[0]!;
}

/**
 * A series' colour lightened towards white, for the `i`-th of `n` lines of one meaning (agent
 * counts: the fewest agents palest, the most the full colour). Stays a #rrggbb hex.
 */
export function shade(hex: string, i: number, n: number): string {
  const t = n > 1 ? ((n - 1 - i) / (n - 1)) * 0.6 : 0;
  const channel = (at: number) => {
    const c = Number.parseInt(hex.slice(at, at + 2), 16);
    return Math.round(c + (255 - c) * t)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(1)}${channel(3)}${channel(5)}`.toUpperCase();
}
