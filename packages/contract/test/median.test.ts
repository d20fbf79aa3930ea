import { expect, it } from 'vitest';
import { median } from '../src/median.js';

it('median: the middle value, the mean of the middle two for an even count, NaN for none', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([10, 1])).toBe(5.5);
  expect(median([7])).toBe(7);
  expect(median([])).toBeNaN();
  const values = [3, 1, 2];
  median(values);
  expect(values).toEqual([3, 1, 2]);
});
