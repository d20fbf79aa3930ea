/** Exact decimal arithmetic for {"add": n}: Faucet sets values, it cannot add in the database. */

const DECIMAL = /^([-+]?)(\d+)(?:\.(\d+))?$/;

function decimalParts(value: unknown): { sign: bigint; digits: string; scale: number } {
  const text =
    typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`cannot add to or with ${JSON.stringify(value)}: not a plain decimal number`);
  return { sign: m[1] === '-' ? -1n : 1n, digits: `${m[2]}${m[3] ?? ''}`, scale: (m[3] ?? '').length };
}

/** `a + b` exactly, as a decimal string (a number when both are integers given as numbers). */
export function addDecimal(a: unknown, b: unknown): number | string {
  const [x, y] = [decimalParts(a), decimalParts(b)];
  const scale = Math.max(x.scale, y.scale);
  const scaled = (p: typeof x) => p.sign * BigInt(p.digits) * 10n ** BigInt(scale - p.scale);
  const sum = scaled(x) + scaled(y);
  const digits = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  const text = `${sum < 0n ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
  return typeof a === 'number' && typeof b === 'number' && scale === 0 && Number.isSafeInteger(Number(text))
    ? Number(text)
    : text;
}
