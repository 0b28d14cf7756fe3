// Python's round(x, 2): correctly rounded on the exact binary value, ties to even. toFixed(2) agrees
// except on exact binary ties, where it rounds away from zero.

function isExactHalfHundredth(x: number): boolean {
  // x is a tie iff x * 200 is exactly an odd integer. x = mantissa * 2^exponent, exactly.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent: number;
  if (biased === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  const scaled = mantissa * 200n;
  if (exponent >= 0) return false; // an even integer
  const divisor = 1n << BigInt(-exponent);
  if (scaled % divisor !== 0n) return false;
  return (scaled / divisor) % 2n === 1n;
}

export function roundHalfEven2(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e15) return x;
  const abs = Math.abs(x);
  let r = Number(abs.toFixed(2));
  if (isExactHalfHundredth(abs)) {
    const down = Number((Math.round(abs * 100 - 0.5) / 100).toFixed(2));
    const cents = Math.round(down * 100);
    r = cents % 2 === 0 ? down : Number(((cents + 1) / 100).toFixed(2));
  }
  return x < 0 ? -r : r;
}
