/**
 * Formats a float the way Ruby's Float#to_s does, which is what the Rails service wrote in both
 * its XML and its JSON: always a decimal point (`12.0`), plain notation for 1e-4 <= |x| < 1e16,
 * otherwise scientific with a signed, at least two-digit exponent (`1.0e-05`, `1.5e+16`).
 * Digits are the shortest that round-trip, as in both Ruby and JavaScript.
 */
export function rubyFloat(value: number): string {
  const magnitude = Math.abs(value);
  // Fast path: in Ruby's plain-notation range JavaScript writes the same shortest digits.
  if (magnitude >= 1e-4 && magnitude < 1e16) return Number.isInteger(value) ? `${value}.0` : String(value);
  return rubyFloatGeneral(value);
}

/** The general algorithm, for every finite value (the fast path is checked against it). */
export function rubyFloatGeneral(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite float: ${value}`);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest round-trip digits: "d.ddde±x".
  const [mantissa = '', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  // Ruby's decpt: the value is 0.d1d2... x 10^decpt.
  const decpt = exponent + 1;
  if (decpt > 0 && decpt <= 16) {
    const whole = digits.slice(0, decpt).padEnd(decpt, '0');
    const fraction = digits.slice(decpt) || '0';
    return `${sign}${whole}.${fraction}`;
  }
  if (decpt <= 0 && decpt > -4) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  const expSign = exponent < 0 ? '-' : '+';
  const expDigits = String(Math.abs(exponent)).padStart(2, '0');
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}e${expSign}${expDigits}`;
}
