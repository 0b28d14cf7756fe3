// Which listening addresses count as loopback (serve and proxy refuse others without a token or a flag).
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
