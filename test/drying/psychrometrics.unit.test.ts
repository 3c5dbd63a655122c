/**
 * src/domain/drying/psychrometrics.ts against published values: the humidity ratio of saturated
 * air and the saturation pressure of water from ASHRAE Handbook—Fundamentals (2017), ch. 1,
 * table 2 (101.325 kPa), the standard atmosphere of table 1, and common dew points.
 */
import fc from 'fast-check';
import { airProperties, kpaToInHg, pressureAtKpa } from '../../src/domain/drying/psychrometrics';

const SEA_LEVEL_KPA = 101.325;
const KPA_PER_INHG = 3.386389;
const celsiusToF = (c: number): number => (c * 9) / 5 + 32;

/** °C, humidity ratio at saturation Ws (kg/kg) and saturation pressure pws (kPa); below 0 °C over ice. */
const ASHRAE_SATURATION: [number, number, number][] = [
  [-40, 0.0000793, 0.01285],
  [-10, 0.001606, 0.25991],
  [0, 0.003789, 0.61115],
  [10, 0.007661, 1.2282],
  [20, 0.014758, 2.3389],
  [30, 0.027329, 4.2467],
  [40, 0.049141, 7.3844],
];

describe('air at saturation (RH 100%) at sea level', () => {
  it.each(ASHRAE_SATURATION)(
    'at %d °C holds what ASHRAE tabulates: GPP within 0.3 or 0.2%%, the dew point at the dry bulb',
    (celsius, ws, pws) => {
      const air = airProperties(celsiusToF(celsius), 100, SEA_LEVEL_KPA);
      const gpp = ws * 7000;
      expect(Math.abs(air.gpp - gpp)).toBeLessThanOrEqual(Math.max(0.3, gpp * 0.002));
      expect(air.dewPointF).not.toBeNull();
      expect(Math.abs(air.dewPointF! - celsiusToF(celsius))).toBeLessThanOrEqual(0.01);
      // Moist air's vapour pressure is pure water's times the enhancement factor, about 1.004 here.
      const ratio = (air.vaporPressureInHg * KPA_PER_INHG) / pws;
      expect(ratio).toBeGreaterThan(1.002);
      expect(ratio).toBeLessThan(1.006);
    },
  );
});

describe('air at common conditions', () => {
  it.each([
    // °F, RH %, dew point °F, GPP at sea level. 70 °F and 80 °F as psychrometric charts give
    // them; 68 °F (20 °C) from table 2's pws, 2.3389 kPa: pw = 0.5 × 1.0042 × 2.3389 kPa,
    // W = 0.621945 pw / (101.325 − pw), and the dew point where pws = 1.1694 kPa (9.27 °C).
    [70, 50, 50.5, 54.7],
    [80, 60, 64.9, 92.5],
    [68, 50, 48.7, 51.05],
  ])('%d °F at %d%%: dew point %d °F, %d GPP', (tempF, rh, dewPoint, gpp) => {
    const air = airProperties(tempF, rh, SEA_LEVEL_KPA);
    expect(Math.abs(air.dewPointF! - dewPoint)).toBeLessThanOrEqual(0.3);
    expect(Math.abs(air.gpp - gpp)).toBeLessThanOrEqual(0.5);
  });

  it('has no dew point and no moisture in perfectly dry air', () => {
    expect(airProperties(70, 0, SEA_LEVEL_KPA)).toEqual({ gpp: 0, dewPointF: null, vaporPressureInHg: 0 });
  });

  it('holds more moisture as RH or temperature rises, and the dew point never exceeds the dry bulb', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -400, max: 1500 }).map((x) => x / 10),
        fc.integer({ min: 1, max: 999 }).map((x) => x / 10),
        (tempF, rh) => {
          const air = airProperties(tempF, rh, SEA_LEVEL_KPA);
          expect(airProperties(tempF, rh + 0.1, SEA_LEVEL_KPA).gpp).toBeGreaterThan(air.gpp);
          expect(airProperties(tempF + 0.1, rh, SEA_LEVEL_KPA).gpp).toBeGreaterThan(air.gpp);
          expect(air.dewPointF!).toBeLessThan(tempF + 1e-6);
        },
      ),
    );
  });
});

describe('pressure and elevation', () => {
  it('is the standard atmosphere: 101.325 kPa (29.92 inHg) at sea level, ASHRAE table 1 at altitude', () => {
    expect(pressureAtKpa(0)).toBeCloseTo(SEA_LEVEL_KPA, 6);
    expect(kpaToInHg(SEA_LEVEL_KPA)).toBeCloseTo(29.921, 3);
    // Table 1: 1,500 m → 84.556 kPa, 3,000 m → 70.109 kPa, −500 m → 107.478 kPa.
    expect(pressureAtKpa(1500 / 0.3048)).toBeCloseTo(84.556, 2);
    expect(pressureAtKpa(3000 / 0.3048)).toBeCloseTo(70.109, 2);
    expect(pressureAtKpa(-500 / 0.3048)).toBeCloseTo(107.478, 2);
    expect(kpaToInHg(pressureAtKpa(5000))).toBeCloseTo(24.9, 1);
  });

  it('raises GPP about 20% at 5,000 ft for the same air, and leaves the dew point where it was', () => {
    const low = airProperties(70, 50, pressureAtKpa(0));
    const high = airProperties(70, 50, pressureAtKpa(5000));
    const pw = low.vaporPressureInHg * KPA_PER_INHG;
    // W = 0.621945 pw / (p − pw) at 84.31 kPa.
    expect(Math.abs(high.gpp - ((0.621945 * pw) / (84.31 - pw)) * 7000)).toBeLessThanOrEqual(0.3);
    expect(high.gpp / low.gpp).toBeCloseTo(1.2, 1);
    expect(Math.abs(high.dewPointF! - low.dewPointF!)).toBeLessThan(0.05);
  });
});
