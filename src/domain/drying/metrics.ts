/**
 * What each reading metric is: air (temperature, relative humidity) or a material's moisture,
 * the values it may take, and for materials the default dry goal used when the log has no
 * unaffected reference (see get_drying_log in the spec).
 */
import type { components } from '../../../sdk/src/schema';

export type Metric = components['schemas']['DryingMetric'];
export type ReadingLocation = components['schemas']['ReadingLocation'];
/** What is stored: `temp_c` readings become `temp_f`. */
export type StoredMetric = Exclude<Metric, 'temp_c'>;
export type MaterialMetric = Exclude<StoredMetric, 'temp_f' | 'rh_pct'>;

interface Range {
  min: number;
  max: number;
  unit: string;
}

const AIR_RANGES: Record<'temp_f' | 'temp_c' | 'rh_pct', Range> = {
  temp_f: { min: -40, max: 200, unit: '°F' },
  temp_c: { min: -40, max: 93, unit: '°C' },
  rh_pct: { min: 0, max: 100, unit: '%' },
};
const MOISTURE_RANGE: Range = { min: 0, max: 1000, unit: '' };

/** Typical dry readings on a pin meter's wood-moisture-equivalent scale (concrete: a concrete scale). */
export const DEFAULT_DRY_GOALS: Record<MaterialMetric, number> = {
  drywall: 17,
  wood: 15,
  subfloor: 15,
  concrete: 4,
  carpet: 17,
  pad: 17,
  insulation: 17,
  ceiling_tile: 17,
  baseboard: 15,
  cabinet: 15,
};

export function isMaterial(metric: StoredMetric): metric is MaterialMetric {
  return metric in DEFAULT_DRY_GOALS;
}

export function rangeOf(metric: Metric): Range {
  return metric in AIR_RANGES ? AIR_RANGES[metric as keyof typeof AIR_RANGES] : MOISTURE_RANGE;
}

/** The metric and value as stored: Celsius becomes Fahrenheit. */
export function stored(metric: Metric, value: number): { metric: StoredMetric; value: number } {
  return metric === 'temp_c' ? { metric: 'temp_f', value: (value * 9) / 5 + 32 } : { metric, value };
}
