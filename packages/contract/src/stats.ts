/**
 * The few distributions the claims rules need (claims.ts, interval.ts): the binomial's lower tail,
 * Student's t, the normal. Pure and exact enough for p-values down to 1e-12: Lanczos' log-gamma
 * and the regularised incomplete beta function by its continued fraction (Numerical Recipes 6.4).
 */

/** P(B ≤ j), B ~ Binomial(n, 1/2), in log space so large n neither underflows nor overflows. */
export function binomialCdf(n: number, j: number): number {
  let lnChoose = 0;
  let sum = 0;
  for (let i = 0; i <= j; i++) {
    if (i > 0) lnChoose += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(lnChoose - n * Math.LN2);
  }
  return Math.min(sum, 1);
}

/** P(B ≥ j), B ~ Binomial(n, q). */
export function binomialUpper(n: number, q: number, j: number): number {
  if (j <= 0) return 1;
  if (j > n) return 0;
  if (q <= 0) return 0;
  if (q >= 1) return 1;
  let sum = 0;
  for (let i = j; i <= n; i++)
    sum += Math.exp(lnGamma(n + 1) - lnGamma(i + 1) - lnGamma(n - i + 1) + i * Math.log(q) + (n - i) * Math.log1p(-q));
  return Math.min(sum, 1);
}

const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905,
  -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];

/** ln Γ(x), x > 0 (Lanczos, g = 7: 15 digits). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const aa of [
      (m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
      (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1)),
    ]) {
      d = 1 + aa * d;
      if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c;
      if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b). */
export function betaIncomplete(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // the fraction converges fast on this side of the mean; the other side by symmetry
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T > t), T ~ Student's t with `df` degrees of freedom. */
export function studentTUpper(t: number, df: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Number.POSITIVE_INFINITY) return 0;
  if (t === Number.NEGATIVE_INFINITY) return 1;
  const tail = 0.5 * betaIncomplete(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

/** The t such that P(T > t) = p (bisection on the monotone tail: a few dozen steps). */
export function studentTQuantileUpper(p: number, df: number): number {
  let lo = -1e6;
  let hi = 1e6;
  for (let i = 0; i < 200 && hi - lo > 1e-10 * Math.max(1, Math.abs(hi)); i++) {
    const mid = (lo + hi) / 2;
    if (studentTUpper(mid, df) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Φ(z), the standard normal distribution function (Abramowitz and Stegun 26.2.17: error below 7.5e-8). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  const upper = (Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI)) * poly;
  return z >= 0 ? 1 - upper : upper;
}
