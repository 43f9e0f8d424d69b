/**
 * The difference between two runs' estimates of one metric, with a 95% interval of that
 * difference built from the two estimates' own 95% intervals by the MOVER method (method of
 * variance estimates recovery; Zou and Donner, 2008). For two shares with Wilson intervals it
 * is Newcombe's hybrid score interval (his method 10, 1998); it serves bootstrap intervals
 * (diversity at equal size) the same way. The two estimates are taken as independent.
 */

/** An estimate and its 95% interval. */
export interface IntervalEstimate {
  value: number;
  interval: readonly [number, number];
}

export interface Difference {
  /** later − first. */
  value: number;
  /** 95% interval of the difference. */
  interval: [number, number];
  /** The interval lies wholly above or wholly below zero. */
  excludesZero: boolean;
}

/** `later − first`, with the MOVER 95% interval of the difference. */
export function differenceOf(first: IntervalEstimate, later: IntervalEstimate): Difference {
  const value = later.value - first.value;
  const [firstLow, firstHigh] = first.interval;
  const [laterLow, laterHigh] = later.interval;
  const low = value - Math.hypot(later.value - laterLow, firstHigh - first.value);
  const high = value + Math.hypot(laterHigh - later.value, first.value - firstLow);
  return { value, interval: [low, high], excludesZero: low > 0 || high < 0 };
}
