// Header handling for a forwarding proxy (RFC 9110 §7.6.1): hop-by-hop headers, and the headers named in
// `Connection`, describe one connection and are not forwarded; everything else passes in its original
// order and spelling. The client's `Host` never reaches the upstream (undici sets the upstream's own), and
// no request header is ever looked at for routing or written to a capture file.

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

// Request-only: `host` names this proxy; `expect: 100-continue` is answered by node:http itself.
const REQUEST_ONLY = new Set(['host', 'expect']);

/** Header names listed in `Connection` values (lower-cased). */
function connectionTokens(raw: readonly string[]): Set<string> {
  const tokens = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() !== 'connection') continue;
    for (const t of raw[i + 1].split(',')) if (t.trim()) tokens.add(t.trim().toLowerCase());
  }
  return tokens;
}

function filter(raw: readonly string[], drop: (lowerName: string) => boolean): string[] {
  const listed = connectionTokens(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || drop(lower)) continue;
    out.push(raw[i], raw[i + 1]);
  }
  return out;
}

/** The end-to-end request headers to send upstream, from node's flat `req.rawHeaders`. */
export function upstreamRequestHeaders(rawHeaders: readonly string[]): string[] {
  return filter(rawHeaders, (name) => REQUEST_ONLY.has(name));
}

/** The end-to-end response headers to send to the client, as a flat `[name, value, ...]` list. */
export function clientResponseHeaders(rawHeaders: readonly string[]): string[] {
  return filter(rawHeaders, () => false);
}

/** Undici's raw header buffers as latin1 strings (header bytes are octets, not UTF-8). */
export function rawHeaderStrings(raw: readonly (Buffer | string)[]): string[] {
  return raw.map((h) => (typeof h === 'string' ? h : h.toString('latin1')));
}

/** The first value of a header (case-insensitive name match), as the middleware reads `content-type`. */
export function firstHeader(raw: readonly string[], name: string): string | null {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return null;
}

/** All `content-encoding` codings in the order they were applied, lower-cased, `identity` dropped. */
export function contentCodings(raw: readonly string[]): string[] {
  const codings: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() !== 'content-encoding') continue;
    for (const c of raw[i + 1].split(',')) {
      const coding = c.trim().toLowerCase();
      if (coding && coding !== 'identity') codings.push(coding);
    }
  }
  return codings;
}

/** Whether a request carries a body (RFC 9112 §6.3): a `Transfer-Encoding` or a non-zero `Content-Length`. */
export function requestHasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}
