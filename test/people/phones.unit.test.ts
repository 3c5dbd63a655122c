/**
 * phone_normalized (src/domain/people/phones.ts): a phone is kept as typed, and also shown in one
 * form whatever way it was typed — `(217) 555-0142` for a North American number, `+` and digits
 * for one typed with a country code — so that one number typed two ways reads the same.
 */
import fc from 'fast-check';
import { normalPhone } from '../../src/domain/people/phones';

describe('normalPhone', () => {
  it.each([
    ['217.555.0142'],
    ['(217) 555-0142'],
    ['217 555 0142'],
    ['2175550142'],
    ['12175550142'],
    ['1-217-555-0142'],
    ['+1 217 555 0142'],
    ['+1 (217) 555-0142'],
    ['+12175550142'],
    ['  217-555-0142  '],
  ])('writes the North American %j as (217) 555-0142', (typed) => {
    expect(normalPhone(typed)).toBe('(217) 555-0142');
  });

  it.each([
    ['+44 20 7946 0958', '+442079460958'],
    ['+33 1 23 45 67 89', '+33123456789'],
    ['+61 (2) 9374-4000', '+61293744000'],
  ])('writes the international %j as + and digits: %s', (typed, normal) => {
    expect(normalPhone(typed)).toBe(normal);
  });

  it('writes other numbers of seven digits or more as their digits', () => {
    expect(normalPhone('555-0142')).toBe('5550142');
    expect(normalPhone('0044 20 7946 0958')).toBe('00442079460958');
    expect(normalPhone('22175550142')).toBe('22175550142'); // 11 digits not starting with 1
  });

  it.each([[null], [undefined], [''], ['   '], ['555 01'], ['call the office'], ['+1'], ['ext. 12']])(
    'is null for %j: no phone, or too short to be one',
    (typed) => {
      expect(normalPhone(typed)).toBeNull();
    },
  );

  it('reads its own answer back unchanged', () => {
    const typed = fc
      .tuple(
        fc.constantFrom('', '+', '+1 ', '1-', '('),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 14 }),
        fc.constantFrom('', ' ', '-', '.', ') '),
      )
      .map(([prefix, digits, separator]) => `${prefix}${digits.map(String).join(separator)}`);
    fc.assert(
      fc.property(typed, (phone) => {
        const normal = normalPhone(phone);
        if (normal !== null) expect(normalPhone(normal)).toBe(normal);
      }),
    );
  });
});
