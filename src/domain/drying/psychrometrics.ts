/**
 * Moist-air properties from dry-bulb temperature and relative humidity, with the formulas of the
 * ASHRAE Handbook of Fundamentals: the Hyland–Wexler saturation pressure over water (over ice
 * below freezing), the humidity ratio W = 0.621945·pw/(p − pw), and the standard atmosphere's
 * pressure at an elevation. Moist air holds slightly more vapour than pure water vapour would
 * (the enhancement factor, 1.0007 + 3.46e-6·p in hPa, after Buck 1981: about 0.4% at sea level),
 * which ASHRAE's tables include. The dew point is the temperature whose saturation pressure is
 * the vapour pressure, found by solving the same formula, so that the two always agree.
 */

const GRAINS_PER_POUND = 7000;
const KPA_PER_INHG = 3.386389;
const FEET_TO_METRES = 0.3048;

const fToKelvin = (f: number): number => ((f - 32) * 5) / 9 + 273.15;
const kelvinToF = (k: number): number => ((k - 273.15) * 9) / 5 + 32;

/** Saturation vapour pressure in kPa at an absolute temperature (Hyland–Wexler, 1983). */
function saturationKpa(kelvin: number): number {
  const t = kelvin;
  const lnPa =
    t >= 273.15
      ? -5.8002206e3 / t +
        1.3914993 -
        4.8640239e-2 * t +
        4.1764768e-5 * t ** 2 -
        1.4452093e-8 * t ** 3 +
        6.5459673 * Math.log(t)
      : -5.6745359e3 / t +
        6.3925247 -
        9.677843e-3 * t +
        6.2215701e-7 * t ** 2 +
        2.0747825e-9 * t ** 3 -
        9.484024e-13 * t ** 4 +
        4.1635019 * Math.log(t);
  return Math.exp(lnPa) / 1000;
}

/** Pressure of the standard atmosphere in kPa at an elevation in feet. */
export function pressureAtKpa(elevationFt: number): number {
  return 101.325 * (1 - 2.25577e-5 * elevationFt * FEET_TO_METRES) ** 5.2559;
}

export const kpaToInHg = (kpa: number): number => kpa / KPA_PER_INHG;

/** The saturation pressure of moist air at `pressureKpa`: pure vapour's, enhanced. */
function moistSaturationKpa(kelvin: number, pressureKpa: number): number {
  return (1.0007 + 3.46e-5 * pressureKpa) * saturationKpa(kelvin);
}

/**
 * The temperature (K) whose saturation pressure is `kpa`: Newton's method on ln(pressure),
 * which is nearly linear in 1/T, from a start 10 K below the freezing point.
 */
function dewPointKelvin(kpa: number, pressureKpa: number): number {
  const target = Math.log(kpa);
  let t = 263.15;
  for (let i = 0; i < 20; i++) {
    const f = Math.log(moistSaturationKpa(t, pressureKpa)) - target;
    const slope =
      (Math.log(moistSaturationKpa(t + 0.01, pressureKpa)) - Math.log(moistSaturationKpa(t, pressureKpa))) /
      0.01;
    const step = f / slope;
    t -= step;
    if (Math.abs(step) < 1e-6) break;
  }
  return t;
}

export interface AirProperties {
  gpp: number;
  dewPointF: number | null;
  vaporPressureInHg: number;
}

/** Grains per pound, dew point and vapour pressure of air at `tempF` and `rhPct`, at `pressureKpa`. */
export function airProperties(tempF: number, rhPct: number, pressureKpa: number): AirProperties {
  const vapourKpa = (rhPct / 100) * moistSaturationKpa(fToKelvin(tempF), pressureKpa);
  const humidityRatio = (0.621945 * vapourKpa) / (pressureKpa - vapourKpa);
  return {
    gpp: humidityRatio * GRAINS_PER_POUND,
    dewPointF: vapourKpa > 0 ? kelvinToF(dewPointKelvin(vapourKpa, pressureKpa)) : null,
    vaporPressureInHg: kpaToInHg(vapourKpa),
  };
}
